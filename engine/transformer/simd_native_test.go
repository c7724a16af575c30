//go:build !js

package transformer

import (
	"math"
	"math/rand/v2"
	"testing"

	"nexttoken/engine/quant"
)

// setSIMD turns package quant's assembly kernels on or off for
// TestSIMDKeepsLogits, skipping where the CPU or the build (purego, not
// amd64) has none, and returns opts: natively Kernels have nothing to
// choose.
func setSIMD(t *testing.T, opts Options, on bool) Options {
	quant.UseSIMD(on)
	if on && quant.Kernel() == "Go" {
		t.Skip("package quant has no assembly kernels on this CPU or build")
	}
	return opts
}

// benchKernels natively are the only ones, the zero Kernels.
func benchKernels(testing.TB) Kernels { return Kernels{} }

// TestSwiGLUKernel checks the native kernels' SwiGLU (package matvec's,
// in AVX2 where the CPU has it) against swigluGo bit for bit, on values
// of a model's size, any bits and the special ones, at lengths that
// leave a tail.
func TestSwiGLUKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float32{0, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e30, -1e30, 88.72284, -103.97208}
	for _, n := range []int{1, 7, 8, 9, 64, 1536, 1541} {
		gate, up := make([]float32, n), make([]float32, n)
		for i := range gate {
			for _, v := range []*float32{&gate[i], &up[i]} {
				switch rng.IntN(3) {
				case 0:
					*v = math.Float32frombits(rng.Uint32())
				case 1:
					*v = special[rng.IntN(len(special))]
				default:
					*v = float32(rng.NormFloat64() * 4)
				}
			}
		}
		want, got := append([]float32(nil), gate...), append([]float32(nil), gate...)
		swigluGo(want, up)
		Kernels{}.swiglu(got, up)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%d values: at %d (gate %g, up %g) the kernel gives %#x, swigluGo %#x", n, i, gate[i], up[i], math.Float32bits(got[i]), math.Float32bits(want[i]))
			}
		}
	}
}
