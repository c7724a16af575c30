package transformer

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// The forward pass spends most of its time in matmul (out = W·x for W of
// shape (d, n), row-major). Which kernel is faster depends on the platform,
// so matmul_blas.go and matmul_js.go each pick one; BenchmarkMatmul measures
// both kernels at the shapes of stories260K and stories15M:
//
//   - natively gonum's SGEMV, in assembly, is 2–5 times faster than a loop;
//   - under js/wasm gonum falls back to plain Go and the unrolled loop wins.

// matmulGonum is gonum's SGEMV.
func matmulGonum(out, x, w []float32, n, d int) {
	blas32.Gemv(blas.NoTrans, 1,
		blas32.General{Rows: d, Cols: n, Stride: n, Data: w[:d*n]},
		blas32.Vector{N: n, Inc: 1, Data: x},
		0, blas32.Vector{N: d, Inc: 1, Data: out})
}

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
