package wasmsimd

// A quantized format the kernels multiply: ggml's block_q8_0 (a float16
// scale, then 32 int8 weights) and block_q4_0 (a float16 scale, then 16
// bytes holding weight j in the low nibble of byte j and weight j+16 in
// its high nibble, each worth q−8).
type quantFormat struct {
	blockBytes int32
	// dot sets local p to a vector whose four lanes sum to the integer
	// dot product of the block at local r with the vector's block, whose
	// 32 values are in x as int16 vectors of eight; v and n are scratch.
	dot func(f *body, r uint32, x [4]uint32, v, n, p uint32)
	// offset8 subtracts 8·Σq of the vector's block from the sum, Q4_0's −8
	// taken out of the products.
	offset8 bool
	// weightScaleFirst rounds float(s)·d_w, then times d_x, as Go's
	// mulQ4_0 does, instead of float(s)·(d_w·d_x), as mulQ8_0 does.
	weightScaleFirst bool
}

var (
	q8_0 = quantFormat{blockBytes: 2 + 32, dot: dotQ8_0}
	q4_0 = quantFormat{blockBytes: 2 + 16, dot: dotQ4_0, offset8: true, weightScaleFirst: true}
)

// dotQ8_0 sums the products of the block's weights and x, 16 at a time
// (dot16).
func dotQ8_0(f *body, r uint32, x [4]uint32, v, _, p uint32) {
	for half := range 2 {
		f.get(r)
		f.v128Load(uint32(2 + 16*half))
		f.set(v)
		dot16(f, v, x[2*half], x[2*half+1])
		if half == 1 {
			f.get(p)
			f.i32x4Add()
		}
		f.set(p)
	}
}

// dotQ4_0 takes the low nibbles (weights 0–15, against x[0] and x[1]) and
// the high ones (weights 16–31, against x[2] and x[3]) as dotQ8_0 takes
// its two halves: 0–15 is an int8 as it stands.
func dotQ4_0(f *body, r uint32, x [4]uint32, v, n, p uint32) {
	f.get(r)
	f.v128Load(2)
	f.set(v)
	for half := range 2 {
		f.get(v)
		if half == 0 {
			f.i32x4Const(0x0f0f0f0f)
			f.v128And()
		} else {
			f.i32Const(4)
			f.i8x16ShrU()
		}
		f.set(n)
		dot16(f, n, x[2*half], x[2*half+1])
		if half == 1 {
			f.i32x4Add()
		}
	}
	f.set(p)
}

// dot16 pushes the products of the 16 int8 in local w with the int16 in
// locals lo and hi, summed in four lanes. It sign-extends w to int16 and
// sums the products in pairs (i32x4.dot_i16x8_s, pmaddwd on x86): a
// product of two int8 fits an int16. That beats i16x8.extmul, whose high
// half costs V8 more instructions.
func dot16(f *body, w, lo, hi uint32) {
	f.get(w)
	f.i16x8ExtendLowI8x16S()
	f.get(lo)
	f.i32x4DotI16x8S()
	f.get(w)
	f.i16x8ExtendHighI8x16S()
	f.get(hi)
	f.i32x4DotI16x8S()
	f.i32x4Add()
}

