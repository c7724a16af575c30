package sampler_test

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
)

func TestValidate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	chain := func(f func(*sampler.Settings)) sampler.Settings {
		s := sampler.DefaultSettings()
		f(&s)
		return s
	}
	runc := func(f func(*sampler.Settings)) sampler.Settings {
		return chain(func(s *sampler.Settings) { s.Mode = sampler.RunC; f(s) })
	}
	llama := func(f func(*sampler.Settings)) sampler.Settings {
		return chain(func(s *sampler.Settings) { s.Mode = sampler.LlamaCpp; f(s) })
	}
	for _, tc := range []struct {
		name string
		s    sampler.Settings
		want string // the error; "" for valid settings
	}{
		{"default", sampler.DefaultSettings(), ""},
		{"empty mode is chain", chain(func(s *sampler.Settings) { s.Mode = "" }), ""},
		{"every chain stage", chain(func(s *sampler.Settings) {
			*s = sampler.Settings{Temperature: 0.8, TopK: 40, TopP: 0.9, MinP: 0.05, RepetitionPenalty: 1.3, Seed: 7}
		}), ""},
		{"at their limits", chain(func(s *sampler.Settings) {
			*s = sampler.Settings{Temperature: 100, TopK: 1 << 20, TopP: 1, MinP: 1, RepetitionPenalty: 100, Seed: 1<<53 - 1}
		}), ""},
		{"penalty off as 0", chain(func(s *sampler.Settings) { s.RepetitionPenalty = 0 }), ""},
		{"runc sampling", runc(func(s *sampler.Settings) { s.Temperature, s.TopP = 1, 0.9 }), ""},
		{"runc penalty off as 0", runc(func(s *sampler.Settings) { s.RepetitionPenalty = 0 }), ""},

		{"unknown mode", chain(func(s *sampler.Settings) { s.Mode = "beam" }), `sampler: mode "beam" is none of chain, runc, llama.cpp, hf`},
		{"llama.cpp with every filter", chain(func(s *sampler.Settings) {
			*s = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1.1, Seed: 7}
		}), ""},
		{"hf with every filter", chain(func(s *sampler.Settings) {
			*s = sampler.Settings{Mode: sampler.HF, Temperature: 1, TopK: 50, TopP: 0.9, MinP: 0.05, RepetitionPenalty: 1.2, Seed: 7}
		}), ""},
		{"NaN temperature", chain(func(s *sampler.Settings) { s.Temperature = nan }), "sampler: temperature: NaN is not a number from 0 to 100"},
		{"negative temperature", chain(func(s *sampler.Settings) { s.Temperature = -0.1 }), "sampler: temperature: -0.1 is not a number from 0 to 100"},
		{"infinite temperature", chain(func(s *sampler.Settings) { s.Temperature = inf }), "sampler: temperature: +Inf is not a number from 0 to 100"},
		{"hot temperature", chain(func(s *sampler.Settings) { s.Temperature = 100.5 }), "sampler: temperature: 100.5 is not a number from 0 to 100"},
		{"negative top-k", chain(func(s *sampler.Settings) { s.TopK = -1 }), "sampler: top_k: -1 is not a whole number from 0 to 1,048,576"},
		{"large top-k", chain(func(s *sampler.Settings) { s.TopK = 2_000_000 }), "sampler: top_k: 2,000,000 is not a whole number from 0 to 1,048,576"},
		{"huge top-k", chain(func(s *sampler.Settings) { s.TopK = math.MaxInt }), "sampler: top_k: 9.223372036854776e+18 is not a whole number from 0 to 1,048,576"},
		{"NaN top-p", chain(func(s *sampler.Settings) { s.TopP = nan }), "sampler: top_p: NaN is not a number from 0 to 1"},
		{"negative top-p", chain(func(s *sampler.Settings) { s.TopP = -0.1 }), "sampler: top_p: -0.1 is not a number from 0 to 1"},
		{"top-p above 1", chain(func(s *sampler.Settings) { s.TopP = 1.1 }), "sampler: top_p: 1.1 is not a number from 0 to 1"},
		{"NaN min-p", chain(func(s *sampler.Settings) { s.MinP = nan }), "sampler: min_p: NaN is not a number from 0 to 1"},
		{"min-p above 1", chain(func(s *sampler.Settings) { s.MinP = 2 }), "sampler: min_p: 2 is not a number from 0 to 1"},
		{"NaN penalty", chain(func(s *sampler.Settings) { s.RepetitionPenalty = nan }), "sampler: repetition_penalty: NaN is not a number from 0 to 100"},
		{"negative penalty", chain(func(s *sampler.Settings) { s.RepetitionPenalty = -1 }), "sampler: repetition_penalty: -1 is not a number from 0 to 100"},
		{"infinite penalty", chain(func(s *sampler.Settings) { s.RepetitionPenalty = inf }), "sampler: repetition_penalty: +Inf is not a number from 0 to 100"},
		{"zero seed", chain(func(s *sampler.Settings) { s.Seed = 0 }), "sampler: seed: 0 is not a whole number from 1 to 9,007,199,254,740,991"},
		// 2⁵³ + 1 rounds to 2⁵³ as a float64, still outside the range; beyond 2⁵³ − 1, Readable writes the float64 it is.
		{"seed beyond a float64", chain(func(s *sampler.Settings) { s.Seed = 1<<53 + 1 }), "sampler: seed: 9.007199254740992e+15 is not a whole number from 1 to 9,007,199,254,740,991"},
		{"largest seed", chain(func(s *sampler.Settings) { s.Seed = math.MaxUint64 }), "sampler: seed: 1.8446744073709552e+19 is not a whole number from 1 to 9,007,199,254,740,991"},
		{"runc top-k", runc(func(s *sampler.Settings) { s.TopK = 40 }), "sampler: run.c has no top-k, so top_k must be 0 in run.c mode, not 40"},
		{"runc min-p", runc(func(s *sampler.Settings) { s.MinP = 0.1 }), "sampler: run.c has no min-p, so min_p must be 0 in run.c mode, not 0.1"},
		{"runc penalty", runc(func(s *sampler.Settings) { s.RepetitionPenalty = 1.2 }), "sampler: run.c has no repetition penalty, so repetition_penalty must be 0 or 1 in run.c mode, not 1.2"},

		{"llama.cpp's own stages", llama(func(s *sampler.Settings) {
			s.Sequence, s.Mirostat, s.MirostatTau, s.MirostatEta = "edkt", 2, 5, 0.1
			s.DryMultiplier, s.DryBase, s.DryAllowedLength, s.DryPenaltyLastN = 0.8, 1.75, 2, 64
		}), ""},
		{"DRY's settings while it is off", llama(func(s *sampler.Settings) { s.DryBase = 0.5 }), ""},
		{"mirostat in chain mode", chain(func(s *sampler.Settings) { s.Mirostat = 2 }), "sampler: mirostat is llama.cpp's: it must be 0 in chain mode, not 2"},
		{"DRY in hf mode", chain(func(s *sampler.Settings) { s.Mode, s.DryMultiplier = sampler.HF, 0.8 }), "sampler: dry_multiplier is llama.cpp's: it must be 0 in hf mode, not 0.8"},
		{"tau in run.c mode", runc(func(s *sampler.Settings) { s.MirostatTau = 5 }), "sampler: mirostat_tau is llama.cpp's: it must be 0 in runc mode, not 5"},
		{"a sequence in chain mode", chain(func(s *sampler.Settings) { s.Mode, s.Sequence = "", "kt" }), `sampler: a sequence of stages ("kt") is llama.cpp's, not chain mode's`},
		{"a long sequence", llama(func(s *sampler.Settings) { s.Sequence = strings.Repeat("k", 33) }), `sampler: sequence "kkkkkkkkkkkk"…: 33 letters, more than the 32 stages a chain may have`},
		{"mirostat 3", llama(func(s *sampler.Settings) { s.Mirostat = 3 }), "sampler: mirostat: 3 is not a whole number from 0 to 2"},
		{"negative DRY multiplier", llama(func(s *sampler.Settings) { s.DryMultiplier = -1 }), "sampler: dry_multiplier: -1 is not a number from 0 to 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("error = %v\nwant    %s", err, tc.want)
			}
		})
	}
}

