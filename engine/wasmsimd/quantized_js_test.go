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
// quant's MulVec (the Go kernels) bit for bit on every quant.KernelCase
// (any NaN for NaN), writing every row and no more.
func TestMulQuantMatchesGo(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, kernel := range quantKernels {
		for _, c := range quant.KernelCases {
			t.Run(fmt.Sprintf("%s/%s", kernel.t, c), func(t *testing.T) {
				m, x := c.Make(kernel.t, rng)
				want := make([]float32, c.Rows)
				var v quant.Vec
				m.MulVec(want, x, &v)

				got := make([]float32, c.Rows+1)
				for i := range got {
					got[i] = float32(math.NaN()) // every row must be written
				}
				got[c.Rows] = 42 // and no more
				var v2 quant.Vec
				q, d, sums := v2.Q8_0(x)
				if err := kernel.mul(k, got[:c.Rows], m.Q, q, d, sums); err != nil {
					t.Fatal(err)
				}
				if got[c.Rows] != 42 {
					t.Errorf("the kernel wrote past the last row")
				}
				for i := range want {
					same := math.Float32bits(got[i]) == math.Float32bits(want[i])
					if !same && !(c.Special && isNaN(got[i]) && isNaN(want[i])) {
						t.Errorf("row %d: SIMD %v, Go %v", i, got[i], want[i])
					}
				}
			})
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
