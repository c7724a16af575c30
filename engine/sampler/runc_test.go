package sampler_test

import (
	"math"
	"slices"
	"testing"

	"nexttoken/engine/sampler"
)

// float32s rounds display values back to the float32 values run.c holds;
// the stages widen them exactly, so this is exact too.
func float32s(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

// scan is run.c's final loop: the first position whose float32 cumulative
// sum exceeds target, else the last.
func scan(p []float32, order []int, target float32) int {
	var cdf float32
	for i, id := range order {
		if cdf += p[id]; target < cdf {
			return i
		}
	}
	return len(order) - 1
}

func TestRunCMultinomial(t *testing.T) {
	logits := randomLogits(300, 2, 2)
	for _, temp := range []float64{0.5, 1, 1.7} {
		// 0.99999999 rounds to 1 in float32, so run.c does not use top-p.
		for _, topp := range []float64{0, 1, 0.99999999} {
			for seed := uint64(1); seed <= 10; seed++ {
				s := sampler.Settings{Mode: sampler.RunC, Temperature: temp, TopP: topp, Seed: seed}
				rng := sampler.NewRNG(seed)
				c, err := sampler.Sample(s, logits, nil, &rng)
				if err != nil {
					t.Fatal(err)
				}
				if names := stageNames(c); !slices.Equal(names, []string{"temperature"}) {
					t.Fatalf("stages %v, want [temperature]", names)
				}
				p := c.Stages[0].Probs
				for i, q := range p {
					if math.Abs(q-c.Softmax.Probs[i]) > 1e-6 {
						t.Fatalf("T=%v: float32 p[%d] = %v, float64 softmax %v", temp, i, q, c.Softmax.Probs[i])
					}
				}

				// Every token, in id order; the coin itself is the target.
				d := c.Draw
				for i, id := range d.Order {
					if id != i {
						t.Fatalf("Order[%d] = %d, want id order", i, id)
					}
				}
				fresh := sampler.NewRNG(seed)
				coin := fresh.Float32()
				if d.U != float64(coin) || d.Target != d.U || rng != fresh {
					t.Errorf("U %v, Target %v; want both %v from one draw", d.U, d.Target, coin)
				}
				p32 := float32s(p)
				if want := d.Order[scan(p32, d.Order, coin)]; c.Token != want {
					t.Errorf("T=%v p=%v seed %d: token %d, run.c's scan gives %d", temp, topp, seed, c.Token, want)
				}
			}
		}
	}
}

func TestRunCTopP(t *testing.T) {
	quantised := randomLogits(100, 1, 3)
	for i, v := range quantised {
		quantised[i] = math.Round(v) // many exactly tied probabilities
	}
	for _, tc := range []struct {
		name   string
		logits []float64
	}{
		{"spread", randomLogits(100, 2, 4)},
		{"peaked", randomLogits(500, 5, 5)},
		{"ties", quantised},
		{"worked example", workedExample},
		// p = 1/4 each: the sum reaches p = 0.5 exactly, and run.c goes on.
		{"uniform", []float64{0, 0, 0, 0}},
	} {
		for _, temp := range []float64{0.7, 1, 1.5} {
			for _, topp := range []float64{0.3, 0.5, 0.9, 0.95} {
				for seed := uint64(1); seed <= 5; seed++ {
					s := sampler.Settings{Mode: sampler.RunC, Temperature: temp, TopP: topp, Seed: seed}
					rng := sampler.NewRNG(seed)
					c, err := sampler.Sample(s, tc.logits, nil, &rng)
					if err != nil {
						t.Fatalf("%s: %v", tc.name, err)
					}
					checkRunCTopP(t, c, s, seed)
				}
			}
		}
	}
}

// checkRunCTopP checks the properties of run.c's sample_topp on c.
func checkRunCTopP(t *testing.T, c *sampler.Choice, s sampler.Settings, seed uint64) {
	t.Helper()
	if names := stageNames(c); !slices.Equal(names, []string{"temperature", "runc_cutoff", "top_p"}) {
		t.Fatalf("stages %v", names)
	}
	p := float32s(c.Stages[0].Probs)
	n, topp := len(p), float32(s.TopP)

	// The pre-filter removes exactly the tokens below (1 − p)/(n − 1).
	cutoff := (1 - topp) / float32(n-1)
	var below []int
	for i, q := range p {
		if q < cutoff {
			below = append(below, i)
		}
	}
	if removed := c.Stages[1].Removed; !slices.Equal(removed, below) {
		t.Fatalf("runc_cutoff removed %v, want %v", removed, below)
	}

	// The nucleus runs most probable first, ties by id, and stops at the
	// first token whose float32 cumulative sum exceeds p.
	d := c.Draw
	var sum float32
	for i, id := range d.Order {
		if i > 0 {
			prev := d.Order[i-1]
			if p[prev] < p[id] || p[prev] == p[id] && prev > id {
				t.Fatalf("Order %d before %d", prev, id)
			}
		}
		sum += p[id]
		if float64(sum) != d.CDF[i] {
			t.Fatalf("CDF[%d] = %v, float32 sum %v", i, d.CDF[i], sum)
		}
		if i < len(d.Order)-1 && sum > topp {
			t.Fatalf("nucleus goes on after its sum %v exceeds p = %v", sum, topp)
		}
	}
	if sum <= topp && len(d.Order) != n-len(below) {
		t.Fatalf("nucleus stops at sum %v ≤ p = %v before the last candidate", sum, topp)
	}
	var dropped []int
	for i, q := range p {
		if q >= cutoff && !slices.Contains(d.Order, i) {
			dropped = append(dropped, i)
		}
	}
	if removed := c.Stages[2].Removed; !slices.Equal(removed, dropped) {
		t.Fatalf("top_p removed %v, want %v", removed, dropped)
	}

	// The coin is scaled by the nucleus mass, in float32.
	fresh := sampler.NewRNG(seed)
	coin := fresh.Float32()
	target := coin * sum
	if d.U != float64(coin) || d.Target != float64(target) {
		t.Errorf("U %v, Target %v; want %v, %v", d.U, d.Target, coin, target)
	}
	if want := d.Order[scan(p, d.Order, target)]; c.Token != want {
		t.Errorf("token %d, run.c's scan gives %d", c.Token, want)
	}
}

func TestRunCGreedy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		logits []float64
		temp   float64
		chain  int // token in chain mode (float64)
		runc   int // token in run.c mode (float32)
	}{
		{"worked example", workedExample, 0, 2, 2},
		// Distinct in float64 but equal in float32: run.c keeps the first.
		{"float32 tie", []float64{1, 1 + 1e-12}, 0, 1, 0},
		// A temperature that rounds to 0 in float32 is greedy in run.c.
		{"float32 zero temperature", []float64{1, 2, 0}, 1e-50, -1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, mode := range []sampler.Mode{sampler.Chain, sampler.RunC} {
				want := tc.chain
				if mode == sampler.RunC {
					want = tc.runc
				}
				if want < 0 {
					continue
				}
				s := sampler.Settings{Mode: mode, Temperature: tc.temp, Seed: 9}
				rng := sampler.NewRNG(s.Seed)
				c, err := sampler.Sample(s, tc.logits, nil, &rng)
				if err != nil {
					t.Fatal(err)
				}
				if c.Token != want || !c.Greedy || rng.State != s.Seed {
					t.Errorf("%s: token %d, greedy %v, RNG moved %v; want token %d, greedy, RNG still",
						mode, c.Token, c.Greedy, rng.State != s.Seed, want)
				}
			}
		})
	}
}
