//go:build !js

package transformer

// matmul natively is gonum's assembly SGEMV (BenchmarkMatmul).
func matmul(out, x, w []float32, n, d int) { matmulGonum(out, x, w, n, d) }
