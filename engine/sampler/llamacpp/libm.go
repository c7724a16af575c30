package llamacpp

import "math"

// The float32 functions of glibc's libm that llama.cpp's samplers call.
// llama.cpp is compiled for baseline x86-64, but glibc picks its expf,
// logf and powf at load time, and on a CPU with FMA (every x86-64 CPU since
// 2013) it runs the same C compiled with -mfma, where GCC fuses a·b + c
// into one rounding. The functions below follow glibc 2.36's
// sysdeps/ieee754/flt-32/e_expf.c, e_logf.c and e_powf.c (the algorithms of
// Arm's optimized-routines) with math.FMA where that build fuses. Checked
// against glibc 2.36 on x86-64 with FMA: expf on every float32 in
// [−104, 89], logf on every positive float32 and powf on 10⁸ random pairs
// agree in every bit (see testdata/README.md).

// expf is glibc's __expf_fma.
func expf(x float32) float32 {
	switch {
	case x != x || x > 0x1.62e42ep6:
		return x + float32(math.Inf(1)) // NaN, or overflow to +Inf
	case x < -0x1.9fe368p6:
		return 0 // underflow, and −Inf
	}
	const (
		n       = 32
		shift   = 0x1.8p+52
		c0      = 0x1.c6af84b912394p-5 / (n * n * n)
		c1      = 0x1.ebfce50fac4f3p-3 / (n * n)
		c2      = 0x1.62e42ff0c52d6p-1 / n
		invLn2N = 0x1.71547652b82fep+0 * n
	)
	// z = x·32/ln2 is used twice, both times fused.
	xd := float64(x)
	kd := math.FMA(invLn2N, xd, shift)
	ki := math.Float64bits(kd)
	kd -= shift
	r := math.FMA(invLn2N, xd, -kd)
	s := math.Float64frombits(exp2Table[ki%n] + ki<<(52-5))
	y := math.FMA(math.FMA(c0, r, c1), r*r, math.FMA(c2, r, 1))
	return float32(y * s)
}

// logfTable is glibc's __logf_data.tab: for each of 16 subintervals of
// [0x3f330000, 2·0x3f330000) near 1, 1/c and log(c) for a c near its centre.
var logfTable = [16]struct{ invc, logc float64 }{
	{0x1.661ec79f8f3bep+0, -0x1.57bf7808caadep-2},
	{0x1.571ed4aaf883dp+0, -0x1.2bef0a7c06ddbp-2},
	{0x1.49539f0f010bp+0, -0x1.01eae7f513a67p-2},
	{0x1.3c995b0b80385p+0, -0x1.b31d8a68224e9p-3},
	{0x1.30d190c8864a5p+0, -0x1.6574f0ac07758p-3},
	{0x1.25e227b0b8eap+0, -0x1.1aa2bc79c81p-3},
	{0x1.1bb4a4a1a343fp+0, -0x1.a4e76ce8c0e5ep-4},
	{0x1.12358f08ae5bap+0, -0x1.1973c5a611cccp-4},
	{0x1.0953f419900a7p+0, -0x1.252f438e10c1ep-5},
	{0x1p+0, 0x0p+0},
	{0x1.e608cfd9a47acp-1, 0x1.aa5aa5df25984p-5},
	{0x1.ca4b31f026aap-1, 0x1.c5e53aa362eb4p-4},
	{0x1.b2036576afce6p-1, 0x1.526e57720db08p-3},
	{0x1.9c2d163a1aa2dp-1, 0x1.bc2860d22477p-3},
	{0x1.886e6037841edp-1, 0x1.1058bc8a07ee1p-2},
	{0x1.767dcf5534862p-1, 0x1.4043057b6ee09p-2},
}

// logf is glibc's __logf_fma.
func logf(x float32) float32 {
	ix := math.Float32bits(x)
	if ix == 0x3f800000 {
		return 0
	}
	if ix-0x00800000 >= 0x7f800000-0x00800000 {
		switch {
		case ix*2 == 0:
			return float32(math.Inf(-1))
		case ix == 0x7f800000:
			return x
		case ix&0x80000000 != 0 || ix*2 >= 0xff000000:
			return float32(math.NaN())
		}
		// Subnormal: normalise.
		ix = math.Float32bits(x * 0x1p23)
		ix -= 23 << 23
	}
	const (
		off = 0x3f330000
		ln2 = 0x1.62e42fefa39efp-1
		a0  = -0x1.00ea348b88334p-2
		a1  = 0x1.5575b0be00b6ap-2
		a2  = -0x1.ffffef20a4123p-2
	)
	tmp := ix - off
	i := (tmp >> (23 - 4)) % 16
	k := int32(tmp) >> 23
	iz := ix - (tmp & (0x1ff << 23))
	z := float64(math.Float32frombits(iz))
	r := math.FMA(z, logfTable[i].invc, -1)
	y0 := math.FMA(float64(k), ln2, logfTable[i].logc)
	r2 := r * r
	y := math.FMA(a1, r, a2)
	y = math.FMA(a0, r2, y)
	y = math.FMA(y, r2, y0+r)
	return float32(y)
}

