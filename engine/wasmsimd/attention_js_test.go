//go:build js

package wasmsimd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAttentionMatchesLoops checks attention_scores and attention_values
// against the loops they replace (transformer's attend: each sum in order,
// every product rounded), bit for bit, for layouts with and without
// grouped keys (KVMul 1, 2, 3), heads of 4 to 48 floats, 1 to 9 positions
// (a multiple of four and not: the scores kernel leaves the last
// Positions mod 4 to the caller) and weights rows longer than Positions,
// at aligned and misaligned addresses; and that neither writes outside
// what it sets.
func TestAttentionMatchesLoops(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct{ count, size, kvMul int }{{1, 4, 1}, {2, 8, 1}, {4, 8, 2}, {6, 48, 1}, {9, 16, 3}} {
		for _, positions := range []int{1, 3, 4, 5, 8, 9} {
			for _, skew := range []int{0, 1} {
				l := Heads{Count: c.count, Size: c.size, KVMul: c.kvMul, Positions: positions,
					Stride: c.count / c.kvMul * c.size, AttStride: positions + 2}
				t.Run(fmt.Sprintf("%+v/skew%d", l, skew), func(t *testing.T) {
					random := func(n int) []float32 {
						x := misaligned(n, 4*skew)
						for i := range x {
							x[i] = rng.Float32()*2 - 1
						}
						return x
					}
					q, keys, values := random(l.Count*l.Size), random(l.Positions*l.Stride), random(l.Positions*l.Stride)
					const scale = 6.928203 // √48
					att := random(l.Count * l.AttStride)
					want := append([]float32(nil), att...)
					scored := l.Positions &^ 3
					for h := range l.Count {
						for p := range scored {
							key := keys[p*l.Stride+h/l.KVMul*l.Size:]
							var s float32
							for i, v := range q[h*l.Size : (h+1)*l.Size] {
								s += float32(v * key[i])
							}
							want[h*l.AttStride+p] = s / scale
						}
					}
					if err := k.AttentionScores(att, q, keys, l, scale); err != nil {
						t.Fatal(err)
					}
					expectBits(t, "scores", att, want)

					out := random(l.Count*l.Size + 1)
					wantOut := make([]float32, len(out))
					wantOut[len(out)-1] = out[len(out)-1] // past the last head: untouched
					for h := range l.Count {
						for p := range l.Positions {
							w, v := att[h*l.AttStride+p], values[p*l.Stride+h/l.KVMul*l.Size:]
							for i := range l.Size {
								wantOut[h*l.Size+i] += float32(w * v[i])
							}
						}
					}
					if err := k.AttentionValues(out[:l.Count*l.Size], att, values, l); err != nil {
						t.Fatal(err)
					}
					expectBits(t, "values", out, wantOut)
				})
			}
		}
	}
}

// expectBits reports every element of got whose bits differ from want's.
func expectBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("%s[%d]: SIMD %v, loop %v", what, i, got[i], want[i])
		}
	}
}

// TestAttentionRejects checks that a layout the kernels do not take is an
// error and short slices panic, before the kernel runs.
func TestAttentionRejects(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	good := Heads{Count: 2, Size: 8, KVMul: 1, Positions: 3, Stride: 16, AttStride: 4}
	buf := make([]float32, 64)
	for _, c := range []struct {
		name string
		edit func(*Heads)
	}{
		{"size not a multiple of 4", func(l *Heads) { l.Size = 6 }},
		{"no positions", func(l *Heads) { l.Positions = 0 }},
		{"heads not a multiple of kvMul", func(l *Heads) { l.KVMul = 3 }},
		{"rows narrower than the key heads", func(l *Heads) { l.Stride = 15 }},
		{"weights rows shorter than positions", func(l *Heads) { l.AttStride = 2 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := good
			c.edit(&l)
			if err := k.AttentionScores(buf, buf, buf, l, 1); err == nil {
				t.Error("AttentionScores took it")
			}
			if err := k.AttentionValues(buf, buf, buf, l); err == nil {
				t.Error("AttentionValues took it")
			}
		})
	}
	for _, c := range []struct {
		name              string
		heads, cache, att int
	}{
		{"queries", 15, 64, 64}, {"cache", 64, 2*16 + 15, 64}, {"weights", 64, 64, 4 + 2},
	} {
		t.Run("short "+c.name, func(t *testing.T) {
			for _, call := range []func() error{
				func() error {
					return k.AttentionScores(make([]float32, c.att), make([]float32, c.heads), make([]float32, c.cache), good, 1)
				},
				func() error {
					return k.AttentionValues(make([]float32, c.heads), make([]float32, c.att), make([]float32, c.cache), good)
				},
			} {
				func() {
					defer func() {
						if recover() == nil {
							t.Error("did not panic")
						}
					}()
					_ = call()
				}()
			}
		})
	}
}
