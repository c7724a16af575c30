package session_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/session"
)

// tokens returns the tokens a session chose, in order.
func tokens(s *session.Session) []int {
	var ids []int
	for _, st := range s.Trace().Steps {
		ids = append(ids, st.Token)
	}
	return ids
}

// firstDraw is the u that a generator seeded with seed draws first.
func firstDraw(seed uint64) float64 {
	r := sampler.NewRNG(seed)
	return float64(r.Float32())
}

// TestSetSampler checks what a change of settings does to a session five
// steps into sampling: the steps taken stay, the next one uses the new
// settings, and Spec records exactly the changes that matter.
func TestSetSampler(t *testing.T) {
	a := sampler.Settings{Mode: sampler.Chain, Temperature: 1, RepetitionPenalty: 1, Seed: 7}
	cooler, reseeded, runc := a, a, a
	cooler.Temperature = 0.5
	reseeded.Seed = 9
	runc.Mode, runc.RepetitionPenalty = sampler.RunC, 0
	base := newSession(t, session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: a, Steps: 5})
	plainNext, err := base.Next()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		steps   int                // taken before the changes
		set     []sampler.Settings // given to SetSampler in turn
		sampler sampler.Settings   // Spec.Sampler after
		changes []session.Change   // Spec.Changes after
		u       float64            // the next step's draw
	}{
		{"a cooler temperature keeps the generator", 5, []sampler.Settings{cooler}, a,
			[]session.Change{{Step: 5, Sampler: cooler}}, plainNext.Choice.Draw.U},
		{"another seed starts it afresh", 5, []sampler.Settings{reseeded}, a,
			[]session.Change{{Step: 5, Sampler: reseeded}}, firstDraw(9)},
		{"run.c mode keeps it", 5, []sampler.Settings{runc}, a,
			[]session.Change{{Step: 5, Sampler: runc}}, plainNext.Choice.Draw.U},
		{"the settings in force record nothing", 5, []sampler.Settings{a}, a, nil, plainNext.Choice.Draw.U},
		{"a second change replaces the first", 5, []sampler.Settings{reseeded, cooler}, a,
			[]session.Change{{Step: 5, Sampler: cooler}}, plainNext.Choice.Draw.U},
		{"changing back records nothing", 5, []sampler.Settings{reseeded, a}, a, nil, plainNext.Choice.Draw.U},
		{"before the first step, the spec's own", 0, []sampler.Settings{cooler, reseeded}, reseeded, nil, firstDraw(9)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: a, Steps: tc.steps})
			for _, set := range tc.set {
				if err := s.SetSampler(set); err != nil {
					t.Fatal(err)
				}
			}
			spec := s.Spec()
			if !slices.Equal(tokens(s), tokens(base)[:tc.steps]) {
				t.Errorf("tokens %v, want those taken before, %v", tokens(s), tokens(base)[:tc.steps])
			}
			if spec.Sampler != tc.sampler || !slices.Equal(spec.Changes, tc.changes) {
				t.Errorf("spec sampler %+v, changes %+v\nwant %+v, %+v", spec.Sampler, spec.Changes, tc.sampler, tc.changes)
			}
			last := tc.set[len(tc.set)-1]
			if s.Sampler(tc.steps) != last || tc.steps > 0 && s.Sampler(tc.steps-1) != a {
				t.Errorf("Sampler(%d) = %+v, want %+v; the step before %+v", tc.steps, s.Sampler(tc.steps), last, a)
			}
			next, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			if next.Choice.Draw == nil || next.Choice.Draw.U != tc.u {
				t.Errorf("next draw %+v, want u = %v", next.Choice.Draw, tc.u)
			}
		})
	}
}

// TestSetSamplerInvalid checks that bad settings are refused and change
// nothing.
func TestSetSamplerInvalid(t *testing.T) {
	s := newSession(t, session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 2})
	before := s.Spec()
	bad := sampler.DefaultSettings()
	bad.TopP = 2
	if err := s.SetSampler(bad); err == nil || !strings.Contains(err.Error(), "top_p") {
		t.Errorf("SetSampler(top_p 2) = %v", err)
	}
	if !reflect.DeepEqual(s.Spec(), before) {
		t.Errorf("a refused change changed the spec to %+v", s.Spec())
	}
}

// TestChangesAndTruncation checks that undo, a fork and a past edit drop
// the changes after the step they go back to, as they drop edits, and keep
// a change at that step, which the step re-run uses.
func TestChangesAndTruncation(t *testing.T) {
	a := sampler.Settings{Mode: sampler.Chain, Temperature: 1, RepetitionPenalty: 1, Seed: 7}
	b, c := a, a
	b.Temperature, c.Seed = 0.5, 3
	undo := func(n int) func(s *session.Session) error {
		return func(s *session.Session) error {
			for range n {
				if err := s.Undo(); err != nil {
					return err
				}
			}
			return nil
		}
	}
	both := []session.Change{{Step: 2, Sampler: b}, {Step: 4, Sampler: c}}
	for _, tc := range []struct {
		name string
		do   func(s *session.Session) error
		want []session.Change
	}{
		{"undo", undo(1), both},
		{"undo to step 4, whose change stays", undo(2), both},
		{"undo to step 3", undo(3), both[:1]},
		{"undo to step 1", undo(5), nil},
		{"force at 2", func(s *session.Session) error { return s.Force(2, 100) }, both[:1]},
		{"force at 1", func(s *session.Session) error { return s.Force(1, 100) }, nil},
		{"edit at 3", func(s *session.Session) error { return s.EditLogit(3, 100, 5) }, both[:1]},
		{"edit at 4", func(s *session.Session) error { return s.EditLogit(4, 100, 5) }, both},
		{"edit of the next step", func(s *session.Session) error { return s.EditLogit(6, 100, 5) }, both},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Steps 0–1 with a, 2–3 with b, 4–5 with c.
			s := newSession(t, session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: a, Steps: 2})
			for _, set := range []sampler.Settings{b, c} {
				if err := s.SetSampler(set); err != nil {
					t.Fatal(err)
				}
				for range 2 {
					if err := s.Step(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := tc.do(s); err != nil {
				t.Fatal(err)
			}
			if got := s.Spec().Changes; !slices.Equal(got, tc.want) {
				t.Errorf("changes %+v, want %+v", got, tc.want)
			}
			again := newSession(t, s.Spec())
			if !reflect.DeepEqual(s.Trace(), again.Trace()) {
				t.Error("the spec does not rebuild the trace")
			}
		})
	}
}

