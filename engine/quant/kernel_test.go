package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSIMDMatchesGo checks that MulVec with the assembly kernels gives what
// it gives with the Go kernels, bit for bit, on every KernelCase (any NaN
// for NaN: x86 quiets a signalling one at another step), writing every row
// and no more.
func TestSIMDMatchesGo(t *testing.T) {
	UseSIMD(true)
	if Kernel() == "Go" {
		t.Skip("no assembly kernels on this CPU or build")
	}
	defer UseSIMD(true)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, format := range []Type{Q8_0, Q4_0, Q4_K, Q6_K} {
		for _, c := range KernelCases {
			if c.Cols%format.BlockSize() != 0 {
				continue
			}
			t.Run(format.String()+"/"+c.String(), func(t *testing.T) {
				m, x := c.Make(format, rng)
				multiply := func(simd bool) []float32 {
					UseSIMD(simd)
					out := make([]float32, c.Rows+1)
					for i := range out {
						out[i] = float32(math.NaN()) // every row must be written
					}
					out[c.Rows] = 42 // and no more
					var v Vec
					m.MulVec(out[:c.Rows], x, &v)
					if out[c.Rows] != 42 {
						t.Errorf("SIMD %v: a row past the last was written", simd)
					}
					return out[:c.Rows]
				}
				want, got := multiply(false), multiply(true)
				for i := range want {
					same := math.Float32bits(got[i]) == math.Float32bits(want[i])
					if !same && !(got[i] != got[i] && want[i] != want[i]) {
						t.Errorf("row %d: assembly %v (%#08x), Go %v (%#08x)", i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
					}
				}
			})
		}
	}
}
