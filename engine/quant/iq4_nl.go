package quant

// IQ4_NL (ggml's block_iq4_nl): Q4_0's layout with a non-linear grid: a
// float16 scale d, then 16 bytes of four-bit indices, byte j holding
// weight j's in its low nibble and weight j+16's in its high one; weight j
// is d·grid[index], grid ggml's kvalues_iq4nl.
const iq4_nlBytes = 2 + 16

// iq4nlGrid is ggml's kvalues_iq4nl.
var iq4nlGrid = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

// dequantizeIQ4_NL is ggml's dequantize_row_iq4_nl.
func dequantizeIQ4_NL(row []byte, y []float32) {
	for b := range len(y) / 32 {
		blk := (*[iq4_nlBytes]byte)(row[b*iq4_nlBytes:])
		dequantizeIQ4Group((*[16]byte)(blk[2:]), half(blk[:]), (*[32]float32)(y[b*32:]))
	}
}

// dequantizeIQ4Group sets ys to the 32 weights of a group of IQ4 indices
// (IQ4_NL's block, a group of IQ4_XS's) of scale d: index j in the low
// nibble of qs[j], index j+16 in its high one.
func dequantizeIQ4Group(qs *[16]byte, d float32, ys *[32]float32) {
	for j, q := range qs {
		ys[j] = d * float32(iq4nlGrid[q&0xf])
		ys[j+16] = d * float32(iq4nlGrid[q>>4])
	}
}

// dotIQ4Group is the integer product of a group of IQ4 indices' grid
// values with 32 values of a vector.
func dotIQ4Group(qs *[16]byte, x *[32]int8) (s int32) {
	for j, q := range qs {
		s += int32(iq4nlGrid[q&0xf])*int32(x[j]) + int32(iq4nlGrid[q>>4])*int32(x[j+16])
	}
	return s
}

// mulIQ4_NL sets out[i] = row i · v for IQ4_NL rows, as ggml's
// ggml_vec_dot_iq4_nl_q8_0: per block, the integer sum of grid values
// times v.q, times the product of the two scales, as mulQ8_0 rounds it.
func mulIQ4_NL(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * iq4_nlBytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b, vd := range v.d {
			blk := (*[iq4_nlBytes]byte)(row[b*iq4_nlBytes:])
			s := dotIQ4Group((*[16]byte)(blk[2:]), (*[32]int8)(v.q[b*32:]))
			sum += float32(float32(s) * (half(blk[:]) * vd))
		}
		out[i] = sum
	}
}
