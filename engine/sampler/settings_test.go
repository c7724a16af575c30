package sampler_test

import (
	"math"
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
	for _, tc := range []struct {
		name string
		s    sampler.Settings
		want string // in the error message; "" for valid settings
	}{
		{"default", sampler.DefaultSettings(), ""},
		{"empty mode is chain", chain(func(s *sampler.Settings) { s.Mode = "" }), ""},
		{"every chain stage", chain(func(s *sampler.Settings) {
			*s = sampler.Settings{Temperature: 0.8, TopK: 40, TopP: 0.9, MinP: 0.05, RepetitionPenalty: 1.3, Seed: 7}
		}), ""},
		{"filters at their limits", chain(func(s *sampler.Settings) { s.TopP, s.MinP, s.RepetitionPenalty = 1, 1, 0 }), ""},
		{"runc sampling", runc(func(s *sampler.Settings) { s.Temperature, s.TopP = 1, 0.9 }), ""},
		{"runc penalty off as 0", runc(func(s *sampler.Settings) { s.RepetitionPenalty = 0 }), ""},

		{"unknown mode", chain(func(s *sampler.Settings) { s.Mode = "beam" }), "Mode"},
		{"NaN temperature", chain(func(s *sampler.Settings) { s.Temperature = nan }), "Temperature"},
		{"negative temperature", chain(func(s *sampler.Settings) { s.Temperature = -0.1 }), "Temperature"},
		{"infinite temperature", chain(func(s *sampler.Settings) { s.Temperature = inf }), "Temperature"},
		{"negative top-k", chain(func(s *sampler.Settings) { s.TopK = -1 }), "TopK"},
		{"NaN top-p", chain(func(s *sampler.Settings) { s.TopP = nan }), "TopP"},
		{"negative top-p", chain(func(s *sampler.Settings) { s.TopP = -0.1 }), "TopP"},
		{"top-p above 1", chain(func(s *sampler.Settings) { s.TopP = 1.1 }), "TopP"},
		{"NaN min-p", chain(func(s *sampler.Settings) { s.MinP = nan }), "MinP"},
		{"min-p above 1", chain(func(s *sampler.Settings) { s.MinP = 2 }), "MinP"},
		{"NaN penalty", chain(func(s *sampler.Settings) { s.RepetitionPenalty = nan }), "RepetitionPenalty"},
		{"negative penalty", chain(func(s *sampler.Settings) { s.RepetitionPenalty = -1 }), "RepetitionPenalty"},
		{"infinite penalty", chain(func(s *sampler.Settings) { s.RepetitionPenalty = inf }), "RepetitionPenalty"},
		{"zero seed", chain(func(s *sampler.Settings) { s.Seed = 0 }), "Seed"},
		{"runc top-k", runc(func(s *sampler.Settings) { s.TopK = 40 }), "TopK"},
		{"runc min-p", runc(func(s *sampler.Settings) { s.MinP = 0.1 }), "MinP"},
		{"runc penalty", runc(func(s *sampler.Settings) { s.RepetitionPenalty = 1.2 }), "RepetitionPenalty"},
		{"runc temperature beyond float32", runc(func(s *sampler.Settings) { s.Temperature = 1e39 }), "Temperature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error = %v, want one naming %s", err, tc.want)
			}
		})
	}
}
