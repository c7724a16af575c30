package compare_test

import (
	"reflect"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/sampler/llamacpp"
)

// TestDefaults checks that the runtimes' defaults in nexttoken's terms map
// back, through Follow, onto the presets' own.
func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want sampler.Settings
	}{
		{sampler.LlamaCpp, sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1, Seed: 9}},
		{sampler.HF, sampler.Settings{Mode: sampler.HF, Temperature: 1, TopK: 50, RepetitionPenalty: 1, Seed: 9}},
	} {
		got, err := compare.Defaults(tc.mode, 9)
		if err != nil || got != tc.want {
			t.Errorf("Defaults(%s) = %+v, %v\nwant %+v", tc.mode, got, err, tc.want)
		}
		c, err := compare.ForSession(got)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := compare.Preset(tc.mode, 9)
		if !reflect.DeepEqual(c.Llama, p.Llama) && tc.mode == sampler.LlamaCpp || !reflect.DeepEqual(c.HF, p.HF) && tc.mode == sampler.HF {
			t.Errorf("%s: the defaults follow to %+v\nnot the preset %+v", tc.mode, c, p)
		}
	}
	if _, err := compare.Defaults(sampler.Chain, 9); err == nil {
		t.Error("Defaults of the chain mode: no error")
	}
}

// TestForSession checks which settings the runtimes refuse, and that the
// error names the setting.
func TestForSession(t *testing.T) {
	llama := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1.1, Seed: 7}
	with := func(s sampler.Settings, f func(*sampler.Settings)) sampler.Settings { f(&s); return s }
	for _, tc := range []struct {
		name string
		s    sampler.Settings
		want string // in the error; "" for none
	}{
		{"llama.cpp", llama, ""},
		{"llama.cpp greedy", with(llama, func(s *sampler.Settings) { s.Temperature = 0 }), ""},
		{"llama.cpp penalty off as 0", with(llama, func(s *sampler.Settings) { s.RepetitionPenalty = 0 }), ""},
		{"llama.cpp largest seed", with(llama, func(s *sampler.Settings) { s.Seed = 1<<32 - 2 }), ""},
		{"llama.cpp seed beyond 32 bits", with(llama, func(s *sampler.Settings) { s.Seed = 1 << 32 }), "seed 4294967296 does not fit llama.cpp's 32 bits"},
		{"llama.cpp LLAMA_DEFAULT_SEED", with(llama, func(s *sampler.Settings) { s.Seed = 1<<32 - 1 }), "seed: 4294967295 is LLAMA_DEFAULT_SEED"},
		{"hf", with(llama, func(s *sampler.Settings) { s.Mode = sampler.HF }), ""},
		{"hf greedy", with(llama, func(s *sampler.Settings) { s.Mode, s.Temperature = sampler.HF, 0 }),
			"sampler: hf mode: hf: temperature = 0, must be positive and finite (greedy decoding is do_sample=False, not temperature 0)"},
		{"chain", with(llama, func(s *sampler.Settings) { s.Mode = sampler.Chain }), "not another runtime's chain"},
	} {
		_, err := compare.ForSession(tc.s)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestStepper checks a stepper against the chains Run makes: the same
// token and stages on the first step, its compact summaries equal to its
// recorded ones, and llama.cpp's generators carried from step to step as
// one llamacpp.Chain carries them.
func TestStepper(t *testing.T) {
	logits := []float64{2, 1.5, 1.4, 0.3, -1, 0.7, 1.45, -2}
	history := []int{1, 2, 1}
	for _, s := range []sampler.Settings{
		{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1.2, Seed: 7},
		{Mode: sampler.LlamaCpp, Temperature: 0, TopK: 3, Seed: 7},
		{Mode: sampler.LlamaCpp, Temperature: 1.5, TopK: 1, Seed: 3}, // one candidate: drawn without a sum
		{Mode: sampler.HF, Temperature: 1.3, TopK: 5, TopP: 0.9, RepetitionPenalty: 1.2, Seed: 7},
	} {
		st, err := compare.NewStepper(s)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := compare.ForSession(s)
		out, err := compare.Run(c, logits, history)
		if err != nil {
			t.Fatal(err)
		}
		rng, gen := sampler.NewRNG(s.Seed), llamacpp.State{}
		rec, err := st.Choose(logits, history, &rng, &gen, true)
		if err != nil {
			t.Fatal(err)
		}
		rng2, gen2 := sampler.NewRNG(s.Seed), llamacpp.State{}
		compact, err := st.Choose(logits, history, &rng2, &gen2, false)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Token != out.Token || rec.Draw.U != out.U || len(rec.Stages) != len(out.Stages) {
			t.Errorf("%+v: token %d u %v, %d stages; Run: %d, %v, %d", s, rec.Token, rec.Draw.U, len(rec.Stages), out.Token, out.U, len(out.Stages))
		}
		for i, rs := range rec.Stages {
			cs := compact.Stages[i]
			if rs.Name != cs.Name || rs.Survivors != cs.Survivors || rs.Affected != cs.Affected || rs.RemovedMass != cs.RemovedMass ||
				i < len(out.Stages) && (rs.Name != out.Stages[i].Name || rs.Survivors != len(out.Stages[i].Kept)) {
				t.Errorf("%+v: stage %d recorded %+v, compact %+v", s, i, rs, cs)
			}
		}
		d, cd := *rec.Draw, *compact.Draw
		d.Order, d.CDF = nil, nil
		if !reflect.DeepEqual(d, cd) || rec.Token != compact.Token || rec.Prob != compact.Prob || rng != rng2 || gen != gen2 {
			t.Errorf("%+v: compact draw %+v, recorded %+v", s, cd, d)
		}
		if got := rec.Draw.Order[rec.Draw.Index]; got != rec.Token || !(d.Lo <= d.Target && d.Target <= d.Hi) {
			t.Errorf("%+v: the draw's interval [%v, %v) of %v, target %v, at %d", s, d.Lo, d.Hi, d.Total, d.Target, got)
		}
		if s.Mode == sampler.HF {
			if rec.Note == "" || gen != (llamacpp.State{}) || rng == sampler.NewRNG(s.Seed) {
				t.Errorf("hf: note %q, llama.cpp state %+v, xorshift %v", rec.Note, gen, rng)
			}
			continue
		}
		// Step after step: the generators carry over as in one chain.
		ref, _ := llamacpp.New(c.Llama)
		for step := range 5 {
			res, err := ref.Sample(narrow(logits), []int32{1, 2, 1})
			if err != nil {
				t.Fatal(err)
			}
			g := llamacpp.State{Dist: uint64(2 * step)}
			got, err := st.Choose(logits, history, &rng, &g, false)
			if err != nil {
				t.Fatal(err)
			}
			if got.Token != int(res.Token) || got.Draw.U != res.U || g != ref.State() {
				t.Errorf("%+v step %d: token %d u %v state %+v; llama.cpp %d %v %+v", s, step, got.Token, got.Draw.U, g, res.Token, res.U, ref.State())
			}
		}
	}
}

func narrow(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}
