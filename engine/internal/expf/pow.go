package expf

import "math"

// Pow returns x^y as glibc 2.36's powf computes it on x86-64 (the build
// for CPUs with FMA, which fuses every a·b + c), for every x > 0 and every
// y: run.c's rotary embedding calls powf(10000, i/head_size). For x ≤ 0,
// infinite or NaN x, and y of 0, ±Inf or NaN it is math.Pow rounded to
// float32, which may differ from powf in the last bit for x < 0.
//
// x^y = 2^(y·log2 x), in float64 with one rounding to float32 at the end:
// log2 x from a 16-entry table of 1/c and log2 c with a polynomial in
// z/c − 1, then 2^t as in Exp, t = k/32 + r.
func Pow(x, y float32) float32 {
	ix, iy := math.Float32bits(x), math.Float32bits(y)
	if ix >= 0x7f800000 || ix == 0 || 2*iy-1 >= 2*0x7f800000-1 {
		// x ≤ 0, x infinite or NaN, y zero, infinite or NaN.
		return float32(math.Pow(float64(x), float64(y)))
	}
	if ix < 0x00800000 {
		// Normalise a subnormal x so that its exponent field goes negative.
		ix = math.Float32bits(x*0x1p23)&0x7fffffff - 23<<23
	}
	t := float64(float64(y) * log2(ix)) // rounded: exp2 adds to it
	switch {
	case t > 0x1.fffffffd1d571p+6: // x^y > 0x1.ffffffp127: rounds to +Inf
		return float32(math.Inf(1))
	case t <= -150:
		return 0
	}
	return float32(exp2(t))
}

// powLog2 are glibc's __powf_log2_data: for 16 subintervals of [0x3f330000,
// 2·0x3f330000] (as float32 bits), 1/c and log2 c of a c near the middle,
// and a polynomial for log1p(r)/ln 2.
var powLog2 = [16][2]float64{
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

var powLog2Poly = [5]float64{
	0x1.27616c9496e0bp-2, -0x1.71969a075c67ap-2, 0x1.ec70a6ca7baddp-2,
	-0x1.7154748bef6c8p-1, 0x1.71547652ab82bp0,
}

// log2 is log2 of the positive float32 whose bits are ix (a subnormal's
// exponent field made negative).
func log2(ix uint32) float64 {
	const off = 0x3f330000
	tmp := ix - off
	i := tmp >> (23 - 4) % 16
	top := tmp & 0xff800000
	k := int32(top) >> 23 // x = 2^k·z with z in [off, 2·off]
	invc, logc := powLog2[i][0], powLog2[i][1]
	z := float64(math.Float32frombits(ix - top))
	r := math.FMA(z, invc, -1)
	y0 := logc + float64(k)
	a := &powLog2Poly
	r2 := r * r
	y := math.FMA(a[0], r, a[1])
	p := math.FMA(a[2], r, a[3])
	r4 := r2 * r2
	q := math.FMA(a[4], r, y0)
	q = math.FMA(p, r2, q)
	return math.FMA(y, r4, q)
}

// exp2 is 2^t for t in (-150, 128], as Exp computes e^x but with t = k/32 + r
// directly and a polynomial in unscaled r.
func exp2(t float64) float64 {
	const shift = 0x1.8p+52 / n // rounds t to a multiple of 1/32, kept in the low bits
	kd := t + shift
	ki := math.Float64bits(kd)
	kd -= shift
	r := t - kd
	s := math.Float64frombits(exp2Table[ki%n] + ki<<(52-5))
	z := math.FMA(0x1.c6af84b912394p-5, r, 0x1.ebfce50fac4f3p-3)
	r2 := r * r
	y := math.FMA(0x1.62e42ff0c52d6p-1, r, 1)
	y = math.FMA(z, r2, y)
	return y * s
}
