package matvec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// shapes are (n, d): widths with and without a last eight or a last few
// columns, row counts with and without a last few rows, and the models'.
var shapes = [][2]int{
	{1, 1}, {7, 3}, {8, 1}, {16, 4}, {24, 5}, {64, 64}, {172, 64}, {288, 768},
	{576, 1536}, {1536, 576}, {100, 9},
}

func random(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// TestMulMatchesReference checks Mul (the assembly where the CPU has it)
// and mulGo against sums in float64, within float32's error for sums of n
// terms.
func TestMulMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kernels := map[string]func(out, x, w []float32, n, d int){"Mul": Mul, "mulGo": mulGo}
	for _, s := range shapes {
		n, d := s[0], s[1]
		x, w := random(rng, n), random(rng, n*d)
		for name, mul := range kernels {
			out := make([]float32, d)
			mul(out, x, w, n, d)
			for i := range d {
				var want, mag float64
				for j := range n {
					p := float64(w[i*n+j]) * float64(x[j])
					want += p
					mag += math.Abs(p)
				}
				if tol := mag * float64(n) * 0x1p-24; math.Abs(float64(out[i])-want) > tol {
					t.Errorf("%s, %d × %d: row %d is %g, want %g within %g", name, d, n, i, out[i], want, tol)
				}
			}
		}
	}
}

// TestRowsStandAlone checks that a row's product is the same bits whatever
// rows are multiplied with it, so that splitting the rows among threads
// changes nothing.
func TestRowsStandAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range shapes {
		n, d := s[0], s[1]
		x, w := random(rng, n), random(rng, n*d)
		whole := make([]float32, d)
		Mul(whole, x, w, n, d)
		for from := range d {
			for _, to := range []int{from + 1, min(from+3, d), min(from+5, d), d} {
				part := make([]float32, to-from)
				Mul(part, x, w[from*n:], n, to-from)
				for i, v := range part {
					if math.Float32bits(v) != math.Float32bits(whole[from+i]) {
						t.Fatalf("%d × %d: row %d of rows %d–%d is %g, alone %g", d, n, from+i, from, to, whole[from+i], v)
					}
				}
			}
		}
	}
}

// BenchmarkMul multiplies at the shapes of SmolLM2-135M's matrices.
func BenchmarkMul(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][2]int{{576, 576}, {576, 1536}, {1536, 576}, {576, 49152}, {288, 32000}} {
		n, d := s[0], s[1]
		x, w, out := random(rng, n), random(rng, n*d), make([]float32, d)
		kernels := map[string]func(out, x, w []float32, n, d int){"Mul": Mul, "mulGo": mulGo}
		for name, mul := range kernels {
			b.Run(name+"/"+shape(n, d), func(b *testing.B) {
				b.SetBytes(int64(4 * n * d))
				for b.Loop() {
					mul(out, x, w, n, d)
				}
			})
		}
	}
}

func shape(n, d int) string { return itoa(d) + "x" + itoa(n) }

func itoa(v int) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

// TestNarrowRowsInFourLanes checks that rows of at most eight columns sum
// in four lanes added pairwise, the browser's kernels' order, bit for bit
// (the toy model's logits are exact in it).
func TestNarrowRowsInFourLanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 1; n <= 8; n++ {
		const d = 5
		x, w := random(rng, n), random(rng, n*d)
		out := make([]float32, d)
		Mul(out, x, w, n, d)
		for i := range d {
			var l [4]float32
			for j := range n {
				l[j%4] += w[i*n+j] * x[j]
			}
			if want := (l[0] + l[1]) + (l[2] + l[3]); math.Float32bits(out[i]) != math.Float32bits(want) {
				t.Errorf("%d columns, row %d: %g, want %g", n, i, out[i], want)
			}
		}
	}
}