// TestParams checks the tables' own consistency, and that Get and Set
// reach the field each Param names.
func TestParams(t *testing.T) {
	var names []string
	for _, p := range slices.Concat(sampler.Params, sampler.LlamaParams) {
		names = append(names, p.Name)
		if p.Label == "" || p.Doc == "" || !(p.Min < p.Max) || !(p.Step > 0) || p.Integer && p.Step != 1 {
			t.Errorf("%s: label %q, doc %q, range [%v, %v], step %v", p.Name, p.Label, p.Doc, p.Min, p.Max, p.Step)
		}
		for _, off := range p.Off {
			if p.Check(off) != nil {
				t.Errorf("%s: its off value %v is outside its range", p.Name, off)
			}
		}
		if (p.Filter || p.ChainOnly) && len(p.Off) == 0 {
			t.Errorf("%s: a stage that cannot be turned off", p.Name)
		}
		var s sampler.Settings
		p.Set(&s, p.Max)
		if p.Get(s) != p.Max || s == (sampler.Settings{}) {
			t.Errorf("%s: Set then Get gave %v, want %v", p.Name, p.Get(s), p.Max)
		}
	}
	if want := []string{"temperature", "top_k", "top_p", "min_p", "repetition_penalty", "seed",
		"mirostat", "mirostat_tau", "mirostat_eta", "dry_multiplier", "dry_base", "dry_allowed_length", "dry_penalty_last_n"}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	d := sampler.DefaultSettings()
	if err := d.Validate(); err != nil {
		t.Error(err)
	}
}

