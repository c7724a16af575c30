package hf

import (
	"math"
	"slices"
	"strings"
	"testing"
)

var inf = float32(math.Inf(-1))

// kept is the tokens whose score is not −Inf.
func kept(scores []float32) []int {
	var ids []int
	for i, s := range scores {
		if s != negInf {
			ids = append(ids, i)
		}
	}
	return ids
}

// must returns p, for constructors called with valid settings.
func must(p Processor, err error) Processor {
	if err != nil {
		panic(err)
	}
	return p
}

// checkMasked checks that out keeps exactly want, each with its score from
// in unchanged, and sets every other token to −Inf.
func checkMasked(t *testing.T, in, out []float32, want []int) {
	t.Helper()
	if got := kept(out); !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v (scores %v)", got, want, out)
	}
	for _, id := range want {
		if out[id] != in[id] {
			t.Errorf("score %d changed from %v to %v", id, in[id], out[id])
		}
	}
}

// The probabilities used below, worked out in float64 (float32 moves
// them by ulps, far from every cut chosen):
//
//	softmax(2, 1, 0) = (1, e⁻¹, e⁻²)/1.503215 = 0.665241, 0.244728, 0.090031
//	−log p = 0.407606, 1.407606, 2.407606
//	H = Σ p·(−log p) = 0.271156 + 0.344481 + 0.216759 = 0.832396
var twoOneZero = []float32{2, 1, 0}

func TestTopK(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scores   []float32
		k, keep  int
		wantKept []int
	}{
		// The 2nd largest score is 2; nothing below it is removed.
		{"ties at the k-th", []float32{3, 2, 2, 2, 1}, 2, 1, []int{0, 1, 2, 3}},
		{"tie at the top, k = 1", []float32{2, 2, 1}, 1, 1, []int{0, 1}},
		{"k = vocabulary", []float32{3, 2, 1}, 3, 1, []int{0, 1, 2}},
		{"k > vocabulary", []float32{3, 2, 1}, 10, 1, []int{0, 1, 2}},
		{"min_tokens_to_keep > k", []float32{5, 4, 3, 2}, 1, 3, []int{0, 1, 2}},
		// The 3rd largest is −Inf, and nothing is below −Inf.
		{"−Inf inside the k", []float32{1, inf, 0}, 3, 1, []int{0, 2}},
		{"−Inf outside the k", []float32{1, inf, 0}, 1, 1, []int{0}},
		{"all equal", []float32{0, 0, 0, 0}, 1, 1, []int{0, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := must(NewTopK(tc.k, tc.keep))
			checkMasked(t, tc.scores, p.Process(nil, tc.scores), tc.wantKept)
		})
	}
}

func TestTopP(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scores   []float32
		p        float64
		keep     int
		wantKept []int
	}{
		// softmax(2, 1, 0) ascending: 0.090031, 0.244728, 0.665241, so
		// the cumulative sums are 0.090031, 0.334759, 1.
		{"0.9: removes c ≤ 0.1", twoOneZero, 0.9, 1, []int{0, 1}},
		{"0.95: removes c ≤ 0.05", twoOneZero, 0.95, 1, []int{0, 1, 2}},
		{"0.6: removes c ≤ 0.4", twoOneZero, 0.6, 1, []int{0}},
		// Every c ≤ 1 − 0 = 1, but the last position is always kept.
		{"0 keeps one token", twoOneZero, 0, 1, []int{0}},
		{"0 keeps min_tokens_to_keep", twoOneZero, 0, 2, []int{0, 1}},
		// Four equal scores: p = 1·(1/4) exactly, c = 1/4, 1/2, 3/4, 1.
		// c ≤ 1/2 removes two; ties put the higher ids first in
		// ascending order, so they go.
		{"cut exactly at c = 1/2", []float32{0, 0, 0, 0}, 0.5, 1, []int{0, 1}},
		{"cut exactly at c = 1/4", []float32{0, 0, 0, 0}, 0.75, 1, []int{0, 1, 2}},
		// float32(1 − 0.74) = 0.26 > 1/4 and float32(1 − 0.76) = 0.24.
		{"just above c = 1/4", []float32{0, 0, 0, 0}, 0.74, 1, []int{0, 1, 2}},
		{"just below c = 1/4", []float32{0, 0, 0, 0}, 0.76, 1, []int{0, 1, 2, 3}},
		// p = 1 still removes tokens whose float32 probability is 0:
		// e⁻²⁰⁰ ≈ 1.4e-87 underflows, so c = 0 ≤ 1 − 1.
		{"1 removes probability 0", []float32{0, -200, inf}, 1, 1, []int{0}},
		// Tied maxima with p = 0: HF keeps one of them, here the lower id.
		{"0 with the top tied", []float32{2, 2, 1}, 0, 1, []int{0}},
		// −Inf sorts first with c = 0; then ids 2 and 0 (tied), c = 1/2, 1.
		{"−Inf and a straddling tie", []float32{0, inf, 0}, 0.5, 1, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := must(NewTopP(tc.p, tc.keep))
			checkMasked(t, tc.scores, p.Process(nil, tc.scores), tc.wantKept)
		})
	}
}

