//go:build amd64 && !purego

package quant

import "unsafe"

// The products in AVX2 assembly (kernel_amd64.s): Q5_0, Q5_1 and IQ4_NL
// four rows at a time, Q8_0 and Q4_0 two rows at a time, the formats of
// blocks of 256 (Q2_K–Q6_K, IQ4_XS) one row at a time. Where the CPU has
// AVX-512 VNNI, Q8_0's and Q4_0's integer products use it (VPDPBUSD),
// and a model's Q8_0 and Q4_0 matrices have their rows interleaved
// (Interleave), eight a register. The activations
// are quantized to Q8_0's blocks in assembly too (quantizeQ8_0AVX2). They give the Go kernels' results
// bit for bit (TestSIMDMatchesGo): a block's integer products are summed
// exactly, in any order; then each row adds its blocks' sums times their
// scales in block order, rounded as the Go kernels round them.

// simd reports whether MulVec uses the assembly kernels: where the CPU
// runs them, unless UseSIMD turned them off.
var simd = hasAVX2

// hasAVX2 reports whether the CPU runs the assembly kernels: AVX2 for the
// integer products, F16C for the scales (VCVTPH2PS, exact for every half),
// and an operating system that saves the YMM registers (OSXSAVE, and XCR0's
// SSE and AVX state bits).
var hasAVX2 = func() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	const osxsave, avx, f16c = 1 << 27, 1 << 28, 1 << 29
	_, _, ecx1, _ := cpuid(1, 0)
	if ecx1&(osxsave|avx|f16c) != osxsave|avx|f16c || xgetbv()&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx2 = 1 << 5
	return ebx7&avx2 != 0
}()

// vnni reports whether the kernels of Q8_0 and Q4_0 are those in AVX-512
// VNNI, which the CPU runs (hasVNNI), rather than those in AVX2.
var vnni = hasVNNI

// hasVNNI reports whether the CPU runs the AVX-512 VNNI kernels: AVX-512
// F, VL, BW and VNNI, and an operating system that saves the AVX-512
// state (XCR0's opmask and upper ZMM bits).
var hasVNNI = func() bool {
	if !hasAVX2 || xgetbv()&0xe0 != 0xe0 {
		return false
	}
	_, ebx7, ecx7, _ := cpuid(7, 0)
	const avx512f, avx512bw, avx512vl, vnni = 1 << 16, 1 << 30, 1 << 31, 1 << 11
	return ebx7&(avx512f|avx512bw|avx512vl) == avx512f|avx512bw|avx512vl && ecx7&vnni != 0
}()

// UseSIMD turns the assembly kernels on, the fastest the CPU runs, or off.
// The results do not change, only the speed; tests compare the two.
func UseSIMD(on bool) { simd, vnni = on && hasAVX2, on && hasVNNI }

// Kernel names the kernels MulVec uses: "AVX-512 VNNI" (for Q8_0 and
// Q4_0; AVX2 for the others), "AVX2" or "Go".
func Kernel() string {
	switch {
	case vnni:
		return "AVX-512 VNNI"
	case simd:
		return "AVX2"
	}
	return "Go"
}

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// xgetbv returns the low half of XCR0: which register states the
// operating system saves.
func xgetbv() uint32

// mulQ8_0AVX2 and mulQ4_0AVX2 set out[0 … rows) to rows of w (rowBytes
// apart, blocks blocks each) times the vector q, d (and sums, for Q4_0's
// −8; Q8_0 takes it only to share the other's arguments), one row at a
// time.
//
//go:noescape
func mulQ8_0AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, rows int)

// mulQ8_0VNNI is mulQ8_0AVX2 with the integer products in AVX-512 VNNI.
//
//go:noescape
func mulQ8_0VNNI(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, rows int)

// mulQ4_0AVX2 also takes the vector's blocks as nibblePairs lays them out.
//
//go:noescape
func mulQ4_0AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, rows int, pairs *int8)

// mulQ4_0VNNI is mulQ4_0AVX2 with the integer products in AVX-512 VNNI.
//
//go:noescape
func mulQ4_0VNNI(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, rows int, pairs *int8)

// mulQ5_1AVX2 sets out[0 … 4·groups) to rows of w times the vector as
// mulQ8_0AVX2 does for Q8_0 rows, but four rows at a time, with the
// vector's s (block_q8_1's) in sums' place.
//
//go:noescape
func mulQ5_1AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, s *float32, blocks, groups int)

