package matvec

import (
	"math"
	"math/rand/v2"
	"testing"

	"nexttoken/engine/internal/expf"
)

// specialFloats are the inputs where Exp or the gating leave the arithmetic:
// zeros, infinities, NaNs quiet and signalling of either sign, the
// bounds of Exp's range and the floats beside them, glibc's two fused
// inputs, subnormals and the largest finite floats.
func specialFloats() []float32 {
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

// randomFloats returns n floats: most of a model's size, some of any exponent,
// some of the special values.
func randomFloats(rng *rand.Rand, n int) []float32 {
	sp := specialFloats()
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

// compareSwiGLU fails t unless SwiGLU and swigluGo give the same bits for
// gate and up.
func compareSwiGLU(t *testing.T, gate, up []float32) {
	t.Helper()
	want, got := append([]float32(nil), gate...), append([]float32(nil), gate...)
	swigluGo(want, up)
	SwiGLU(got, up)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("gate %#x, up %#x: %#x, the Go loop %#x (of %d values, at %d)",
				math.Float32bits(gate[i]), math.Float32bits(up[i]), math.Float32bits(got[i]), math.Float32bits(want[i]), len(gate), i)
		}
	}
}

// TestSwiGLUMatchesLoop checks the assembly against its Go twin bit for bit:
// every pair of special values (as gate and as up), a million random
// values, and every length up to 40, which leave the Go loop a tail.
func TestSwiGLUMatchesLoop(t *testing.T) {
	if !hasFMA {
		t.Log("no assembly on this CPU or build: SwiGLU is swigluGo")
	}
	sp := specialFloats()
	var gate, up []float32
	for _, g := range sp {
		for _, u := range append(sp, 1, -2.5) {
			gate, up = append(gate, g), append(up, u)
		}
	}
	compareSwiGLU(t, gate, up)
	rng := rand.New(rand.NewPCG(1, 2))
	compareSwiGLU(t, randomFloats(rng, 1<<20), randomFloats(rng, 1<<20))
	for n := range 41 {
		compareSwiGLU(t, randomFloats(rng, n), randomFloats(rng, n))
	}
	// Every float32 of Exp's range as −g, in steps of 61 ulps, up 1.
	for b := uint32(0); b < 0x7f800000; b += 61 * 8 * 64 {
		gate = gate[:0]
		for k := range uint32(8 * 64) {
			x := math.Float32frombits(b + k*61)
			gate = append(gate, x, -x)
		}
		compareSwiGLU(t, gate, onesFloats(len(gate)))
	}
}

func onesFloats(n int) []float32 {
	u := make([]float32, n)
	for i := range u {
		u[i] = 1
	}
	return u
}

// FuzzSwiGLU checks SwiGLU against swigluGo on eight values (the assembly's
// step) and one more (the Go loop's tail), from the fuzzer's bits.
func FuzzSwiGLU(f *testing.F) {
	f.Add(uint32(0x7fc00000), uint32(0x3f800000), uint64(0), uint64(0))
	f.Add(uint32(expf.FusedIn0), uint32(expf.FusedIn1), uint64(0x42b17218c2cff1b5), uint64(0x7f8000017fa00000))
	f.Fuzz(func(t *testing.T, g, u uint32, seed, bits uint64) {
		rng := rand.New(rand.NewPCG(seed, bits))
		gate, up := randomFloats(rng, 9), randomFloats(rng, 9)
		gate[rng.IntN(9)], up[rng.IntN(9)] = math.Float32frombits(g), math.Float32frombits(u)
		gate[0], up[1] = math.Float32frombits(uint32(bits)), math.Float32frombits(uint32(bits>>32))
		compareSwiGLU(t, gate, up)
	})
}

// BenchmarkSwiGLU times SwiGLU and swigluGo on SmolLM2-135M's 1,536 values.
func BenchmarkSwiGLU(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	gate, up := make([]float32, 1536), make([]float32, 1536)
	for i := range gate {
		gate[i], up[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	work := make([]float32, len(gate))
	for _, k := range []struct {
		name string
		f    func(gate, up []float32)
	}{{"Go", swigluGo}, {"SwiGLU", SwiGLU}} {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				copy(work, gate)
				k.f(work, up)
			}
		})
	}
}
