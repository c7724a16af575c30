//go:build js

package wasmsimd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"nexttoken/engine/quant"
)

// TestMulQ8_0MatchesGo checks that mul_q8_0 gives package quant's Q8_0
// MulVec (the Go kernel) bit for bit: at row counts that are and are not
// multiples of its four rows, with rows that start anywhere (a GGUF file's
// tensors need not be aligned), and with block scales that are float16
// subnormals, zeros of either sign, infinities and NaN, which its
// half-to-float conversion must turn into quant.HalfToFloat's values.
func TestMulQ8_0MatchesGo(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	specialScales := []uint16{0x0001, 0x03ff, 0x8001, 0x0000, 0x8000, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e01}
	for _, c := range []struct {
		rows, cols int
		special    bool // some block scales from specialScales
	}{
		{1, 32, false}, {3, 64, false}, {4, 32, false}, {5, 96, false}, {7, 288, false},
		{8, 256, false}, {13, 768, false}, {64, 288, false}, {768, 288, false},
		{9, 64, true}, {16, 288, true},
	} {
		for _, skew := range []int{0, 1, 2, 3} {
			t.Run(fmt.Sprintf("%dx%d/skew%d/special=%v", c.rows, c.cols, skew, c.special), func(t *testing.T) {
				m := quant.Random(quant.Q8_0, c.rows, c.cols, 0.5, rng)
				if c.special {
					for b := 0; b < len(m.Q); b += quant.Q8_0.BlockBytes() {
						if rng.IntN(3) == 0 {
							h := specialScales[rng.IntN(len(specialScales))]
							m.Q[b], m.Q[b+1] = byte(h), byte(h>>8)
						}
					}
				}
				m.Q = append(make([]byte, skew), m.Q...)[skew:]
				x := make([]float32, c.cols)
				for j := range x {
					x[j] = rng.Float32()*2 - 1
				}
				want := make([]float32, c.rows)
				var v quant.Vec
				m.MulVec(want, x, &v)

				got := make([]float32, c.rows)
				for i := range got {
					got[i] = float32(math.NaN()) // every row must be written
				}
				var v2 quant.Vec
				q, d, _ := v2.Q8_0(x)
				if err := k.MulQ8_0(got, m.Q, q, d); err != nil {
					t.Fatal(err)
				}
				for i := range want {
					same := math.Float32bits(got[i]) == math.Float32bits(want[i])
					if !same && !(c.special && isNaN(got[i]) && isNaN(want[i])) {
						t.Errorf("row %d: SIMD %v, Go %v", i, got[i], want[i])
					}
				}
			})
		}
	}
}

// isNaN: a NaN's payload is not specified across WebAssembly operations.
func isNaN(f float32) bool { return f != f }

func TestMulQ8_0RejectsShortSlices(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	const rows, blocks = 4, 2
	for _, c := range []struct {
		name string
		w, q int
	}{
		{"w", rows*blocks*quant.Q8_0.BlockBytes() - 1, 32 * blocks},
		{"q", rows * blocks * quant.Q8_0.BlockBytes(), 32*blocks - 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("a %s too short did not panic", c.name)
				}
			}()
			_ = k.MulQ8_0(make([]float32, rows), make([]byte, c.w), make([]int8, c.q), make([]float32, blocks))
		})
	}
}

func TestMulQ8_0DoesNotAllocate(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	out, w, q, d := make([]float32, 64), make([]byte, 64*2*quant.Q8_0.BlockBytes()), make([]int8, 64), make([]float32, 2)
	if allocs := testing.AllocsPerRun(100, func() { _ = k.MulQ8_0(out, w, q, d) }); allocs != 0 {
		t.Errorf("MulQ8_0 allocates %v times per call", allocs)
	}
}

// BenchmarkMulQ8_0 measures mul_q8_0 and the Go kernel it replaces
// (quant's MulVec; both quantize x first) at stories15M's Q8_0 shapes:
// rows × cols of W1, W2 and the classifier.
func BenchmarkMulQ8_0(b *testing.B) {
	k, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range [][2]int{{288, 288}, {768, 288}, {288, 768}, {32000, 288}} {
		rows, cols := shape[0], shape[1]
		m := quant.Random(quant.Q8_0, rows, cols, 0.1, rng)
		x, out := make([]float32, cols), make([]float32, rows)
		for j := range x {
			x[j] = rng.Float32()*2 - 1
		}
		var v quant.Vec
		for _, kernel := range []struct {
			name string
			mul  func()
		}{
			{"simd", func() {
				q, d, _ := v.Q8_0(x)
				if err := k.MulQ8_0(out, m.Q, q, d); err != nil {
					b.Fatal(err)
				}
			}},
			{"go", func() { m.MulVec(out, x, &v) }},
		} {
			b.Run(fmt.Sprintf("%s/%dx%d", kernel.name, rows, cols), func(b *testing.B) {
				b.SetBytes(int64(m.Bytes()))
				for b.Loop() {
					kernel.mul()
				}
			})
		}
	}
}
