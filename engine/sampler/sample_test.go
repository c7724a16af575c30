package sampler_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
)

var workedExample = []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}

// randomLogits returns n reproducible logits of spread sd.
func randomLogits(n int, sd float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(float32(r.NormFloat64() * sd)) // model outputs are float32
	}
	return x
}

func stageNames(c *sampler.Choice) []string {
	var names []string
	for _, st := range c.Stages {
		names = append(names, string(st.Name))
	}
	return names
}

func TestGreedy(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name    string
		logits  []float64
		history []int
		penalty float64
		want    int
	}{
		{"worked example", workedExample, nil, 1, 2},
		{"ties pick the lowest id", []float64{1, 3, 3, 0}, nil, 1, 1},
		{"masked", []float64{-inf, 0, -inf}, nil, 1, 1},
		{"single token", []float64{0.5}, nil, 1, 0},
		{"penalty divides a positive logit", []float64{3.1, 3.0}, []int{0}, 2, 1},
		{"penalty multiplies a negative logit", []float64{-1, -1.5}, []int{0}, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sampler.DefaultSettings()
			s.RepetitionPenalty = tc.penalty
			rng := sampler.NewRNG(s.Seed)
			c, err := sampler.Sample(s, tc.logits, tc.history, &rng)
			if err != nil {
				t.Fatal(err)
			}
			if c.Token != tc.want || !c.Greedy || c.Draw != nil {
				t.Errorf("Token %d, Greedy %v, Draw %v; want token %d, greedy, no draw", c.Token, c.Greedy, c.Draw, tc.want)
			}
			if rng.State != s.Seed {
				t.Error("greedy choice used the RNG")
			}
			if c.Softmax.Temperature != 1 {
				t.Errorf("display softmax at T=%v, want 1", c.Softmax.Temperature)
			}
			// The display softmax is of the penalised logits, the ones argmax saw.
			want := tc.logits
			if len(c.Stages) > 0 {
				want = c.Stages[0].Logits
			}
			if !slices.Equal(c.Softmax.Logits, want) {
				t.Errorf("display softmax of %v, want %v", c.Softmax.Logits, want)
			}
		})
	}
}

// TestChainDraw checks the chosen token against an independent linear scan
// of the final distribution with the same uniform number.
func TestChainDraw(t *testing.T) {
	logits := randomLogits(200, 2, 1)
	history := []int{3, 14, 15, 92, 65, 35, 89, 79, 3}
	for _, tc := range []struct {
		name  string
		s     sampler.Settings
		names []string
	}{
		{"temperature", sampler.Settings{Temperature: 1}, []string{"temperature"}},
		{"hot", sampler.Settings{Temperature: 2.5}, []string{"temperature"}},
		{"top-k", sampler.Settings{Temperature: 0.8, TopK: 10}, []string{"temperature", "top_k"}},
		{"top-p", sampler.Settings{Temperature: 1, TopP: 0.9}, []string{"temperature", "top_p"}},
		{"min-p", sampler.Settings{Temperature: 1, MinP: 0.05}, []string{"temperature", "min_p"}},
		{"everything", sampler.Settings{Temperature: 0.9, TopK: 50, TopP: 0.95, MinP: 0.02, RepetitionPenalty: 1.3},
			[]string{"repetition_penalty", "temperature", "top_k", "top_p", "min_p"}},
	} {
		for seed := uint64(1); seed <= 20; seed++ {
			s := tc.s
			s.Seed = seed
			rng := sampler.NewRNG(seed)
			c, err := sampler.Sample(s, logits, history, &rng)
			if err != nil {
				t.Fatal(err)
			}
			if names := stageNames(c); !slices.Equal(names, tc.names) {
				t.Fatalf("%s: stages %v, want %v", tc.name, names, tc.names)
			}
			if c.Softmax.Temperature != s.Temperature {
				t.Errorf("%s: display softmax at T=%v, want %v", tc.name, c.Softmax.Temperature, s.Temperature)
			}

			// One draw, the same one a fresh generator makes.
			fresh := sampler.NewRNG(seed)
			u := float64(fresh.Float32())
			if rng != fresh || c.Draw.U != u || c.Draw.Target != u {
				t.Errorf("%s seed %d: draw U=%v Target=%v state %d; want U=Target=%v, state %d", tc.name, seed, c.Draw.U, c.Draw.Target, rng.State, u, fresh.State)
			}

			// Scan the surviving tokens, most probable first.
			p := c.Stages[len(c.Stages)-1].Probs
			var ids []int
			for i, q := range p {
				if q > 0 {
					ids = append(ids, i)
				}
			}
			sort.SliceStable(ids, func(a, b int) bool { return p[ids[a]] > p[ids[b]] })
			want, cum := ids[len(ids)-1], 0.0
			for _, id := range ids {
				if cum += p[id]; u < cum {
					want = id
					break
				}
			}
			if c.Token != want {
				t.Errorf("%s seed %d: token %d, linear scan gives %d", tc.name, seed, c.Token, want)
			}
			if c.Draw.Order[c.Draw.Index] != c.Token {
				t.Errorf("%s seed %d: Draw.Order[Index] = %d, token %d", tc.name, seed, c.Draw.Order[c.Draw.Index], c.Token)
			}
		}
	}
}

func TestSampleErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	hot := sampler.Settings{Temperature: 1, Seed: 42}
	runc := sampler.Settings{Mode: sampler.RunC, Temperature: 1, Seed: 42}
	runcTopP := sampler.Settings{Mode: sampler.RunC, Temperature: 1, TopP: 0.1, Seed: 42}
	for _, tc := range []struct {
		name    string
		s       sampler.Settings
		logits  []float64
		history []int
		rng     *sampler.RNG // nil: a fresh generator
		noRNG   bool         // pass a nil generator
		want    string       // in the error message
	}{
		{"NaN logit", hot, []float64{0, 1, nan}, nil, nil, false, "logit 2"},
		{"NaN logit, greedy", sampler.DefaultSettings(), []float64{0, 1, nan}, nil, nil, false, "logit 2"},
		{"+Inf logit", hot, []float64{inf, 1}, nil, nil, false, "logit 0"},
		{"no logits", hot, nil, nil, nil, false, "no logits"},
		{"all masked", hot, []float64{-inf, -inf}, nil, nil, false, "masked"},
		{"history beyond the vocabulary", hot, []float64{0, 1}, []int{1, 2}, nil, false, "history[1]"},
		{"negative history", hot, []float64{0, 1}, []int{-1}, nil, false, "history[0]"},
		{"no RNG", hot, []float64{0, 1}, nil, nil, true, "RNG"},
		{"stuck RNG", hot, []float64{0, 1}, nil, &sampler.RNG{}, false, "RNG"},
		{"invalid settings", sampler.Settings{TopP: 2, Seed: 1}, []float64{0, 1}, nil, nil, false, "top_p"},
		{"runc: NaN logit", runc, []float64{0, nan}, nil, nil, false, "logit 1"},
		{"runc: stuck RNG", runc, []float64{0, 1}, nil, &sampler.RNG{}, false, "RNG"},
		{"runc: logit beyond float32", runc, []float64{0, 1e39}, nil, nil, false, "logit 1"},
		{"runc: temperature too small for float32", sampler.Settings{Mode: sampler.RunC, Temperature: 1e-30, Seed: 1}, []float64{0, 1e10}, nil, nil, false, "temperature"},
		{"runc top-p: one token", runcTopP, []float64{0}, nil, nil, false, "cutoff"},
		{"runc top-p: uniform below 1/n", runcTopP, []float64{1, 1, 1, 1}, nil, nil, false, "cutoff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := tc.rng
			if rng == nil && !tc.noRNG {
				r := sampler.NewRNG(42)
				rng = &r
			}
			var before sampler.RNG
			if rng != nil {
				before = *rng
			}
			_, err := sampler.Sample(tc.s, tc.logits, tc.history, rng)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
			if rng != nil && *rng != before {
				t.Error("a failed Sample advanced the RNG")
			}
		})
	}
}

