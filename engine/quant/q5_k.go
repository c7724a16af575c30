package quant

// Q5_K (ggml's block_q5_K): Q4_K's layout with a fifth bit. A float16 d
// and dmin, 12 bytes of six-bit scales and mins (as Q4_K's), 32 bytes qh of
// high bits, then 128 bytes of low nibbles: bytes 32c … 32c+31 of the
// nibbles hold group 2c in their low nibbles and group 2c+1 in their high
// ones, and byte l of qh gives weight l of group g its fifth bit in bit g.
// Weight j of group g is d·sc[g]·q[j] − dmin·m[g], q five bits.
const q5_KBytes = 2 + 2 + 12 + QK_K/8 + QK_K/2

// dequantizeQ5_K is ggml's dequantize_row_q5_K, each product rounded
// before the subtraction as in dequantizeQ4_K.
func dequantizeQ5_K(row []byte, y []float32) {
	for b := range len(y) / QK_K {
		blk := (*[q5_KBytes]byte)(row[b*q5_KBytes:])
		d, dmin := half(blk[0:]), half(blk[2:])
		scales := (*[12]byte)(blk[4:])
		qh := (*[32]byte)(blk[16:])
		ys := (*[QK_K]float32)(y[b*QK_K:])
		for c := range 4 {
			sc1, m1 := scaleMinK4(2*c, scales)
			sc2, m2 := scaleMinK4(2*c+1, scales)
			d1, min1 := d*float32(sc1), dmin*float32(m1)
			d2, min2 := d*float32(sc2), dmin*float32(m2)
			qs := (*[32]byte)(blk[48+32*c:])
			lo := (*[32]float32)(ys[64*c:])
			hi := (*[32]float32)(ys[64*c+32:])
			for l, q := range qs {
				lo[l] = float32(d1*float32(q&0xf|qh[l]>>(2*c)&1<<4)) - min1
				hi[l] = float32(d2*float32(q>>4|qh[l]>>(2*c+1)&1<<4)) - min2
			}
		}
	}
}

// mulQ5_K sets out[i] = row i · v for Q5_K rows, as ggml's
// ggml_vec_dot_q5_K_q8_K: per block, Σ_g sc[g]·(Σ q·v.q) in integers,
// times d·v.d, minus dmin·v.d·Σ_g m[g]·(Σ v.q over group g), as mulQ4_K.
func mulQ5_K(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * q5_KBytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b, vd := range v.d {
			blk := (*[q5_KBytes]byte)(row[b*q5_KBytes:])
			sumi, mins := dotQ5_K(blk, v, b)
			sum += scaleMinsK(half(blk[0:]), half(blk[2:]), vd, sumi, mins)
		}
		out[i] = sum
	}
}

// dotQ5_K is the integer part of a Q5_K block's product with block b of
// v: Σ_g sc[g]·(Σ q·v.q) and Σ_g m[g]·(Σ v.q over group g).
func dotQ5_K(blk *[q5_KBytes]byte, v *Vec, b int) (sumi, mins int32) {
	scales := (*[12]byte)(blk[4:])
	qh := (*[32]byte)(blk[16:])
	bsums := (*[QK_K / 16]int32)(v.sums[b*QK_K/16:])
	for c := range 4 {
		qs := (*[32]byte)(blk[48+32*c:])
		lo := (*[32]int8)(v.q[b*QK_K+64*c:])
		hi := (*[32]int8)(v.q[b*QK_K+64*c+32:])
		var l0, h0 int32
		for l, q := range qs {
			l0 += int32(q&0xf|qh[l]>>(2*c)&1<<4) * int32(lo[l])
			h0 += int32(q>>4|qh[l]>>(2*c+1)&1<<4) * int32(hi[l])
		}
		sc1, m1 := scaleMinK4(2*c, scales)
		sc2, m2 := scaleMinK4(2*c+1, scales)
		sumi += int32(sc1)*l0 + int32(sc2)*h0
		mins += int32(m1)*(bsums[4*c]+bsums[4*c+1]) + int32(m2)*(bsums[4*c+2]+bsums[4*c+3])
	}
	return sumi, mins
}
