package expf

import (
	"math"
	"math/big"
	"testing"
)

// TestExp compares Exp with the float64 exponential rounded to float32
// over every float32 from -104 to 89 in steps of 97 ulps: they may differ
// by one unit in the last place at most (the algorithm's error is below 0.502 ulp).
func TestExp(t *testing.T) {
	diffs := 0
	for b := math.Float32bits(-104); ; b -= 97 { // walks from -104 up to -0
		check(t, math.Float32frombits(b), &diffs)
		if b < math.Float32bits(-0x1p-30) {
			break
		}
	}
	for b := uint32(0); math.Float32frombits(b) < 89; b += 97 {
		check(t, math.Float32frombits(b), &diffs)
	}
	for _, x := range []float32{float32(math.Inf(-1)), float32(math.Inf(1)), -200, 200, 88.72, -103.97} {
		check(t, x, &diffs)
	}
	if nan := Exp(float32(math.NaN())); nan == nan {
		t.Errorf("Exp(NaN) = %v", nan)
	}
	t.Logf("%d inputs differ by one ulp from the correctly rounded result", diffs)
}

// TestExpGlibc checks the inputs where glibc's fused build rounds other than
// the unfused algorithm, and the top of the range, below overflow, with the
// expf of glibc 2.36 on x86-64 with FMA (as bits: x, expf(x)).
func TestExpGlibc(t *testing.T) {
	for _, v := range [][2]uint32{
		{0xc27c65d9, 0x11fa2993}, // -63.09946
		{0x4202422f, 0x56fc9f1c}, // 32.564632
		{0x42b16b78, 0x7f7cb57b}, // 88.7099
		{0x42b16ea2, 0x7f7e4683}, // 88.71608
		{0x42b170bb, 0x7f7f51c0}, // 88.72018
		{0x42b17217, 0x7f7fff84}, // 0x1.62e42ep6: the largest finite result
		{0x42b17218, 0x7f800000}, // the next float32: +Inf
	} {
		x := math.Float32frombits(v[0])
		if got := math.Float32bits(Exp(x)); got != v[1] {
			t.Errorf("Exp(%v) = %#x, glibc %#x", x, got, v[1])
		}
	}
}

func check(t *testing.T, x float32, diffs *int) {
	got, want := Exp(x), float32(math.Exp(float64(x)))
	if got == want {
		return
	}
	d := int64(math.Float32bits(got)) - int64(math.Float32bits(want))
	if d < -1 || d > 1 {
		t.Fatalf("Exp(%v) = %v, want %v", x, got, want)
	}
	*diffs++
}

func BenchmarkExp(b *testing.B) {
	xs := make([]float32, 1024)
	for i := range xs {
		xs[i] = -float32(i) / 64
	}
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			for _, x := range xs {
				Exp(x)
			}
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for _, x := range xs {
				_ = float32(math.Exp(float64(x)))
			}
		}
	})
}

// TestExp2Table derives exp2Table again: 2^(i/32) as five square roots of
// 2^i in 128-bit arithmetic, rounded once to float64.
func TestExp2Table(t *testing.T) {
	for i, got := range exp2Table {
		v := new(big.Float).SetPrec(128).SetMantExp(big.NewFloat(1), i)
		for range 5 {
			v.Sqrt(v)
		}
		f, _ := v.Float64()
		if want := math.Float64bits(f) - uint64(i)<<47; got != want {
			t.Errorf("exp2Table[%d] = %#016x, want %#016x", i, got, want)
		}
	}
}