func TestCheck(t *testing.T) {
	param := func(name string) sampler.Param {
		i := slices.IndexFunc(sampler.Params, func(p sampler.Param) bool { return p.Name == name })
		return sampler.Params[i]
	}
	for _, tc := range []struct {
		param string
		v     float64
		want  string // "" when valid
	}{
		{"top_k", 0, ""},
		{"top_k", 1 << 20, ""},
		{"top_k", 2.5, "top_k: 2.5 is not a whole number from 0 to 1,048,576"},
		{"top_k", 1<<20 + 1, "top_k: 1,048,577 is not a whole number from 0 to 1,048,576"},
		{"top_p", 0.5, ""},
		{"top_p", math.Inf(-1), "top_p: -Inf is not a number from 0 to 1"},
		{"temperature", 1e-300, ""},
		{"temperature", 1e300, "temperature: 1e+300 is not a number from 0 to 100"},
		{"seed", 1, ""},
		{"seed", 1<<53 - 1, ""},
		{"seed", 0.5, "seed: 0.5 is not a whole number from 1 to 9,007,199,254,740,991"},
	} {
		err := param(tc.param).Check(tc.v)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
			t.Errorf("%s.Check(%v) = %v, want %q", tc.param, tc.v, err, tc.want)
		}
	}
}

