package quant

// Q5_0 (ggml's block_q5_0): a float16 scale d, 4 bytes qh holding the
// fifth bit of each weight (bit j of the little-endian uint32 for weight
// j), then 16 bytes of low four bits as Q4_0's: byte j holds weight j's
// in its low nibble and weight j+16's in its high one; weight j is
// d·(q[j]−16). llama-quantize writes it where a Q4_K_M model's rows are
// not whole 256-weight blocks (SmolLM2-135M's 576, for one).
const q5_0Bytes = 2 + 4 + 16

// q5_0Weights sets q to the block's 32 five-bit weights, minus 16.
func q5_0Weights(blk *[q5_0Bytes]byte, q *[32]int32) {
	qh := uint32(blk[2]) | uint32(blk[3])<<8 | uint32(blk[4])<<16 | uint32(blk[5])<<24
	for j, b := range blk[6:] {
		q[j] = int32(b&0xf|byte(qh>>j<<4&0x10)) - 16
		q[j+16] = int32(b>>4|byte(qh>>(j+12)&0x10)) - 16
	}
}

// dequantizeQ5_0 is ggml's dequantize_row_q5_0.
func dequantizeQ5_0(row []byte, y []float32) {
	var q [32]int32
	for b := range len(y) / 32 {
		blk := (*[q5_0Bytes]byte)(row[b*q5_0Bytes:])
		d := half(blk[:])
		q5_0Weights(blk, &q)
		ys := (*[32]float32)(y[b*32:])
		for j, v := range q {
			ys[j] = float32(v) * d
		}
	}
}

// mulQ5_0 sets out[i] = row i · v for Q5_0 rows, as ggml's
// ggml_vec_dot_q5_0_q8_0_generic: per block, the integer sum of
// (q−16)·v.q, times the product of the two scales, as mulQ8_0 rounds it.
func mulQ5_0(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * q5_0Bytes
	var q [32]int32
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b, vd := range v.d {
			blk := (*[q5_0Bytes]byte)(row[b*q5_0Bytes:])
			q5_0Weights(blk, &q)
			x := (*[32]int8)(v.q[b*32:])
			var s int32
			for j, w := range q {
				s += w * int32(x[j])
			}
			sum += float32(float32(s) * (half(blk[:]) * vd)) // rounded as in mulQ8_0
		}
		out[i] = sum
	}
}