// TestRerun checks that Rerun gives the session the spec's new settings
// would have given from the start, keeping forced tokens and edits.
func TestRerun(t *testing.T) {
	a := sampler.Settings{Mode: sampler.Chain, Temperature: 1, RepetitionPenalty: 1, Seed: 7}
	b := a
	b.Temperature, b.TopK, b.Seed = 0.7, 20, 11
	s := newSession(t, session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: a, Steps: 3})
	if err := s.Force(1, 300); err != nil {
		t.Fatal(err)
	}
	if err := s.EditLogit(2, 42, 30); err != nil {
		t.Fatal(err)
	}
	for _, set := range []sampler.Settings{b, a, b} { // the last change is what counts
		if err := s.SetSampler(set); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := len(s.Trace().Steps)
	if err := s.SetSampler(b); err != nil { // what the next step uses already
		t.Fatal(err)
	}
	if err := s.Rerun(); err != nil {
		t.Fatal(err)
	}
	got := s.Spec()
	want := session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: b, Steps: steps,
		Forced: []session.Force{{Step: 1, Token: 300}}, Edits: []session.Edit{{Step: 2, Token: 42, Logit: 30}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("spec after Rerun %+v\nwant %+v", got, want)
	}
	fresh := newSession(t, want)
	if !reflect.DeepEqual(s.Trace(), fresh.Trace()) {
		t.Error("Rerun's trace differs from a session run with its settings from the start")
	}
	if st := s.Trace().Steps; st[1].Token != 300 || !st[1].Forced || !reflect.DeepEqual(st[2].Edited, []int{42}) {
		t.Errorf("the forced token or the edit was lost: %+v, %+v", st[1], st[2])
	}
}

// TestRerunStopsEarly re-runs greedily a sampled session longer than the
// greedy one, which ends with BOS: it stops there.
func TestRerunStopsEarly(t *testing.T) {
	s := newSession(t, session.Spec{Model: "stories260K", Sampler: sampler.Settings{Temperature: 1, Seed: 5}, Steps: 400})
	n := len(s.Trace().Steps)
	if err := s.SetSampler(sampler.DefaultSettings()); err != nil {
		t.Fatal(err)
	}
	if err := s.Rerun(); err != nil {
		t.Fatal(err)
	}
	// Greedy decoding from BOS chooses BOS after 346 steps (TestStopsAtEnd).
	if got := len(s.Trace().Steps); n <= 346 || got != 346 || s.Spec().Steps != 346 {
		t.Errorf("%d steps sampled, %d re-run greedily (spec %d), want 346", n, got, s.Spec().Steps)
	}
}

// TestResetKeepsSettings checks that Reset starts over with the settings
// the next step would have used.
func TestResetKeepsSettings(t *testing.T) {
	a := sampler.Settings{Mode: sampler.Chain, Temperature: 1, RepetitionPenalty: 1, Seed: 7}
	b := a
	b.Seed = 8
	s := newSession(t, session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: a, Steps: 3,
		Forced: []session.Force{{Step: 1, Token: 300}}})
	if err := s.SetSampler(b); err != nil {
		t.Fatal(err)
	}
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	want := session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: b}
	if got := s.Spec(); !reflect.DeepEqual(got, want) {
		t.Errorf("spec after Reset %+v, want %+v", got, want)
	}
	if next, err := s.Next(); err != nil || next.Choice.Draw.U != firstDraw(8) {
		t.Errorf("next step after Reset: %+v, %v; want the first draw of seed 8", next, err)
	}
}

// TestShownStageSettings: llama.cpp's defaults hold mirostat's and DRY's
// settings while both are off, to show them; the session takes them and
// samples as it does with them at 0.
func TestShownStageSettings(t *testing.T) {
	shown, err := compare.Defaults(sampler.LlamaCpp, 42)
	if err != nil {
		t.Fatal(err)
	}
	zero := shown.InMode(sampler.HF).InMode(sampler.LlamaCpp)
	if zero == shown {
		t.Fatal("llama.cpp's defaults show no setting of mirostat or DRY")
	}
	var want []int
	for _, set := range []sampler.Settings{zero, shown} {
		s := newSession(t, session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: set, Steps: 16})
		if want == nil {
			want = tokens(s)
		} else if got := tokens(s); !slices.Equal(got, want) {
			t.Errorf("with the stages' settings shown: %v, want %v", got, want)
		}
		if s.Spec().Sampler != set {
			t.Errorf("the session's settings %+v, want %+v", s.Spec().Sampler, set)
		}
	}
}