func TestMinP(t *testing.T) {
	// softmax(0, −0.5, −3): pᵢ/p_max = 1, e^−0.5 = 0.606531, e⁻³ = 0.049787.
	ratios := []float32{0, -0.5, -3}
	for _, tc := range []struct {
		name     string
		scores   []float32
		m        float64
		keep     int
		wantKept []int
	}{
		{"0.1 removes 0.0498", ratios, 0.1, 1, []int{0, 1}},
		{"0.05 removes 0.0498", ratios, 0.05, 1, []int{0, 1}},
		{"0.04 keeps 0.0498", ratios, 0.04, 1, []int{0, 1, 2}},
		{"0.7 removes 0.607", ratios, 0.7, 1, []int{0}},
		{"0 removes nothing", ratios, 0, 1, []int{0, 1, 2}},
		// m = 1 keeps exactly the tokens of the largest probability.
		{"1 keeps the tied maxima", []float32{1, 1, 0}, 1, 1, []int{0, 1}},
		{"min_tokens_to_keep 2", ratios, 1, 2, []int{0, 1}},
		{"min_tokens_to_keep 3", ratios, 1, 3, []int{0, 1, 2}},
		// Tokens 1 and 2 tie for the 2nd place: the lower id is kept
		// (HF's argsort may keep either).
		{"min_tokens_to_keep on a tie", []float32{0, -1, -1, -2}, 1, 2, []int{0, 1}},
		{"−Inf", []float32{0, inf, -0.5}, 0.5, 1, []int{0, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := must(NewMinP(tc.m, tc.keep))
			checkMasked(t, tc.scores, p.Process(nil, tc.scores), tc.wantKept)
		})
	}
}

func TestTypical(t *testing.T) {
	// p ∝ (0.4, 0.15, 0.15, 0.15, 0.15): score 0 = ln(0.4/0.15) = ln(8/3).
	// −log p = 0.916291 and 1.897120; H = 0.4·0.916291 + 0.6·1.897120 =
	// 1.504788; d = |−log p − H| = 0.588497 for token 0 and 0.392332 for
	// the others, which are more typical than the most probable token.
	// Ascending d: tokens 1, 2, 3, 4 (tied), then 0; c = 0.15, 0.30, 0.45,
	// 0.60, 1.
	flat := []float32{float32(math.Log(8.0 / 3)), 0, 0, 0, 0}
	for _, tc := range []struct {
		name     string
		scores   []float32
		mass     float64
		keep     int
		wantKept []int
	}{
		// Three c < 0.5, so the cut is the d at position 3, 0.392332:
		// token 0 (0.588497) goes, the most probable one.
		{"removes the most probable", flat, 0.5, 1, []int{1, 2, 3, 4}},
		// One c < 0.2: the cut is position 1's d, the tied group's, so
		// the whole group stays.
		{"a tied group stays together", flat, 0.2, 1, []int{1, 2, 3, 4}},
		{"0.9 keeps all", flat, 0.9, 1, []int{0, 1, 2, 3, 4}},
		// From the working at the top of this file: d = |0.407606 −
		// 0.832396| = 0.424790, 0.575210, 1.575210, already ascending;
		// c = 0.665241, 0.909969, 1.
		{"2, 1, 0 at 0.5", twoOneZero, 0.5, 1, []int{0}},
		{"2, 1, 0 at 0.8", twoOneZero, 0.8, 1, []int{0, 1}},
		{"2, 1, 0 at 0.95", twoOneZero, 0.95, 1, []int{0, 1, 2}},
		{"min_tokens_to_keep 2", twoOneZero, 0.5, 2, []int{0, 1}},
		// A masked token has ℓ·p = −Inf·0 = NaN, skipped by nansum, and
		// d = +Inf: the rest is 2, 1, 0 again.
		{"−Inf", []float32{2, 1, inf, 0}, 0.8, 1, []int{0, 1}},
		{"all equal", []float32{1, 1, 1}, 0.5, 1, []int{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := must(NewTypical(tc.mass, tc.keep))
			checkMasked(t, tc.scores, p.Process(nil, tc.scores), tc.wantKept)
		})
	}
}

