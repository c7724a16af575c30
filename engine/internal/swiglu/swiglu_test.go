package swiglu

import (
	"math"
	"math/rand/v2"
	"testing"

	"nexttoken/engine/internal/expf"
)

// special are the inputs where Exp or the gating leave the arithmetic:
// zeros, infinities, NaNs quiet and signalling of either sign, the
// bounds of Exp's range and the floats beside them, glibc's two fused
// inputs, subnormals and the largest finite floats.
func special() []float32 {
	var s []float32
	for _, b := range []uint32{
		0, 0x80000000, // ±0
		0x7f800000, 0xff800000, // ±Inf
		0x7fc00000, 0xffc00000, 0x7fc12345, 0xffc54321, // quiet NaNs
		0x7f800001, 0xff800001, 0x7fa00000, 0xffb12345, // signalling NaNs
		0x00000001, 0x80000001, 0x007fffff, 0x807fffff, // subnormals
		0x7f7fffff, 0xff7fffff, // the largest finite
		expf.FusedIn0, expf.FusedIn1, expf.FusedIn0 ^ 0x80000000, expf.FusedIn1 ^ 0x80000000,
	} {
		s = append(s, math.Float32frombits(b))
	}
	for _, x := range []float32{expf.Overflow, expf.Underflow, -expf.Overflow, -expf.Underflow, 1, -1, 0.5, 100, -100, 1e30, -1e30} {
		b := math.Float32bits(x)
		s = append(s, x, math.Float32frombits(b+1), math.Float32frombits(b-1))
	}
	return s
}

// random returns n floats: most of a model's size, some of any exponent,
// some of the special values.
func random(rng *rand.Rand, n int) []float32 {
	sp := special()
	x := make([]float32, n)
	for i := range x {
		switch rng.IntN(4) {
		case 0:
			x[i] = math.Float32frombits(rng.Uint32()) // any bits
		case 1:
			x[i] = sp[rng.IntN(len(sp))]
		default:
			x[i] = float32(rng.NormFloat64() * 8)
		}
	}
	return x
}

// compare fails t unless Gate and gateGo give the same bits for gate and up.
func compare(t *testing.T, gate, up []float32) {
	t.Helper()
	want, got := append([]float32(nil), gate...), append([]float32(nil), gate...)
	gateGo(want, up)
	Gate(got, up)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("gate %#x, up %#x: %#x, the Go loop %#x (of %d values, at %d)",
				math.Float32bits(gate[i]), math.Float32bits(up[i]), math.Float32bits(got[i]), math.Float32bits(want[i]), len(gate), i)
		}
	}
}

// TestGateMatchesGo checks the assembly against its Go twin bit for bit:
// every pair of special values (as gate and as up), a million random
// values, and every length up to 40, which leave the Go loop a tail.
func TestGateMatchesGo(t *testing.T) {
	if !hasAVX2 {
		t.Log("no assembly on this CPU or build: Gate is gateGo")
	}
	sp := special()
	var gate, up []float32
	for _, g := range sp {
		for _, u := range append(sp, 1, -2.5) {
			gate, up = append(gate, g), append(up, u)
		}
	}
	compare(t, gate, up)
	rng := rand.New(rand.NewPCG(1, 2))
	compare(t, random(rng, 1<<20), random(rng, 1<<20))
	for n := range 41 {
		compare(t, random(rng, n), random(rng, n))
	}
	// Every float32 of Exp's range as −g, in steps of 61 ulps, up 1.
	for b := uint32(0); b < 0x7f800000; b += 61 * 8 * 64 {
		gate = gate[:0]
		for k := range uint32(8 * 64) {
			x := math.Float32frombits(b + k*61)
			gate = append(gate, x, -x)
		}
		compare(t, gate, ones(len(gate)))
	}
}

func ones(n int) []float32 {
	u := make([]float32, n)
	for i := range u {
		u[i] = 1
	}
	return u
}

// FuzzGate checks Gate against gateGo on eight values (the assembly's
// step) and one more (the Go loop's tail), from the fuzzer's bits.
func FuzzGate(f *testing.F) {
	f.Add(uint32(0x7fc00000), uint32(0x3f800000), uint64(0), uint64(0))
	f.Add(uint32(expf.FusedIn0), uint32(expf.FusedIn1), uint64(0x42b17218c2cff1b5), uint64(0x7f8000017fa00000))
	f.Fuzz(func(t *testing.T, g, u uint32, seed, bits uint64) {
		rng := rand.New(rand.NewPCG(seed, bits))
		gate, up := random(rng, 9), random(rng, 9)
		gate[rng.IntN(9)], up[rng.IntN(9)] = math.Float32frombits(g), math.Float32frombits(u)
		gate[0], up[1] = math.Float32frombits(uint32(bits)), math.Float32frombits(uint32(bits>>32))
		compare(t, gate, up)
	})
}

func BenchmarkGate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	gate, up := make([]float32, 1536), make([]float32, 1536)
	for i := range gate {
		gate[i], up[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	work := make([]float32, len(gate))
	for _, k := range []struct {
		name string
		f    func(gate, up []float32)
	}{{"Go", gateGo}, {"Gate", Gate}} {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				copy(work, gate)
				k.f(work, up)
			}
		})
	}
}
