package session_test

import (
	"errors"
	"math"
	"reflect"
	"sync"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// loaded keeps each model the fuzz target loads: sessions only read a
// model, as the playground's sessions share theirs.
var loaded sync.Map

func loadOnce(name string) (*session.Model, error) {
	if m, ok := loaded.Load(name); ok {
		return m.(*session.Model), nil
	}
	m, err := models.Load(name)
	if err != nil {
		return nil, err
	}
	loaded.Store(name, m)
	return m, nil
}

// maxActions bounds an input's actions, so that each runs in milliseconds.
const maxActions = 30

// fuzzSettings makes sampler settings from two bytes: greedy or sampled,
// chain, run.c, llama.cpp (with mirostat, or DRY in a sequence of its
// own) or Hugging Face, a few filters and seeds, the end of text ignored
// or not, and
// now and then settings that are refused (top-k in run.c mode,
// temperature 0 in Hugging Face mode).
func fuzzSettings(a, b byte) sampler.Settings {
	set := sampler.Settings{Mode: sampler.Chain, Temperature: []float64{0, 0.5, 1, 2}[a%4], RepetitionPenalty: 1, Seed: uint64(b%4 + 1)}
	if a&4 != 0 {
		set.TopK = 3
	}
	if a&8 != 0 {
		set.TopP = 0.9
	}
	if a&16 != 0 {
		set.MinP = 0.05
	}
	if a&32 != 0 {
		set.RepetitionPenalty = 1.3
	}
	set.IgnoreEOS = b&64 != 0
	switch {
	case a&64 == 0 && b&4 != 0:
		set.Mode = sampler.LlamaCpp
		if b&16 != 0 {
			set.Mirostat, set.MirostatTau, set.MirostatEta = 1+int(b>>7), 3, 0.2
		}
		if b&32 != 0 {
			set.Sequence, set.DryMultiplier, set.DryBase, set.DryAllowedLength, set.DryPenaltyLastN = "dkt", 0.8, 1.75, 1, 32
		}
	case a&64 == 0 && b&8 != 0:
		set.Mode = sampler.HF
	case a&64 != 0:
		set.Mode = sampler.RunC
		if a&128 != 0 { // else keep what run.c lacks, which Validate refuses
			set.TopK, set.MinP, set.RepetitionPenalty = 0, 0, 1
		}
	}
	return set
}

// FuzzActions runs a sequence of actions — step, undo, force, edit, mask,
// set the sampler, re-run, reset, switch branch, delete branch — on a toy
// or stories260K session, with or without its ends masked from step 0
// (IgnoreEOS), and checks after each that New(s.Spec()) rebuilds the
// identical trace and tree and the same next decision, which Detail of
// the next step shows after Detail of another step. Each action takes
// four bytes: what, then its arguments. An action may fail (undo with no steps, a step after the end,
// refused settings, every token masked); the session must stay consistent
// all the same.
func FuzzActions(f *testing.F) {
	for _, seed := range []struct {
		stories, ignoreEOS bool
		actions            []byte
	}{
		{false, false, []byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}},
		{true, false, []byte{5, 9, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 2, 3, 0, 0, 0, 0, 0, 6, 0, 0, 0}},
		{true, false, []byte{5, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 77, 0, 3, 2, 100, 40, 5, 201, 1, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0}},
		{false, false, []byte{4, 0, 2, 0, 0, 0, 0, 0, 5, 65, 3, 0, 0, 0, 0, 0, 4, 1, 0, 0, 4, 1, 1, 0, 4, 1, 2, 0, 4, 1, 3, 0, 4, 1, 4, 0, 4, 1, 5, 0}},
		{true, false, []byte{5, 193, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0}},
		// llama.cpp mode with every filter, then Hugging Face's, forced, undone, re-run.
		{true, false, []byte{5, 61, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 77, 0, 0, 0, 0, 0, 5, 46, 9, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 3, 1, 5, 9, 7, 0, 0, 0}},
		// llama.cpp greedy on the toy model, a change of seed, Hugging Face greedy refused.
		{false, false, []byte{5, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 1, 5, 0, 0, 0, 0, 0, 5, 0, 8, 0, 0, 0, 0, 0}},
		// A tree: steps, two forks, a switch, a step, a delete, an undo.
		{true, false, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 44, 1, 0, 0, 0, 0, 2, 3, 45, 1, 8, 1, 0, 0, 0, 0, 0, 0, 9, 2, 0, 0, 1, 0, 0, 0}},
		// Ends masked: steps, an edit of EOS, BOS forced, an undo, llama.cpp mode.
		{true, true, []byte{0, 0, 0, 0, 3, 1, 2, 40, 0, 0, 0, 0, 2, 2, 1, 0, 1, 0, 0, 0, 5, 61, 4, 0, 0, 0, 0, 0}},
		// The end of text ignored from step 2, then not, then a rerun.
		{true, false, []byte{0, 0, 0, 0, 0, 0, 0, 0, 5, 1, 64, 0, 0, 0, 0, 0, 5, 1, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0}},
		// A fork at step 0, undone, then a switch: the path left keeps only its forced token.
		{false, false, []byte{0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 8, 1, 0, 0}},
	} {
		f.Add(seed.stories, seed.ignoreEOS, seed.actions)
	}
	f.Fuzz(func(t *testing.T, stories, ignoreEOS bool, actions []byte) {
		spec := session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings()}
		spec.Sampler.IgnoreEOS = ignoreEOS
		if stories {
			spec.Model, spec.Prompt = "stories260K", "Once upon a time"
		}
		s, err := session.New(spec, loadOnce)
		if err != nil {
			t.Fatal(err)
		}
		vocab := s.Model().Tokenizer.VocabSize()
		for n := 0; len(actions) >= 4 && n < maxActions; n, actions = n+1, actions[4:] {
			what, a, b, c := actions[0]%10, actions[1], actions[2], actions[3]
			steps := len(s.Trace().Steps)
			at := int(a) % (steps + 1) // a step taken, or the next one
			token := (int(b) | int(c)<<8) % vocab
			before := s.Spec()
			switch what {
			case 0:
				err = s.Step()
			case 1:
				err = s.Undo()
			case 2:
				err = s.Force(at, token)
			case 3:
				err = s.EditLogit(at, token, float64(int8(c))/4)
			case 4:
				err = s.EditLogit(at, token, math.Inf(-1))
			case 5:
				err = s.SetSampler(fuzzSettings(a, b))
				if err != nil && !reflect.DeepEqual(s.Spec(), before) {
					t.Fatalf("action %d: refused settings changed the spec: %v", n, err)
				}
			case 6:
				err = s.Rerun()
			case 7:
				err = s.Reset()
			case 8:
				_, err = s.Switch(int(a) % (len(s.Tree()) + 1))
			case 9:
				err = s.Delete(int(a) % (len(s.Tree()) + 1))
			}
			again, err2 := session.New(s.Spec(), loadOnce)
			if err2 != nil {
				t.Fatalf("action %d (%d, %v): New of the spec: %v\nspec %+v", n, what, err, err2, s.Spec())
			}
			if !reflect.DeepEqual(again.Trace(), s.Trace()) || !reflect.DeepEqual(again.Tree(), s.Tree()) {
				t.Fatalf("action %d (%d, %v): the spec rebuilds another trace\nspec %+v", n, what, err, s.Spec())
			}
			next, nextErr := s.Next()
			want, wantErr := again.Next()
			if !reflect.DeepEqual(next, want) || (nextErr == nil) != (wantErr == nil) ||
				nextErr != nil && errors.Is(nextErr, session.ErrStopped) != errors.Is(wantErr, session.ErrStopped) {
				t.Fatalf("action %d (%d, %v): the next step differs: %v / %v", n, what, err, nextErr, wantErr)
			}
			// A step taken shown between, as the page shows one: the next
			// step's kept decision stays what it was.
			if _, err := s.Detail(int(c) % (len(s.Trace().Steps) + 1)); err != nil && nextErr == nil {
				t.Fatalf("action %d (%d): Detail: %v", n, what, err)
			}
			if d, err := s.Detail(len(s.Trace().Steps)); nextErr == nil && (err != nil || !reflect.DeepEqual(d.Step, *next)) {
				t.Fatalf("action %d (%d): Detail of the next step is not Next's: %v", n, what, err)
			}
		}
	})
}