func TestEpsilonEta(t *testing.T) {
	for _, tc := range []struct {
		name     string
		new      func(float64, int) (Processor, error)
		scores   []float32
		eps      float64
		keep     int
		wantKept []int
	}{
		// softmax(2, 1, 0) = 0.665241, 0.244728, 0.090031.
		{"ε 0.1", NewEpsilon, twoOneZero, 0.1, 1, []int{0, 1}},
		{"ε 0.25", NewEpsilon, twoOneZero, 0.25, 1, []int{0}},
		// All below ε: the highest score is kept anyway.
		{"ε 0.7", NewEpsilon, twoOneZero, 0.7, 1, []int{0}},
		{"ε 0.7, min_tokens_to_keep 2", NewEpsilon, twoOneZero, 0.7, 2, []int{0, 1}},
		// Both tied maxima are at least the largest score.
		{"ε 0.9, tied maxima", NewEpsilon, []float32{1, 1, 0}, 0.9, 1, []int{0, 1}},
		{"ε, −Inf", NewEpsilon, []float32{2, inf, 1, 0}, 0.1, 1, []int{0, 2}},
		// η = min(ε, √ε·e^(−H)) with H = 0.832396, e^(−H) = 0.435013:
		// ε 0.1: √0.1·0.435013 = 0.137563, η = 0.1, token 2 (0.090) goes.
		{"η 0.1 = ε", NewEta, twoOneZero, 0.1, 1, []int{0, 1}},
		// ε 0.3: √0.3·0.435013 = 0.238265 = η < ε; 0.244728 stays.
		{"η 0.3 < ε", NewEta, twoOneZero, 0.3, 1, []int{0, 1}},
		// ε 0.5: √0.5·0.435013 = 0.307597 = η; only token 0 stays.
		{"η 0.5 < ε", NewEta, twoOneZero, 0.5, 1, []int{0}},
		{"η, −Inf", NewEta, []float32{2, inf, 1, 0}, 0.5, 1, []int{0}},
		// Uniform over 4: H = ln 4, η = min(0.9, √0.9/4) = 0.237171 <
		// 0.25: all stay.
		{"η, all equal", NewEta, []float32{0, 0, 0, 0}, 0.9, 1, []int{0, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := must(tc.new(tc.eps, tc.keep))
			checkMasked(t, tc.scores, p.Process(nil, tc.scores), tc.wantKept)
		})
	}
}

func TestRepetitionPenalty(t *testing.T) {
	scores := []float32{2, -2, 0, 1, inf, 3}
	ids := []int{0, 1, 0, 2, 4, 1, 5, 5, 5}
	for _, tc := range []struct {
		r    float64
		want []float32
	}{
		// Positive scores divided, negative multiplied, 0 and −Inf
		// unchanged, token 3 not in the input, repeats penalised once.
		{2, []float32{1, -4, 0, 1, inf, 1.5}},
		{0.5, []float32{4, -1, 0, 1, inf, 6}},
		// In float32: 3 / float32(1.3), -2 · float32(1.3).
		{1.3, []float32{2 / float32(1.3), -2 * float32(1.3), 0, 1, inf, 3 / float32(1.3)}},
	} {
		p := must(NewRepetitionPenalty(tc.r))
		if got := p.Process(ids, scores); !slices.Equal(got, tc.want) {
			t.Errorf("r = %v: %v, want %v", tc.r, got, tc.want)
		}
	}
	if scores[0] != 2 {
		t.Error("Process changed its argument")
	}
}

func TestTemperature(t *testing.T) {
	scores := []float32{1, -2, inf, 0.3}
	for _, tc := range []struct {
		t    float64
		want []float32
	}{
		{2, []float32{0.5, -1, inf, 0.15}},
		{0.5, []float32{2, -4, inf, 0.6}},
	} {
		p := must(NewTemperature(tc.t))
		got := p.Process(nil, scores)
		for i := range got {
			// torch divides by the temperature rounded to float32.
			if want := scores[i] / float32(tc.t); got[i] != want {
				t.Errorf("T = %v: score %d = %v, want %v", tc.t, i, got[i], want)
			}
			if math.Abs(float64(got[i]-tc.want[i])) > 1e-6 {
				t.Errorf("T = %v: score %d = %v, want about %v", tc.t, i, got[i], tc.want[i])
			}
		}
	}
}