// powfLog2Table is glibc's __powf_log2_data.tab: the same 1/c as
// logfTable, with log2(c).
var powfLog2Table = [16]struct{ invc, logc float64 }{
	{0x1.661ec79f8f3bep+0, -0x1.efec65b963019p-2},
	{0x1.571ed4aaf883dp+0, -0x1.b0b6832d4fca4p-2},
	{0x1.49539f0f010bp+0, -0x1.7418b0a1fb77bp-2},
	{0x1.3c995b0b80385p+0, -0x1.39de91a6dcf7bp-2},
	{0x1.30d190c8864a5p+0, -0x1.01d9bf3f2b631p-2},
	{0x1.25e227b0b8eap+0, -0x1.97c1d1b3b7afp-3},
	{0x1.1bb4a4a1a343fp+0, -0x1.2f9e393af3c9fp-3},
	{0x1.12358f08ae5bap+0, -0x1.960cbbf788d5cp-4},
	{0x1.0953f419900a7p+0, -0x1.a6f9db6475fcep-5},
	{0x1p+0, 0x0p+0},
	{0x1.e608cfd9a47acp-1, 0x1.338ca9f24f53dp-4},
	{0x1.ca4b31f026aap-1, 0x1.476a9543891bap-3},
	{0x1.b2036576afce6p-1, 0x1.e840b4ac4e4d2p-3},
	{0x1.9c2d163a1aa2dp-1, 0x1.40645f0c6651cp-2},
	{0x1.886e6037841edp-1, 0x1.88e9c2c1b9ff8p-2},
	{0x1.767dcf5534862p-1, 0x1.ce0a44eb17bccp-2},
}

// powf is glibc's __powf_fma for the arguments llama.cpp gives it: x ≥ 0
// (a normalised entropy) and any y. Negative x returns NaN, where glibc
// would compute integer powers.
func powf(x, y float32) float32 {
	ix, iy := math.Float32bits(x), math.Float32bits(y)
	zeroInfNaN := func(i uint32) bool { return 2*i-1 >= 2*0x7f800000-1 }
	if ix-0x00800000 >= 0x7f800000-0x00800000 || zeroInfNaN(iy) {
		if zeroInfNaN(iy) {
			switch {
			case 2*iy == 0, ix == 0x3f800000:
				return 1
			case 2*ix > 2*0x7f800000 || 2*iy > 2*0x7f800000:
				return x + y
			case 2*ix == 2*0x3f800000:
				return 1
			case (2*ix < 2*0x3f800000) == (iy&0x80000000 == 0):
				return 0
			}
			return y * y
		}
		if zeroInfNaN(ix) {
			x2 := x * x
			if iy&0x80000000 != 0 {
				return 1 / x2
			}
			return x2
		}
		if ix&0x80000000 != 0 {
			return float32(math.NaN())
		}
		// Subnormal x: normalise so that the exponent becomes negative.
		ix = math.Float32bits(x * 0x1p23)
		ix &= 0x7fffffff
		ix -= 23 << 23
	}
	ylogx := float64(y) * log2Inline(ix)
	if (math.Float64bits(ylogx)>>47)&0xffff >= math.Float64bits(126.0)>>47 {
		if ylogx > 0x1.fffffffd1d571p+6 {
			return float32(math.Inf(1))
		}
		if ylogx <= -150.0 {
			return 0
		}
	}
	return float32(exp2Inline(ylogx))
}

func log2Inline(ix uint32) float64 {
	const (
		off = 0x3f330000
		a0  = 0x1.27616c9496e0bp-2
		a1  = -0x1.71969a075c67ap-2
		a2  = 0x1.ec70a6ca7baddp-2
		a3  = -0x1.7154748bef6c8p-1
		a4  = 0x1.71547652ab82bp0
	)
	tmp := ix - off
	i := (tmp >> (23 - 4)) % 16
	top := tmp & 0xff800000
	iz := ix - top
	k := int32(top) >> 23
	z := float64(math.Float32frombits(iz))
	r := math.FMA(z, powfLog2Table[i].invc, -1)
	y0 := powfLog2Table[i].logc + float64(k)
	r2 := r * r
	y := math.FMA(a0, r, a1)
	p := math.FMA(a2, r, a3)
	r4 := r2 * r2
	q := math.FMA(a4, r, y0)
	q = math.FMA(p, r2, q)
	return math.FMA(y, r4, q)
}

func exp2Inline(xd float64) float64 {
	const (
		n     = 32
		shift = 0x1.8p+52 / n
		c0    = 0x1.c6af84b912394p-5
		c1    = 0x1.ebfce50fac4f3p-3
		c2    = 0x1.62e42ff0c52d6p-1
	)
	kd := xd + shift
	ki := math.Float64bits(kd)
	kd -= shift
	r := xd - kd
	s := math.Float64frombits(exp2Table[ki%n] + ki<<(52-5))
	y := math.FMA(math.FMA(c0, r, c1), r*r, math.FMA(c2, r, 1))
	return y * s
}

// exp2Table[i] is 2^(i/32) with i<<47 subtracted from its bits, glibc's
// __exp2f_data.tab (e_exp2f_data.c), which package expf also uses.
var exp2Table = [32]uint64{
	0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
	0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
	0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
	0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
	0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
	0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
	0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
	0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
}
