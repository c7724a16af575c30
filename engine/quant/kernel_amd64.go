//go:build amd64 && !purego

package quant

// The Q8_0 and Q4_0 products in AVX2 assembly (kernel_amd64.s), four rows
// at a time. They give the Go kernels' results bit for bit (TestSIMDMatchesGo):
// a block's integer products are summed exactly, in any order; then each
// row, one float32 lane of four, adds its blocks' sums times the two scales
// in block order, rounded as mulQ8_0 and mulQ4_0 round them.

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

// UseSIMD turns the assembly kernels on, where the CPU runs them, or off.
// The results do not change, only the speed; tests compare the two.
func UseSIMD(on bool) { simd = on && hasAVX2 }

// Kernel names the kernels MulVec uses for Q8_0 and Q4_0: "AVX2" or "Go".
func Kernel() string {
	if simd {
		return "AVX2"
	}
	return "Go"
}

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// xgetbv returns the low half of XCR0: which register states the
// operating system saves.
func xgetbv() uint32

// mulQ8_0AVX2 and mulQ4_0AVX2 set out[0 … 4·groups) to rows of w
// (rowBytes apart, blocks blocks each) times the vector q, d (and sums,
// for Q4_0's −8; Q8_0 takes it only to share the other's arguments).
//
//go:noescape
func mulQ8_0AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, groups int)

//go:noescape
func mulQ4_0AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, groups int)

// mulQ8_0SIMD multiplies the first rows of w by v as mulQ8_0 does, four at
// a time in assembly, and returns how many it did: none without AVX2, and
// never the last len(out) mod 4, which are left to the Go kernel.
func mulQ8_0SIMD(out []float32, w []byte, v *Vec) int {
	n, rowBytes := simdRows(out, w, v, q8_0Bytes)
	if n > 0 {
		mulQ8_0AVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.sums[0], len(v.d), n/4)
	}
	return n
}

// mulQ4_0SIMD is mulQ8_0SIMD for Q4_0 rows (mulQ4_0).
func mulQ4_0SIMD(out []float32, w []byte, v *Vec) int {
	n, rowBytes := simdRows(out, w, v, q4_0Bytes)
	if n > 0 {
		mulQ4_0AVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.sums[0], len(v.d), n/4)
	}
	return n
}

//go:noescape
func dotsQ4_KAVX2(dst *int32, w *byte, rowBytes int, q *int8, pairs *int32, blocks, rows int)

// q4_KChunk is how many rows dotsQ4_KAVX2 takes at a time: their integer
// sums stay in the caches until the Go loop scales them.
const q4_KChunk = 64

// mulQ4_KSIMD multiplies the rows of w by v as mulQ4_K does: the integer
// sums of each block (dotQ4_K's) in assembly, a chunk of rows at a time,
// then their float part in Go (scaleQ4_K), in the same order. It returns
// how many rows it did: all of them, or none without AVX2.
func mulQ4_KSIMD(out []float32, w []byte, v *Vec) int {
	blocks := len(v.d)
	if !simd || len(out) == 0 || blocks == 0 {
		return 0
	}
	rowBytes := blocks * q4_KBytes
	if len(w) < len(out)*rowBytes || len(v.q) < blocks*QK_K || len(v.sums) < blocks*QK_K/16 {
		panic("quant: a product's matrix or vector is shorter than its shape")
	}
	// The vector's sums over groups of 32, which the mins multiply, then
	// room for a chunk's pairs (sumi, mins).
	need := blocks*8 + q4_KChunk*blocks*2
	if cap(v.scratch) < need {
		v.scratch = make([]int32, need)
	}
	pairs, dots := v.scratch[:blocks*8], v.scratch[blocks*8:need]
	for g := range pairs {
		pairs[g] = v.sums[2*g] + v.sums[2*g+1]
	}
	for first := 0; first < len(out); first += q4_KChunk {
		n := min(q4_KChunk, len(out)-first)
		dotsQ4_KAVX2(&dots[0], &w[first*rowBytes], rowBytes, &v.q[0], &pairs[0], blocks, n)
		for i := range n {
			row := w[(first+i)*rowBytes:]
			var sum float32
			for b, vd := range v.d {
				blk := (*[q4_KBytes]byte)(row[b*q4_KBytes:])
				sum += scaleQ4_K(blk, vd, dots[2*(i*blocks+b)], dots[2*(i*blocks+b)+1])
			}
			out[first+i] = sum
		}
	}
	return len(out)
}

// simdRows is the number of rows the assembly multiplies, and their size,
// after checking that w and v hold what those rows read: the assembly
// checks no bounds.
func simdRows(out []float32, w []byte, v *Vec, blockBytes int) (n, rowBytes int) {
	n, rowBytes = len(out)&^3, len(v.d)*blockBytes
	if !simd || n == 0 || len(v.d) == 0 {
		return 0, rowBytes
	}
	if len(w) < n*rowBytes || len(v.q) < 32*len(v.d) || len(v.sums) < len(v.d) {
		panic("quant: a product's matrix or vector is shorter than its shape")
	}
	return n, rowBytes
}
