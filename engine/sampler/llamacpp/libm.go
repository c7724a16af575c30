package llamacpp

import "math"

// The float32 functions of glibc's libm that llama.cpp's samplers call:
// expf and powf are package expf's (Exp, Pow), logf and log2f (mirostat's)
// are here, their only user. llama.cpp is compiled for baseline x86-64,
// but glibc picks its expf, logf, log2f and powf at load time, and on a
// CPU with FMA (every x86-64 CPU since 2013) it runs the same C compiled
// with -mfma, where GCC fuses a·b + c into one rounding. logf and log2f
// follow glibc 2.36's sysdeps/ieee754/flt-32/e_logf.c and e_log2f.c (the
// algorithms of Arm's optimized-routines) with math.FMA where that build
// fuses. Checked against glibc 2.36 on x86-64 with FMA: expf on every
// float32 in [−104, 89], logf and log2f on every positive float32 and powf
// on 10⁸ random pairs agree in every bit (go test -tags glibccheck, see testdata/README.md).

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

// log2fTable is glibc's __log2f_data.tab: the same 1/c as logfTable's,
// with log₂(c).
var log2fTable = [16]struct{ invc, logc float64 }{
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

// log2f is glibc's __log2f_fma (sysdeps/ieee754/flt-32/e_log2f.c).
func log2f(x float32) float32 {
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
		a0  = -0x1.712b6f70a7e4dp-2
		a1  = 0x1.ecabf496832ep-2
		a2  = -0x1.715479ffae3dep-1
		a3  = 0x1.715475f35c8b8p0
	)
	tmp := ix - off
	i := (tmp >> (23 - 4)) % 16
	k := int32(tmp) >> 23
	iz := ix - (tmp & 0xff800000)
	z := float64(math.Float32frombits(iz))
	r := math.FMA(z, log2fTable[i].invc, -1)
	y0 := log2fTable[i].logc + float64(k)
	r2 := r * r
	y := math.FMA(a1, r, a2)
	y = math.FMA(a0, r2, y)
	p := math.FMA(a3, r, y0)
	y = math.FMA(y, r2, p)
	return float32(y)
}
