package sampler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// dyadic is a hand-made distribution whose partial sums are exact:
// sorted, it is token 1 (1/2), 2 (1/4), 0 (1/8), then 3 and 4 tied (1/16).
var dyadic = []float64{0.125, 0.5, 0.25, 0.0625, 0.0625}

// checkFilter checks that st keeps exactly the tokens in kept: the others
// of nonzero probability are Removed with their mass, and the kept ones are
// renormalised.
func checkFilter(t *testing.T, st Stage, p []float64, kept []int) {
	t.Helper()
	var keptMass, removedMass float64
	var removed []int
	for i, q := range p {
		if slices.Contains(kept, i) {
			keptMass += q
		} else if q > 0 {
			removed = append(removed, i)
			removedMass += q
		}
	}
	if !slices.Equal(st.Removed, removed) {
		t.Errorf("Removed = %v, want %v", st.Removed, removed)
	}
	if math.Abs(st.RemovedMass-removedMass) > 1e-15 {
		t.Errorf("RemovedMass = %v, want %v", st.RemovedMass, removedMass)
	}
	for i, q := range p {
		want := 0.0
		if slices.Contains(kept, i) {
			want = q / keptMass
		}
		if math.Abs(st.Probs[i]-want) > 1e-15 {
			t.Errorf("Probs[%d] = %v, want %v", i, st.Probs[i], want)
		}
	}
}

// TestFilters checks top-k, top-p and min-p on hand-made distributions,
// including ties and boundaries.
func TestFilters(t *testing.T) {
	filter := func(name StageName, keep func(*ranking) int) func([]float64) Stage {
		return func(p []float64) Stage {
			var r ranking
			r.reset(p)
			return r.stage(name, keep(&r), new(stageMemory))
		}
	}
	topKOf := func(k int) func([]float64) Stage {
		return filter("top_k", func(r *ranking) int { return min(k, r.survivors) })
	}
	topPOf := func(pp float64) func([]float64) Stage {
		return filter("top_p", func(r *ranking) int { return r.nucleus(pp) })
	}
	minPOf := func(m float64) func([]float64) Stage {
		return filter("min_p", func(r *ranking) int { return r.aboveMin(m) })
	}
	for _, tc := range []struct {
		stage  StageName
		name   string
		filter func([]float64) Stage
		p      []float64
		kept   []int
	}{
		{"top_k", "k=1", topKOf(1), dyadic, []int{1}},
		{"top_k", "k=2", topKOf(2), dyadic, []int{1, 2}},
		{"top_k", "tie broken by lower id", topKOf(4), dyadic, []int{0, 1, 2, 3}},
		{"top_k", "k = vocab", topKOf(5), dyadic, []int{0, 1, 2, 3, 4}},
		{"top_k", "k > vocab", topKOf(100), dyadic, []int{0, 1, 2, 3, 4}},
		{"top_k", "all tied", topKOf(2), []float64{0.25, 0.25, 0.25, 0.25}, []int{0, 1}},
		{"top_k", "masked tokens are not candidates", topKOf(3), []float64{0, 0.5, 0, 0.5}, []int{1, 3}},
		{"top_k", "single token", topKOf(1), []float64{1}, []int{0}},

		{"top_p", "below the top token", topPOf(0.1), dyadic, []int{1}},
		{"top_p", "exactly the top token", topPOf(0.5), dyadic, []int{1}},
		{"top_p", "just above the top token", topPOf(math.Nextafter(0.5, 1)), dyadic, []int{1, 2}},
		{"top_p", "exactly two tokens", topPOf(0.75), dyadic, []int{1, 2}},
		{"top_p", "tie broken by lower id", topPOf(0.9), dyadic, []int{0, 1, 2, 3}},
		{"top_p", "everything", topPOf(0.99), dyadic, []int{0, 1, 2, 3, 4}},
		{"top_p", "masked tokens are not candidates", topPOf(0.8), []float64{0, 0.75, 0, 0.25}, []int{1, 3}},
		{"top_p", "single token", topPOf(0.5), []float64{1}, []int{0}},

		{"min_p", "half of the max", minPOf(0.5), dyadic, []int{1, 2}},
		{"min_p", "quarter of the max, boundary kept", minPOf(0.25), dyadic, []int{0, 1, 2}},
		{"min_p", "all but the max", minPOf(1), dyadic, []int{1}},
		{"min_p", "tied maxima survive m=1", minPOf(1), []float64{0.4, 0.4, 0.2}, []int{0, 1}},
		{"min_p", "tiny m keeps all", minPOf(1e-9), dyadic, []int{0, 1, 2, 3, 4}},
		{"min_p", "masked tokens are not candidates", minPOf(1e-9), []float64{0, 0.75, 0, 0.25}, []int{1, 3}},
		{"min_p", "single token", minPOf(1), []float64{1}, []int{0}},
	} {
		t.Run(string(tc.stage)+"/"+tc.name, func(t *testing.T) {
			st := tc.filter(tc.p)
			if st.Name != tc.stage {
				t.Errorf("Name = %q, want %q", st.Name, tc.stage)
			}
			checkFilter(t, st, tc.p, tc.kept)
		})
	}
}

