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

// mulQ5_1AVX2 is mulQ8_0AVX2 for Q5_1 rows, with the vector's s (block_q8_1's)
// in sums' place.
//
//go:noescape
func mulQ5_1AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, s *float32, blocks, groups int)

// mulIQ4_NLAVX2 is mulQ8_0AVX2 for IQ4_NL rows, with the grid (iq4nlGrid)
// in sums' place.
//
//go:noescape
func mulIQ4_NLAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, grid *int8, blocks, groups int)

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

// mulQ5_1SIMD is mulQ8_0SIMD for Q5_1 rows (mulQ5_1).
func mulQ5_1SIMD(out []float32, w []byte, v *Vec) int {
	n, rowBytes := simdRows(out, w, v, q5_1Bytes)
	if n > 0 {
		mulQ5_1AVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &v.s[0], len(v.d), n/4)
	}
	return n
}

// mulIQ4_NLSIMD is mulQ8_0SIMD for IQ4_NL rows (mulIQ4_NL).
func mulIQ4_NLSIMD(out []float32, w []byte, v *Vec) int {
	n, rowBytes := simdRows(out, w, v, iq4_nlBytes)
	if n > 0 {
		mulIQ4_NLAVX2(&out[0], &w[0], rowBytes, &v.q[0], &v.d[0], &iq4nlGrid[0], len(v.d), n/4)
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

// dotsQ4_KAVX2, dotsQ5_KAVX2 and dotsQ6_KAVX2 set, for rows rows of w
// (rowBytes apart, blocks blocks each), each block's integer sums with the
// vector q: dotQ4_K's and dotQ5_K's pair (groupSums the vector's sums over
// groups of 32) and dotQ6_K's one (over groups of 16).
//
//go:noescape
func dotsQ4_KAVX2(dst *int32, w *byte, rowBytes int, q *int8, groupSums *int32, blocks, rows int)

//go:noescape
func dotsQ5_KAVX2(dst *int32, w *byte, rowBytes int, q *int8, groupSums *int32, blocks, rows int)

//go:noescape
func dotsQ6_KAVX2(dst *int32, w *byte, rowBytes int, q *int8, groupSums *int32, blocks, rows int)

// kChunk is how many rows the K formats' assembly takes at a time: their
// integer sums stay in the caches until the Go loop scales them.
const kChunk = 64

// mulQ4_KSIMD multiplies the rows of w by v as mulQ4_K does, the integer
// sums of its blocks in assembly (mulKSIMD), and returns how many rows it
// did: all of them, or none without AVX2.
func mulQ4_KSIMD(out []float32, w []byte, v *Vec) int {
	return mulMinsKSIMD(out, w, v, q4_KBytes, dotsQ4_KAVX2)
}

// mulQ5_KSIMD is mulQ4_KSIMD for Q5_K rows (mulQ5_K).
func mulQ5_KSIMD(out []float32, w []byte, v *Vec) int {
	return mulMinsKSIMD(out, w, v, q5_KBytes, dotsQ5_KAVX2)
}

// mulMinsKSIMD is mulQ4_KSIMD for a K format with mins whose assembly is
// dots (dotsQ4_KAVX2's arguments), its float part scaleMinsK.
func mulMinsKSIMD(out []float32, w []byte, v *Vec, blockBytes int,
	dots func(dst *int32, w *byte, rowBytes int, q *int8, groupSums *int32, blocks, rows int)) int {
	blocks := len(v.d)
	if !simd || len(out) == 0 || blocks == 0 {
		return 0
	}
	// The vector's sums over groups of 32, which the mins multiply, then
	// a chunk's integer sums, two a block.
	scratch := v.grow(blocks*8 + kChunk*blocks*2)
	pairs := scratch[:blocks*8]
	for g := range pairs {
		pairs[g] = v.sums[2*g] + v.sums[2*g+1]
	}
	return mulKSIMD(out, w, v, blockBytes, scratch[blocks*8:], func(dst *int32, w *byte, rowBytes, rows int) {
		dots(dst, w, rowBytes, &v.q[0], &pairs[0], blocks, rows)
	}, func(blk []byte, vd float32, ints []int32) float32 {
		return scaleMinsK(half(blk[0:]), half(blk[2:]), vd, ints[0], ints[1])
	})
}

// mulQ6_KSIMD is mulQ4_KSIMD for Q6_K rows (mulQ6_K).
func mulQ6_KSIMD(out []float32, w []byte, v *Vec) int {
	blocks := len(v.d)
	if !simd || len(out) == 0 || blocks == 0 {
		return 0
	}
	return mulKSIMD(out, w, v, q6_KBytes, v.grow(kChunk*blocks), func(dst *int32, w *byte, rowBytes, rows int) {
		dotsQ6_KAVX2(dst, w, rowBytes, &v.q[0], &v.sums[0], blocks, rows)
	}, func(blk []byte, vd float32, ints []int32) float32 {
		return scaleQ6_K((*[q6_KBytes]byte)(blk), vd, ints[0])
	})
}

// mulKSIMD multiplies a K format's rows by v in two parts, a chunk of rows
// at a time: dots, in assembly, sets the integer sums of each of their
// blocks in sums, the same number for each; then, in Go, each row adds its
// blocks' float parts (scale) in order, as the Go kernel does.
func mulKSIMD(out []float32, w []byte, v *Vec, blockBytes int, sums []int32,
	dots func(dst *int32, w *byte, rowBytes, rows int), scale func(blk []byte, vd float32, ints []int32) float32) int {
	blocks := len(v.d)
	rowBytes, ints := blocks*blockBytes, len(sums)/(kChunk*blocks)
	if len(w) < len(out)*rowBytes || len(v.q) < blocks*QK_K || len(v.sums) < blocks*QK_K/16 {
		panic("quant: a product's matrix or vector is shorter than its shape")
	}
	for first := 0; first < len(out); first += kChunk {
		n := min(kChunk, len(out)-first)
		dots(&sums[0], &w[first*rowBytes], rowBytes, n)
		for i := range n {
			row := w[(first+i)*rowBytes:]
			var sum float32
			for b, vd := range v.d {
				sum += scale(row[b*blockBytes:], vd, sums[(i*blocks+b)*ints:])
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
