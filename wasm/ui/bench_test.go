//go:build !js

package ui

import (
	"fmt"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tokenizer"
	"nexttoken/wasm/play"
)

// BenchmarkRender draws the whole page as the first frame after a step
// does: the step on display is new, so its detail is derived and every
// view's input changed. It alternates between the last step and the next
// one. For the toy model, for stories260K 200 steps in, and for the
// largest model the page is meant for, a random network of SmolLM2-135M's
// shape in Q8_0 (49,152 tokens), 8 steps in.
func BenchmarkRender(b *testing.B) {
	for _, tc := range []struct {
		name string
		p    *Playground
	}{
		{"toy", benchPage(b, toySpec(1), nil)},
		{"stories260K-200", benchPage(b, stories(200, sampler.Settings{Temperature: 1, Seed: 3}), nil)},
		{"SmolLM2-shape-Q8_0-8", smolLM2Page(b, 8)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			s := tc.p.ctl.Snapshot()
			last := s.Steps()
			for b.Loop() {
				tc.p.ctl.Select(last - tc.p.ctl.Snapshot().Shown + last - 1) // last − 1 ↔ last
				app.HTMLString(tc.p)
			}
		})
	}
}

// benchPage is the whole page on spec, with a model of the test's own
// when m is not nil.
func benchPage(b *testing.B, spec session.Spec, m *session.Model) *Playground {
	p := &Playground{live: true, pagePath: "/"}
	if m != nil {
		p.keep(m.Name, m)
	}
	p.ctl = play.New(&play.Local{Load: p.load}, serverHost{}, "/")
	p.ctl.Open(spec)
	if s := p.ctl.Snapshot(); s.Session == nil || s.Notice != "" {
		b.Fatalf("%+v does not open: %s", spec, s.Notice)
	}
	return p
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
	return benchPage(b, session.Spec{Model: "smollm2", Prompt: "Once upon a time", Sampler: sampler.Settings{Temperature: 1, Seed: 3}, Steps: steps},
		&session.Model{Name: "smollm2", Checkpoint: m, Tokenizer: tok})
}

// BenchmarkPaint paints each hot view as a step does, stories260K 495
// steps in: the Go side of their work (building the HTML and the heat
// maps' pixels; natively the canvases are missing, so the heat maps draw
// every row each time, an upper bound).
func BenchmarkPaint(b *testing.B) {
	p := benchPage(b, stories(495, sampler.Settings{Temperature: 1, Seed: 4}), nil)
	s := p.ctl.Snapshot()
	m := s.Model()
	for _, v := range []painter{&Controls{}, &Timeline{}, &StepTitle{}, &HiddenCard{Model: m}, &SoftmaxCard{}, &BarsCard{}, &SamplerCard{},
		kvCard(s, nil, nil).(painter), &AttentionLines{Heads: m.Heads}} {
		b.Run(fmt.Sprintf("%T", v)[4:], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v.paint(s)
			}
		})
	}
}
