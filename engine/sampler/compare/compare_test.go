package compare_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
)

// preset is a chain with its runtime's defaults and seed 7, then changed.
func preset(t *testing.T, name string, change func(*compare.Chain)) compare.Chain {
	t.Helper()
	c, err := compare.Preset(name, 7)
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(&c)
	}
	return c
}

// The runtimes' well-known disagreements, each worked out by hand.
func TestDisagreements(t *testing.T) {
	for _, tc := range []struct {
		name   string
		logits []float64
		chain  compare.Chain
		want   []int // the tokens the chain leaves drawable
	}{
		// min-p 0.3 at temperature 2 on 2, 1, 0. Here the temperature comes
		// first: softmax(1, .5, 0) = .506, .307, .186, all ≥ .3 × .506.
		{"min-p after temperature", []float64{2, 1, 0}, preset(t, compare.Ours, func(c *compare.Chain) {
			c.Settings.Temperature, c.Settings.MinP = 2, 0.3
		}), []int{0, 1, 2}},
		// llama.cpp filters at temperature 1: softmax(2, 1, 0) = .665, .245,
		// .090; top-p .95 keeps all three (.665 + .245 < .95), min-p keeps
		// those ≥ .3 × .665 = .2.
		{"min-p before temperature", []float64{2, 1, 0}, preset(t, compare.LlamaCpp, func(c *compare.Chain) {
			c.Llama.Temp, c.Llama.MinP = 2, 0.3
		}), []int{0, 1}},
		// top-p .8 at temperature 2 on 3, 2, 1, 0: softmax(1.5, 1, .5, 0) =
		// .455, .276, .167, .102; the first two sum to .731 < .8.
		{"top-p after temperature", []float64{3, 2, 1, 0}, preset(t, compare.Ours, func(c *compare.Chain) {
			c.Settings.Temperature, c.Settings.TopP = 2, 0.8
		}), []int{0, 1, 2}},
		// At temperature 1: .644, .237 sum to .881 ≥ .8.
		{"top-p before temperature", []float64{3, 2, 1, 0}, preset(t, compare.LlamaCpp, func(c *compare.Chain) {
			c.Llama.Temp, c.Llama.TopP = 2, 0.8
		}), []int{0, 1}},
		{"top-k keeps k", []float64{3, 2, 2, 2, 1}, preset(t, compare.Ours, func(c *compare.Chain) {
			c.Settings.TopK = 2
		}), []int{0, 1}},
		// HF removes the scores below the k-th: every 2 stays.
		{"top-k keeps the ties", []float64{3, 2, 2, 2, 1}, preset(t, compare.HF, func(c *compare.Chain) {
			c.HF.TopK = 2
		}), []int{0, 1, 2, 3}},
		{"top-p 0 is off", []float64{1, 1, 0}, preset(t, compare.Ours, nil), []int{0, 1, 2}},
		// HF's top-p 0 keeps min_tokens_to_keep = 1 token; ties go to the
		// lower id.
		{"top-p 0 keeps one", []float64{1, 1, 0}, preset(t, compare.HF, func(c *compare.Chain) {
			c.HF.TopK, c.HF.TopP = 0, 0
		}), []int{0}},
		{"llama.cpp letters", []float64{3, 2, 1, 0}, preset(t, "kt", func(c *compare.Chain) {
			c.Llama.TopK = 3
		}), []int{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := compare.Run(tc.chain, tc.logits, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := compare.Drawable(out.Final); !slices.Equal(got, tc.want) {
				t.Errorf("%s keeps %v, want %v", tc.chain.Name, got, tc.want)
			}
			checkOutcome(t, out, len(tc.logits))
		})
	}
}

// checkOutcome checks what every outcome must be: a distribution whose
// tokens are the last stage's, and a drawn token among them.
func checkOutcome(t *testing.T, out compare.Outcome, n int) {
	t.Helper()
	sum := 0.0
	for _, p := range out.Final {
		sum += p
	}
	if len(out.Final) != n || math.Abs(sum-1) > 1e-6 {
		t.Errorf("%s: final distribution of %d tokens sums to %v", out.Chain.Name, len(out.Final), sum)
	}
	drawable := compare.Drawable(out.Final)
	if !slices.Contains(drawable, out.Token) {
		t.Errorf("%s drew %d, not one of %v", out.Chain.Name, out.Token, drawable)
	}
	if got := out.Land(out.U); got != out.Token && out.Chain.Runtime() != sampler.LlamaCpp {
		// llama.cpp's dist sums expf(ℓ − max) in double: its boundaries
		// are not exactly those of the float32 probabilities.
		t.Errorf("%s: u = %v lands on %d, the chain drew %d", out.Chain.Name, out.U, got, out.Token)
	}
	if order := slices.Sorted(slices.Values(out.Order)); !slices.Equal(order, drawable) {
		t.Errorf("%s: the draw walks %v, the drawable tokens are %v", out.Chain.Name, out.Order, drawable)
	}
	if k := len(out.Stages); k > 0 && !slices.Equal(out.Stages[k-1].Kept, drawable) {
		t.Errorf("%s: the last stage keeps %v, the distribution %v", out.Chain.Name, out.Stages[k-1].Kept, drawable)
	}
	for _, st := range out.Stages {
		if st.RemovedMass < 0 || st.RemovedMass > 1+1e-9 || (len(st.Removed) == 0) != (st.RemovedMass == 0) {
			t.Errorf("%s: stage %s removed %v with mass %v", out.Chain.Name, st.Name, st.Removed, st.RemovedMass)
		}
	}
}

// Every preset on the same logits, with a history for the penalties: the
// stages chain (what one keeps the next is given) and each outcome holds.
func TestPresets(t *testing.T) {
	logits := make([]float64, 300)
	for i := range logits {
		logits[i] = float64(float32(math.Sin(float64(i)*0.7) * 4))
	}
	logits[5] = math.Inf(-1)
	history := []int{1, 2, 3, 2}
	for _, name := range append(slices.Clone(compare.Names), "edskypmxt", "pt") {
		c := preset(t, name, nil)
		out, err := compare.Run(c, logits, history)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkOutcome(t, out, len(logits))
		if slices.Contains(compare.Drawable(out.Final), 5) {
			t.Errorf("%s can draw a masked token", name)
		}
	}
}

func TestTotalVariation(t *testing.T) {
	for _, tc := range []struct {
		p, q []float64
		want float64
	}{
		{[]float64{1, 0}, []float64{1, 0}, 0},
		{[]float64{1, 0}, []float64{0, 1}, 1},
		{[]float64{.5, .5, 0}, []float64{.25, .25, .5}, .5},
	} {
		if got, err := compare.TotalVariation(tc.p, tc.q); err != nil || math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("TotalVariation(%v, %v) = %v, %v; want %v", tc.p, tc.q, got, err, tc.want)
		}
	}
	if _, err := compare.TotalVariation([]float64{1}, []float64{.5, .5}); err == nil {
		t.Error("distributions of different lengths compared")
	}
}

func TestPresetErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		seed uint64
	}{
		{"beam", 1}, {"kq", 1}, {compare.LlamaCpp, 1 << 32}, {strings.Repeat("k", 33), 1},
	} {
		if _, err := compare.Preset(tc.name, tc.seed); err == nil {
			t.Errorf("Preset(%q, %d) accepted", tc.name, tc.seed)
		}
	}
}

// TestFollow maps nexttoken's settings onto the other runtimes: what is off
// here is off there, though they spell it otherwise.
func TestFollow(t *testing.T) {
	ours := sampler.Settings{Mode: sampler.Chain, Temperature: 0.7, TopK: 0, TopP: 0, MinP: 0.1, RepetitionPenalty: 0, Seed: 3}
	all := func(string) bool { return true }
	llama := preset(t, compare.LlamaCpp, func(c *compare.Chain) { c.Follow(ours, all) })
	if l := llama.Llama; l.Temp != 0.7 || l.TopK != 0 || l.TopP != 1 || l.MinP != 0.1 || l.PenaltyRepeat != 1 || l.Seed != 7 {
		t.Errorf("llama.cpp follows %+v as %+v", ours, l)
	}
	hfc := preset(t, compare.HF, func(c *compare.Chain) { c.Follow(ours, all) })
	if h := hfc.HF; h.Temperature != 0.7 || h.TopK != 0 || h.TopP != 1 || h.MinP != 0.1 || h.RepetitionPenalty != 1 {
		t.Errorf("hf follows %+v as %+v", ours, h)
	}
	only := preset(t, compare.LlamaCpp, func(c *compare.Chain) { c.Follow(ours, func(p string) bool { return p == "min_p" }) })
	if l := only.Llama; l.MinP != 0.1 || l.TopK != 40 || l.Temp != 0.8 {
		t.Errorf("llama.cpp following min_p alone: %+v", l)
	}
	runc := preset(t, compare.RunC, func(c *compare.Chain) { c.Follow(ours, all) })
	if s := runc.Settings; s.Mode != sampler.RunC || s.Temperature != 0.7 || s.Seed != 7 {
		t.Errorf("runc follows %+v as %+v", ours, s)
	}
	for _, c := range []compare.Chain{llama, hfc} {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}

// TestDraws draws many times: every draw lands on a drawable token, and
// the counts come close to the probabilities (within 5 standard
// deviations, a test that a correct sampler fails once in millions).
func TestDraws(t *testing.T) {
	for _, name := range []string{compare.Ours, compare.LlamaCpp, compare.HF} {
		c := preset(t, name, func(c *compare.Chain) { c.Settings.Temperature = 1 })
		out, err := compare.Run(c, []float64{2, 1, 0, math.Inf(-1), 1.5}, nil)
		if err != nil {
			t.Fatal(err)
		}
		const n = 20000
		counts := out.Draws(n, 9)
		total := 0
		for id, k := range counts {
			total += k
			p := out.Final[id]
			if sd := math.Sqrt(n * p * (1 - p)); math.Abs(float64(k)-n*p) > 5*sd+1 {
				t.Errorf("%s: token %d drawn %d times of %d, p = %v", name, id, k, n, p)
			}
		}
		if total != n || counts[3] != 0 {
			t.Errorf("%s: %d draws counted, %d of the masked token", name, total, counts[3])
		}
		// The same u lands where Land puts it.
		rng := sampler.NewRNG(9)
		want := make([]int, len(out.Final))
		for range 2000 {
			want[out.Land(float64(rng.Float32()))]++
		}
		if got := out.Draws(2000, 9); !slices.Equal(got, want) {
			t.Errorf("%s: Draws counts %v, Land %v", name, got, want)
		}
	}
}

// TestStageShifts: each stage names its most probable tokens after it,
// with their probability before and after; top-k 2 on logits 2, 1, 0
// takes softmax (.665, .245, .090) to (.731, .269, 0) in every runtime.
func TestStageShifts(t *testing.T) {
	logits := []float64{2, 1, 0}
	want := []compare.Shift{{ID: 0, Before: 0.66524096, After: 0.73105858}, {ID: 1, Before: 0.24472847, After: 0.26894142}}
	for _, name := range []string{compare.Ours, "k", compare.HF} {
		c, err := compare.Preset(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		c.Follow(sampler.Settings{Mode: sampler.Chain, Temperature: 1, TopK: 2, Seed: 1}, func(string) bool { return true })
		out, err := compare.Run(c, logits, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		i := slices.IndexFunc(out.Stages, func(st compare.Stage) bool { return len(st.Removed) == 1 })
		if i < 0 {
			t.Fatalf("%s: no stage removed a token: %+v", name, out.Stages)
		}
		got := out.Stages[i].Top
		if len(got) != len(want) {
			t.Fatalf("%s: %s's top %+v, want %+v", name, out.Stages[i].Name, got, want)
		}
		for j := range want {
			if got[j].ID != want[j].ID || math.Abs(got[j].Before-want[j].Before) > 1e-6 || math.Abs(got[j].After-want[j].After) > 1e-6 {
				t.Errorf("%s: %s's top %+v, want %+v", name, out.Stages[i].Name, got, want)
			}
		}
	}
}
