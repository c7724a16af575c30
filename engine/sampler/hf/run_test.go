package hf

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func names(ps []Processor) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name())
	}
	return out
}

// TestProcessorsOrder checks which processors a Config switches on, and
// their order, against _get_logits_processor's conditions.
func TestProcessorsOrder(t *testing.T) {
	const (
		rep  = "RepetitionPenaltyLogitsProcessor"
		temp = "TemperatureLogitsWarper"
		topK = "TopKLogitsWarper"
		topP = "TopPLogitsWarper"
		minP = "MinPLogitsWarper"
		typ  = "TypicalLogitsWarper"
		eps  = "EpsilonLogitsWarper"
		eta  = "EtaLogitsWarper"
	)
	with := func(f func(*Config)) Config {
		c := Defaults()
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		c    Config
		want []string
	}{
		// top_k defaults to 50, the only warper on by default.
		{"defaults", Defaults(), []string{topK}},
		{"top_k 0 is skipped", with(func(c *Config) { c.TopK = 0 }), nil},
		{"temperature 0.7", with(func(c *Config) { c.Temperature = 0.7 }), []string{temp, topK}},
		{"top_p 0.9", with(func(c *Config) { c.TopP = 0.9 }), []string{topK, topP}},
		{"top_p 0 is a warper", with(func(c *Config) { c.TopP = 0 }), []string{topK, topP}},
		{"min_p", with(func(c *Config) { c.MinP = 0.05 }), []string{topK, minP}},
		{"the penalty first", with(func(c *Config) {
			c.Temperature, c.RepetitionPenalty = 0.5, 1.2
		}), []string{rep, temp, topK}},
		{"every processor", Config{RepetitionPenalty: 1.1, Temperature: 0.8, TopK: 40, TopP: 0.95,
			MinP: 0.05, TypicalP: 0.9, EpsilonCutoff: 3e-4, EtaCutoff: 1e-3},
			[]string{rep, temp, topK, topP, minP, typ, eps, eta}},
		{"every one at its off value", Config{RepetitionPenalty: 1, Temperature: 1, TopP: 1, TypicalP: 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := Processors(tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(ps); !slices.Equal(got, tc.want) {
				t.Errorf("%v, want %v", got, tc.want)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		set  func(*Config)
	}{
		{"temperature", func(c *Config) { c.Temperature = 0 }},
		{"temperature", func(c *Config) { c.Temperature = nan }},
		{"top_k", func(c *Config) { c.TopK = -1 }},
		{"top_p", func(c *Config) { c.TopP = 1.5 }},
		{"top_p", func(c *Config) { c.TopP = nan }},
		{"min_p", func(c *Config) { c.MinP = -0.1 }},
		{"min_p", func(c *Config) { c.MinP = nan }},
		{"typical_p", func(c *Config) { c.TypicalP = 0 }},
		{"typical_p", func(c *Config) { c.TypicalP = 1.5 }},
		{"typical_p", func(c *Config) { c.TypicalP = nan }},
		{"epsilon_cutoff", func(c *Config) { c.EpsilonCutoff = -0.1 }},
		{"epsilon_cutoff", func(c *Config) { c.EpsilonCutoff = 1 }},
		{"eta_cutoff", func(c *Config) { c.EtaCutoff = 2 }},
		{"eta_cutoff", func(c *Config) { c.EtaCutoff = nan }},
		{"repetition_penalty", func(c *Config) { c.RepetitionPenalty = 0 }},
		{"repetition_penalty", func(c *Config) { c.RepetitionPenalty = math.Inf(1) }},
	} {
		c := Defaults()
		tc.set(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%+v: error %v, want one naming %s", c, err, tc.name)
			continue
		}
		if _, err2 := Processors(c); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("Processors(%+v) = %v, Validate %v", c, err2, err)
		}
	}
}

// TestRunDefaults runs generate()'s default warper, top_k = 50, on 60
// tokens whose scores fall by 1 from token 0, except that tokens 48 to 52
// share one score: the 50th largest is that score, so 53 tokens survive.
func TestRunDefaults(t *testing.T) {
	logits := make([]float32, 60)
	for i := range logits {
		logits[i] = float32(-i)
		if i >= 48 && i <= 52 {
			logits[i] = -48
		}
	}
	ps, err := Processors(Defaults())
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(ps, logits, []int{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) != 1 || len(r.Steps[0].Kept) != 53 || r.Steps[0].Kept[52] != 52 {
		t.Fatalf("steps %+v", r.Steps)
	}
	var sum float64
	for i, p := range r.Probs {
		if (i <= 52) != (p > 0) {
			t.Errorf("p[%d] = %v", i, p)
		}
		sum += float64(p)
	}
	if math.Abs(sum-1) > 1e-6 {
		t.Errorf("probabilities sum to %v", sum)
	}
}

// TestRunEveryProcessor follows a chain of all eight processors step by
// step; the working is in the comments.
func TestRunEveryProcessor(t *testing.T) {
	c := Config{RepetitionPenalty: 1.5, Temperature: 0.5, TopK: 4, TopP: 0.99,
		MinP: 0.1, TypicalP: 0.95, EpsilonCutoff: 0.05, EtaCutoff: 0.1}
	ps, err := Processors(c)
	if err != nil {
		t.Fatal(err)
	}
	logits := []float32{3, 2, 1, 0, -1, inf}
	r, err := Run(ps, logits, []int{0, 5, 0})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		scores []float32
		kept   []int
	}{
		// Token 0: 3/1.5 = 2; token 5 stays −Inf.
		{[]float32{2, 2, 1, 0, -1, inf}, []int{0, 1, 2, 3, 4}},
		// Divided by 0.5.
		{[]float32{4, 4, 2, 0, -2, inf}, []int{0, 1, 2, 3, 4}},
		// The 4th largest is 0.
		{[]float32{4, 4, 2, 0, inf, inf}, []int{0, 1, 2, 3}},
		// softmax(4, 4, 2, 0) = 0.464328, 0.464328, 0.062840, 0.008505;
		// ascending c = 0.008505, 0.071345, …; c ≤ 0.01 removes token 3.
		{[]float32{4, 4, 2, inf, inf, inf}, []int{0, 1, 2}},
		// softmax(4, 4, 2) = 0.468311, 0.468311, 0.063378 ≥ 0.1·0.468311.
		{[]float32{4, 4, 2, inf, inf, inf}, []int{0, 1, 2}},
		// −log p = 0.758550, 0.758550, 2.758550; H = 0.885305;
		// d = 0.126755, 0.126755, 1.873245; c = 0.468311, 0.936622, 1;
		// two c < 0.95, so the cut is d at position 2 and all stay.
		{[]float32{4, 4, 2, inf, inf, inf}, []int{0, 1, 2}},
		// 0.063378 ≥ 0.05.
		{[]float32{4, 4, 2, inf, inf, inf}, []int{0, 1, 2}},
		// η = min(0.1, √0.1·e^(−0.885305) = 0.130471) = 0.1 > 0.063378.
		{[]float32{4, 4, inf, inf, inf, inf}, []int{0, 1}},
	}
	if len(r.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(r.Steps), len(want))
	}
	for i, w := range want {
		st := r.Steps[i]
		if !slices.Equal(st.Scores, w.scores) || !slices.Equal(st.Kept, w.kept) {
			t.Errorf("step %d (%s): scores %v kept %v, want %v %v", i, st.Name, st.Scores, st.Kept, w.scores, w.kept)
		}
	}
	// exp(0) = 1 twice, times 1/2 exactly.
	if wantP := []float32{0.5, 0.5, 0, 0, 0, 0}; !slices.Equal(r.Probs, wantP) {
		t.Errorf("probs %v, want %v", r.Probs, wantP)
	}
	if logits[0] != 3 {
		t.Error("Run changed the logits")
	}
}

func TestRunNoProcessor(t *testing.T) {
	// softmax(0, 0, −Inf, 0): exp gives 1, 1, 0, 1, times 1/3 in float32.
	r, err := Run(nil, []float32{0, 0, inf, 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	third := 1 / float32(3)
	if want := []float32{third, third, 0, third}; len(r.Steps) != 0 || !slices.Equal(r.Probs, want) {
		t.Errorf("%+v, want probs %v", r, want)
	}
}

func TestRunErrors(t *testing.T) {
	// float32(1e-40) is subnormal: dividing 1 by it overflows float32.
	cold := must(NewTemperature(1e-40))
	topK := must(NewTopK(1, 1))
	for _, tc := range []struct {
		name   string
		procs  []Processor
		logits []float32
		ids    []int
		want   string
	}{
		{"empty", nil, nil, nil, "no logits"},
		{"NaN", nil, []float32{0, float32(math.NaN())}, nil, "NaN"},
		{"+Inf", nil, []float32{0, float32(math.Inf(1))}, nil, "+Inf"},
		{"all −Inf", []Processor{topK}, []float32{inf, inf}, nil, "all −Inf"},
		{"id too large", nil, []float32{0, 1}, []int{0, 2}, "input id 2"},
		{"id negative", nil, []float32{0, 1}, []int{-1}, "input id -1"},
		{"overflow", []Processor{cold}, []float32{1, 0}, nil, "after TemperatureLogitsWarper"},
		{"overflow to all −Inf", []Processor{cold}, []float32{-1, -2}, nil, "all −Inf"},
	} {
		_, err := Run(tc.procs, tc.logits, tc.ids)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestDraw(t *testing.T) {
	probs := []float32{0.25, 0, 0.5, 0.25}
	for _, tc := range []struct {
		u    float64
		want Drawn
	}{
		// Cumulative in id order: 0.25, (0.25), 0.75, 1.
		{0, Drawn{Token: 0, Index: 0, Target: 0, Lo: 0, Hi: 0.25, Total: 1}},
		{0.2499, Drawn{Token: 0, Index: 0, Target: 0.2499, Lo: 0, Hi: 0.25, Total: 1}},
		{0.25, Drawn{Token: 2, Index: 1, Target: 0.25, Lo: 0.25, Hi: 0.75, Total: 1}},
		{0.7499, Drawn{Token: 2, Index: 1, Target: 0.7499, Lo: 0.25, Hi: 0.75, Total: 1}},
		{0.75, Drawn{Token: 3, Index: 2, Target: 0.75, Lo: 0.75, Hi: 1, Total: 1}},
		{0.9999, Drawn{Token: 3, Index: 2, Target: 0.9999, Lo: 0.75, Hi: 1, Total: 1}},
	} {
		if got, err := Draw(probs, tc.u); err != nil || got != tc.want {
			t.Errorf("Draw(%v) = %+v, %v, want %+v", tc.u, got, err, tc.want)
		}
	}
	// A total below 1 is scaled: u = 0.5 of 0.5 is 0.25, token 1's start.
	if got, err := Draw([]float32{0.25, 0.25, 0}, 0.5); err != nil || got.Token != 1 || got.Target != 0.25 {
		t.Errorf("unnormalised: %+v, %v", got, err)
	}
	for _, tc := range []struct {
		probs []float32
		u     float64
	}{
		{probs, 1}, {probs, -0.1}, {probs, math.NaN()},
		{[]float32{0, 0}, 0.5}, {nil, 0.5},
		{[]float32{0.5, -0.5}, 0.5}, {[]float32{float32(math.NaN())}, 0.5},
	} {
		if _, err := Draw(tc.probs, tc.u); err == nil {
			t.Errorf("Draw(%v, %v): no error", tc.probs, tc.u)
		}
	}
}
