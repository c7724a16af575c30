package quant

// Q4_0 (ggml's block_q4_0): a float16 scale d, then 16 bytes of four-bit
// q: byte j holds q[j] in its low nibble and q[j+16] in its high one;
// weight j is d·(q[j]−8).
const q4_0Bytes = 2 + 16

// dequantizeQ4_0 is ggml's dequantize_row_q4_0.
func dequantizeQ4_0(row []byte, y []float32) {
	for b := range len(y) / 32 {
		blk := (*[q4_0Bytes]byte)(row[b*q4_0Bytes:])
		d := half(blk[:])
		ys := (*[32]float32)(y[b*32:])
		for j, q := range blk[2:] {
			ys[j] = float32(int32(q&0xf)-8) * d
			ys[j+16] = float32(int32(q>>4)-8) * d
		}
	}
}

// mulQ4_0 sets out[i] = row i · v for Q4_0 rows, as ggml's
// ggml_vec_dot_q4_0_q8_0: per block, the integer sum of (q−8)·v.q, times
// the two scales (in ggml_vec_dot_q4_0_q8_0_generic's order, unlike
// Q8_0's). The −8 is taken out of the sum as −8·Σv.q.
func mulQ4_0(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * q4_0Bytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b, vd := range v.d {
			blk := (*[q4_0Bytes]byte)(row[b*q4_0Bytes:])
			sum += termQ4_0(blk, (*[32]int8)(v.q[b*32:]), v.sums[b], vd)
		}
		out[i] = sum
	}
}

// termQ4_0 is termQ8_0 for a Q4_0 block, whose −8 takes out 8·sum, the
// vector block's Σq.
func termQ4_0(blk *[q4_0Bytes]byte, q *[32]int8, sum int32, vd float32) float32 {
	return float32(dotQ4_0(blk, q)-8*sum) * half(blk[:]) * vd
}

// dotQ4_0 is the integer sum of a Q4_0 block's four-bit q (0–15) times
// the vector's.
func dotQ4_0(blk *[q4_0Bytes]byte, q *[32]int8) int32 {
	lo, hi := (*[16]int8)(q[:16]), (*[16]int8)(q[16:])
	var s0, s1, s2, s3 int32
	for j := 0; j < 16; j += 2 {
		q0, q1 := int32(blk[2+j]), int32(blk[3+j])
		s0 += (q0 & 0xf) * int32(lo[j])
		s1 += (q0 >> 4) * int32(hi[j])
		s2 += (q1 & 0xf) * int32(lo[j+1])
		s3 += (q1 >> 4) * int32(hi[j+1])
	}
	return (s0 + s1) + (s2 + s3)
}