// TestTieOrder checks that the processors whose cut is a value keep a set
// that does not depend on the order of tied tokens: renumbering the tokens
// (which changes how ties are ordered here) renumbers the kept set. Top-p
// cuts by position: renumbering keeps the same number of tokens, but which
// of the tied tokens depends on the order.
func TestTieOrder(t *testing.T) {
	vectors := [][]float32{
		{3, 2, 2, 2, 1},
		{1, 1, 1, 0, 0, inf},
		{0, 0, 0, 0},
		{2, 0, 2, -1, 0, 2, inf, -1},
		{float32(math.Log(8.0 / 3)), 0, 0, 0, 0},
	}
	procs := []Processor{
		must(NewTopK(2, 1)),
		must(NewTopK(1, 1)),
		must(NewMinP(0.5, 1)),
		must(NewMinP(1, 1)),
		must(NewTypical(0.5, 1)),
		must(NewTypical(0.2, 1)),
		must(NewEpsilon(0.2, 1)),
		must(NewEpsilon(0.2, 2)),
		must(NewEta(0.3, 1)),
	}
	topP := must(NewTopP(0.5, 1))
	for _, v := range vectors {
		for _, perm := range permutations(len(v)) {
			pv := make([]float32, len(v))
			for i, j := range perm {
				pv[i] = v[j] // token i of pv is token j of v
			}
			for _, p := range procs {
				want := map[int]bool{}
				for _, id := range kept(p.Process(nil, v)) {
					want[id] = true
				}
				got := kept(p.Process(nil, pv))
				for _, i := range got {
					if !want[perm[i]] {
						t.Errorf("%s on %v renumbered by %v keeps %v", p.Name(), v, perm, got)
					}
				}
				if len(got) != len(want) {
					t.Errorf("%s on %v renumbered by %v keeps %d tokens, not %d", p.Name(), v, perm, len(got), len(want))
				}
			}
			if a, b := len(kept(topP.Process(nil, v))), len(kept(topP.Process(nil, pv))); a != b {
				t.Errorf("top-p on %v keeps %d tokens, renumbered %d", v, a, b)
			}
		}
	}
	// The top-p case that does depend on the order: 0 0 0 0 at 0.5 keeps
	// the two lowest ids, whichever tokens they are.
	if got := kept(topP.Process(nil, []float32{0, 0, 0, 0})); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("top-p on a tie keeps %v", got)
	}
}

// permutations are the identity, the reversal and two rotations of n ids.
func permutations(n int) [][]int {
	var out [][]int
	for _, f := range []func(i int) int{
		func(i int) int { return i },
		func(i int) int { return n - 1 - i },
		func(i int) int { return (i + 1) % n },
		func(i int) int { return (i + n/2) % n },
	} {
		p := make([]int, n)
		for i := range p {
			p[i] = f(i)
		}
		out = append(out, p)
	}
	return out
}

func TestConstructorErrors(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"top_k 0", second(NewTopK(0, 1)), "top_k"},
		{"top_k −1", second(NewTopK(-1, 1)), "top_k"},
		{"top_k keep 0", second(NewTopK(5, 0)), "min_tokens_to_keep"},
		{"top_p −0.1", second(NewTopP(-0.1, 1)), "top_p"},
		{"top_p 1.1", second(NewTopP(1.1, 1)), "top_p"},
		{"top_p NaN", second(NewTopP(nan, 1)), "top_p"},
		{"top_p keep 0", second(NewTopP(0.5, 0)), "min_tokens_to_keep"},
		{"min_p 1.5", second(NewMinP(1.5, 1)), "min_p"},
		{"min_p NaN", second(NewMinP(nan, 1)), "min_p"},
		{"typical_p 0", second(NewTypical(0, 1)), "typical_p"},
		{"typical_p 1", second(NewTypical(1, 1)), "typical_p"},
		{"epsilon 0", second(NewEpsilon(0, 1)), "epsilon_cutoff"},
		{"epsilon 1", second(NewEpsilon(1, 1)), "epsilon_cutoff"},
		{"eta 0", second(NewEta(0, 1)), "eta_cutoff"},
		{"eta NaN", second(NewEta(nan, 1)), "eta_cutoff"},
		{"temperature 0", second(NewTemperature(0)), "temperature"},
		{"temperature −1", second(NewTemperature(-1)), "temperature"},
		{"temperature +Inf", second(NewTemperature(math.Inf(1))), "temperature"},
		{"repetition_penalty 0", second(NewRepetitionPenalty(0)), "repetition_penalty"},
		{"repetition_penalty NaN", second(NewRepetitionPenalty(nan)), "repetition_penalty"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s", tc.name, tc.err, tc.want)
		}
	}
}

func second(_ Processor, err error) error { return err }
