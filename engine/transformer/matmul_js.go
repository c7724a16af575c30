//go:build js

package transformer

// matmul under js/wasm is the unrolled loop (BenchmarkMatmul under node).
func matmul(out, x, w []float32, n, d int) { matmulUnrolled(out, x, w, n, d) }
