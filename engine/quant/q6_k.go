package quant

// Q6_K (ggml's block_q6_K): 256 weights in sixteen groups of 16, each
// weight a six-bit q. 128 bytes ql of low four bits, 64 bytes qh of high
// two bits, 16 int8 scales sc, then a float16 d. Each half of 128 weights
// takes 64 bytes of ql and 32 of qh: for l < 32, weight l has the low
// nibble of ql[l] and bits 0–1 of qh[l], weight l+32 the low nibble of
// ql[l+32] and bits 2–3, weight l+64 the high nibble of ql[l] and bits
// 4–5, weight l+96 the high nibble of ql[l+32] and bits 6–7. Weight j is
// d·sc[j/16]·(q[j]−32).
const q6_KBytes = QK_K/2 + QK_K/4 + QK_K/16 + 2

// dequantizeQ6_K is ggml's dequantize_row_q6_K.
func dequantizeQ6_K(row []byte, y []float32) {
	for b := range len(y) / QK_K {
		blk := (*[q6_KBytes]byte)(row[b*q6_KBytes:])
		d := half(blk[208:])
		for n := range 2 {
			ql := (*[64]byte)(blk[64*n:])
			qh := (*[32]byte)(blk[128+32*n:])
			sc := (*[8]byte)(blk[192+8*n:])
			ys := (*[128]float32)(y[b*QK_K+128*n:])
			for l := range 32 {
				is := l / 16
				q1 := int32(ql[l]&0xf|qh[l]&3<<4) - 32
				q2 := int32(ql[l+32]&0xf|qh[l]>>2&3<<4) - 32
				q3 := int32(ql[l]>>4|qh[l]>>4&3<<4) - 32
				q4 := int32(ql[l+32]>>4|qh[l]>>6<<4) - 32
				ys[l] = d * float32(int8(sc[is])) * float32(q1)
				ys[l+32] = d * float32(int8(sc[is+2])) * float32(q2)
				ys[l+64] = d * float32(int8(sc[is+4])) * float32(q3)
				ys[l+96] = d * float32(int8(sc[is+6])) * float32(q4)
			}
		}
	}
}

// mulQ6_K sets out[i] = row i · v for Q6_K rows, as ggml's
// ggml_vec_dot_q6_K_q8_K: per block, Σ_g sc[g]·(Σ (q−32)·v.q) in integers,
// times d·v.d; the −32 is taken out of each group's sum as −32·(Σ v.q).
func mulQ6_K(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * q6_KBytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b, vd := range v.d {
			blk := (*[q6_KBytes]byte)(row[b*q6_KBytes:])
			sum += scaleQ6_K(blk, vd, dotQ6_K(blk, v, b))
		}
		out[i] = sum
	}
}

// dotQ6_K is the integer part of a Q6_K block's product with block b of
// v. The groups of weights l … l+15 within a quarter of a half are
// numbered as their scales are.
func dotQ6_K(blk *[q6_KBytes]byte, v *Vec, b int) (sumi int32) {
	bsums := (*[QK_K / 16]int32)(v.sums[b*QK_K/16:])
	for n := range 2 {
		ql := (*[64]byte)(blk[64*n:])
		qh := (*[32]byte)(blk[128+32*n:])
		sc := (*[8]byte)(blk[192+8*n:])
		y := (*[128]int8)(v.q[b*QK_K+128*n:])
		for g := range 2 {
			var a0, a1, a2, a3 int32
			for l := 16 * g; l < 16*g+16; l++ {
				lo, hi, h := int32(ql[l]), int32(ql[l+32]), int32(qh[l])
				a0 += (lo&0xf | h&3<<4) * int32(y[l])
				a1 += (hi&0xf | h>>2&3<<4) * int32(y[l+32])
				a2 += (lo>>4 | h>>4&3<<4) * int32(y[l+64])
				a3 += (hi>>4 | h>>6<<4) * int32(y[l+96])
			}
			// Group 8n+g+2k holds weights 128n + 32k + 16g …
			s := bsums[8*n+g:]
			sumi += int32(int8(sc[g]))*(a0-32*s[0]) + int32(int8(sc[g+2]))*(a1-32*s[2]) +
				int32(int8(sc[g+4]))*(a2-32*s[4]) + int32(int8(sc[g+6]))*(a3-32*s[6])
		}
	}
	return sumi
}

// scaleQ6_K is what a Q6_K block adds to its row's sum, given its integer
// sum (dotQ6_K) and the vector block's scale vd: d·vd·sumi, rounded before
// the sum as scaleQ4_K's.
func scaleQ6_K(blk *[q6_KBytes]byte, vd float32, sumi int32) float32 {
	return float32(half(blk[208:]) * vd * float32(sumi))
}
