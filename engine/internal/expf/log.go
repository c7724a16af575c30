package expf

import "math"

// Log returns ln x as glibc 2.36's logf computes it on x86-64 with FMA
// (sysdeps/ieee754/flt-32/e_logf.c, Arm's optimized-routines): x = 2^k·z
// with z near 1, ln x = k·ln 2 + ln c + log1p(z/c − 1) for a c of 16 near
// z, the last a cubic polynomial; in float64, rounded once to float32.
func Log(x float32) float32 {
	ix, special, ok := logArg(x)
	if !ok {
		return special
	}
	const (
		ln2 = 0x1.62e42fefa39efp-1
		a0  = -0x1.00ea348b88334p-2
		a1  = 0x1.5575b0be00b6ap-2
		a2  = -0x1.ffffef20a4123p-2
	)
	i, k, z := logSplit(ix)
	r := math.FMA(z, logTable[i][0], -1)
	y0 := math.FMA(float64(k), ln2, logTable[i][1])
	r2 := r * r
	y := math.FMA(a1, r, a2)
	y = math.FMA(a0, r2, y)
	y = math.FMA(y, r2, y0+r)
	return float32(y)
}

// Log2 returns log₂ x as glibc 2.36's log2f computes it on x86-64 with FMA
// (e_log2f.c): Log's reduction with log₂ c (powf's table) and a quartic.
func Log2(x float32) float32 {
	ix, special, ok := logArg(x)
	if !ok {
		return special
	}
	const (
		a0 = -0x1.712b6f70a7e4dp-2
		a1 = 0x1.ecabf496832ep-2
		a2 = -0x1.715479ffae3dep-1
		a3 = 0x1.715475f35c8b8p0
	)
	i, k, z := logSplit(ix)
	r := math.FMA(z, powLog2[i][0], -1)
	y0 := powLog2[i][1] + float64(k)
	r2 := r * r
	y := math.FMA(a1, r, a2)
	y = math.FMA(a0, r2, y)
	p := math.FMA(a3, r, y0)
	y = math.FMA(y, r2, p)
	return float32(y)
}

// logArg is the bits of a positive finite x other than 1 to take the
// logarithm of (a subnormal's exponent field made negative), or, with ok
// false, the result itself: 0 at 1, −Inf at ±0, +Inf at +Inf, NaN below 0
// and at NaN.
func logArg(x float32) (ix uint32, special float32, ok bool) {
	ix = math.Float32bits(x)
	if ix == 0x3f800000 {
		return 0, 0, false
	}
	if ix-0x00800000 >= 0x7f800000-0x00800000 {
		switch {
		case ix*2 == 0:
			return 0, float32(math.Inf(-1)), false
		case ix == 0x7f800000:
			return 0, x, false
		case ix&0x80000000 != 0 || ix*2 >= 0xff000000:
			return 0, float32(math.NaN()), false
		}
		ix = math.Float32bits(x*0x1p23) - 23<<23 // subnormal: normalise
	}
	return ix, 0, true
}

// logSplit writes the float32 of bits ix as 2^k·z with z in [off, 2·off)
// near 1, and i, which of 16 subintervals z is in.
func logSplit(ix uint32) (i uint32, k int32, z float64) {
	const off = 0x3f330000
	tmp := ix - off
	return (tmp >> (23 - 4)) % 16, int32(tmp) >> 23, float64(math.Float32frombits(ix - tmp&0xff800000))
}

// logTable is glibc's __logf_data.tab: the same 1/c as powLog2, with ln c.
var logTable = [16][2]float64{
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
