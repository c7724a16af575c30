//go:build js

package wasmsimd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"nexttoken/engine/internal/expf"
	"nexttoken/engine/softmax"
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
			if allocs := testing.AllocsPerRun(10, func() { _ = k.AttentionScores(buf, buf, buf, l, 1) }); allocs != 0 {
				t.Errorf("refusing it allocates %v times", allocs)
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

// TestSoftmaxMatchesGo checks softmax_rows against package softmax's
// Float32, bit for bit (any NaN for NaN), head by head, for rows of 4 to
// 41 positions (every remainder mod 4), rows that fill their stride and
// rows that do not, at aligned and misaligned addresses, with scores that
// reach expf's underflow, its two fused inputs, zeros of both signs,
// infinities and NaN; and that nothing outside the rows changes. A row of
// 2^20 random scores in [−110, 0] next to a 0, whose maximum it is, puts
// expf itself to the test over many exponents.
func TestSoftmaxMatchesGo(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(15, 16))
	special := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.Copysign(0, -1)), 0,
		math.Float32frombits(expf.FusedIn0), -200, -103.97, -103.98}
	type row struct {
		count, positions, gap int
		draw                  func(i int) float32
	}
	var rows []row
	for _, count := range []int{1, 3, 6} {
		for positions := 4; positions <= 41; positions += 3 {
			for _, gap := range []int{0, 3} {
				rows = append(rows, row{count, positions, gap, func(int) float32 { return rng.Float32()*60 - 30 }})
			}
		}
	}
	rows = append(rows,
		row{4, 17, 1, func(int) float32 { return rng.Float32()*400 - 200 }},
		row{2, 13, 0, func(i int) float32 {
			if rng.IntN(3) == 0 {
				return special[rng.IntN(len(special))]
			}
			return rng.Float32()*100 - 80
		}},
		// A maximum of 0 makes x − m = x, the fused input among them.
		row{1, 9, 0, func(i int) float32 {
			return []float32{0, math.Float32frombits(expf.FusedIn0), -1, -2, -3, -4, -5, -6, -7}[i]
		}},
		row{1, 1 << 20, 0, func(i int) float32 {
			if i == 12345 {
				return 0
			}
			return -110 * rng.Float32()
		}},
	)
	for _, r := range rows {
		for _, skew := range []int{0, 1} {
			l := Heads{Count: r.count, Size: 4, KVMul: 1, Positions: r.positions, Stride: r.count * 4, AttStride: r.positions + r.gap}
			name := fmt.Sprintf("%dx%d/gap%d/skew%d", r.count, r.positions, r.gap, skew)
			if r.positions > 1000 {
				name = fmt.Sprintf("expf/%d", r.positions)
			}
			t.Run(name, func(t *testing.T) {
				att := misaligned(l.Count*l.AttStride+4, 4*skew)
				for i := range att {
					att[i] = r.draw(i % l.AttStride)
				}
				want := append([]float32(nil), att...)
				for h := range l.Count {
					softmax.Float32(want[h*l.AttStride:][:l.Positions])
				}
				if err := k.Softmax(att[:l.Count*l.AttStride], l); err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if math.Float32bits(att[i]) != math.Float32bits(want[i]) && !(isNaN(att[i]) && isNaN(want[i])) {
						t.Fatalf("att[%d] (head %d, position %d): SIMD %v (%#08x), Go %v (%#08x)",
							i, i/l.AttStride, i%l.AttStride, att[i], math.Float32bits(att[i]), want[i], math.Float32bits(want[i]))
					}
				}
			})
		}
	}
}

// TestSoftmaxRejectsShortRows: rows under four positions are the caller's.
func TestSoftmaxRejectsShortRows(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Softmax(make([]float32, 3), Heads{Count: 1, Size: 4, KVMul: 1, Positions: 3, Stride: 4, AttStride: 3}); err == nil {
		t.Error("a row of 3 positions was taken")
	}
}

// TestSwiGLUMatchesGo checks swiglu against the feed-forward's Go loop,
// g·(1/(1 + expf(−g)))·u, bit for bit (any NaN for NaN), on 0 to 41
// values (it takes all but the last n mod 4, and leaves those alone), at
// aligned and misaligned addresses, with gates that overflow and
// underflow expf, zeros of both signs, infinities and NaN.
func TestSwiGLUMatchesGo(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(17, 18))
	special := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.Copysign(0, -1)), 0,
		-math.Float32frombits(expf.FusedIn0), -math.Float32frombits(expf.FusedIn1), 90, -90, 104, -104}
	for n := range 42 {
		for _, skew := range []int{0, 1} {
			gate, up := misaligned(n, 4*skew), misaligned(n, 4*skew)
			for i := range gate {
				gate[i], up[i] = rng.Float32()*40-20, rng.Float32()*4-2
				if rng.IntN(4) == 0 {
					gate[i] = special[rng.IntN(len(special))]
				}
			}
			want := append([]float32(nil), gate...)
			for i, g := range want[:n&^3] {
				want[i] = g * (1 / (1 + expf.Exp(-g))) * up[i]
			}
			done, err := k.SwiGLU(gate, up)
			if err != nil {
				t.Fatal(err)
			}
			if done != n&^3 {
				t.Errorf("n %d: the kernel says it took %d values, want %d", n, done, n&^3)
			}
			for i := range want {
				if math.Float32bits(gate[i]) != math.Float32bits(want[i]) && !(isNaN(gate[i]) && isNaN(want[i])) {
					t.Errorf("n %d skew %d: gate[%d]: SIMD %v, Go %v", n, skew, i, gate[i], want[i])
				}
			}
		}
	}
}
