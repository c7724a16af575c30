// Package matvec multiplies a float32 matrix by a vector natively: out =
// W·x for W of d rows of n values, row-major, as the forward pass's
// float32 matrices want it; and runs the forward pass's other float32
// loops natively: attention's (attention.go) and SwiGLU's gating
// (swiglu.go), each the same bits as its Go twin.
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
		out[i] += tail(w[i*n+wide:(i+1)*n], x[wide:])
	}
}

// tail is the sum of the products past the last whole eight columns, in
// four lanes added pairwise, (l0+l1)+(l2+l3): with fewer than eight
// columns in all, the order of the browser's kernels, which give the toy
// model's logits exactly.
func tail(row, x []float32) float32 {
	var l [4]float32
	for j, v := range x {
		l[j%4] += row[j] * v
	}
	return (l[0] + l[1]) + (l[2] + l[3])
}

// mulGo is Mul in Go: each row summed in eight lanes, the lanes added
// pairwise as the assembly adds its own, then the tail.
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
		out[i] = sum + tail(row[wide:], x[wide:])
	}
}
