package matvec

// Scores sets att[p] = (Σ_i q[i]·keys[p·stride+i]) / scale for every p,
// each sum in order of i from zero, each product rounded before it is
// added (no fused multiply-add): an attention head's scores, as
// scoresGo computes them one position at a time. On amd64 with AVX2 the
// positions go eight at a time through assembly (a lane a position), the
// same bits.
func Scores(att, q, keys []float32, stride int, scale float32) {
	n := len(q)
	if len(att) == 0 {
		return
	}
	_ = keys[(len(att)-1)*stride : (len(att)-1)*stride+n]
	done := 0
	if hasFMA && n >= 8 && n%8 == 0 && len(att) >= 8 {
		done = len(att) &^ 7
		scoresAVX2(&att[0], &q[0], &keys[0], n, stride, done/8, scale)
		if done == len(att) {
			return
		}
	}
	scoresGo(att[done:], q, keys[done*stride:], stride, scale)
}

// scoresGo is Scores in Go: four positions at a time, four sums that do
// not wait on one another, each in order of i.
func scoresGo(att, q, keys []float32, stride int, scale float32) {
	n := len(q)
	p := 0
	for ; p+4 <= len(att); p += 4 {
		k0 := keys[p*stride:][:n]
		k1 := keys[(p+1)*stride:][:n]
		k2 := keys[(p+2)*stride:][:n]
		k3 := keys[(p+3)*stride:][:n]
		var s0, s1, s2, s3 float32
		for i, v := range q {
			s0 += float32(v * k0[i])
			s1 += float32(v * k1[i])
			s2 += float32(v * k2[i])
			s3 += float32(v * k3[i])
		}
		att[p], att[p+1], att[p+2], att[p+3] = s0/scale, s1/scale, s2/scale, s3/scale
	}
	for ; p < len(att); p++ {
		k := keys[p*stride:][:n]
		var s float32
		for i, v := range q {
			s += float32(v * k[i])
		}
		att[p] = s / scale
	}
}

// Mix sets out[i] = Σ_p w[p]·values[p·stride+i] for i < len(out), each
// sum in order of p from zero, each product rounded before it is added:
// an attention head's output, as mixGo computes it. On amd64 with AVX2
// the outputs go eight at a time through assembly (a lane an output), the
// same bits.
func Mix(out, w, values []float32, stride int) {
	n := len(out)
	if n == 0 {
		return
	}
	if len(w) == 0 {
		clear(out)
		return
	}
	_ = values[(len(w)-1)*stride : (len(w)-1)*stride+n]
	done := 0
	if hasFMA && n >= 8 {
		done = n &^ 7
		mixAVX2(&out[0], &w[0], &values[0], done, stride, len(w))
	}
	mixGo(out[done:], w, values[done:], stride)
}

// mixGo is Mix in Go: eight outputs at a time held over the positions.
func mixGo(out, w, values []float32, stride int) {
	i := 0
	for ; i+8 <= len(out); i += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 float32
		for p, a := range w {
			v := (*[8]float32)(values[p*stride+i:])
			s0 += float32(a * v[0])
			s1 += float32(a * v[1])
			s2 += float32(a * v[2])
			s3 += float32(a * v[3])
			s4 += float32(a * v[4])
			s5 += float32(a * v[5])
			s6 += float32(a * v[6])
			s7 += float32(a * v[7])
		}
		o := (*[8]float32)(out[i:])
		o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	for ; i < len(out); i++ {
		var s float32
		for p, a := range w {
			s += float32(a * values[p*stride+i])
		}
		out[i] = s
	}
}
