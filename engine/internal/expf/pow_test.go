package expf

import (
	"math"
	"testing"
)

// TestPowGlibc compares Pow with powf of glibc 2.36 on x86-64 with FMA,
// printed by a C program (as bits: x, y, powf(x, y)): run.c's frequencies
// where math.Pow rounded differs (10000^(32/75), ^(68/97), ^(5/114)), and
// subnormal x, negative y, overflow and underflow.
func TestPowGlibc(t *testing.T) {
	for _, v := range [][3]uint32{
		{0x461c4000, 0x3eda740e, 0x424b9379}, // 10000^(32/75) = 50.8940163; math.Pow 50.8940125
		{0x461c4000, 0x3f3376c3, 0x441f3e85}, // 10000^(68/97) = 636.976868; math.Pow 636.976807
		{0x461c4000, 0x3d33a62d, 0x3fbfb631}, // 10000^(5/114) = 1.49774754; math.Pow 1.49774742
		{0x461c4000, 0x3f000000, 0x42c80000}, // 10000^0.5 = 100
		{0x40200000, 0x406ccccd, 0x41ed64a0}, // 2.5^3.7
		{0x000116c2, 0x3f000000, 0x1e3ce4e7}, // 1e-40^0.5
		{0x3e99999a, 0xc1a40000, 0x51431008}, // 0.3^-20.5
		{0x40e00000, 0x42340000, 0x7ea1018f}, // 7^45
		{0x3c23d70a, 0x41a80000, 0x000002ca}, // 0.01^21, subnormal
		{0x3c23d70a, 0x41f00000, 0x00000000}, // 0.01^30
		{0x42f6e979, 0xba83126f, 0x3f7ec525}, // 123.456^-0.001
	} {
		x, y := math.Float32frombits(v[0]), math.Float32frombits(v[1])
		if got := math.Float32bits(Pow(x, y)); got != v[2] {
			t.Errorf("Pow(%v, %v) = %#x, glibc %#x", x, y, got, v[2])
		}
	}
}

// TestPowNearCorrectlyRounded sweeps x^y over x in [2^-10, 2^10] and y in
// [-8, 8] (where x^y is a normal float32), within one ulp of the correctly
// rounded result: glibc's powf errs by less than 0.82 ulp.
func TestPowNearCorrectlyRounded(t *testing.T) {
	for x := float32(0x1p-10); x < 0x1p10; x *= 1.0137 {
		for y := float32(-8); y <= 8; y += 0.0371 {
			got, want := Pow(x, y), float32(math.Pow(float64(x), float64(y)))
			if want < 0x1p-126 || math.IsInf(float64(want), 0) {
				continue
			}
			if d := int64(math.Float32bits(got)) - int64(math.Float32bits(want)); d < -1 || d > 1 {
				t.Fatalf("Pow(%v, %v) = %v, want %v within one ulp", x, y, got, want)
			}
		}
	}
	for _, v := range [][3]float32{{0, 2, 0}, {-2, 3, -8}, {2, 0, 1}, {1, float32(math.Inf(1)), 1}} {
		if got := Pow(v[0], v[1]); got != v[2] {
			t.Errorf("Pow(%v, %v) = %v, want %v", v[0], v[1], got, v[2])
		}
	}
}
