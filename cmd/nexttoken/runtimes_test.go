package main

import (
	"io"
	"net/url"
	"testing"

	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
)

// TestRuntimeDefaults: a runtime's chain named alone gives the same
// settings on the command line, in a link, in the page's decoding select
// and as compare.Defaults: the runtime's defaults, mirostat and DRY off
// with llama.cpp's settings for them shown.
func TestRuntimeDefaults(t *testing.T) {
	llama := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1, Seed: 42, LlamaSettings: sampler.LlamaSettings{MirostatTau: 5, MirostatEta: 0.1, DryBase: 1.75, DryAllowedLength: 2, DryPenaltyLastN: 64}}
	with := func(s sampler.Settings, f func(*sampler.Settings)) sampler.Settings { f(&s); return s }
	for _, tc := range []struct {
		chain string
		want  sampler.Settings
	}{
		{"llama.cpp", llama},
		{"mirostat", with(llama, func(s *sampler.Settings) { s.Mirostat = 1 })},
		{"mirostat2", with(llama, func(s *sampler.Settings) { s.Mirostat = 2 })},
		{"edkt", with(llama, func(s *sampler.Settings) { s.Sequence = "edkt" })},
		{"hf", sampler.Settings{Mode: sampler.HF, Temperature: 1, TopK: 50, TopP: 1, RepetitionPenalty: 1, Seed: 42}},
	} {
		f, err := parseTraceFlags([]string{"--sampler=" + tc.chain}, io.Discard)
		if err != nil || f.settings != tc.want {
			t.Errorf("trace --sampler=%s: %+v, %v\nwant %+v", tc.chain, f.settings, err, tc.want)
		}
		spec, err := link.Parse(url.Values{"sampler": {tc.chain}})
		if err != nil || spec.Sampler != tc.want {
			t.Errorf("?sampler=%s: %+v, %v\nwant %+v", tc.chain, spec.Sampler, err, tc.want)
		}
		page, err := compare.ChainSettings(tc.chain, sampler.DefaultSettings(), nil) // the page's select
		if err != nil || page != tc.want {
			t.Errorf("compare.ChainSettings(%s): %+v, %v\nwant %+v", tc.chain, page, err, tc.want)
		}
		d, err := compare.Defaults(tc.want.Mode, 42)
		d.Mirostat, d.Sequence = tc.want.Mirostat, tc.want.Sequence
		if err != nil || d != tc.want {
			t.Errorf("compare.Defaults(%s): %+v, %v\nwant %+v", tc.want.Mode, d, err, tc.want)
		}
	}
}
