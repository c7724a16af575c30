package wasmsimd

import "math"

// quantizeQ8_0 is the body of quantize_q8_0(x, q, d, s, sums, blocks,
// done): it quantizes blocks blocks of 32 float32s at x as package quant
// quantizes a vector for Q8_0 weights and the formats multiplied as they
// are, bit for bit, block after block:
//
//	amax := max |x_j|; id := 127/amax, or 0 where amax is 0
//	q_j := x_j·id rounded half to even; sums := Σ q_j
//	d := half(amax/127); s := half(amax/127 · sums)
//
// half(v) being v rounded to the nearest float16 and back (quant's
// FloatToHalf, HalfToFloat). It stops before a block whose amax or id is
// not finite (an infinity, a NaN, or an amax so small that 127/amax
// overflows), which quant's Go code quantizes, and stores how many blocks
// it quantized at done.
func quantizeQ8_0() *body {
	f := &body{params: 7}
	const x, q, d, s, sums, blocks, done = 0, 1, 2, 3, 4, 5, 6
	b, amax, scale, sum := f.local(i32), f.local(f32), f.local(f32), f.local(i32)
	bits, magnitude := f.local(i32), f.local(i32)
	var v [8]uint32
	for i := range v {
		v[i] = f.local(v128)
	}
	m, total := f.local(v128), f.local(v128)

	whileLess(f, b, blocks)
	// amax, a NaN sticking as f32x4.max keeps it
	for i := range v {
		f.get(x)
		f.v128Load(uint32(16 * i))
		f.set(v[i])
	}
	f.get(v[0])
	f.f32x4Abs()
	for i := 1; i < len(v); i++ {
		f.get(v[i])
		f.f32x4Abs()
		f.f32x4Max()
	}
	f.set(m)
	for _, lanes := range [][4]byte{{2, 3, 0, 1}, {1, 0, 3, 2}} {
		f.get(m)
		f.get(m)
		f.get(m)
		f.shuffle(lanes)
		f.f32x4Max()
		f.set(m)
	}
	f.get(m)
	f.f32x4ExtractLane(0)
	f.set(amax)
	// id, 0 where amax is 0; stop at an amax or id that is not finite
	f.f32Const(127)
	f.get(amax)
	f.f32Div()
	f.f32Const(0)
	f.get(amax)
	f.f32Const(0)
	f.f32Ne()
	f.selectOp()
	f.set(scale)
	f.get(amax)
	f.f32Const(float32Inf)
	f.f32Lt()
	f.get(scale)
	f.f32Const(float32Inf)
	f.f32Lt()
	f.i32And()
	f.i32Eqz()
	f.brIf(1)
	// q, their sum
	for i := range v {
		f.get(v[i])
		f.get(scale)
		f.f32x4Splat()
		f.f32x4Mul()
		f.f32x4Nearest()
		f.i32x4TruncSatF32x4S()
		f.set(v[i])
	}
	f.get(v[0])
	for i := 1; i < len(v); i++ {
		f.get(v[i])
		f.i32x4Add()
	}
	f.set(total)
	for _, lanes := range [][4]byte{{2, 3, 0, 1}, {1, 0, 3, 2}} {
		f.get(total)
		f.get(total)
		f.get(total)
		f.shuffle(lanes)
		f.i32x4Add()
		f.set(total)
	}
	f.get(total)
	f.i32x4ExtractLane(0)
	f.set(sum)
	for i := 0; i < len(v); i += 4 {
		f.get(q)
		f.get(v[i])
		f.get(v[i+1])
		f.i16x8NarrowI32x4S()
		f.get(v[i+2])
		f.get(v[i+3])
		f.i16x8NarrowI32x4S()
		f.i8x16NarrowI16x8S()
		f.v128Store(uint32(4 * i))
	}
	f.get(sums)
	f.get(sum)
	f.i32Store(0)
	// d and s
	f.get(d)
	f.get(amax)
	f.f32Const(127)
	f.f32Div()
	f.set(amax) // d unrounded, from here on
	roundToHalf(f, amax, bits, magnitude)
	f.f32Store(0)
	f.get(s)
	f.get(amax)
	f.get(sum)
	f.f32ConvertI32S()
	f.f32Mul()
	f.set(amax)
	roundToHalf(f, amax, bits, magnitude)
	f.f32Store(0)

	addTo(f, x, 32*4)
	addTo(f, q, 32)
	for _, p := range []uint32{d, s, sums} {
		addTo(f, p, 4)
	}
	addTo(f, b, 1)
	endWhile(f)
	f.get(done)
	f.get(b)
	f.i32Store(0)
	return f
}

// float32Inf is float32's positive infinity.
var float32Inf = float32(math.Inf(1))

// roundToHalf pushes the finite f32 local v rounded to the nearest float16,
// halves to even, as a float32: quant's HalfToFloat(FloatToHalf(v)). A
// magnitude below 2⁻¹⁴ is a float16 subnormal, a multiple of 2⁻²⁴, which
// adding and taking away 0.5 rounds to (float32's unit there is 2⁻²⁴); a
// larger one keeps the top 10 bits of its fraction, rounded on the bits
// below, a carry going into the exponent, and is infinite from 2¹⁶ on
// (float16's largest finite value is 65504). bits and magnitude are
// scratch.
func roundToHalf(f *body, v, bits, magnitude uint32) {
	f.get(v)
	f.i32ReinterpretF32()
	f.set(bits)
	f.get(bits)
	f.i32Const(0x7fffffff)
	f.i32And()
	f.set(magnitude)
	// subnormal: (|v| + 0.5) − 0.5
	f.get(magnitude)
	f.f32ReinterpretI32()
	f.f32Const(0.5)
	f.f32Add()
	f.f32Const(0.5)
	f.f32Sub()
	f.i32ReinterpretF32()
	// normal: (|v| + 0xfff + the lowest bit kept) &^ 0x1fff, or infinity
	f.i32Const(0x7f800000)
	f.get(magnitude)
	f.i32Const(0xfff)
	f.i32Add()
	f.get(magnitude)
	f.i32Const(13)
	f.i32ShrU()
	f.i32Const(1)
	f.i32And()
	f.i32Add()
	f.i32Const(^0x1fff)
	f.i32And()
	f.set(magnitude) // rounded, from here on
	f.get(magnitude)
	f.get(magnitude)
	f.i32Const(0x47800000) // 2¹⁶
	f.i32GeU()
	f.selectOp()
	// the subnormal or the normal, by |v| (bits, with the sign taken off)
	f.get(bits)
	f.i32Const(0x7fffffff)
	f.i32And()
	f.i32Const(0x38800000) // 2⁻¹⁴
	f.i32LtU()
	f.selectOp()
	f.get(bits)
	f.i32Const(-0x80000000)
	f.i32And()
	f.i32Or()
	f.f32ReinterpretI32()
}
