package ui

import (
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
)

// BenchmarkRender renders the whole page, as the first frame after a step
// does (every view's input changed), for the toy model and for
// stories260K 200 steps in.
func BenchmarkRender(b *testing.B) {
	for _, tc := range []struct {
		name string
		p    *Playground
	}{
		{"toy", page(&testing.T{}, toySpec(0), -1)},
		{"stories260K-200", page(&testing.T{}, stories(200, sampler.Settings{Temperature: 1, Seed: 3}), -1)},
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
