package session_test

import (
	"slices"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// TestCandidatesRemovedBy checks, step by step, that each of a step's ten
// most probable candidates names the stage its choice removed it by, as
// the compact trace recorded it when the step was taken: the first stage
// whose Removed list in the step's full Detail holds it, or none when no
// list does. A forced token keeps the sampler's verdicts, and a greedy
// choice removes nothing.
func TestCandidatesRemovedBy(t *testing.T) {
	const top = 10
	llama := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1.1, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1.1, Seed: 7}
	for _, tc := range []struct {
		name   string
		set    sampler.Settings
		forced map[int]int // step → token
		none   bool        // no stage of the chain removes a token
	}{
		{"top-k", sampler.Settings{Temperature: 1, TopK: 3, Seed: 5}, nil, false},
		{"top-p", sampler.Settings{Temperature: 1, TopP: 0.6, Seed: 5}, nil, false},
		{"min-p", sampler.Settings{Temperature: 1, MinP: 0.2, Seed: 5}, nil, false},
		{"penalty, top-k, top-p and min-p", sampler.Settings{Temperature: 0.9, TopK: 6, TopP: 0.8, MinP: 0.1, RepetitionPenalty: 1.3, Seed: 5}, nil, false},
		{"temperature 0", sampler.DefaultSettings(), nil, true},
		{"a forced token", sampler.Settings{Temperature: 1, TopK: 2, Seed: 5}, map[int]int{3: 410, 6: 300}, false},
		{"run.c's top-p", sampler.Settings{Mode: sampler.RunC, Temperature: 1, TopP: 0.7, Seed: 3}, nil, false},
		{"run.c without top-p", sampler.Settings{Mode: sampler.RunC, Temperature: 1, Seed: 3}, nil, true},
		{"llama.cpp", llama, nil, false},
		{"llama.cpp's mirostat v2", sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 7, LlamaSettings: sampler.LlamaSettings{Mirostat: 2, MirostatTau: 3, MirostatEta: 0.2}}, nil, false},
		{"Hugging Face", sampler.Settings{Mode: sampler.HF, Temperature: 1.2, TopK: 8, TopP: 0.8, RepetitionPenalty: 1.1, Seed: 7}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: tc.set}
			s, err := session.NewWith(spec, models.Load, session.Options{Top: top})
			if err != nil {
				t.Fatal(err)
			}
			removed := 0
			for i := range 12 {
				if f, ok := tc.forced[i]; ok {
					err = s.Force(i, f)
				} else {
					err = s.Step()
				}
				if err != nil {
					t.Fatal(err)
				}
				step := s.Trace().Steps[i]
				if len(step.Top) != top {
					t.Fatalf("step %d keeps %d candidates, want %d", i, len(step.Top), top)
				}
				d := detail(t, s, i)
				for _, c := range step.Top {
					want := sampler.StageName("")
					for _, st := range d.Choice.Stages {
						if _, found := slices.BinarySearch(st.Removed, c.Token); found {
							want = st.Name
							break
						}
					}
					got := sampler.StageName("")
					if c.Removed > 0 {
						got = step.Choice.Stages[c.Removed-1].Name
					}
					if got != want {
						t.Errorf("step %d, token %d (p %.4g): removed by %q, Detail's lists say %q", i, c.Token, c.Prob, got, want)
					}
					if want != "" {
						removed++
					}
					if (c.Token == step.Choice.Token) && want != "" {
						t.Errorf("step %d: the sampler's own choice %d is removed by %q", i, c.Token, want)
					}
				}
			}
			if tc.none != (removed == 0) {
				t.Errorf("%d candidates removed in 12 steps; a chain that filters should remove some, one that does not none", removed)
			}
		})
	}
}
