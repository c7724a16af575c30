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
// session is New's exactly, progress hears every chunk, and an error from
// it stops the prefill with that error.
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
	if n <= session.PrefillChunk || !slices.Equal(heard, chunks) {
		t.Errorf("a prompt of %d tokens: progress heard %v, want %v", n, heard, chunks)
	}
	stop := errors.New("stop")
	calls := 0
	_, err = session.NewWith(spec, models.Load, session.Options{Prefill: func(done, total int) error { calls++; return stop }})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("a progress that stops: error %v after %d calls, want %v after 1", err, calls, stop)
	}
}

// TestWarm prefills prompts ahead of a session (Warm): the next session
// with the same prompt tokens and forward pass takes the prefill (its
// progress hears nothing) and is New's exactly; a session of another
// prompt or another arithmetic prefills its own, and the warm prefill is
// gone after the first session either way; a spec no session could open
// keeps nothing.
func TestWarm(t *testing.T) {
	m, err := models.Load("stories260K")
	if err != nil {
		t.Fatal(err)
	}
	load := func(string) (*session.Model, error) { return m, nil }
	long := strings.Repeat("Once upon a time ", 30)
	spec := func(prompt string, mode sampler.Mode) session.Spec {
		set := sampler.DefaultSettings()
		set.Mode = mode
		return session.Spec{Model: "stories260K", Prompt: prompt, Sampler: set, Steps: 3}
	}
	for _, tc := range []struct {
		name       string
		warm, open session.Spec
		taken      bool
	}{
		{"the same prompt", spec(long, sampler.Chain), spec(long, sampler.Chain), true},
		{"another prompt", spec(long, sampler.Chain), spec("Lily", sampler.Chain), false},
		{"run.c's arithmetic", spec(long, sampler.RunC), spec(long, sampler.Chain), false},
	} {
		if err := session.Warm(tc.warm, m, session.Options{}); err != nil {
			t.Fatal(err)
		}
		want, err := session.New(tc.open, func(string) (*session.Model, error) {
			return models.Load("stories260K")
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, taken := range []bool{tc.taken, false} { // the second session finds nothing warm
			calls := 0
			got, err := session.NewWith(tc.open, load, session.Options{Prefill: func(int, int) error { calls++; return nil }})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Trace(), want.Trace()) {
				t.Errorf("%s, session %d: the trace differs from New's", tc.name, i+1)
			}
			if (calls == 0) != taken {
				t.Errorf("%s, session %d: its prefill reported %d times; took the warm one: %v, want %v", tc.name, i+1, calls, calls == 0, taken)
			}
		}
	}
	for name, bad := range map[string]session.Spec{
		"too long":                             spec(strings.Repeat("Once upon a time ", 2000), sampler.Chain),
		"a chat on a model without a template": {Model: "stories260K", Chat: &session.Chat{GenerationPrompt: true}, Sampler: sampler.DefaultSettings()},
	} {
		if err := session.Warm(bad, m, session.Options{}); err == nil {
			t.Errorf("%s: Warm succeeded", name)
		}
	}
}
