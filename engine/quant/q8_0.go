package quant

// Q8_0 (ggml's block_q8_0): a float16 scale d, then 32 int8 q; weight j is
// d·q[j].
const q8_0Bytes = 2 + 32

// dequantizeQ8_0 is ggml's dequantize_row_q8_0.
func dequantizeQ8_0(row []byte, y []float32) {
	for b := range len(y) / 32 {
		blk := (*[q8_0Bytes]byte)(row[b*q8_0Bytes:])
		d := half(blk[:])
		for j, q := range blk[2:] {
			y[b*32+j] = float32(int8(q)) * d
		}
	}
}

// mulQ8_0 sets out[i] = row i · v for Q8_0 rows, as ggml's
// ggml_vec_dot_q8_0_q8_0: per block, the integer sum of q·v.q, times the
// two scales.
func mulQ8_0(out []float32, w []byte, v *Vec) {
	rowBytes := len(v.d) * q8_0Bytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b, vd := range v.d {
			blk := (*[q8_0Bytes]byte)(row[b*q8_0Bytes:])
			sum += termQ8_0(blk, (*[32]int8)(v.q[b*32:]), vd)
		}
		out[i] = sum
	}
}

// termQ8_0 is a Q8_0 block's term of a row's sum with the vector's block
// q of scale vd: the integer sum times the two scales, rounded to float32
// before it is added (a function's float32 result is rounded: Go would
// otherwise fuse the product and the sum into one FMA where it may,
// GOAMD64=v3, which the assembly kernels do not).
func termQ8_0(blk *[q8_0Bytes]byte, q *[32]int8, vd float32) float32 {
	return float32(dotQ8_0(blk, q)) * (half(blk[:]) * vd)
}

// dotQ8_0 is the integer sum of a Q8_0 block's q times the vector's.
func dotQ8_0(blk *[q8_0Bytes]byte, q *[32]int8) int32 {
	// Four independent sums, so the products overlap, eight weights at a
	// time through array pointers that address them with constant offsets.
	var s0, s1, s2, s3 int32
	for k := 0; k < 32; k += 8 {
		w8, x8 := (*[8]byte)(blk[2+k:]), (*[8]int8)(q[k:])
		s0 += int32(int8(w8[0]))*int32(x8[0]) + int32(int8(w8[1]))*int32(x8[1])
		s1 += int32(int8(w8[2]))*int32(x8[2]) + int32(int8(w8[3]))*int32(x8[3])
		s2 += int32(int8(w8[4]))*int32(x8[4]) + int32(int8(w8[5]))*int32(x8[5])
		s3 += int32(int8(w8[6]))*int32(x8[6]) + int32(int8(w8[7]))*int32(x8[7])
	}
	return (s0 + s1) + (s2 + s3)
}
