package quant

// Q5_1 (ggml's block_q5_1): Q5_0's layout with an offset: a float16 scale
// d and a float16 min m, then 4 bytes qh and 16 bytes of low nibbles as
// Q5_0's; weight j is d·q[j] + m, q five bits. llama-quantize writes it
// where a Q5_K_M model's rows are not whole 256-weight blocks.
const q5_1Bytes = 2 + 2 + 4 + 16

// q5_1Weights sets q to the block's 32 five-bit weights.
func q5_1Weights(blk *[q5_1Bytes]byte, q *[32]int32) {
	qh := uint32(blk[4]) | uint32(blk[5])<<8 | uint32(blk[6])<<16 | uint32(blk[7])<<24
	for j, b := range blk[8:] {
		q[j] = int32(b&0xf | byte(qh>>j<<4&0x10))
		q[j+16] = int32(b>>4 | byte(qh>>(j+12)&0x10))
	}
}

// dequantizeQ5_1 is ggml's dequantize_row_q5_1, the product rounded
// before the sum as ggml-base, built without FMA, rounds it.
func dequantizeQ5_1(row []byte, y []float32) {
	var q [32]int32
	for b := range len(y) / 32 {
		blk := (*[q5_1Bytes]byte)(row[b*q5_1Bytes:])
		d, m := half(blk[0:]), half(blk[2:])
		q5_1Weights(blk, &q)
		ys := (*[32]float32)(y[b*32:])
		for j, v := range q {
			ys[j] = float32(float32(v)*d) + m
		}
	}
}

// mulQ5_1 sets out[i] = row i · v for Q5_1 rows, as ggml's
// ggml_vec_dot_q5_1_q8_1: per block, the integer sum of q·v.q times the
// product of the two scales, and the block's min times v's block sum
// (v.s, block_q8_1's s), added apart and last.
func mulQ5_1(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * q5_1Bytes
	var q [32]int32
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum, mins float32
		for b, vd := range v.d {
			blk := (*[q5_1Bytes]byte)(row[b*q5_1Bytes:])
			q5_1Weights(blk, &q)
			x := (*[32]int8)(v.q[b*32:])
			var s int32
			for j, w := range q {
				s += w * int32(x[j])
			}
			sum += float32(float32(s) * (half(blk[0:]) * vd))
			mins += half(blk[2:]) * v.s[b]
		}
		out[i] = sum + mins
	}
}
