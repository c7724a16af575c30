package quant

import "math"

// Vec is a vector quantized to 8-bit integers for MulVec's integer dot
// products, in blocks of 32 (ggml's block_q8_0) or 256 (block_q8_K):
// element j is worth d[j/block]·q[j]. sums holds the sum of the q of each
// group of 32 (Q8_0) or 16 (Q8_K, ggml's bsums), which the formats with an
// offset (Q4_0's −8, Q4_K's mins, Q6_K's −32) multiply once per group
// instead of once per weight.
type Vec struct {
	q    []int8
	d    []float32
	sums []int32
	// s is, for blocks of 32, block_q8_1's s: d·Σq with d unrounded, as a
	// half, which Q5_1's mins multiply.
	s []float32
	// scratch holds the sums over groups of 32 that Q4_K's and Q5_K's
	// assembly takes (kernel_amd64.go), grown once like the rest.
	scratch []int32
}

// grow sets v.scratch to n values, reusing its room, and returns them.
func (v *Vec) grow(n int) []int32 {
	if cap(v.scratch) < n {
		v.scratch = make([]int32, n)
	}
	v.scratch = v.scratch[:n]
	return v.scratch
}

// resize makes room for n values in blocks of size, with a sum per group.
func (v *Vec) resize(n, size, group int) {
	if cap(v.q) < n {
		v.q = make([]int8, n)
		v.d = make([]float32, n/32) // room for the smaller blocks
		v.s = make([]float32, n/32)
		v.sums = make([]int32, n/16)
	}
	v.q, v.d, v.s, v.sums = v.q[:n], v.d[:n/size], v.s[:n/size], v.sums[:n/group]
}

// Q8_0 quantizes x into v as MulVec does for Q8_0 and Q4_0 weights and
// returns its blocks, for kernels outside this package (package wasmsimd's):
// q, 32 values a block, d, the scale of each block, and sums, the sum of
// each block's q.
func (v *Vec) Q8_0(x []float32) (q []int8, d []float32, sums []int32) {
	v.quantizeQ8_0(x, quantizeQ8_0SIMD)
	return v.q, v.d, v.sums
}

// Q8_1 quantizes x into v as MulVec does for Q5_1 weights and returns
// its blocks, for kernels outside this package: q and d as Q8_0 gives
// them, and s, each block's d·Σq as a half (block_q8_1's s), which Q5_1's
// mins multiply.
func (v *Vec) Q8_1(x []float32) (q []int8, d, s []float32) {
	v.quantizeQ8_0(x, quantizeQ8_0SIMD)
	return v.q, v.d, v.s
}

// Q8_K quantizes x into v as MulVec does for Q4_K, Q5_K and Q6_K weights and
// returns its blocks, for kernels outside this package: q, 256 values a
// block, d, the scale of each block, and sums, the sum of each group of 16
// of q (ggml's bsums).
func (v *Vec) Q8_K(x []float32) (q []int8, d []float32, sums []int32) {
	v.quantizeQ8_K(x)
	return v.q, v.d, v.sums
}

// Blocks returns the blocks of v's latest quantization (Quantize's, or
// Q8_0's, Q8_1's or Q8_K's), for kernels outside this package: q, d, the
// scale of each block, sums, the sum of each block of 32 (Q8_0) or group
// of 16 (Q8_K), and s, block_q8_1's, for blocks of 32.
func (v *Vec) Blocks() (q []int8, d []float32, sums []int32, s []float32) {
	return v.q, v.d, v.sums, v.s
}

// quantizeQ8_0 quantizes x into blocks of 32 as llama.cpp's CPU backend
// does on x86-64 (quantize_row_q8_0 in ggml-cpu/arch/x86/quants.c, its
// AVX version): d = max|x|/127, stored as float16, and q = x·(127/max|x|)
// rounded half to even. The portable quantize_row_q8_0_ref, which
// llama-quantize uses for model files, multiplies by 1/d and rounds halves
// away from zero instead; the two differ now and then by one in a q, often
// where x repeats a few values, as a quantized embedding row does before
// RMSNorm gains break the ties (TestMatchesLlamaCpp in package gguf).
// blocks quantizes what it can (the assembly, or another package's
// kernel), this code the blocks it leaves.
func (v *Vec) quantizeQ8_0(x []float32, blocks BlockQuantizer) {
	v.resize(len(x), 32, 32)
	for b := 0; b < len(v.d); {
		b += blocks(x[b*32:], v.q[b*32:], v.d[b:], v.s[b:], v.sums[b:])
		if b < len(v.d) {
			v.quantizeQ8_0Block(b, x)
			b++
		}
	}
}

// quantizeQ8_0Go is quantizeQ8_0 in Go, block after block: the assembly's
// twin.
func (v *Vec) quantizeQ8_0Go(x []float32) {
	v.resize(len(x), 32, 32)
	for b := range v.d {
		v.quantizeQ8_0Block(b, x)
	}
}

// quantizeQ8_0Block quantizes block b of x into v.
func (v *Vec) quantizeQ8_0Block(b int, x []float32) {
	xs := (*[32]float32)(x[b*32:])
	qs := (*[32]int8)(v.q[b*32:])
	var amax float32
	for _, f := range xs {
		// max(amax, abs(f)), a NaN sticking, without the call to the
		// runtime that max on floats is in WebAssembly.
		if a := abs(f); a > amax || a != a {
			amax = a
		}
	}
	d := amax / 127
	var id float32
	if amax != 0 {
		id = 127 / amax
	}
	v.d[b] = HalfToFloat(FloatToHalf(d))
	var sum int32
	for j, f := range xs {
		q := int8(math.RoundToEven(float64(f * id)))
		qs[j] = q
		sum += int32(q)
	}
	v.sums[b] = sum
	v.s[b] = HalfToFloat(FloatToHalf(d * float32(sum)))
}

// quantizeQ8_K quantizes x into blocks of 256 as ggml's
// quantize_row_q8_K_ref (ggml-quants.c; ggml-cpu uses it on every
// platform) does: the value of largest magnitude, max, becomes −127 (so the
// scale d = max/−127 is negative when max is positive), q = round(x/d)
// with halves to even (its nearest_int), at most 127; d stays float32.
func (v *Vec) quantizeQ8_K(x []float32) {
	v.resize(len(x), QK_K, 16)
	for b := range v.d {
		xs := (*[QK_K]float32)(x[b*QK_K:])
		qs := (*[QK_K]int8)(v.q[b*QK_K:])
		var amax, maxv float32
		for _, f := range xs {
			if a := abs(f); a > amax {
				amax, maxv = a, f
			}
		}
		sums := v.sums[b*QK_K/16:][:QK_K/16]
		if amax == 0 {
			v.d[b] = 0
			clear(qs[:])
			clear(sums)
			continue
		}
		iscale := -127 / maxv
		for j, f := range xs {
			qs[j] = int8(min(127, math.RoundToEven(float64(iscale*f))))
		}
		v.d[b] = 1 / iscale
		for g := range sums {
			var s int32
			for _, q := range qs[g*16 : g*16+16] {
				s += int32(q)
			}
			sums[g] = s
		}
	}
}

func abs(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ (1 << 31)) }
