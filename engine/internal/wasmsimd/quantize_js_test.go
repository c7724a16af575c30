//go:build js

package wasmsimd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"nexttoken/engine/quant"
)

// quantizeCases are vectors for the quantizer: blocks of every scale,
// halfway products, largest magnitudes whose d = max/127 is a float16
// subnormal, at its edges, or past float16's largest value, and the blocks
// the kernel leaves to Go (an infinity, a NaN, a largest magnitude so
// small that 127 over it overflows), with the index of the first of those.
func quantizeCases(rng *rand.Rand) []struct {
	name  string
	x     []float32
	stops int // the block the kernel stops before; -1: none
} {
	type quantizeCase = struct {
		name  string
		x     []float32
		stops int
	}
	var cases []quantizeCase
	for _, scale := range []float32{1e-30, 1e-6, 1e-3, 1, 3.5, 1e4, 6e4, 8.3e6, 1e30} {
		x := make([]float32, 32*9)
		for j := range x {
			x[j] = float32(rng.NormFloat64()) * scale
		}
		cases = append(cases, quantizeCase{fmt.Sprintf("normal ×%g", scale), x, -1})
	}
	halves := make([]float32, 64)
	for j := range halves {
		halves[j] = float32(j%5) * 0.5 // with max 2, x·63.5 lands on halves
	}
	halves[31], halves[63] = -2, 2
	cases = append(cases, quantizeCase{"halfway products", halves, -1})
	// d = max/127 at float16's edges: its smallest subnormal and half of
	// it, its smallest normal and just below, its largest finite value and
	// where rounding reaches infinity.
	var edges []float32
	for _, d := range []float64{0x1p-24, 0x1p-25, 0x1.8p-25, 0x1p-14, 0x1.ffcp-15, 0x1.ffep-15, 65504, 65519, 65520, 1e5} {
		block := make([]float32, 32)
		for j := range block {
			block[j] = float32(d*127) * float32(j-16) / 16
		}
		edges = append(edges, block...)
	}
	cases = append(cases, quantizeCase{"float16 edges", edges, -1})
	for _, c := range []struct {
		name string
		v    float32
	}{
		{"infinity", float32(math.Inf(1))},
		{"minus infinity", float32(math.Inf(-1))},
		{"NaN", float32(math.NaN())},
		{"127/max overflows", 1e-38},
	} {
		x := make([]float32, 32*4)
		for j := range x {
			x[j] = float32(j%13 - 6)
		}
		for j := range 32 {
			x[2*32+j] = 0
		}
		x[2*32+5] = c.v
		cases = append(cases, quantizeCase{c.name, x, 2})
	}
	zeros := make([]float32, 64)
	zeros[7] = float32(math.Copysign(0, -1))
	cases = append(cases, quantizeCase{"zeros", zeros, -1})
	// float32 subnormals: beside 1e-36, 127/max is finite; alone, it
	// overflows.
	subnormal := make([]float32, 64)
	for j := range subnormal {
		subnormal[j] = float32(j%32) * 1e-39
	}
	subnormal[0] = 1e-36
	cases = append(cases, quantizeCase{"float32 subnormals", subnormal, 1})
	return cases
}

// TestQuantizeQ8_0MatchesGo checks that the kernel quantizes a vector as
// package quant's Go code does, bit for bit, q, d, s and sums, stopping
// before the blocks it leaves to Go, and that Quantize with it
// (QuantizeWith) gives Go's whole vector.
func TestQuantizeQ8_0MatchesGo(t *testing.T) {
	k := loadAll(t)
	rng := rand.New(rand.NewPCG(21, 22))
	cases := quantizeCases(rng)
	random := make([]float32, 32*64)
	for j := range random { // random signs and fractions, magnitudes from 2⁻⁶³ to 2
		random[j] = math.Float32frombits(rng.Uint32()&0xbfffffff | 0x20000000)
	}
	cases = append(cases, struct {
		name  string
		x     []float32
		stops int
	}{"random bits", random, -1})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want quant.Vec
			q, d, s := want.Q8_1(c.x) // Go's code: under js quant has no assembly
			_, _, sums, _ := want.Blocks()
			blocks := len(d)
			gq, gd, gs, gsums := make([]int8, len(q)), make([]float32, blocks), make([]float32, blocks), make([]int32, blocks)
			done := k.QuantizeQ8_0(c.x, gq, gd, gs, gsums)
			if stops := c.stops; stops < 0 && done != blocks || stops >= 0 && done != stops {
				t.Fatalf("the kernel quantized %d blocks of %d; want it to stop at %d", done, blocks, c.stops)
			}
			compareBlocks(t, c.x, gq, gd, gs, gsums, q, d, s, sums, done)

			var got quant.Vec
			m := quant.Matrix{Type: quant.Q8_0, Rows: 1, Cols: len(c.x)}
			m.QuantizeWith(&got, c.x, k.QuantizeQ8_0)
			gq, gd, gsums, gs = got.Blocks()
			compareBlocks(t, c.x, gq, gd, gs, gsums, q, d, s, sums, blocks)
		})
	}
}

// compareBlocks fails t unless the first blocks blocks of q, d, s and
// sums are want's, bit for bit.
func compareBlocks(t *testing.T, x []float32, q []int8, d, s []float32, sums []int32, wantQ []int8, wantD, wantS []float32, wantSums []int32, blocks int) {
	t.Helper()
	for j := range 32 * blocks {
		if q[j] != wantQ[j] {
			t.Fatalf("q[%d] = %d, Go %d (x = %v)", j, q[j], wantQ[j], x[j])
		}
	}
	for b := range blocks {
		if math.Float32bits(d[b]) != math.Float32bits(wantD[b]) || math.Float32bits(s[b]) != math.Float32bits(wantS[b]) || sums[b] != wantSums[b] {
			t.Fatalf("block %d: d %g s %g sum %d, Go d %g s %g sum %d", b, d[b], s[b], sums[b], wantD[b], wantS[b], wantSums[b])
		}
	}
}

func TestQuantizeQ8_0DoesNotAllocate(t *testing.T) {
	k := loadAll(t)
	x := make([]float32, 1536)
	for j := range x {
		x[j] = float32(j%17) - 8
	}
	var v quant.Vec
	m := quant.Matrix{Type: quant.Q8_0, Rows: 1, Cols: len(x)}
	m.QuantizeWith(&v, x, k.QuantizeQ8_0) // v grows once
	if allocs := testing.AllocsPerRun(100, func() { m.QuantizeWith(&v, x, k.QuantizeQ8_0) }); allocs != 0 {
		t.Errorf("quantizing allocates %v times per call", allocs)
	}
}

// BenchmarkQuantize measures quantizing a vector for Q8_0 weights with the
// kernel and with package quant's Go code, at SmolLM2-135M's widths (its
// hidden state and its feed-forward's).
func BenchmarkQuantize(b *testing.B) {
	k := loadAll(b)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, cols := range []int{576, 1536} {
		x := make([]float32, cols)
		for j := range x {
			x[j] = float32(rng.NormFloat64())
		}
		m := quant.Matrix{Type: quant.Q8_0, Rows: 1, Cols: cols}
		var v quant.Vec
		for _, impl := range []struct {
			name     string
			quantize func()
		}{
			{"simd", func() { m.QuantizeWith(&v, x, k.QuantizeQ8_0) }},
			{"go", func() { m.Quantize(&v, x) }},
		} {
			b.Run(fmt.Sprintf("%s/%d", impl.name, cols), func(b *testing.B) {
				b.SetBytes(int64(4 * cols))
				for b.Loop() {
					impl.quantize()
				}
			})
		}
	}
}
