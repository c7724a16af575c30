package quant

// Q4_K (ggml's block_q4_K): 256 weights in eight groups of 32. A float16 d
// and dmin, then 12 bytes packing a six-bit scale sc and min m per group,
// then 128 bytes of four-bit q: bytes 32c … 32c+31 hold group 2c in their
// low nibbles and group 2c+1 in their high ones. Weight j of group g is
// d·sc[g]·q[j] − dmin·m[g].
const q4_KBytes = 2 + 2 + 12 + QK_K/2

// scaleMinK4 unpacks the six-bit scale and min of group j from the 12
// scale bytes, as ggml's get_scale_min_k4: groups 0–3 have theirs in the
// low six bits of bytes j and j+4; groups 4–7 in the nibbles of byte j+4,
// with their top two bits in the spare high bits of bytes j−4 and j.
func scaleMinK4(j int, s *[12]byte) (sc, m uint8) {
	if j < 4 {
		return s[j] & 63, s[j+4] & 63
	}
	return s[j+4]&0xf | s[j-4]>>6<<4, s[j+4]>>4 | s[j]>>6<<4
}

// dequantizeQ4_K is ggml's dequantize_row_q4_K. The float32 conversion
// rounds each product before the subtraction, as ggml-base (built without
// FMA) does: Go could otherwise fuse them.
func dequantizeQ4_K(row []byte, y []float32) {
	for b := range len(y) / QK_K {
		blk := (*[q4_KBytes]byte)(row[b*q4_KBytes:])
		d, dmin := half(blk[0:]), half(blk[2:])
		scales := (*[12]byte)(blk[4:])
		ys := (*[QK_K]float32)(y[b*QK_K:])
		for c := range 4 {
			sc1, m1 := scaleMinK4(2*c, scales)
			sc2, m2 := scaleMinK4(2*c+1, scales)
			d1, min1 := d*float32(sc1), dmin*float32(m1)
			d2, min2 := d*float32(sc2), dmin*float32(m2)
			qs := (*[32]byte)(blk[16+32*c:])
			lo := (*[32]float32)(ys[64*c:])
			hi := (*[32]float32)(ys[64*c+32:])
			for l, q := range qs {
				lo[l] = float32(d1*float32(q&0xf)) - min1
				hi[l] = float32(d2*float32(q>>4)) - min2
			}
		}
	}
}

// mulQ4_K sets out[i] = row i · v for Q4_K rows, as ggml's
// ggml_vec_dot_q4_K_q8_K: per block, Σ_g sc[g]·(Σ q·v.q) in integers,
// times d·v.d, minus dmin·v.d·Σ_g m[g]·(Σ v.q over group g), the mins
// taken out of the sum with Q8_K's group sums.
func mulQ4_K(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * q4_KBytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b, vd := range v.d {
			blk := (*[q4_KBytes]byte)(row[b*q4_KBytes:])
			sumi, mins := dotQ4_K(blk, v, b)
			sum += scaleQ4_K(blk, vd, sumi, mins)
		}
		out[i] = sum
	}
}

// dotQ4_K is the integer part of a Q4_K block's product with block b of
// v: Σ_g sc[g]·(Σ q·v.q) and Σ_g m[g]·(Σ v.q over group g).
func dotQ4_K(blk *[q4_KBytes]byte, v *Vec, b int) (sumi, mins int32) {
	scales := (*[12]byte)(blk[4:])
	bsums := (*[QK_K / 16]int32)(v.sums[b*QK_K/16:])
	for c := range 4 {
		qs := (*[32]byte)(blk[16+32*c:])
		lo := (*[32]int8)(v.q[b*QK_K+64*c:])
		hi := (*[32]int8)(v.q[b*QK_K+64*c+32:])
		var l0, l1, h0, h1 int32
		for l := 0; l < 32; l += 2 {
			q0, q1 := int32(qs[l]), int32(qs[l+1])
			l0 += (q0 & 0xf) * int32(lo[l])
			h0 += (q0 >> 4) * int32(hi[l])
			l1 += (q1 & 0xf) * int32(lo[l+1])
			h1 += (q1 >> 4) * int32(hi[l+1])
		}
		sc1, m1 := scaleMinK4(2*c, scales)
		sc2, m2 := scaleMinK4(2*c+1, scales)
		sumi += int32(sc1)*(l0+l1) + int32(sc2)*(h0+h1)
		mins += int32(m1)*(bsums[4*c]+bsums[4*c+1]) + int32(m2)*(bsums[4*c+2]+bsums[4*c+3])
	}
	return sumi, mins
}

// scaleQ4_K is what a Q4_K block adds to its row's sum, given its integer
// sums (dotQ4_K) and the vector block's scale vd: d·vd·sumi − dmin·vd·mins,
// each product rounded, so that no FMA (GOAMD64=v3) fuses it with the
// subtraction, which the assembly kernel's results depend on not happening.
func scaleQ4_K(blk *[q4_KBytes]byte, vd float32, sumi, mins int32) float32 {
	return scaleMinsK(half(blk[0:]), half(blk[2:]), vd, sumi, mins)
}

// scaleMinsK is what a block of a K format with mins (Q2_K, Q4_K, Q5_K)
// adds to its row's sum, given its scales d and dmin, its integer sums and
// the vector block's scale vd: d·vd·sumi − dmin·vd·mins, each product
// rounded.
func scaleMinsK(d, dmin, vd float32, sumi, mins int32) float32 {
	return float32(d*vd*float32(sumi)) - float32(dmin*vd*float32(mins))
}
