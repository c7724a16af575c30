// Package sincosf is the float32 sine and cosine of C's sinf and cosf as
// glibc 2.36 computes them on x86-64, bit for bit, for code that must agree
// with llama2.c's run.c, whose rotary embedding calls them.
//
// glibc's algorithm (Arm's optimized-routines, in glibc since 2.28) works in
// float64: it reduces x to r in [-π/4, π/4] and a quadrant n, with one fused
// multiply-subtract x − n·π/2 for |x| < 120 and a 4/π table of 192 bits
// above, and evaluates a sine or cosine polynomial in r, rounding once to
// float32 at the end. On a CPU with FMA and AVX2 (every x86-64 since 2013)
// glibc runs a build of it compiled with -mfma, whose every a·b + c is a
// fused multiply-add; Sin and Cos fuse the same operations with math.FMA,
// which is exact on every platform. Neither is correctly rounded: over the
// angles of a rotary embedding, float32(math.Sin(float64(x))) differs from
// glibc's sinf in about 1.4% of the inputs.
package sincosf

import "math"

// poly are the constants of one quadrant pair. The second entry computes
// −cos rather than cos, which negates for free.
type poly struct {
	c0, c1, c2, c3, c4 float64 // cosine polynomial
	s1, s2, s3         float64 // sine polynomial
}

var (
	polys = [2]poly{
		{0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5, -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16,
			-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
		{-0x1p0, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5, 0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16,
			-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
	}
	signs = [4]float64{1, -1, -1, 1} // of the sine in quadrants 0…3

	// 4/π to 192 bits; each entry adds 8 bits, to avoid unaligned reads in C.
	invPio4 = [24]uint32{
		0xa2, 0xa2f9, 0xa2f983, 0xa2f9836e,
		0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529,
		0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1,
		0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0,
		0x34ddc0db, 0xddc0db62, 0xc0db6295, 0xdb629599,
		0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
	}
)

const (
	hpiInv = 0x1.45F306DC9C883p+23 // 2/π · 2^24: the quadrant lands in bits 24…31
	hpi    = 0x1.921FB54442D18p0   // π/2
	pi63   = 0x1.921FB54442D18p-62 // 2π · 2^-64
	pio4   = 0x1.921FB6p-1         // π/4 in float32
)

// abstop12 is the top 12 bits of x's float32 representation without the sign.
func abstop12(x float32) uint32 { return math.Float32bits(x) >> 20 & 0x7ff }

// Sin returns the sine of x as glibc's sinf does.
func Sin(x float32) float32 { return sincos(x, 0) }

// Cos returns the cosine of x as glibc's cosf does.
func Cos(x float32) float32 { return sincos(x, 1) }

// sincos is glibc's sinf (cos = 0) or cosf (cos = 1): the two differ only
// in tiny arguments and in the quadrant, which cos shifts by one.
func sincos(y float32, cos int) float32 {
	x := float64(y)
	top := abstop12(y)
	switch {
	case top < abstop12(pio4):
		if top < abstop12(0x1p-12) {
			if cos == 1 {
				return 1
			}
			return y
		}
		return evalPoly(x, x*x, &polys[0], cos)
	case top < abstop12(120):
		// The quadrant, then x − n·π/2 in one rounding.
		n := (int32(x*hpiInv) + 0x800000) >> 24
		r := math.FMA(-float64(n), hpi, x)
		return evalPoly(r*signs[n&3], r*r, &polys[n>>1&1], int(n)^cos)
	case top < abstop12(float32(math.Inf(1))):
		xi := math.Float32bits(y)
		r, n := reduceLarge(xi)
		q := n + int(xi>>31) // the sign of x turns the sine's sign, not the polynomial
		return evalPoly(r*signs[q&3], r*r, &polys[q>>1&1], n^cos)
	}
	return float32(math.NaN())
}

// reduceLarge reduces |x| ≥ 120, given as its bits, to r = |x| − n·π/2 in
// [-π/4, π/4], multiplying the 24-bit mantissa by 96 bits of 4/π in fixed
// point: r is accurate to 33 bits.
func reduceLarge(xi uint32) (float64, int) {
	arr := invPio4[xi>>26&15:]
	shift := xi >> 23 & 7
	xi = (xi&0xffffff | 0x800000) << shift
	res0 := uint64(xi * arr[0]) // a 32-bit product, as in C
	res1 := uint64(xi) * uint64(arr[4])
	res2 := uint64(xi) * uint64(arr[8])
	res0 = res2>>32 | res0<<32
	res0 += res1
	n := (res0 + 1<<61) >> 62
	res0 -= n << 62
	return float64(int64(res0)) * pi63, int(n)
}

// evalPoly is the sine polynomial of x (x2 = x²) for even n, the cosine's
// for odd n, with glibc's -mfma build's fused multiply-adds.
func evalPoly(x, x2 float64, p *poly, n int) float32 {
	if n&1 == 0 {
		x3 := x * x2
		s1 := math.FMA(x2, p.s3, p.s2)
		x7 := x3 * x2
		s := math.FMA(x3, p.s1, x)
		return float32(math.FMA(x7, s1, s))
	}
	x4 := x2 * x2
	c2 := math.FMA(x2, p.c4, p.c3)
	c1 := math.FMA(x2, p.c1, p.c0)
	x6 := x4 * x2
	c := math.FMA(x4, p.c2, c1)
	return float32(math.FMA(x6, c2, c))
}
