//go:build js

package transformer

// matmul under js/wasm is the unrolled Go loop: gonum falls back to plain Go
// there and is slower (BenchmarkMatmul under node and Chromium).
func matmul(out, x, w []float32, n, d int) { matmulUnrolled(out, x, w, n, d) }
