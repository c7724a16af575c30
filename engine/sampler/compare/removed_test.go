package compare

import (
	"slices"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/llamacpp"
)

// TestRemovedBy checks that a compact choice names, for every token, the
// stage that removed it as the recorded choice's Removed lists do, for
// llama.cpp's stages that do not remove in the order of the ranking
// (typical-p keeps the tokens whose surprise is near the entropy, XTC
// removes the most probable ones) and for those that do. Sessions do not
// set typical-p or XTC yet, so the test builds the stepper's chain itself.
func TestRemovedBy(t *testing.T) {
	// One likely token, then a long run of middling ones, most probable
	// first.
	logits := make([]float64, 24)
	for i := range logits {
		logits[i] = 3 - 0.02*float64(i)
	}
	logits[0] = 4.4
	for _, tc := range []struct {
		name   string
		params func(p *llamacpp.Params)
		ranked bool // every stage removes the least probable tokens
	}{
		{"typical-p", func(p *llamacpp.Params) {
			p.TypP, p.Samplers = 0.5, []llamacpp.Sampler{llamacpp.Typical, llamacpp.Temp}
		}, false},
		{"XTC", func(p *llamacpp.Params) {
			p.XTCProbability, p.XTCThreshold, p.Samplers = 1, 0.02, []llamacpp.Sampler{llamacpp.XTC, llamacpp.Temp}
		}, false},
		{"top-k, typical-p, top-p, XTC", func(p *llamacpp.Params) {
			p.TopK, p.TypP, p.TopP, p.XTCProbability, p.XTCThreshold = 16, 0.9, 0.9, 1, 0.05
			p.Samplers = []llamacpp.Sampler{llamacpp.TopK, llamacpp.Typical, llamacpp.TopP, llamacpp.XTC, llamacpp.Temp}
		}, false},
		{"top-k and min-p", func(p *llamacpp.Params) {
			p.TopK, p.MinP, p.Samplers = 12, 0.05, []llamacpp.Sampler{llamacpp.TopK, llamacpp.MinP, llamacpp.Temp}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := llamacpp.Defaults()
			p.Temp, p.TopK, p.TopP, p.MinP = 1, 0, 1, 0
			tc.params(&p)
			chain, err := llamacpp.New(p)
			if err != nil {
				t.Fatal(err)
			}
			st := &Stepper{set: sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1}, llama: chain}
			var gen llamacpp.State
			if _, err := st.Choose(logits, nil, nil, &gen, false); err != nil {
				t.Fatal(err)
			}
			compact := make([]int, len(logits))
			for id := range compact {
				compact[id] = st.RemovedBy(id)
			}
			gen = llamacpp.State{}
			c, err := st.Choose(logits, nil, nil, &gen, true)
			if err != nil {
				t.Fatal(err)
			}
			for id, got := range compact {
				want := -1
				for i, s := range c.Stages {
					if _, found := slices.BinarySearch(s.Removed, id); found {
						want = i
						break
					}
				}
				if got != want {
					t.Errorf("token %d (logit %.2f): removed by stage %d, the recorded lists say %d", id, logits[id], got, want)
				}
			}
			// The logits fall from token 0 on: a token kept after one
			// removed is a stage that did not cut the ranking.
			outOfOrder, removed := false, false
			for _, r := range compact {
				removed = removed || r >= 0
				outOfOrder = outOfOrder || removed && r < 0
			}
			if outOfOrder == tc.ranked {
				t.Errorf("stages removing tokens in the ranking's order: %v, want %v (%v)", !outOfOrder, tc.ranked, compact)
			}
		})
	}
}
