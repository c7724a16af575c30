package play

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tracefile"
)

// write is what tracefile writes of spec and t in format f at once.
func write(t *testing.T, f tracefile.Format, spec session.Spec, tr *session.Trace) string {
	t.Helper()
	var b bytes.Buffer
	traced := asTraced(tr)
	w, err := tracefile.NewWriter(f, &b, spec, &traced)
	if err == nil {
		_, err = w.Write(len(tr.Steps))
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestExportTrace saves the session's trace in each format: the file is
// what tracefile writes for the session, named after the model and the
// steps, and the snapshot says what was saved.
func TestExportTrace(t *testing.T) {
	spec := stories(1)
	spec.Steps = 3
	r := newRig(t, spec)
	for _, f := range tracefile.Formats {
		r.c.ExportTrace(f)
		r.settle()
		s := r.snap()
		if len(r.host.saved) == 0 {
			t.Fatalf("%s: nothing saved: %+v", f, s.Export)
		}
		got := r.host.saved[len(r.host.saved)-1]
		want := write(t, f, s.Session.Spec, s.Session.Trace)
		if got.data != want || got.name != "nexttoken-stories260K-3-steps."+string(f) || got.mediaType != f.MediaType() {
			t.Errorf("%s: saved %s (%s):\n%s\nwant:\n%s", f, got.name, got.mediaType, got.data, want)
		}
		if x := s.Export; x.On || x.Failed || x.Message != "Saved "+got.name+": 3 steps, "+sampler.Readable(float64(len(want)))+" bytes." {
			t.Errorf("%s: the snapshot says %+v", f, x)
		}
	}
	if !strings.HasPrefix(r.host.saved[0].data, "{\n \"model\": \"stories260K\",") {
		t.Errorf("the JSON starts %.40q", r.host.saved[0].data)
	}
}

// TestExportTraceInBatches exports a session too long to write within a
// frame's budget: it is written a batch an animation frame, and the steps
// taken meanwhile are not in the file, which holds the session as it was
// when the export began.
func TestExportTraceInBatches(t *testing.T) {
	spec := stories(1)
	spec.Steps = 60
	r := newRig(t, spec)
	before := write(t, tracefile.JSONFile, r.snap().Session.Spec, r.snap().Session.Trace)
	r.host.tick = 5 * time.Millisecond // a batch takes 5 ms: two fit in the budget
	r.c.ExportTrace(tracefile.JSONFile)
	x := r.snap().Export
	if !x.On || x.Steps != 60 || len(r.host.saved) != 0 || len(r.host.frames) != 1 {
		t.Fatalf("after the first batches: %+v, %d saved, %d frames asked for", x, len(r.host.saved), len(r.host.frames))
	}
	if written := strings.Count(r.c.export.buf.String(), "\n  {"); written != 2*exportBatch {
		t.Fatalf("%d steps written in the first frame, want the two batches the budget takes", written)
	}
	r.c.Step()
	r.settle()
	if n := r.snap().Session.Steps(); n != 61 {
		t.Fatalf("the session has %d steps, want 61", n)
	}
	if len(r.host.saved) != 1 || r.host.saved[0].data != before {
		t.Fatalf("saved %d files; the first is not the session before the step", len(r.host.saved))
	}
	if x := r.snap().Export; x.On || !strings.HasPrefix(x.Message, "Saved nexttoken-stories260K-60-steps.json: 60 steps") {
		t.Errorf("once written: %+v", x)
	}
}

// TestExportName keeps a model's file name to what every file system
// takes.
func TestExportName(t *testing.T) {
	for _, c := range []struct {
		model string
		steps int
		want  string
	}{
		{"toy", 1, "nexttoken-toy-1-step.json"},
		{"SmolLM2-135M.Q8_0.gguf", 12, "nexttoken-SmolLM2-135M.Q8_0.gguf-12-steps.json"},
		{`C:\models\my model (v2).gguf`, 0, "nexttoken-my-model--v2-.gguf-0-steps.json"},
		{"dir/../", 2, "nexttoken-session-2-steps.json"},
		{"модель", 2, "nexttoken-session-2-steps.json"},
	} {
		if got := exportName(c.model, c.steps, tracefile.JSONFile); got != c.want {
			t.Errorf("exportName(%q, %d) = %q, want %q", c.model, c.steps, got, c.want)
		}
	}
}
