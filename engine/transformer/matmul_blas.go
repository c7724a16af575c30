//go:build !js

package transformer

import "nexttoken/engine/quant"

// matmul natively is gonum's assembly SGEMV (BenchmarkMatmul).
func matmul(out, x, w []float32, n, d int) { matmulGonum(out, x, w, n, d) }

// mulQuantized natively is package quant's kernels.
func mulQuantized(out, x []float32, w *quant.Matrix, v *quant.Vec) { w.MulVec(out, x, v) }
