package wasmsimd

// q8_0Bytes is the size of a Q8_0 block (ggml's block_q8_0): a float16
// scale, then 32 int8 weights.
const q8_0Bytes = 2 + 32

// mulQ8_0 is the body of mul_q8_0(out, w, q, d, blocks, rows): out[i] for
// i < rows is row i of w, rows of blocks Q8_0 blocks each, times the vector
// quantized to Q8_0 as q (32 int8 a block) and d (a float32 scale a block).
// Its results are those of package quant's mulQ8_0 (ggml's
// ggml_vec_dot_q8_0_q8_0), bit for bit: a block's 32 products are summed
// in integers, exactly, in any order; then, in order of blocks,
//
//	sum += float32(s) · (d_w · d_x)
//
// rounded as Go rounds it, one lane a row. In outline:
//
//	for R in 4, 1:                     // rows at a time, while R rows remain
//	  while rows remain:
//	    r_k := the k-th row (the same row four times when R = 1); acc := 0
//	    for each block:
//	      x_lo, x_hi := the block's q as int16 vectors of eight (four of them)
//	      p_k := i32x4.dot(w_k's weights as int16, x) summed (four lanes a row)
//	      s := [Σp_0 Σp_1 Σp_2 Σp_3]      // transposeSum
//	      acc += float(s) · (half(r_k's scales) · d)
//	      r_k += 34
//	    store acc's R lanes at out; next R rows
//
// A product of two int8 fits an int16 and i32x4.dot_i16x8_s (pmaddwd on
// x86) sums pairs of them into int32, which is why the weights are
// sign-extended to int16 rather than multiplied with i16x8.extmul, whose
// high half costs V8 more instructions.
func mulQ8_0() *body {
	f := &body{params: 6}
	const out, w, q, d, blocks, rows = 0, 1, 2, 3, 4, 5
	rowBytes, row, o, outEnd, qp, dp, dEnd := f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32)
	var r [4]uint32
	for k := range r {
		r[k] = f.local(i32)
	}
	var x, p [4]uint32
	for k := range x {
		x[k], p[k] = f.local(v128), f.local(v128)
	}
	acc, v, h := f.local(v128), f.local(v128), f.local(v128)

	f.get(blocks)
	f.i32Const(q8_0Bytes)
	f.i32Mul()
	f.set(rowBytes)
	f.get(w)
	f.set(row)
	f.get(out)
	f.set(o)
	f.get(out)
	f.get(rows)
	f.i32Const(2)
	f.i32Shl()
	f.i32Add()
	f.set(outEnd)
	f.get(d)
	f.get(blocks)
	f.i32Const(2)
	f.i32Shl()
	f.i32Add()
	f.set(dEnd)

	for _, group := range []int{4, 1} {
		// while outEnd - o ≥ 4·group
		f.block()
		f.loop()
		f.get(outEnd)
		f.get(o)
		f.i32Sub()
		f.i32Const(int32(4 * group))
		f.i32LtU()
		f.brIf(1)

		for k := range r {
			f.get(row)
			if group == 4 && k > 0 {
				f.get(rowBytes)
				f.i32Const(int32(k))
				f.i32Mul()
				f.i32Add()
			}
			f.set(r[k])
		}
		f.v128Const0()
		f.set(acc)
		f.get(q)
		f.set(qp)
		f.get(d)
		f.set(dp)

		// for each block: while dp < dEnd
		f.block()
		f.loop()
		f.get(dp)
		f.get(dEnd)
		f.i32GeU()
		f.brIf(1)

		for half := range 2 {
			f.get(qp)
			f.v128Load(uint32(16 * half))
			f.set(v)
			f.get(v)
			f.i16x8ExtendLowI8x16S()
			f.set(x[2*half])
			f.get(v)
			f.i16x8ExtendHighI8x16S()
			f.set(x[2*half+1])
		}
		for k := range r {
			for half := range 2 {
				f.get(r[k])
				f.v128Load(uint32(2 + 16*half))
				f.set(v)
				f.get(v)
				f.i16x8ExtendLowI8x16S()
				f.get(x[2*half])
				f.i32x4DotI16x8S()
				f.get(v)
				f.i16x8ExtendHighI8x16S()
				f.get(x[2*half+1])
				f.i32x4DotI16x8S()
				f.i32x4Add()
				if half == 1 {
					f.get(p[k])
					f.i32x4Add()
				}
				f.set(p[k])
			}
		}

		// acc += float(s) · (half(scales) · d)
		f.get(acc)
		transposeSum(f, p, f.i32x4Add)
		f.f32x4ConvertI32x4S()
		f.v128Const0()
		for k := range r {
			f.set(h)
			f.get(r[k])
			f.get(h)
			f.load16Lane(0, byte(2*k)) // the low half of int32 lane k
		}
		f.set(h)
		halfToFloat(f, h, v)
		f.get(dp)
		f.f32Load(0)
		f.f32x4Splat()
		f.f32x4Mul()
		f.f32x4Mul()
		f.f32x4Add()
		f.set(acc)

		for k := range r {
			addTo(f, r[k], q8_0Bytes)
		}
		addTo(f, qp, 32)
		addTo(f, dp, 4)
		f.br(0)
		f.end()
		f.end()

		f.get(o)
		f.get(acc)
		if group == 4 {
			f.v128Store(0)
		} else {
			f.f32x4ExtractLane(0)
			f.f32Store(0)
		}
		f.get(row)
		f.get(rowBytes)
		f.i32Const(int32(group))
		f.i32Mul()
		f.i32Add()
		f.set(row)
		addTo(f, o, int32(4*group))
		f.br(0)
		f.end()
		f.end()
	}
	return f
}

// halfToFloat pushes the float32 values of the IEEE half-precision numbers
// in the low 16 bits of local h's int32 lanes, as quant.HalfToFloat gives
// them; it overwrites local bits. Moving a half's exponent and mantissa to
// float32's places, unbiased, gives a float32 2¹¹² times too small, and
// multiplying by 2¹¹² makes it exact, subnormal halves included
// (WebAssembly keeps float32 subnormals); an infinity or NaN instead takes
// float32's top exponent.
func halfToFloat(f *body, h, bits uint32) {
	f.get(h)
	f.i32x4Const(0x7fff)
	f.v128And()
	f.i32Const(13)
	f.i32x4Shl()
	f.get(h)
	f.i32x4Const(0x8000)
	f.v128And()
	f.i32Const(16)
	f.i32x4Shl()
	f.v128Or()
	f.set(bits)

	f.get(bits)
	f.i32x4Const(0x7f800000) // infinity or NaN
	f.v128Or()
	f.get(bits)
	f.i32x4Const(0x77800000) // 2¹¹²
	f.f32x4Mul()
	f.get(h)
	f.i32x4Const(0x7c00)
	f.v128And()
	f.i32x4Const(0x7c00)
	f.i32x4Eq()
	f.v128Bitselect()
}
