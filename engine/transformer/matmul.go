package transformer

// The forward pass spends most of its time in matmul (out = W·x for W of
// shape (d, n), row-major). Which kernel is faster depends on the platform,
// so matmul_blas.go and matmul_js.go each pick one; BenchmarkMatmul measures
// them at the shapes of stories260K and stories15M:
//
//   - natively package matvec's AVX2 assembly, with FMA, is 3–10 times
//     faster than a loop and 1.5–2 times gonum's SSE SGEMV;
//   - under js/wasm the unrolled loop (or the SIMD kernel, its twin).

// matmulUnrolled accumulates each row in four independent lanes, which
// lets the wasm engine overlap the multiply-adds, with bounds checks hoisted
// out of the inner loop.
func matmulUnrolled(out, x, w []float32, n, d int) {
	w = w[:d*n]
	for i := range out[:d] {
		row := w[i*n : (i+1)*n]
		row = row[:len(x)]
		var s0, s1, s2, s3 float32
		j := 0
		for ; j+4 <= len(x); j += 4 {
			s0 += row[j] * x[j]
			s1 += row[j+1] * x[j+1]
			s2 += row[j+2] * x[j+2]
			s3 += row[j+3] * x[j+3]
		}
		for ; j < len(x); j++ {
			s0 += row[j] * x[j]
		}
		out[i] = (s0 + s1) + (s2 + s3)
	}
}

// matmulRunC sums each row in index order, one rounding per product and
// per sum, as run.c's matmul does: gcc -O3 without -ffast-math keeps that
// order (and default x86-64 has no FMA to fuse with). It runs four rows at
// a time, so that four independent sums overlap; the order within a row is
// what makes the result run.c's. The float32 conversions forbid fusing a
// product into its sum, which Go may do on arm64.
func matmulRunC(out, x, w []float32, n, d int) {
	w = w[:d*n]
	i := 0
	for ; i+4 <= d; i += 4 {
		r0 := w[i*n : (i+1)*n]
		r1 := w[(i+1)*n : (i+2)*n]
		r2 := w[(i+2)*n : (i+3)*n]
		r3 := w[(i+3)*n : (i+4)*n]
		r0, r1, r2, r3 = r0[:len(x)], r1[:len(x)], r2[:len(x)], r3[:len(x)]
		var s0, s1, s2, s3 float32
		for j, v := range x {
			s0 += float32(r0[j] * v)
			s1 += float32(r1[j] * v)
			s2 += float32(r2[j] * v)
			s3 += float32(r3[j] * v)
		}
		out[i], out[i+1], out[i+2], out[i+3] = s0, s1, s2, s3
	}
	for ; i < d; i++ {
		row := w[i*n : (i+1)*n][:len(x)]
		var s float32
		for j, v := range x {
			s += float32(row[j] * v)
		}
		out[i] = s
	}
}
