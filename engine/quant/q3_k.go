package quant

import "encoding/binary"

// Q3_K (ggml's block_q3_K): 256 weights in sixteen groups of 16. 32 bytes
// hmask of high bits, 64 bytes of two-bit low parts laid out as Q2_K's,
// 12 bytes packing sixteen six-bit scales, then a float16 d. Weight l of
// group g takes bit g/2 of hmask[l + 16·(g%2)]; without it, its value is
// lowered by 4. Weight j of group g is d·(sc[g]−32)·q[j], q from −4 to 3.
const q3_KBytes = QK_K/8 + QK_K/4 + 12 + 2

// q3_KScales unpacks the sixteen six-bit scales, as ggml's
// dequantize_row_q3_K does: the low four bits of scales 0–7 in the
// nibbles of bytes 0–3 and 4–7 low first, of 8–15 in their high nibbles,
// and the high two bits of all sixteen in bytes 8–11.
func q3_KScales(blk *[q3_KBytes]byte) (sc [16]int32) {
	s := blk[96:108]
	a0, a1, tmp := binary.LittleEndian.Uint32(s), binary.LittleEndian.Uint32(s[4:]), binary.LittleEndian.Uint32(s[8:])
	const kmask1, kmask2 = 0x03030303, 0x0f0f0f0f
	aux := [4]uint32{
		a0&kmask2 | (tmp>>0&kmask1)<<4,
		a1&kmask2 | (tmp>>2&kmask1)<<4,
		a0>>4&kmask2 | (tmp>>4&kmask1)<<4,
		a1>>4&kmask2 | (tmp>>6&kmask1)<<4,
	}
	for g := range sc {
		sc[g] = int32(int8(aux[g/4]>>(8*(g%4)))) - 32
	}
	return sc
}

// q3_KWeight is weight l (0–15) of group g of a Q3_K block, −4 to 3.
func q3_KWeight(blk *[q3_KBytes]byte, g, l int) int32 {
	half, j, second := g/8, g%8/2, g%2
	q := int32(blk[32+32*half+16*second+l] >> (2 * j) & 3)
	if blk[l+16*second]>>(4*half+j)&1 == 0 {
		q -= 4
	}
	return q
}

// dequantizeQ3_K is ggml's dequantize_row_q3_K.
func dequantizeQ3_K(row []byte, y []float32) {
	for b := range len(y) / QK_K {
		blk := (*[q3_KBytes]byte)(row[b*q3_KBytes:])
		d := half(blk[108:])
		sc := q3_KScales(blk)
		for g := range 16 {
			dl := d * float32(sc[g])
			ys := (*[16]float32)(y[b*QK_K+16*g:])
			for l := range 16 {
				ys[l] = dl * float32(q3_KWeight(blk, g, l))
			}
		}
	}
}

// mulQ3_K sets out[i] = row i · v for Q3_K rows, as ggml's
// ggml_vec_dot_q3_K_q8_K: per block, Σ_g (sc[g]−32)·(Σ q·v.q) in
// integers, times d·v.d.
func mulQ3_K(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * q3_KBytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b, vd := range v.d {
			blk := (*[q3_KBytes]byte)(row[b*q3_KBytes:])
			sc := q3_KScales(blk)
			var sumi int32
			for g := range 16 {
				x := (*[16]int8)(v.q[b*QK_K+16*g:])
				var s int32
				for l, xv := range x {
					s += q3_KWeight(blk, g, l) * int32(xv)
				}
				sumi += sc[g] * s
			}
			sum += float32(half(blk[108:]) * vd * float32(sumi))
		}
		out[i] = sum
	}
}