// mulQ5_0AVX2 is mulQ5_1AVX2 for Q5_0 rows, with the vector's sums.
//
//go:noescape
func mulQ5_0AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, groups int)

// mulIQ4_NLAVX2 is mulQ5_1AVX2 for IQ4_NL rows, with the grid (iq4nlGrid)
// in s' place.
//
//go:noescape
func mulIQ4_NLAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, grid *int8, blocks, groups int)

// mulQ8_0SIMD multiplies the rows of w by v as mulQ8_0 does, in assembly,
// and returns how many rows it did: all of them, or none without AVX2.
func mulQ8_0SIMD(out []float32, w []byte, v *Vec) int {
	n, rowBytes := simdRows(out, w, v, q8_0Bytes, 1)
	if n > 0 {
		if vnni {
			mulQ8_0VNNI(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.sums[0], len(v.d), n)
		} else {
			mulQ8_0AVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.sums[0], len(v.d), n)
		}
	}
	return n
}

// mulQ5_1SIMD multiplies the first rows of w by v as mulQ5_1 does, four at
// a time in assembly, and returns how many it did: none without AVX2, and
// never the last len(out) mod 4, which are left to the Go kernel.
func mulQ5_1SIMD(out []float32, w []byte, v *Vec) int {
	n, rowBytes := simdRows(out, w, v, q5_1Bytes, 4)
	if n > 0 {
		mulQ5_1AVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.s[0], len(v.d), n/4)
	}
	return n
}

// mulQ5_0SIMD is mulQ5_1SIMD for Q5_0 rows (mulQ5_0).
func mulQ5_0SIMD(out []float32, w []byte, v *Vec) int {
	n, rowBytes := simdRows(out, w, v, q5_0Bytes, 4)
	if n > 0 {
		mulQ5_0AVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.sums[0], len(v.d), n/4)
	}
	return n
}

// mulIQ4_NLSIMD is mulQ5_1SIMD for IQ4_NL rows (mulIQ4_NL).
func mulIQ4_NLSIMD(out []float32, w []byte, v *Vec) int {
	n, rowBytes := simdRows(out, w, v, iq4_nlBytes, 4)
	if n > 0 {
		mulIQ4_NLAVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &iq4nlGrid[0], len(v.d), n/4)
	}
	return n
}

// mulQ4_0SIMD is mulQ8_0SIMD for Q4_0 rows (mulQ4_0).
func mulQ4_0SIMD(out []float32, w []byte, v *Vec) int {
	n, rowBytes := simdRows(out, w, v, q4_0Bytes, 1)
	if n > 0 {
		if vnni {
			mulQ4_0VNNI(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.sums[0], len(v.d), n, &v.nibblePairs()[0])
		} else {
			mulQ4_0AVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.sums[0], len(v.d), n, &v.nibblePairs()[0])
		}
	}
	return n
}

// mulQ4_KAVX2, mulQ5_KAVX2, mulQ6_KAVX2, mulQ3_KAVX2 and mulQ2_KAVX2 set
// out[0 … rows) to rows of w (rowBytes apart, blocks blocks each) times
// the vector q, d, as mulQ4_K, mulQ5_K, mulQ6_K, mulQ3_K and mulQ2_K do,
// one row at a time: each block's integer sums, then its float part, added
// to the row's sum in block order. groupSums are the vector's sums over
// groups of 32 for Q4_K and Q5_K, of 16 (Vec.sums) for the others.
//
//go:noescape
func mulQ4_KAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows int)

//go:noescape
func mulQ5_KAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows int)

//go:noescape
func mulQ6_KAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows int)

//go:noescape
func mulQ3_KAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows int)

//go:noescape
func mulQ2_KAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows int)

// mulIQ4_XSAVX2 is mulQ6_KAVX2 for IQ4_XS rows (mulIQ4_XS), with the grid
// (iq4nlGrid) in groupSums' place.
//
//go:noescape
func mulIQ4_XSAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, grid *int8, blocks, rows int)

