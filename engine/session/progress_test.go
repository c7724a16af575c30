package session_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// TestPrefillProgress prefills a prompt of 150 tokens a chunk at a time: the
// session is New's exactly; progress hears the end of every chunk, and
// between them (about every PrefillSlice) only the last chunk's end; and
// an error from it stops the prefill with that error.
func TestPrefillProgress(t *testing.T) {
	spec := session.Spec{Model: "stories260K", Prompt: strings.Repeat("Once upon a time ", 30), Sampler: sampler.DefaultSettings(), Steps: 3}
	want, err := session.New(spec, models.Load)
	if err != nil {
		t.Fatal(err)
	}
	var heard [][2]int
	got, err := session.NewWith(spec, models.Load, session.Options{Prefill: func(done, total int) error {
		heard = append(heard, [2]int{done, total})
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Trace(), want.Trace()) {
		t.Errorf("the watched session's trace differs from New's")
	}
	n := len(want.Trace().Prompt)
	var chunks [][2]int
	for done := session.PrefillChunk; ; done += session.PrefillChunk {
		chunks = append(chunks, [2]int{min(done, n), n})
		if done >= n {
			break
		}
	}
	var ends [][2]int // what progress heard, each count once
	for _, h := range heard {
		switch {
		case h[1] != n:
			t.Errorf("progress heard %v, a total other than %d", h, n)
		case len(ends) > 0 && h == ends[len(ends)-1] || len(ends) == 0 && h[0] == 0:
			// within a chunk: the chunk before's end again
		default:
			ends = append(ends, h)
		}
	}
	if n <= session.PrefillChunk || !slices.Equal(ends, chunks) {
		t.Errorf("a prompt of %d tokens: progress heard %v, want the chunks' ends %v", n, heard, chunks)
	}
	stop := errors.New("stop")
	calls := 0
	_, err = session.NewWith(spec, models.Load, session.Options{Prefill: func(done, total int) error { calls++; return stop }})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("a progress that stops: error %v after %d calls, want %v after 1", err, calls, stop)
	}
}
