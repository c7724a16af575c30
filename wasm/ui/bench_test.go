package ui

import (
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tokenizer"
)

// BenchmarkRender renders the whole page, as the first frame after a step
// does (every view's input changed), for the toy model, for stories260K
// 200 steps in, and for the largest model the page is meant for, a random
// network of SmolLM2-135M's shape in Q8_0 (49,152 tokens), 8 steps in.
func BenchmarkRender(b *testing.B) {
	for _, tc := range []struct {
		name string
		p    *Playground
	}{
		{"toy", page(&testing.T{}, toySpec(0), -1)},
		{"stories260K-200", page(&testing.T{}, stories(200, sampler.Settings{Temperature: 1, Seed: 3}), -1)},
		{"SmolLM2-shape-Q8_0-8", smolLM2Page(b, 8)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tc.p.rev++ // a new step: the detail is derived again
				app.HTMLString(tc.p)
			}
		})
	}
}

// smolLM2Page is the page on a random network of SmolLM2-135M's shape in
// Q8_0, steps in.
func smolLM2Page(b *testing.B, steps int) *Playground {
	m, v, err := randmodel.BuildQuantized(randmodel.SmolLM2, 15, randmodel.Every(quant.Q8_0))
	if err != nil {
		b.Fatal(err)
	}
	tok, err := tokenizer.NewBPE(v)
	if err != nil {
		b.Fatal(err)
	}
	p := &Playground{path: "/", view: "all", theme: "auto", models: map[string]*session.Model{"smollm2": {Name: "smollm2", Checkpoint: m, Tokenizer: tok}}}
	if err := p.open(session.Spec{Model: "smollm2", Prompt: "Once upon a time", Sampler: sampler.Settings{Temperature: 1, Seed: 3}, Steps: steps}); err != nil {
		b.Fatal(err)
	}
	return p
}
