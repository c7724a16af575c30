package transformer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"nexttoken/engine/internal/matvec"
)

// TestAttentionLoopsKeepBits checks that attention's loops (package
// matvec's Scores and Mix, over a layer's heads as attend lays them out)
// give the same bits as the plain loops: a position's score summed in
// order of the head's values, an output summed in order of the positions.
func TestAttentionLoopsKeepBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ count, size, kvMul, positions, stride int }{
		{1, 1, 1, 1, 1},
		{2, 3, 1, 5, 6},
		{6, 48, 1, 256, 288},
		{9, 64, 3, 7, 192},
		{4, 12, 2, 33, 24},
		{3, 20, 3, 3, 20},
	} {
		t.Run(fmt.Sprintf("%d heads of %d, %d positions", c.count, c.size, c.positions), func(t *testing.T) {
			l := heads{count: c.count, size: c.size, kvMul: c.kvMul, positions: c.positions, stride: c.stride, attStride: c.positions + 2}
			q := randomVector(rng, c.count*c.size)
			keys := randomVector(rng, c.positions*c.stride)
			values := randomVector(rng, c.positions*c.stride)
			scale := float32(math.Sqrt(float64(c.size)))
			att := make([]float32, c.count*l.attStride)
			want := make([]float32, len(att))
			for h := range c.count {
				qh := q[h*c.size : (h+1)*c.size]
				matvec.Scores(att[h*l.attStride:][:c.positions], qh, keys[l.keyOffset(h):], c.stride, scale)
				for p := range c.positions {
					k := keys[p*c.stride+l.keyOffset(h):][:c.size]
					var s float32
					for i, v := range qh {
						s += float32(v * k[i])
					}
					want[h*l.attStride+p] = s / scale
				}
			}
			sameBits(t, "scores", att, want)

			out := make([]float32, c.count*c.size)
			mixHeadsGo(out, att, values, l)
			wantOut := make([]float32, len(out))
			for h := range c.count {
				for p, w := range att[h*l.attStride:][:c.positions] {
					v := values[p*c.stride+l.keyOffset(h):][:c.size]
					for i := range c.size {
						wantOut[h*c.size+i] += float32(w * v[i])
					}
				}
			}
			sameBits(t, "outputs", out, wantOut)
		})
	}
}

func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}
