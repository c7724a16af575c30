//go:build glibccheck

package llamacpp

import (
	"math"
	"math/rand/v2"
	"testing"

	"nexttoken/engine/internal/expf"
)

func TestGlibcExpf(t *testing.T) {
	const chunk = 1 << 20
	out := make([]float32, chunk)
	bad := 0
	check := func(lo, hi uint32) { // bit ranges, lo < hi
		for b := lo; b < hi; b += chunk {
			n := int(min(uint64(hi-b), chunk))
			cExpfRange(b, out[:n])
			for i := 0; i < n; i++ {
				x := math.Float32frombits(b + uint32(i))
				if g := expf.Exp(x); math.Float32bits(g) != math.Float32bits(out[i]) {
					if bad < 10 {
						t.Errorf("expf.Exp(%g): go %g glibc %g", x, g, out[i])
					}
					bad++
				}
			}
		}
	}
	check(0, math.Float32bits(89))
	check(0x80000000, math.Float32bits(-104))
	t.Logf("expf: %d differ", bad)
}

func TestGlibcLogf(t *testing.T) {
	const chunk = 1 << 20
	out := make([]float32, chunk)
	bad := 0
	for b := uint32(0); b < 0x7f800001; b += chunk {
		n := int(min(uint64(0x7f800001-b), chunk))
		cLogfRange(b, out[:n])
		for i := 0; i < n; i++ {
			x := math.Float32frombits(b + uint32(i))
			if g := expf.Log(x); math.Float32bits(g) != math.Float32bits(out[i]) {
				if bad < 10 {
					t.Errorf("expf.Log(%g): go %g glibc %g", x, g, out[i])
				}
				bad++
			}
		}
	}
	t.Logf("logf: %d differ", bad)
}

func TestGlibcLog2f(t *testing.T) {
	const chunk = 1 << 20
	out := make([]float32, chunk)
	bad := 0
	for b := uint32(0); b < 0x7f800001; b += chunk {
		n := int(min(uint64(0x7f800001-b), chunk))
		cLog2fRange(b, out[:n])
		for i := 0; i < n; i++ {
			x := math.Float32frombits(b + uint32(i))
			if g := expf.Log2(x); math.Float32bits(g) != math.Float32bits(out[i]) {
				if bad < 10 {
					t.Errorf("expf.Log2(%g): go %g glibc %g", x, g, out[i])
				}
				bad++
			}
		}
	}
	t.Logf("log2f: %d differ", bad)
}

func TestGlibcPowf(t *testing.T) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(1, 2))
	x, y, out := make([]float32, n), make([]float32, n), make([]float32, n)
	bad := 0
	for round := 0; round < 100; round++ {
		for i := range x {
			x[i] = r.Float32() // [0,1): normalised entropies
			switch round % 3 {
			case 0:
				y[i] = r.Float32() * 4
			case 1:
				y[i] = float32(r.NormFloat64() * 10)
			default:
				y[i] = math.Float32frombits(r.Uint32())
				x[i] = math.Float32frombits(r.Uint32() &^ (1 << 31))
			}
		}
		cPowf(x, y, out)
		for i := range x {
			g := expf.Pow(x[i], y[i])
			if math.Float32bits(g) != math.Float32bits(out[i]) && !(g != g && out[i] != out[i]) {
				if bad < 10 {
					t.Errorf("expf.Pow(%g, %g): go %g glibc %g", x[i], y[i], g, out[i])
				}
				bad++
			}
		}
	}
	t.Logf("powf: %d differ", bad)
}

func TestGlibcExpDouble(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	bad, badf := 0, 0
	for i := 0; i < 1e7; i++ {
		x := -r.Float64() * 120
		g, c := math.Exp(x), cExp(x)
		if g != c {
			bad++
		}
		if float32(g) != float32(c) {
			badf++
		}
	}
	t.Logf("exp: %d of 1e7 differ in float64, %d after rounding to float32", bad, badf)
}

// TestGlibcPowInt compares DRY's penalty, multiplier·pow(base, n) rounded
// to float32, computed with powInt and with glibc's pow, on DRY's
// arguments: a float32 base from 1 to 100, a whole exponent below the cap
// int(88.7228391/logf(base)) (up to 4,096 for a base near 1), a float32
// multiplier. glibc's pow is not always correctly rounded (under 0.52
// ulp), powInt is: their doubles differ now and then, which it logs, but
// the penalties must not.
func TestGlibcPowInt(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	doubles, bad := 0, 0
	for range 10_000_000 {
		x := float64(float32(1 + r.Float64()*r.Float64()*99))
		n := r.IntN(min(4096, int(88.7228391/math.Log(x))+1))
		m := float64(float32(r.Float64() * 4))
		g, c := powInt(x, n), cPow(x, float64(n))
		if g != c {
			doubles++
		}
		if float32(m*g) != float32(m*c) {
			if bad < 10 {
				t.Errorf("%v·powInt(%v, %d) = %v, with glibc's pow %v", m, x, n, float32(m*g), float32(m*c))
			}
			bad++
		}
	}
	t.Logf("pow: %d of 1e7 differ as doubles, %d as DRY's float32 penalty", doubles, bad)
}
