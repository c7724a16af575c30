//go:build !js

package transformer

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// matmul sets out = W·x for W of shape (d, n) stored row-major. Natively
// gonum's assembly SGEMV is several times faster than a Go loop
// (BenchmarkMatmul), so it does the work.
func matmul(out, x, w []float32, n, d int) {
	blas32.Gemv(blas.NoTrans, 1,
		blas32.General{Rows: d, Cols: n, Stride: n, Data: w[:d*n]},
		blas32.Vector{N: n, Inc: 1, Data: x},
		0, blas32.Vector{N: d, Inc: 1, Data: out})
}