// mulQ4_KSIMD multiplies the rows of w by v as mulQ4_K does, in assembly,
// and returns how many rows it did: all of them, or none without AVX2.
func mulQ4_KSIMD(out []float32, w []byte, v *Vec) int {
	rowBytes, ok := kRows(out, w, v, q4_KBytes)
	if !ok {
		return 0
	}
	mulQ4_KAVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.pairSums()[0], len(v.d), len(out))
	return len(out)
}

// mulQ5_KSIMD is mulQ4_KSIMD for Q5_K rows (mulQ5_K).
func mulQ5_KSIMD(out []float32, w []byte, v *Vec) int {
	rowBytes, ok := kRows(out, w, v, q5_KBytes)
	if !ok {
		return 0
	}
	mulQ5_KAVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.pairSums()[0], len(v.d), len(out))
	return len(out)
}

// mulQ6_KSIMD is mulQ4_KSIMD for Q6_K rows (mulQ6_K).
func mulQ6_KSIMD(out []float32, w []byte, v *Vec) int {
	rowBytes, ok := kRows(out, w, v, q6_KBytes)
	if !ok {
		return 0
	}
	mulQ6_KAVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.sums[0], len(v.d), len(out))
	return len(out)
}

// mulQ3_KSIMD is mulQ4_KSIMD for Q3_K rows (mulQ3_K).
func mulQ3_KSIMD(out []float32, w []byte, v *Vec) int {
	rowBytes, ok := kRows(out, w, v, q3_KBytes)
	if !ok {
		return 0
	}
	mulQ3_KAVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.sums[0], len(v.d), len(out))
	return len(out)
}

// mulQ2_KSIMD is mulQ4_KSIMD for Q2_K rows (mulQ2_K).
func mulQ2_KSIMD(out []float32, w []byte, v *Vec) int {
	rowBytes, ok := kRows(out, w, v, q2_KBytes)
	if !ok {
		return 0
	}
	mulQ2_KAVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.sums[0], len(v.d), len(out))
	return len(out)
}

// mulIQ4_XSSIMD is mulQ4_KSIMD for IQ4_XS rows (mulIQ4_XS).
func mulIQ4_XSSIMD(out []float32, w []byte, v *Vec) int {
	rowBytes, ok := kRows(out, w, v, iq4_xsBytes)
	if !ok {
		return 0
	}
	mulIQ4_XSAVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &iq4nlGrid[0], len(v.d), len(out))
	return len(out)
}

// kRows reports whether the assembly multiplies the rows of w, a format of
// blocks of 256, and their size, after checking that w and v hold what
// those rows read: the assembly checks no bounds.
func kRows(out []float32, w []byte, v *Vec, blockBytes int) (rowBytes int, ok bool) {
	blocks := len(v.d)
	rowBytes = blocks * blockBytes
	if !simd || len(out) == 0 || blocks == 0 {
		return rowBytes, false
	}
	if len(w) < len(out)*rowBytes || len(v.q) < blocks*QK_K || len(v.sums) < blocks*QK_K/16 {
		panic("quant: a product's matrix or vector is shorter than its shape")
	}
	return rowBytes, true
}

// prepare derives from v, just quantized for a matrix of type t, what
// t's assembly reads besides its blocks, into v's scratch: the kernels
// then only read v.
func (v *Vec) prepare(t Type) {
	switch t {
	case Q4_0:
		v.layNibblePairs()
	case Q4_K, Q5_K:
		v.sumPairs()
	}
}

// layNibblePairs lays out the vector's blocks of 32 for mulQ4_0AVX2,
// which multiplies two Q4_0 blocks in one register, their weights 0–15
// side by side, then 16–31: in each run of eight blocks (the rest are
// left out), blocks k and k+4 for k < 4, as k's first 16 int8, k+4's
// first 16, k's last 16, k+4's last 16; in v's scratch (nibblePairs).
func (v *Vec) layNibblePairs() {
	v.grow(len(v.q) / 4)
	pairs := v.nibblePairs()
	for g := 0; g+256 <= len(v.q); g += 256 {
		for k := range 4 {
			a, b, p := v.q[g+32*k:], v.q[g+32*(k+4):], pairs[g+64*k:]
			copy(p[0:16], a[0:16])
			copy(p[16:32], b[0:16])
			copy(p[32:48], a[16:32])
			copy(p[48:64], b[16:32])
		}
	}
}

// nibblePairs is v's scratch as layNibblePairs lays it out.
func (v *Vec) nibblePairs() []int8 {
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(v.scratch))), len(v.q))
}

