//go:build js

package wasmsimd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"nexttoken/engine/quant"
)

// quantKernels are the kernel of each quantized format, called with a
// vector quantized by quant.Vec.Q8_0.
var quantKernels = []struct {
	t   quant.Type
	mul func(k *Kernel, out []float32, w []byte, q []int8, d []float32, sums []int32) error
}{
	{quant.Q8_0, func(k *Kernel, out []float32, w []byte, q []int8, d []float32, _ []int32) error {
		return k.MulQ8_0(out, w, q, d)
	}},
	{quant.Q4_0, (*Kernel).MulQ4_0},
}

// TestMulQuantMatchesGo checks that mul_q8_0 and mul_q4_0 give package
// quant's MulVec (the Go kernels) bit for bit: at row counts that are and
// are not multiples of their four rows, with rows that start anywhere (a
// GGUF file's tensors need not be aligned), with block scales that are
// float16 subnormals, zeros of either sign, infinities and NaN, which
// their half-to-float conversion must turn into quant.HalfToFloat's
// values, and with sums large enough that the order of the two
// multiplications by scales changes the result.
func TestMulQuantMatchesGo(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	specialScales := []uint16{0x0001, 0x03ff, 0x8001, 0x0000, 0x8000, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e01}
	for _, kernel := range quantKernels {
		for _, c := range []struct {
			rows, cols int
			special    bool // some block scales from specialScales
			large      bool // integer sums of 15–17 bits
		}{
			{1, 32, false, false}, {2, 64, false, false}, {3, 64, false, false}, {4, 32, false, false},
			{5, 96, false, false}, {7, 288, false, false}, {8, 256, false, false}, {13, 768, false, false},
			{64, 288, false, false}, {768, 288, false, false},
			{9, 64, true, false}, {16, 288, true, false}, {64, 288, false, true},
		} {
			for _, skew := range []int{0, 1, 2, 3} {
				t.Run(fmt.Sprintf("%s/%dx%d/skew%d/special=%v/large=%v", kernel.t, c.rows, c.cols, skew, c.special, c.large), func(t *testing.T) {
					m := quant.Random(kernel.t, c.rows, c.cols, 0.5, rng)
					// Scales of every mantissa: Random's are one power of
					// two, whose products round in no order at all.
					// Large sums have more bits than a float32 holds once
					// multiplied by a scale, so the order of the two
					// multiplications by scales shows.
					for i := range m.Q {
						if c.large {
							m.Q[i] = 0xcc | byte(rng.IntN(4)*0x11) // nibbles and int8s of large magnitude
						}
					}
					for b := 0; b < len(m.Q); b += kernel.t.BlockBytes() {
						h := quant.FloatToHalf(rng.Float32() / 64)
						if c.special && rng.IntN(3) == 0 {
							h = specialScales[rng.IntN(len(specialScales))]
						}
						m.Q[b], m.Q[b+1] = byte(h), byte(h>>8)
					}
					m.Q = append(make([]byte, skew), m.Q...)[skew:]
					x := make([]float32, c.cols)
					for j := range x {
						x[j] = rng.Float32()*2 - 1
						if c.large {
							x[j] = 0.5 + rng.Float32()/2
						}
					}
					want := make([]float32, c.rows)
					var v quant.Vec
					m.MulVec(want, x, &v)

					got := make([]float32, c.rows+1)
					for i := range got {
						got[i] = float32(math.NaN()) // every row must be written
					}
					got[c.rows] = 42 // and no more
					var v2 quant.Vec
					q, d, sums := v2.Q8_0(x)
					if err := kernel.mul(k, got[:c.rows], m.Q, q, d, sums); err != nil {
						t.Fatal(err)
					}
					if got[c.rows] != 42 {
						t.Errorf("the kernel wrote past the last row")
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
}

// isNaN: a NaN's payload is not specified across WebAssembly operations.
func isNaN(f float32) bool { return f != f }

func TestMulQuantRejectsShortSlices(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	const rows, blocks = 4, 2
	for _, kernel := range quantKernels {
		size := rows * blocks * kernel.t.BlockBytes()
		for _, c := range []struct {
			name       string
			w, q, sums int
		}{
			{"w", size - 1, 32 * blocks, blocks},
			{"q", size, 32*blocks - 1, blocks},
		} {
			t.Run(fmt.Sprintf("%s/%s", kernel.t, c.name), func(t *testing.T) {
				defer func() {
					if recover() == nil {
						t.Errorf("a %s too short did not panic", c.name)
					}
				}()
				_ = kernel.mul(k, make([]float32, rows), make([]byte, c.w), make([]int8, c.q), make([]float32, blocks), make([]int32, c.sums))
			})
		}
	}
	t.Run("Q4_0/sums", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Errorf("sums too short did not panic")
			}
		}()
		_ = k.MulQ4_0(make([]float32, rows), make([]byte, rows*blocks*quant.Q4_0.BlockBytes()), make([]int8, 32*blocks), make([]float32, blocks), make([]int32, blocks-1))
	})
}

func TestMulQuantDoesNotAllocate(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, kernel := range quantKernels {
		out, w := make([]float32, 64), make([]byte, 64*2*kernel.t.BlockBytes())
		q, d, sums := make([]int8, 64), make([]float32, 2), make([]int32, 2)
		if allocs := testing.AllocsPerRun(100, func() { _ = kernel.mul(k, out, w, q, d, sums) }); allocs != 0 {
			t.Errorf("%s: the kernel allocates %v times per call", kernel.t, allocs)
		}
	}
}

// BenchmarkMulQuant measures mul_q8_0 and mul_q4_0 and the Go kernels they
// replace (quant's MulVec; both quantize x first) at stories15M's shapes:
// rows × cols of WQ, W1, W2 and the classifier.
func BenchmarkMulQuant(b *testing.B) {
	k, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range [][2]int{{288, 288}, {768, 288}, {288, 768}, {32000, 288}} {
		rows, cols := shape[0], shape[1]
		x, out := make([]float32, cols), make([]float32, rows)
		for j := range x {
			x[j] = rng.Float32()*2 - 1
		}
		for _, kernel := range quantKernels {
			m := quant.Random(kernel.t, rows, cols, 0.1, rng)
			var v quant.Vec
			for _, impl := range []struct {
				name string
				mul  func()
			}{
				{"simd", func() {
					q, d, sums := v.Q8_0(x)
					if err := kernel.mul(k, out, m.Q, q, d, sums); err != nil {
						b.Fatal(err)
					}
				}},
				{"go", func() { m.MulVec(out, x, &v) }},
			} {
				b.Run(fmt.Sprintf("%s/%s/%dx%d", kernel.t, impl.name, rows, cols), func(b *testing.B) {
					b.SetBytes(int64(m.Bytes()))
					for b.Loop() {
						impl.mul()
					}
				})
			}
		}
	}
}