// TestChooseMatchesSample checks that the compact choice of a reused
// Scratch is the recorded choice: the same token, draw and stage summaries,
// and the summaries agree with the recorded token lists.
func TestChooseMatchesSample(t *testing.T) {
	history := []int{3, 14, 15, 92, 65, 35, 89, 79, 3}
	var sc sampler.Scratch
	for _, n := range []int{6, 200, 5000} {
		logits := randomLogits(n, 2, uint64(n))
		logits[5] = math.Inf(-1)
		for _, s := range []sampler.Settings{
			{Temperature: 0, RepetitionPenalty: 1.2},
			{Temperature: 1},
			{Temperature: 0.7, TopK: 40},
			{Temperature: 0.8, TopP: 0.9},
			{Temperature: 1.3, MinP: 0.05},
			{Temperature: 0.9, TopK: 50, TopP: 0.95, MinP: 0.02, RepetitionPenalty: 1.3},
			{Mode: sampler.RunC, Temperature: 1},
			{Mode: sampler.RunC, Temperature: 0.8, TopP: 0.9},
			{Mode: sampler.RunC, Temperature: 0},
		} {
			hist := history
			if n < 100 {
				hist = []int{1, 2, 1}
			}
			for seed := uint64(1); seed <= 8; seed++ {
				s.Seed = seed
				r1, r2 := sampler.NewRNG(seed), sampler.NewRNG(seed)
				full, err := sampler.Sample(s, logits, hist, &r1)
				if err != nil {
					t.Fatal(err)
				}
				c, err := sc.Choose(s, logits, hist, &r2)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("n=%d %+v", n, s)
				if c.Token != full.Token || c.Greedy != full.Greedy || c.Prob != full.Prob || r1 != r2 {
					t.Fatalf("%s: Choose %d (p %v), Sample %d (p %v)", name, c.Token, c.Prob, full.Token, full.Prob)
				}
				if full.Prob != full.Softmax.Probs[full.Token] || !slices.Equal(sc.Probs(), full.Softmax.Probs) {
					t.Fatalf("%s: Prob %v is not the display softmax's %v", name, full.Prob, full.Softmax.Probs[full.Token])
				}
				if len(c.Stages) != len(full.Stages) {
					t.Fatalf("%s: %d stages, recorded %d", name, len(c.Stages), len(full.Stages))
				}
				for i, st := range full.Stages {
					cs := c.Stages[i]
					if cs.Name != st.Name || cs.Survivors != st.Survivors || cs.Affected != st.Affected || cs.RemovedMass != st.RemovedMass {
						t.Errorf("%s: stage %s: compact %+v, recorded %+v", name, st.Name, cs, st)
					}
					if got := len(st.Removed) + len(st.Changed); got != st.Affected {
						t.Errorf("%s: stage %s: Affected %d, recorded %d tokens", name, st.Name, st.Affected, got)
					}
					if cs.Removed != nil || cs.Probs != nil || cs.Logits != nil {
						t.Errorf("%s: stage %s: the compact choice kept vectors", name, st.Name)
					}
				}
				if (c.Draw == nil) != (full.Draw == nil) {
					t.Fatalf("%s: draw %v, recorded %v", name, c.Draw, full.Draw)
				}
				if d := full.Draw; d != nil {
					cd := *c.Draw
					if cd.U != d.U || cd.Target != d.Target || cd.Index != d.Index || cd.Lo != d.Lo || cd.Hi != d.Hi {
						t.Errorf("%s: draw %+v, recorded %+v", name, cd, *d)
					}
					lo := 0.0
					if d.Index > 0 {
						lo = d.CDF[d.Index-1]
					}
					if d.Order[d.Index] != full.Token || lo != d.Lo || d.CDF[d.Index] != d.Hi || !(d.Lo <= d.Target && (d.Target < d.Hi || d.Index == len(d.CDF)-1)) {
						t.Errorf("%s: recorded draw %v in [%v, %v) at %d is inconsistent", name, d.Target, d.Lo, d.Hi, d.Index)
					}
				}
			}
		}
	}
}

// TestChooseAllocates nothing once its scratch has grown.
func TestChooseAllocatesNothing(t *testing.T) {
	logits := randomLogits(32000, 3, 6)
	history := []int{1, 2, 3}
	for _, s := range []sampler.Settings{
		{Temperature: 0, RepetitionPenalty: 1.1, Seed: 1},
		{Temperature: 0.8, TopP: 0.9, TopK: 40, MinP: 0.05, RepetitionPenalty: 1.1, Seed: 1},
		{Mode: sampler.RunC, Temperature: 0.8, TopP: 0.9, Seed: 1},
		{Mode: sampler.RunC, Temperature: 1, Seed: 1},
	} {
		var sc sampler.Scratch
		rng := sampler.NewRNG(1)
		choose := func() {
			if _, err := sc.Choose(s, logits, history, &rng); err != nil {
				t.Fatal(err)
			}
		}
		choose()
		if n := testing.AllocsPerRun(20, choose); n != 0 {
			t.Errorf("%+v: %v allocations per Choose", s, n)
		}
	}
}