// mulQuant is the body of mul_q8_0 and mul_q4_0(out, w, q, d, sums,
// blocks, rows): out[i] for i < rows is row i of w, blocks blocks of the
// format a row, times the vector quantized to Q8_0 as q (32 int8 a block),
// d (a float32 scale a block) and sums (Σq of each block). Its results are
// those of package quant's mulQ8_0 and mulQ4_0 (ggml's
// ggml_vec_dot_q8_0_q8_0 and ggml_vec_dot_q4_0_q8_0), bit for bit: a
// block's products are summed in integers, exactly, in any order; then, in
// order of blocks, each row adds its block's sum times the two scales,
// rounded as Go rounds them, one lane a row. In outline:
//
//	while rows remain:
//	  r_k := row k of the next four (the first again past the last); acc := 0
//	  for each block:
//	    x := the block's q as four int16 vectors of eight
//	    p_k := products of r_k's block and x (format.dot), in four lanes
//	    s := [Σp_0 Σp_1 Σp_2 Σp_3] (− 8·sums[b] for Q4_0)
//	    acc += float(s) · half(r_k's scales) · d[b]
//	    r_k += blockBytes
//	  store the lanes of acc that are rows
//
// Four rows at a time let one transposition (transposeSum) finish four
// sums and share each load of x.
func mulQuant(format quantFormat) *body {
	f := &body{params: 7}
	const out, w, q, d, sums, blocks, rows = 0, 1, 2, 3, 4, 5, 6
	rowBytes, row, o, outEnd := f.local(i32), f.local(i32), f.local(i32), f.local(i32)
	qp, dp, sp, dEnd := f.local(i32), f.local(i32), f.local(i32), f.local(i32)
	var r [4]uint32
	for k := range r {
		r[k] = f.local(i32)
	}
	var x, p [4]uint32
	for k := range x {
		x[k], p[k] = f.local(v128), f.local(v128)
	}
	acc, v, n := f.local(v128), f.local(v128), f.local(v128)

	f.get(blocks)
	f.i32Const(format.blockBytes)
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

	// while o < outEnd
	f.block()
	f.loop()
	f.get(o)
	f.get(outEnd)
	f.i32GeU()
	f.brIf(1)

	// r_k := row + k·rowBytes if row k is one, else row
	f.get(row)
	f.set(r[0])
	for k := 1; k < len(r); k++ {
		f.get(row)
		f.get(rowBytes)
		f.i32Const(int32(k))
		f.i32Mul()
		f.i32Add()
		f.get(row)
		f.get(outEnd)
		f.get(o)
		f.i32Sub()
		f.i32Const(int32(4 * k))
		f.i32GtU()
		f.selectOp()
		f.set(r[k])
	}
	f.v128Const0()
	f.set(acc)
	f.get(q)
	f.set(qp)
	f.get(d)
	f.set(dp)
	f.get(sums)
	f.set(sp)

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
		format.dot(f, r[k], x, v, n, p[k])
	}

	f.get(acc)
	transposeSum(f, p, f.i32x4Add)
	if format.offset8 {
		f.get(sp)
		f.i32Load(0)
		f.i32Const(3)
		f.i32Shl()
		f.i32x4Splat()
		f.i32x4Sub()
	}
	f.f32x4ConvertI32x4S()
	// The weights' scales, one a row, in the low halves of v's int32 lanes.
	f.v128Const0()
	for k := range r {
		f.set(v)
		f.get(r[k])
		f.get(v)
		f.load16Lane(0, byte(2*k))
	}
	f.set(v)
	halfToFloat(f, v, n)
	dx := func() {
		f.get(dp)
		f.f32Load(0)
		f.f32x4Splat()
	}
	if format.weightScaleFirst {
		f.f32x4Mul()
		dx()
		f.f32x4Mul()
	} else {
		dx()
		f.f32x4Mul()
		f.f32x4Mul()
	}
	f.f32x4Add()
	f.set(acc)

	for k := range r {
		addTo(f, r[k], format.blockBytes)
	}
	addTo(f, qp, 32)
	addTo(f, dp, 4)
	addTo(f, sp, 4)
	f.br(0)
	f.end()
	f.end()

	// Store four rows, or the one to three that remain.
	f.block()
	f.block()
	f.get(outEnd)
	f.get(o)
	f.i32Sub()
	f.i32Const(16)
	f.i32LtU()
	f.brIf(0)
	f.get(o)
	f.get(acc)
	f.v128Store(0)
	f.br(1)
	f.end()
	for k := range 3 {
		if k > 0 {
			f.get(outEnd)
			f.get(o)
			f.i32Sub()
			f.i32Const(int32(4 * k))
			f.i32LeU()
			f.brIf(0)
		}
		f.get(o)
		f.get(acc)
		f.f32x4ExtractLane(byte(k))
		f.f32Store(uint32(4 * k))
	}
	f.end()

	f.get(row)
	f.get(rowBytes)
	f.i32Const(4)
	f.i32Mul()
	f.i32Add()
	f.set(row)
	addTo(f, o, 16)
	f.br(0)
	f.end()
	f.end()
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
