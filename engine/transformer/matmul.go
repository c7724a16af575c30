package transformer

// matmulUnrolled sets out = W·x for W of shape (d, n) stored row-major,
// accumulating each row in four lanes. Under js/wasm, where gonum has no
// assembly kernels, this loop is the faster one (BenchmarkMatmul).
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