// TestRecordMatchesSample: a Scratch reused for Record and Choose, over
// vocabularies that grow and shrink, records every choice as Sample does,
// every vector and list equal, with the generator in the same state.
func TestRecordMatchesSample(t *testing.T) {
	var sc sampler.Scratch
	for _, n := range []int{200, 5000, 6, 300} {
		logits := randomLogits(n, 2, uint64(n))
		logits[5] = math.Inf(-1)
		hist := []int{1, 2, 1, 5, 3}
		for _, s := range []sampler.Settings{
			{Temperature: 0, RepetitionPenalty: 1.2},
			{Temperature: 1},
			{Temperature: 0.9, TopK: 50, TopP: 0.95, MinP: 0.02, RepetitionPenalty: 1.3},
			{Temperature: 0.7, TopK: 3},
			{Mode: sampler.RunC, Temperature: 0.8, TopP: 0.9},
			{Mode: sampler.RunC, Temperature: 1},
			{Mode: sampler.RunC, Temperature: 0},
		} {
			for seed := uint64(1); seed <= 3; seed++ {
				s.Seed = seed
				r1, r2, r3 := sampler.NewRNG(seed), sampler.NewRNG(seed), sampler.NewRNG(seed+1)
				want, err := sampler.Sample(s, logits, hist, &r1)
				if err != nil {
					t.Fatal(err)
				}
				got, err := sc.Record(s, logits, hist, &r2)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) || r1 != r2 {
					t.Fatalf("n=%d %+v: Record\n%+v\nSample\n%+v", n, s, got, want)
				}
				if _, err := sc.Choose(s, logits, hist, &r3); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestRecordAllocatesNothing once its scratch has grown, as Choose.
func TestRecordAllocatesNothing(t *testing.T) {
	logits := randomLogits(32000, 3, 6)
	history := []int{1, 2, 3}
	for _, s := range []sampler.Settings{
		{Temperature: 0, RepetitionPenalty: 1.1, Seed: 1},
		{Temperature: 0.8, TopP: 0.9, TopK: 40, MinP: 0.05, RepetitionPenalty: 1.1, Seed: 1},
		{Temperature: 1, Seed: 1},
		{Mode: sampler.RunC, Temperature: 0.8, TopP: 0.9, Seed: 1},
		{Mode: sampler.RunC, Temperature: 1, Seed: 1},
	} {
		var sc sampler.Scratch
		rng := sampler.NewRNG(1)
		record := func() {
			if _, err := sc.Record(s, logits, history, &rng); err != nil {
				t.Fatal(err)
			}
		}
		record()
		if n := testing.AllocsPerRun(5, record); n != 0 {
			t.Errorf("%+v: %v allocations per Record", s, n)
		}
	}
}

// TestCompactOfRecord: a recorded choice made compact is the choice
// Choose makes, in every mode of the package: the draw's total too, which
// run.c's multinomial draw gave as 1 when compact and as the float32 sum
// when recorded.
func TestCompactOfRecord(t *testing.T) {
	logits := randomLogits(3000, 2, 9)
	hist := []int{1, 2, 1, 5, 3}
	for _, s := range []sampler.Settings{
		{Temperature: 0},
		{Temperature: 0, RepetitionPenalty: 1.2},
		{Temperature: 1},
		{Temperature: 0.9, TopK: 50, TopP: 0.95, MinP: 0.02, RepetitionPenalty: 1.3},
		{Mode: sampler.RunC, Temperature: 0.8, TopP: 0.9},
		{Mode: sampler.RunC, Temperature: 1},
		{Mode: sampler.RunC, Temperature: 0},
	} {
		s.Seed = 4
		var a, b sampler.Scratch
		r1, r2 := sampler.NewRNG(4), sampler.NewRNG(4)
		rec, err := a.Record(s, logits, hist, &r1)
		if err != nil {
			t.Fatal(err)
		}
		c, err := b.Choose(s, logits, hist, &r2)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Compact(); !reflect.DeepEqual(&got, c) {
			t.Errorf("%+v: Compact of Record\n%+v\nChoose\n%+v", s, got, *c)
		}
	}
}
