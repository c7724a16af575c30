package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// quantizeCases are vectors for TestQuantizeQ8_0SIMDMatchesGo: blocks of
// every scale, zero blocks, halfway products, and the blocks the
// assembly leaves to Go (infinite, NaN, or a largest magnitude so small
// that 127/max overflows).
func quantizeCases(rng *rand.Rand) map[string][]float32 {
	cases := map[string][]float32{}
	for _, scale := range []float32{1e-30, 1e-6, 1, 3.5, 1e4, 6e4, 1e6} {
		x := make([]float32, 32*9)
		for j := range x {
			x[j] = float32(rng.NormFloat64()) * scale
		}
		cases["normal"+string(rune('A'+len(cases)))] = x
	}
	halves := make([]float32, 64)
	for j := range halves {
		halves[j] = float32(j%5) * 0.5 // with max 2, x·63.5 lands on halves
	}
	halves[31], halves[63] = -2, 2
	cases["halves"] = halves
	special := make([]float32, 32*8)
	for j := range special {
		special[j] = float32(j%13) - 6
	}
	special[1*32+3] = float32(math.Inf(1))
	special[2*32+7] = float32(math.NaN())
	special[3*32+0] = float32(math.Inf(-1))
	for j := range 32 {
		special[4*32+j] = 0
		special[5*32+j] = float32(j) * 1e-39          // subnormal
		special[6*32+j] = float32(j%3-1) * 0x1p-119   // at the assembly's limit
		special[7*32+j] = float32(j%3-1) * 0x1.fp-120 // below it
	}
	special[4*32+5] = float32(math.Copysign(0, -1))
	cases["special"] = special
	return cases
}

// TestQuantizeQ8_0SIMDMatchesGo checks that quantizeQ8_0, with the
// assembly where the CPU has it, gives quantizeQ8_0Go's q, d, s and sums
// bit for bit.
func TestQuantizeQ8_0SIMDMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for name, x := range quantizeCases(rng) {
		t.Run(name, func(t *testing.T) { compareQuantizeQ8_0(t, x) })
	}
}

func compareQuantizeQ8_0(t *testing.T, x []float32) {
	t.Helper()
	var got, want Vec
	got.quantizeQ8_0(x, quantizeQ8_0SIMD)
	want.quantizeQ8_0Go(x)
	for j := range want.q {
		if got.q[j] != want.q[j] {
			t.Fatalf("q[%d] = %d, Go %d (x = %v)", j, got.q[j], want.q[j], x[j])
		}
	}
	for b := range want.d {
		if math.Float32bits(got.d[b]) != math.Float32bits(want.d[b]) || math.Float32bits(got.s[b]) != math.Float32bits(want.s[b]) || got.sums[b] != want.sums[b] {
			t.Fatalf("block %d: d %v s %v sum %d, Go d %v s %v sum %d", b, got.d[b], got.s[b], got.sums[b], want.d[b], want.s[b], want.sums[b])
		}
	}
}

// FuzzQuantizeQ8_0 quantizes vectors of arbitrary float32 bits with the
// assembly and with Go: the same bits.
func FuzzQuantizeQ8_0(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x7f, 1, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0x7f, 0x7f, 0x01, 0x00, 0x80, 0x00})
	f.Fuzz(func(t *testing.T, bits []byte) {
		if len(bits) < 4 {
			return
		}
		x := make([]float32, 32*(1+len(bits)%5))
		for j := range x {
			k := (4 * j) % (len(bits) - 3)
			x[j] = math.Float32frombits(uint32(bits[k]) | uint32(bits[k+1])<<8 | uint32(bits[k+2])<<16 | uint32(bits[k+3])<<24)
		}
		compareQuantizeQ8_0(t, x)
	})
}
