package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSIMDMatchesGo checks that MulVec with the assembly kernels gives what
// it gives with the Go kernels, bit for bit: at row counts that are and are
// not multiples of their four rows (the rest go to Go), with rows that
// start anywhere (a GGUF file's tensors need not be aligned), with block
// scales that are float16 subnormals, zeros of either sign, infinities and
// NaN (any NaN for NaN: x86 quiets a signalling one at a different step),
// with weights of −128, and with sums large enough that the order of the
// two multiplications by scales changes the result.
func TestSIMDMatchesGo(t *testing.T) {
	UseSIMD(true)
	if Kernel() == "Go" {
		t.Skip("no assembly kernels on this CPU or build")
	}
	defer UseSIMD(true)
	rng := rand.New(rand.NewPCG(11, 12))
	specialScales := []uint16{0x0001, 0x03ff, 0x8001, 0x0000, 0x8000, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e01, 0x7c01}
	for _, format := range []Type{Q8_0, Q4_0} {
		for _, c := range []struct {
			rows, cols int
			special    bool // some block scales from specialScales
			large      bool // integer sums of 15–17 bits
		}{
			{1, 32, false, false}, {2, 64, false, false}, {3, 64, false, false}, {4, 32, false, false},
			{5, 96, false, false}, {7, 288, false, false}, {8, 256, false, false}, {13, 768, false, false},
			{64, 288, false, false}, {768, 288, false, false},
			{9, 64, true, false}, {16, 288, true, false}, {64, 288, false, true}, {6, 1536, false, true},
		} {
			for _, skew := range []int{0, 1, 3} {
				t.Run(fmt.Sprintf("%s/%dx%d/skew%d/special=%v/large=%v", format, c.rows, c.cols, skew, c.special, c.large), func(t *testing.T) {
					m := Random(format, c.rows, c.cols, 0.5, rng)
					for i := range m.Q {
						if c.large {
							m.Q[i] = 0xcc | byte(rng.IntN(4)*0x11) // nibbles and int8s of large magnitude
						} else if rng.IntN(50) == 0 {
							m.Q[i] = 0x80 // an int8 of −128
						}
					}
					// Scales of every mantissa, whose products round
					// differently in another order.
					for b := 0; b < len(m.Q); b += format.BlockBytes() {
						h := FloatToHalf(rng.Float32() / 64)
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
					multiply := func(simd bool) []float32 {
						UseSIMD(simd)
						out := make([]float32, c.rows+1)
						for i := range out {
							out[i] = float32(math.NaN()) // every row must be written
						}
						out[c.rows] = 42 // and no more
						var v Vec
						m.MulVec(out[:c.rows], x, &v)
						if out[c.rows] != 42 {
							t.Errorf("SIMD %v: a row past the last was written", simd)
						}
						return out[:c.rows]
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
}
