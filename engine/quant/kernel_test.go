package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simdFormats are the formats with assembly kernels.
var simdFormats = []Type{Q8_0, Q4_0, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, Q2_K, Q3_K, IQ4_NL, IQ4_XS}

// tailCases are KernelCases whose rows, beyond the one-row kernels' eight
// blocks at a time, have none, one and seven blocks left.
var tailCases = []KernelCase{
	{Rows: 2, Cols: 224}, {Rows: 3, Cols: 544, Skew: 1},
	{Rows: 11, Cols: 480, Skew: 3, Special: true}, {Rows: 5, Cols: 480, Large: true},
}

// TestSIMDMatchesGo checks that MulVec with the assembly kernels gives what
// it gives with the Go kernels, bit for bit, on every KernelCase (any NaN
// for NaN: x86 quiets a signalling one at another step), writing every row
// and no more.
func TestSIMDMatchesGo(t *testing.T) {
	sets := assemblySets()
	if len(sets) == 0 {
		t.Skip("no assembly kernels on this CPU or build")
	}
	defer UseSIMD(true)
	for _, use := range sets {
		use()
		t.Run(Kernel(), func(t *testing.T) { simdMatchesGo(t, use) })
	}
}

// simdMatchesGo is TestSIMDMatchesGo for the assembly kernels use turns on.
func simdMatchesGo(t *testing.T, use func()) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, format := range simdFormats {
		for _, c := range append(tailCases, KernelCases...) {
			if c.Cols%format.BlockSize() != 0 {
				continue
			}
			t.Run(format.String()+"/"+c.String(), func(t *testing.T) {
				m, x := c.Make(format, rng)
				multiply := func(simd bool) []float32 {
					UseSIMD(false)
					if simd {
						use()
					}
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

// FuzzSIMDMatchesGo multiplies matrices made of arbitrary bytes (any
// scales, NaN and infinities included, any integers) by arbitrary vectors
// with the assembly kernels and with the Go ones, and with their rows
// interleaved where the format has that layout: the same bits, any NaN
// for NaN.
func FuzzSIMDMatchesGo(f *testing.F) {
	sets := assemblySets()
	if len(sets) == 0 {
		f.Skip("no assembly kernels on this CPU or build")
	}
	f.Add([]byte{0x3c, 0x00, 0x80, 0x7f, 0x01, 0xff}, []byte{1, 2, 3}, uint8(0), uint8(5), uint8(1))
	f.Add([]byte{0x00, 0x7c, 0xcc, 0xdd}, []byte{0x80, 0x7f}, uint8(2), uint8(9), uint8(2))
	f.Fuzz(func(t *testing.T, weights, xs []byte, format, rows, blocks uint8) {
		if len(weights) == 0 || len(xs) == 0 {
			return
		}
		defer UseSIMD(true)
		ft := simdFormats[int(format)%len(simdFormats)]
		m := Matrix{Type: ft, Rows: 1 + int(rows%13), Cols: (1 + int(blocks%10)) * ft.BlockSize()}
		m.Q = make([]byte, m.Rows*RowBytes(ft, m.Cols))
		for i := range m.Q {
			m.Q[i] = weights[i%len(weights)]
		}
		x := make([]float32, m.Cols)
		for j := range x {
			x[j] = float32(int8(xs[j%len(xs)])) * float32(1+j%7) / 64
		}
		multiply := func(use func()) []float32 {
			use()
			out := make([]float32, m.Rows)
			var v Vec
			m.MulVec(out, x, &v)
			return out
		}
		want := multiply(func() { UseSIMD(false) })
		for _, use := range sets {
			if got := multiply(use); !sameBits(got, want) {
				t.Fatalf("%s: %s %v, Go %v", ft, Kernel(), got, want)
			}
		}
		if _, ok := interleaves(ft); ok && canInterleave && m.Rows >= groupRows {
			m.Q = append([]byte(nil), m.Q...)
			interleave(&m)
			for _, use := range append(sets, func() { UseSIMD(false) }) {
				if got := multiply(use); !sameBits(got, want) {
					t.Fatalf("%s interleaved: %s %v, Go %v", ft, Kernel(), got, want)
				}
			}
		}
	})
}