// sumPairs sets v's scratch to its sums over groups of 32, which Q4_K's
// and Q5_K's mins multiply (pairSums).
func (v *Vec) sumPairs() {
	pairs := v.grow(len(v.sums) / 2)
	for g := range pairs {
		pairs[g] = v.sums[2*g] + v.sums[2*g+1]
	}
}

// pairSums is v's scratch as sumPairs sets it.
func (v *Vec) pairSums() []int32 { return v.scratch[:len(v.sums)/2] }

// simdRows is the number of rows the assembly multiplies, a multiple of
// those it takes at a time, and their size, after checking that w and v
// hold what those rows read: the assembly checks no bounds.
func simdRows(out []float32, w []byte, v *Vec, blockBytes, atATime int) (n, rowBytes int) {
	n, rowBytes = len(out)/atATime*atATime, len(v.d)*blockBytes
	if !simd || n == 0 || len(v.d) == 0 {
		return 0, rowBytes
	}
	if len(w) < n*rowBytes || len(v.q) < 32*len(v.d) || len(v.sums) < len(v.d) {
		panic("quant: a product's matrix or vector is shorter than its shape")
	}
	return n, rowBytes
}

// quantizeQ8_0AVX2 quantizes blocks blocks of 32 of x into q, d, s and
// sums as quantizeQ8_0Go does, stopping before a block whose largest
// magnitude is infinite or NaN, and returns how many it did.
//
//go:noescape
func quantizeQ8_0AVX2(x *float32, q *int8, d, s *float32, sums *int32, blocks int) int

// quantizeQ8_0SIMD quantizes the blocks of 32 of x into q, d, s and sums
// (one block of x each) in assembly where it can, and returns how many
// it did.
func quantizeQ8_0SIMD(x []float32, q []int8, d, s []float32, sums []int32) int {
	n := len(d)
	if !simd || n == 0 {
		return 0
	}
	_, _, _, _ = x[n*32-1], q[n*32-1], s[n-1], sums[n-1]
	return quantizeQ8_0AVX2(&x[0], &q[0], &d[0], &s[0], &sums[0], n)
}

// canInterleave is whether matrices may have their rows interleaved:
// where the kernels that read them are built.
const canInterleave = true

// Interleave lays out m's rows, in place, for the kernels MulVec uses: a
// Q8_0 or Q4_0 m's eight at a time (interleave.go), for AVX-512 VNNI's;
// otherwise it leaves m as it is. m's bytes must be its own, in the row
// layout, and a Slice of m must start and end at a multiple of eight rows
// (or at its end).
func Interleave(m *Matrix) {
	if _, ok := interleaves(m.Type); ok && vnni && m.groups == 0 {
		interleave(m)
	}
}

// mulGroupsSIMD multiplies interleaved rows as mulGroupsGo does, in
// assembly, and reports whether it did: only with AVX-512 VNNI.
func mulGroupsSIMD(t Type, out []float32, w []byte, v *Vec) bool {
	if !vnni || len(out) == 0 || len(v.d) == 0 {
		return false
	}
	if len(w) < len(out)*len(v.d)*t.BlockBytes() || len(v.q) < 32*len(v.d) || len(v.sums) < len(v.d) {
		panic("quant: a product's matrix or vector is shorter than its shape")
	}
	if t == Q8_0 {
		mulQ8_0GroupsVNNI(&out[0], &w[0], &v.q[0], &v.d[0], &v.sums[0], len(v.d), len(out)/groupRows)
	} else {
		mulQ4_0GroupsVNNI(&out[0], &w[0], &v.q[0], &v.d[0], &v.sums[0], len(v.d), len(out)/groupRows)
	}
	return true
}

// mulQ8_0GroupsVNNI and mulQ4_0GroupsVNNI set out[0 … 8·groups) to the
// interleaved rows at w (blocks blocks each) times the vector q, d, sums,
// a row a lane, each lane adding its row's blocks in order.
//
//go:noescape
func mulQ8_0GroupsVNNI(out *float32, w *byte, q *int8, d *float32, sums *int32, blocks, groups int)

//go:noescape
func mulQ4_0GroupsVNNI(out *float32, w *byte, q *int8, d *float32, sums *int32, blocks, groups int)
