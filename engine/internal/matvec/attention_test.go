package matvec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// attentionShapes are (n, positions, stride): heads of 48 and 64 (the
// models'), widths that are not whole eights, position counts with and
// without a last few, and strides wider than a head.
var attentionShapes = [][3]int{
	{1, 1, 1}, {3, 5, 7}, {8, 1, 8}, {8, 8, 8}, {16, 9, 24}, {48, 256, 288},
	{48, 37, 288}, {64, 64, 192}, {64, 13, 576}, {12, 20, 36}, {40, 17, 40},
	{100, 8, 100},
}

// TestScoresMatchLoop checks that Scores (the assembly where the CPU has
// it) and scoresGo give the same bits as the plain loop, position by
// position, each sum in order of the head's values.
func TestScoresMatchLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range attentionShapes {
		n, positions, stride := s[0], s[1], s[2]
		t.Run(fmt.Sprintf("%d wide, %d positions, stride %d", n, positions, stride), func(t *testing.T) {
			q, keys := random(rng, n), random(rng, positions*stride)
			scale := float32(math.Sqrt(float64(n)))
			want := make([]float32, positions)
			for p := range want {
				var s float32
				for i, v := range q {
					s += float32(v * keys[p*stride+i])
				}
				want[p] = s / scale
			}
			for name, scores := range map[string]func(att, q, keys []float32, stride int, scale float32){"Scores": Scores, "scoresGo": scoresGo} {
				got := make([]float32, positions)
				scores(got, q, keys, stride, scale)
				sameBits(t, name, got, want)
			}
		})
	}
}

// TestMixMatchesLoop checks that Mix (the assembly where the CPU has it)
// and mixGo give the same bits as the plain loop, each output summed in
// order of the positions.
func TestMixMatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, s := range append(attentionShapes, [3]int{5, 0, 5}) {
		n, positions, stride := s[0], s[1], s[2]
		t.Run(fmt.Sprintf("%d wide, %d positions, stride %d", n, positions, stride), func(t *testing.T) {
			w, values := random(rng, positions), random(rng, positions*stride)
			want := make([]float32, n)
			for p, a := range w {
				for i := range want {
					want[i] += float32(a * values[p*stride+i])
				}
			}
			for name, mix := range map[string]func(out, w, values []float32, stride int){"Mix": Mix, "mixGo": mixGo} {
				got := random(rng, n) // overwritten, whatever it held
				mix(got, w, values, stride)
				sameBits(t, name, got, want)
			}
		})
	}
}

func sameBits(t *testing.T, name string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: [%d] = %v, want %v", name, i, got[i], want[i])
		}
	}
}

func BenchmarkAttention(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range [][3]int{{48, 256, 288}, {64, 64, 192}} {
		n, positions, stride := s[0], s[1], s[2]
		q, keys, att, out := random(rng, n), random(rng, positions*stride), random(rng, positions), make([]float32, n)
		for _, k := range []struct {
			name   string
			scores func(att, q, keys []float32, stride int, scale float32)
			mix    func(out, w, values []float32, stride int)
		}{{"AVX2", Scores, Mix}, {"Go", scoresGo, mixGo}} {
			b.Run(fmt.Sprintf("scores/%s/%dx%d", k.name, n, positions), func(b *testing.B) {
				for b.Loop() {
					k.scores(att, q, keys, stride, 7)
				}
			})
			b.Run(fmt.Sprintf("mix/%s/%dx%d", k.name, n, positions), func(b *testing.B) {
				for b.Loop() {
					k.mix(out, att, keys, stride)
				}
			})
		}
	}
}
