package quant

// IQ4_XS (ggml's block_iq4_xs): IQ4_NL's grid in blocks of 256 with a
// scale per group of 32. A float16 d, a uint16 of the scales' high two
// bits (bits 2g and 2g+1 for group g), four bytes of their low four bits
// (group g's in the low nibble of byte g/2 for even g, the high one for
// odd), then 128 bytes of indices, 16 a group, as IQ4_NL's. Weight j of
// group g is d·(ls[g]−32)·grid[index], ls six bits.
const iq4_xsBytes = 2 + 2 + QK_K/64 + QK_K/2

// iq4_xsScale is the six-bit scale of group g, as ggml reads it.
func iq4_xsScale(blk *[iq4_xsBytes]byte, g int) int32 {
	h := uint16(blk[2]) | uint16(blk[3])<<8
	return int32(blk[4+g/2]>>(4*(g%2))&0xf | byte(h>>(2*g)&3)<<4)
}

// dequantizeIQ4_XS is ggml's dequantize_row_iq4_xs.
func dequantizeIQ4_XS(row []byte, y []float32) {
	for b := range len(y) / QK_K {
		blk := (*[iq4_xsBytes]byte)(row[b*iq4_xsBytes:])
		d := half(blk[:])
		for g := range QK_K / 32 {
			dl := d * float32(iq4_xsScale(blk, g)-32)
			dequantizeIQ4Group((*[16]byte)(blk[8+16*g:]), dl, (*[32]float32)(y[b*QK_K+32*g:]))
		}
	}
}

// mulIQ4_XS sets out[i] = row i · v for IQ4_XS rows, as ggml's AVX2
// ggml_vec_dot_iq4_xs_q8_K: per block, Σ_g (ls[g]−32)·(Σ grid·v.q) in
// integers, times d·v.d.
func mulIQ4_XS(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * iq4_xsBytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b, vd := range v.d {
			blk := (*[iq4_xsBytes]byte)(row[b*iq4_xsBytes:])
			var sumi int32
			for g := range QK_K / 32 {
				s := dotIQ4Group((*[16]byte)(blk[8+16*g:]), (*[32]int8)(v.q[b*QK_K+32*g:]))
				sumi += (iq4_xsScale(blk, g) - 32) * s
			}
			sum += float32(float32(sumi) * (half(blk[:]) * vd))
		}
		out[i] = sum
	}
}
