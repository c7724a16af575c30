package sincosf

import (
	"math"
	"testing"
)

// glibc holds sinf and cosf of glibc 2.36 on x86-64 with FMA, printed by a C
// program (as bits: x, sinf(x), cosf(x)), through every path: tiny, below
// π/4, below 120, above (both signs), and where glibc is not correctly
// rounded (34, 96, 98, 131, 193, -270, 343).
var glibc = [][3]uint32{
	{0x39000000, 0x39000000, 0x3f800000}, // 0x1p-13
	{0xb9000000, 0xb9000000, 0x3f800000}, // -0x1p-13
	{0x3f000000, 0x3ef57744, 0x3f60a940}, // 0.5
	{0xbf333333, 0xbf24eb73, 0x3f43ccb3}, // -0.7
	{0x3f47ae14, 0x3f340a1e, 0x3f35fe6e}, // 0.78
	{0x400ccccd, 0x3f4ef99e, 0xbf16a803}, // 2.2
	{0x42080000, 0x3f0771f6, 0xbf593be7}, // 34: sin correctly rounded 0.529082716
	{0x42c00000, 0x3f7bcc68, 0xbe38c2c3}, // 96: cos correctly rounded -0.180430442
	{0x42c40000, 0xbf12c927, 0xbf51bce0}, // 98
	{0xc2c40000, 0x3f12c927, 0xbf51bce0}, // -98
	{0x42ef0000, 0x3df41c90, 0x3f7e2cc9}, // 119.5
	{0x43030000, 0xbf4fc53d, 0x3f158eb5}, // 131
	{0x43410000, 0xbf7a7c21, 0xbe536859}, // 193
	{0xc3870000, 0x3e344564, 0x3f7c0075}, // -270
	{0x43ab8000, 0xbf095e82, 0xbf5805c1}, // 343
	{0x461c4000, 0xbe9c797d, 0xbf73c074}, // 1e4
	{0xc9742400, 0x3eb33259, 0x3f6fcefd}, // -1e6
	{0x7f61b1e6, 0x3f5ff9c4, 0xbef7f57c}, // 3e38
}

func TestGlibc(t *testing.T) {
	for _, v := range glibc {
		x := math.Float32frombits(v[0])
		if got := math.Float32bits(Sin(x)); got != v[1] {
			t.Errorf("Sin(%v) = %#x, glibc %#x", x, got, v[1])
		}
		if got := math.Float32bits(Cos(x)); got != v[2] {
			t.Errorf("Cos(%v) = %#x, glibc %#x", x, got, v[2])
		}
	}
}

// TestNearCorrectlyRounded sweeps [-2^20, 2^20] (every 4099th float32 of
// each sign): glibc's error is below 0.57 ulp, so Sin and Cos are within
// one ulp of the correctly rounded result everywhere. RoPE angles are
// checked bit for bit against glibc by TestRunCRoPE in package session.
func TestNearCorrectlyRounded(t *testing.T) {
	for _, sign := range []float32{1, -1} {
		for b := uint32(0); math.Float32frombits(b) < 0x1p20; b += 4099 {
			x := sign * math.Float32frombits(b)
			near(t, "Sin", x, Sin(x), float32(math.Sin(float64(x))))
			near(t, "Cos", x, Cos(x), float32(math.Cos(float64(x))))
		}
	}
	for _, x := range []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())} {
		if s, c := Sin(x), Cos(x); s == s || c == c {
			t.Errorf("Sin, Cos(%v) = %v, %v, want NaN", x, s, c)
		}
	}
}

func near(t *testing.T, name string, x, got, want float32) {
	t.Helper()
	d := int64(math.Float32bits(got)) - int64(math.Float32bits(want))
	if d < -1 || d > 1 {
		t.Fatalf("%s(%v) = %v, want %v within one ulp", name, x, got, want)
	}
}

func BenchmarkSinCos(b *testing.B) {
	var s float32
	for b.Loop() {
		for pos := range 256 {
			s += Sin(float32(pos)*0.01) + Cos(float32(pos)*0.01)
		}
	}
	_ = s
}
