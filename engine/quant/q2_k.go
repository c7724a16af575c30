package quant

// Q2_K (ggml's block_q2_K): 256 weights in sixteen groups of 16. Sixteen
// bytes of four-bit scales and mins (group g's scale in the low nibble of
// byte g, its min in the high one), 64 bytes of two-bit q, then a float16 d
// and dmin. Byte l of each 32-byte half holds, in bits 2j and 2j+1, weight
// l of the half's group 2j (l < 16) or 2j+1 (l ≥ 16, as weight l−16).
// Weight j of group g is d·sc[g]·q[j] − dmin·m[g].
const q2_KBytes = QK_K/16 + QK_K/4 + 2 + 2

// q2_KWeight is weight l (0–15) of group g of a Q2_K block.
func q2_KWeight(blk *[q2_KBytes]byte, g, l int) int32 {
	half, j, second := g/8, g%8/2, g%2
	return int32(blk[16+32*half+16*second+l] >> (2 * j) & 3)
}

// dequantizeQ2_K is ggml's dequantize_row_q2_K, each product rounded
// before the subtraction as in dequantizeQ4_K.
func dequantizeQ2_K(row []byte, y []float32) {
	for b := range len(y) / QK_K {
		blk := (*[q2_KBytes]byte)(row[b*q2_KBytes:])
		d, dmin := half(blk[80:]), half(blk[82:])
		for g := range 16 {
			sc := blk[g]
			dl, ml := d*float32(sc&0xf), dmin*float32(sc>>4)
			ys := (*[16]float32)(y[b*QK_K+16*g:])
			for l := range 16 {
				ys[l] = float32(dl*float32(q2_KWeight(blk, g, l))) - ml
			}
		}
	}
}

// mulQ2_K sets out[i] = row i · v for Q2_K rows, as ggml's
// ggml_vec_dot_q2_K_q8_K: per block, Σ_g sc[g]·(Σ q·v.q) in integers,
// times d·v.d, minus dmin·v.d·Σ_g m[g]·(Σ v.q over group g).
func mulQ2_K(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * q2_KBytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b, vd := range v.d {
			blk := (*[q2_KBytes]byte)(row[b*q2_KBytes:])
			bsums := (*[QK_K / 16]int32)(v.sums[b*QK_K/16:])
			var sumi, mins int32
			for g := range 16 {
				x := (*[16]int8)(v.q[b*QK_K+16*g:])
				var s int32
				for l, xv := range x {
					s += q2_KWeight(blk, g, l) * int32(xv)
				}
				sumi += int32(blk[g]&0xf) * s
				mins += int32(blk[g]>>4) * bsums[g]
			}
			sum += scaleMinsK(half(blk[80:]), half(blk[82:]), vd, sumi, mins)
		}
		out[i] = sum
	}
}