func TestPenalise(t *testing.T) {
	inf := math.Inf(1)
	logits := []float64{2, -1, 0, 3, -inf, 5}
	for _, tc := range []struct {
		name    string
		history []int
		r       float64
		want    []float64
		changed []int
	}{
		{"no history", nil, 2, logits, nil},
		{"signs", []int{0, 1}, 2, []float64{1, -2, 0, 3, -inf, 5}, []int{0, 1}},
		{"repeats count once", []int{0, 0, 0, 5, 5}, 2, []float64{1, -1, 0, 3, -inf, 2.5}, []int{0, 5}},
		{"zero and masked stay", []int{2, 4}, 2, logits, nil},
		{"r < 1 favours repeats", []int{0, 1, 3}, 0.5, []float64{4, -0.5, 0, 6, -inf, 5}, []int{0, 1, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sc Scratch
			st := sc.penalise(slices.Clone(logits), tc.history, tc.r, true)
			if st.Name != "repetition_penalty" {
				t.Errorf("Name = %q", st.Name)
			}
			if !slices.Equal(st.Logits, tc.want) {
				t.Errorf("Logits = %v, want %v", st.Logits, tc.want)
			}
			if !slices.Equal(st.Changed, tc.changed) {
				t.Errorf("Changed = %v, want %v", st.Changed, tc.changed)
			}
		})
	}
}

func TestArgmax(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		x    []float64
		want int
	}{
		{[]float64{7}, 0},
		{[]float64{1, 3, 3, 0}, 1},
		{[]float64{2, 2, 2}, 0},
		{[]float64{-inf, -inf, -5}, 2},
		{[]float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}, 2},
	} {
		if got := Argmax(tc.x); got != tc.want {
			t.Errorf("Argmax(%v) = %d, want %d", tc.x, got, tc.want)
		}
	}
}

// TestDraw checks the draw against run.c's linear scan of sample_mult,
// including targets on and beyond the boundaries.
func TestDraw(t *testing.T) {
	p := []float64{0.25, 0, 0.25, 0.25, 0.25} // ranked 0, 2, 3, 4: sums are exact
	order := []int{0, 2, 3, 4}
	for _, u := range []float64{0, 0.1, 0.25, 0.3, 0.5, 0.74, 0.75, 0.99, 1, 1.5} {
		want, cdf := len(order)-1, 0.0
		for i, id := range order {
			if cdf += p[id]; u < cdf {
				want = i
				break
			}
		}
		for _, record := range []bool{false, true} {
			var r ranking
			r.reset(p)
			var d Draw
			var rec *recording
			if record {
				rec = new(recording)
			}
			r.draw(&d, u, rec)
			if d.Index != want || r.order[d.Index] != order[want] {
				t.Errorf("u = %v: Index %d, want %d", u, d.Index, want)
			}
			if lo, hi := 0.25*float64(want), 0.25*float64(want+1); d.Lo != lo || d.Hi != hi {
				t.Errorf("u = %v: interval [%v, %v), want [%v, %v)", u, d.Lo, d.Hi, lo, hi)
			}
			if record && (!slices.Equal(d.Order, order) || !slices.Equal(d.CDF, []float64{0.25, 0.5, 0.75, 1})) {
				t.Errorf("recorded Order %v CDF %v", d.Order, d.CDF)
			}
		}
	}
}

// TestRankingIsASort checks the lazy ranking against a full sort, on
// distributions with ties, zeros, a huge range and more tokens than
// buckets.
func TestRankingIsASort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{1, 2, 13, 500, 32000, 70000} {
		for _, kind := range []string{"spread", "ties", "flat", "extreme"} {
			p := make([]float64, n)
			for i := range p {
				switch kind {
				case "spread":
					p[i] = math.Exp(rng.NormFloat64() * 4)
				case "ties":
					p[i] = float64(rng.IntN(5))
				case "flat":
					p[i] = 1 + rng.Float64()*1e-12
				case "extreme":
					p[i] = math.Ldexp(1, -rng.IntN(1070))
				}
			}
			want := make([]int, 0, n)
			for i, q := range p {
				if q > 0 {
					want = append(want, i)
				}
			}
			slices.SortStableFunc(want, func(a, b int) int {
				switch {
				case p[a] > p[b]:
					return -1
				case p[a] < p[b]:
					return 1
				}
				return 0
			})
			var r ranking
			r.reset(p)
			for i, id := range want {
				if got := r.at(i); got != id {
					t.Fatalf("n=%d %s: rank %d is %d, want %d", n, kind, i, got, id)
				}
			}
		}
	}
}
