// Package matvec multiplies a float32 matrix by a vector natively: out =
// W·x for W of d rows of n values, row-major, as the forward pass's
// float32 matrices want it.
//
// On amd64 with AVX2 and FMA the product runs in assembly (matvec_amd64.s,
// found with CPUID): eight lanes a register, two registers a row, four
// rows at a time sharing each load of x, fused multiply-adds. Elsewhere,
// and with the purego build tag, mulGo runs instead: eight lanes in Go.
// The two sum in different orders, so their results differ in the last
// bits; each is deterministic, and a row's result depends on nothing but
// that row and x, not on which rows are multiplied with it. Rows can
// therefore be split among goroutines without changing a bit.
package matvec

// Mul sets out[i] = Σ_j w[i·n+j]·x[j] for i < d.
func Mul(out, x, w []float32, n, d int) {
	out, x, w = out[:d], x[:n], w[:d*n]
	if d == 0 {
		return
	}
	if !hasFMA || n < 8 {
		mulGo(out, x, w, n, d)
		return
	}
	wide := n &^ 7
	mulAVX2(&out[0], &x[0], &w[0], n, wide, d)
	if wide == n {
		return
	}
	for i := range out {
		row := w[i*n+wide : (i+1)*n]
		var s float32
		for j, v := range x[wide:] {
			s += row[j] * v
		}
		out[i] += s
	}
}

// mulGo is Mul in Go: each row summed in eight lanes, the lanes added
// pairwise, then the columns past the last whole eight in order.
func mulGo(out, x, w []float32, n, d int) {
	wide := n &^ 7
	for i := range out[:d] {
		row := w[i*n : (i+1)*n]
		var s [8]float32
		for j := 0; j < wide; j += 8 {
			r, v := (*[8]float32)(row[j:]), (*[8]float32)(x[j:])
			s[0] += r[0] * v[0]
			s[1] += r[1] * v[1]
			s[2] += r[2] * v[2]
			s[3] += r[3] * v[3]
			s[4] += r[4] * v[4]
			s[5] += r[5] * v[5]
			s[6] += r[6] * v[6]
			s[7] += r[7] * v[7]
		}
		sum := ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))
		var tail float32
		for j := wide; j < n; j++ {
			tail += row[j] * x[j]
		}
		out[i] = sum + tail
	}
}