func TestReadable(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0"},
		{1, "1"},
		{100, "100"},
		{1000, "1,000"},
		{-1234567, "-1,234,567"},
		{1 << 20, "1,048,576"},
		{1<<53 - 1, "9,007,199,254,740,991"},
		{1 << 60, "1.152921504606847e+18"},
		{0.05, "0.05"},
		{1234.5, "1234.5"},
		{math.NaN(), "NaN"},
	} {
		if got := sampler.Readable(tc.x); got != tc.want {
			t.Errorf("Readable(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

func TestInMode(t *testing.T) {
	llama := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, Seed: 7, LlamaSettings: sampler.LlamaSettings{Sequence: "edkt", Mirostat: 2, MirostatTau: 5, MirostatEta: 0.1, DryMultiplier: 0.8, DryBase: 1.75, DryAllowedLength: 2, DryPenaltyLastN: -1}}
	for _, mode := range []sampler.Mode{sampler.Chain, sampler.RunC, sampler.HF} {
		got := llama.InMode(mode)
		want := sampler.Settings{Mode: mode, Temperature: 0.8, TopK: 40, Seed: 7}
		if got != want {
			t.Errorf("InMode(%s) = %+v, want %+v", mode, got, want)
		}
		if mode != sampler.RunC { // run.c mode refuses top-k: not InMode's to clear
			if err := got.Validate(); err != nil {
				t.Errorf("InMode(%s): %v", mode, err)
			}
		}
	}
	if got := llama.InMode(sampler.LlamaCpp); got != llama {
		t.Errorf("InMode(llama.cpp) = %+v, want the settings unchanged", got)
	}
}

// TestInPlay: the settings of mirostat and DRY play a part only while
// their stage is on; every other setting always does.
func TestInPlay(t *testing.T) {
	shown := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, Seed: 7, LlamaSettings: sampler.LlamaSettings{MirostatTau: 5, MirostatEta: 0.1, DryBase: 1.75, DryAllowedLength: 2, DryPenaltyLastN: 64}}
	if err := shown.Validate(); err != nil {
		t.Errorf("the stages' settings shown while they are off: %v", err)
	}
	on := shown
	on.Mirostat, on.DryMultiplier = 2, 0.8
	for _, p := range slices.Concat(sampler.Params, sampler.LlamaParams) {
		stageSetting := p.Stage != ""
		if got := p.InPlay(shown); got == stageSetting {
			t.Errorf("%s: InPlay with mirostat and DRY off = %v", p.Name, got)
		}
		if !p.InPlay(on) {
			t.Errorf("%s: InPlay with mirostat and DRY on = false", p.Name)
		}
	}
}

// TestSettingError checks that Validate's errors are *SettingErrors that
// name the setting at fault, with the reason as the message says it after
// "sampler: ".
func TestSettingError(t *testing.T) {
	for _, c := range []struct {
		s     sampler.Settings
		param string
	}{
		{sampler.Settings{Mode: "greedy", Seed: 1}, "sampler"},
		{sampler.Settings{TopK: -1, Seed: 1}, "top_k"},
		{sampler.Settings{Mode: sampler.RunC, MinP: 0.1, Seed: 1}, "min_p"},
		{sampler.Settings{Seed: 1, LlamaSettings: sampler.LlamaSettings{Mirostat: 2}}, "mirostat"},
		{sampler.Settings{Seed: 1, LlamaSettings: sampler.LlamaSettings{Sequence: "kt"}}, "sequence"},
		{sampler.Settings{}, "seed"},
	} {
		err := c.s.Validate()
		var se *sampler.SettingError
		if !errors.As(err, &se) {
			t.Errorf("%+v: %v (%T), want a *SettingError", c.s, err, err)
			continue
		}
		if se.Param != c.param || err.Error() != "sampler: "+se.Reason {
			t.Errorf("%+v: Param %q, message %q, Reason %q; want Param %q", c.s, se.Param, err, se.Reason, c.param)
		}
	}
}

// TestSettingsJSON checks the settings' JSON, which the command line's
// --json writes: llama.cpp's own settings (LlamaSettings, embedded) sit
// beside the others, each left out when 0, and read back.
func TestSettingsJSON(t *testing.T) {
	for _, c := range []struct {
		s    sampler.Settings
		want string
	}{
		{sampler.DefaultSettings(), `{"Mode":"chain","Temperature":0,"TopK":0,"TopP":0,"MinP":0,"RepetitionPenalty":1,"Seed":42}`},
		{sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1, Seed: 7,
			LlamaSettings: sampler.LlamaSettings{Sequence: "edkt", Mirostat: 2, MirostatTau: 5, MirostatEta: 0.1,
				DryMultiplier: 0.8, DryBase: 1.75, DryAllowedLength: 2, DryPenaltyLastN: 64}, IgnoreEOS: true},
			`{"Mode":"llama.cpp","Temperature":0.8,"TopK":40,"TopP":0.95,"MinP":0.05,"RepetitionPenalty":1,"Seed":7,` +
				`"Sequence":"edkt","Mirostat":2,"MirostatTau":5,"MirostatEta":0.1,"DryMultiplier":0.8,"DryBase":1.75,"DryAllowedLength":2,"DryPenaltyLastN":64,"IgnoreEOS":true}`},
		{sampler.Settings{Mode: sampler.LlamaCpp, Seed: 1, LlamaSettings: sampler.LlamaSettings{DryBase: 1.75}},
			`{"Mode":"llama.cpp","Temperature":0,"TopK":0,"TopP":0,"MinP":0,"RepetitionPenalty":0,"Seed":1,"DryBase":1.75}`},
	} {
		b, err := json.Marshal(c.s)
		if err != nil || string(b) != c.want {
			t.Errorf("%+v: %s, %v\nwant %s", c.s, b, err, c.want)
		}
		var back sampler.Settings
		if err := json.Unmarshal(b, &back); err != nil || back != c.s {
			t.Errorf("%s reads back as %+v, %v", b, back, err)
		}
	}
}
