package tracefile_test

import (
	"io"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tracefile"
	"nexttoken/web/models"
)

// longTrace is a session of stories260K of up to 400 steps, its steps
// repeated to n: what the page exports after a long run.
func longTrace(b *testing.B, n int) (session.Spec, *session.Trace) {
	set := sampler.DefaultSettings()
	set.Temperature, set.TopP = 1, 0.9
	s, err := session.New(session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: set, Steps: 400}, models.Load)
	if err != nil {
		b.Fatal(err)
	}
	tr := *s.Trace()
	steps := tr.Steps
	for len(tr.Steps) < n {
		tr.Steps = append(tr.Steps, steps[:min(len(steps), n-len(tr.Steps))]...)
	}
	return s.Spec(), &tr
}

// BenchmarkExport2000 writes a 2,000-step trace as JSON and as CSV.
func BenchmarkExport2000(b *testing.B) {
	spec, tr := longTrace(b, 2000)
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			if err := tracefile.WriteJSON(io.Discard, spec, tr); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("csv", func(b *testing.B) {
		for b.Loop() {
			if err := tracefile.WriteCSV(io.Discard, spec, tr); err != nil {
				b.Fatal(err)
			}
		}
	})
}
