package session_test

import (
	"reflect"
	"slices"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/transformer"
)

// TestRecompute recomputes steps of stories260K without the cache, past
// ones and the next, in both arithmetics: the logits are the cached ones
// bit for bit, the counts are the model's, and the session goes on as if
// nothing had happened.
func TestRecompute(t *testing.T) {
	for _, set := range []sampler.Settings{
		{Temperature: 1, Seed: 3},
		{Mode: sampler.RunC, Temperature: 1, TopP: 0.9, Seed: 3},
	} {
		spec := session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: set, Steps: 30}
		s, untouched := newSession(t, spec), newSession(t, spec)
		c := s.Transformer().Config
		prompt := len(s.Trace().Prompt)
		for _, i := range []int{0, 17, 29, 30} {
			r, err := s.Recompute(i)
			if err != nil {
				t.Fatal(err)
			}
			pos := detail(t, s, i).Step.Pos
			if r.Pos != pos || !r.Identical || r.MaxAbsDiff != 0 {
				t.Errorf("%v step %d: position %d (want %d), identical %v, max |diff| %v", set.Mode, i, r.Pos, pos, r.Identical, r.MaxAbsDiff)
			}
			if r.CachedMultiplyAdds != transformer.MultiplyAdds(c, pos) || r.RecomputedMultiplyAdds != transformer.RecomputeMultiplyAdds(c, pos) {
				t.Errorf("step %d: multiply-adds %d and %d", i, r.CachedMultiplyAdds, r.RecomputedMultiplyAdds)
			}
			if want := (pos + 1) * s.Transformer().Cache.View(1).RowBytes(); r.KVBytes != want {
				t.Errorf("step %d: cache of %d bytes, want %d", i, r.KVBytes, want)
			}
			prefill := 0
			for p := range prompt {
				prefill += transformer.MultiplyAdds(c, p)
			}
			if r.PromptTokens != prompt || r.PrefillMultiplyAdds != prefill {
				t.Errorf("step %d: prefill of %d tokens, %d multiply-adds; want %d, %d", i, r.PromptTokens, r.PrefillMultiplyAdds, prompt, prefill)
			}
		}
		next, want := detail(t, s, 30), detail(t, untouched, 30)
		if !slices.Equal(next.Computed, want.Computed) || !reflect.DeepEqual(next.Step, want.Step) {
			t.Errorf("%v: recomputing changed the next step", set.Mode)
		}
		for range 10 {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			if err := untouched.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(s.Trace(), untouched.Trace()) {
			t.Errorf("%v: the steps after recomputing differ", set.Mode)
		}
	}

	s := newSession(t, workedExample)
	if _, err := s.Recompute(0); err == nil {
		t.Error("recomputed a session of hand-typed logits")
	}
	s = newSession(t, session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 2})
	for _, i := range []int{-1, 3} {
		if _, err := s.Recompute(i); err == nil {
			t.Errorf("recomputed step %d of 2", i)
		}
	}
}
