package session_test

import (
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

var sampled = sampler.Settings{Temperature: 0.9, TopK: 40, TopP: 0.95, RepetitionPenalty: 1.1, Seed: 7}

func force(i, token int) func(*session.Session) error {
	return func(s *session.Session) error { return s.Force(i, token) }
}

func switchTo(id int) func(*session.Session) error {
	return func(s *session.Session) error { _, err := s.Switch(id); return err }
}

func steps(n int) func(*session.Session) error {
	return func(s *session.Session) error {
		for range n {
			if err := s.Step(); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestTreeFromSpec builds trees by actions and checks that New of the
// session's Spec grows the same tree: the same spec, trace and paths,
// every path's steps equal to those the path gives when it is the
// session's, and its log-probability their Σ ln p.
func TestTreeFromSpec(t *testing.T) {
	for _, tc := range []struct {
		name     string
		spec     session.Spec
		actions  []func(*session.Session) error
		branches int
	}{
		{"toy fork keeps the path", session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 4},
			[]func(*session.Session) error{force(1, 5)}, 1},
		{"the same force twice is one branch", session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 4},
			[]func(*session.Session) error{force(1, 5), switchTo(1), force(1, 5)}, 1},
		{"260K branch of a branch, switched", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampled, Steps: 12},
			[]func(*session.Session) error{force(3, 300), steps(8), force(7, 410), steps(3), switchTo(1), force(5, 20)}, 3},
		{"260K edit branches, undo keeps them", session.Spec{Model: "stories260K", Prompt: "Lily", Sampler: sampled, Steps: 10},
			[]func(*session.Session) error{
				func(s *session.Session) error { return s.EditLogit(4, 300, 25) }, steps(2),
				func(s *session.Session) error { return s.Undo() }, func(s *session.Session) error { return s.Undo() },
				func(s *session.Session) error { return s.Undo() }, func(s *session.Session) error { return s.Undo() },
				steps(1)}, 1},
		{"260K delete", session.Spec{Model: "stories260K", Prompt: "Lily", Sampler: sampled, Steps: 10},
			[]func(*session.Session) error{force(2, 300), steps(6), force(6, 301), switchTo(2), func(s *session.Session) error { return s.Delete(1) }}, 1},
		{"260K changes of settings in branches", session.Spec{Model: "stories260K", Prompt: "Lily", Sampler: sampled, Steps: 3},
			[]func(*session.Session) error{
				func(s *session.Session) error { set := sampled; set.Temperature = 0.3; return s.SetSampler(set) }, steps(5),
				force(2, 300), func(s *session.Session) error { set := sampled; set.Seed = 99; return s.SetSampler(set) }, steps(5),
				switchTo(1)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, tc.spec)
			for i, do := range tc.actions {
				if err := do(s); err != nil {
					t.Fatalf("action %d: %v", i, err)
				}
			}
			spec := s.Spec()
			if len(spec.Branches) != tc.branches {
				t.Errorf("%d branches, want %d: %+v", len(spec.Branches), tc.branches, spec.Branches)
			}
			again := newSession(t, spec)
			if !reflect.DeepEqual(again.Spec(), spec) || !reflect.DeepEqual(again.Trace(), s.Trace()) || !reflect.DeepEqual(again.Tree(), s.Tree()) {
				t.Fatalf("New of the spec grows another tree\nspec %+v\nagain %+v", spec, again.Spec())
			}
			for id, p := range s.Tree() {
				text, err := s.Text(id)
				if err != nil {
					t.Fatal(err)
				}
				alone := newSession(t, pathSpec(tc.spec, p, s.Tree()))
				sum := 0.0
				for _, st := range alone.Trace().Steps {
					sum += math.Log(st.Prob)
				}
				if got := alone.Trace(); got.Text != text || !reflect.DeepEqual(got.Steps[p.At:], p.Own) || sum != p.Prob {
					t.Errorf("path %d: text %q log p %v, alone %q log p %v", id, text, p.Prob, got.Text, sum)
				}
			}
		})
	}
}

// pathSpec is the spec of path p of tree alone, without a tree.
func pathSpec(base session.Spec, p session.Path, tree []session.Path) session.Spec {
	spec := base
	spec.Steps = p.Steps
	spec.Forced, spec.Edits, spec.Changes = p.Forced, p.Edits, p.Changes
	for at, from := p.At, p.From; from >= 0; at, from = tree[from].At, tree[from].From {
		q := tree[from]
		for _, f := range q.Forced {
			if f.Step < at {
				spec.Forced = append([]session.Force{f}, spec.Forced...)
			}
		}
		for _, e := range q.Edits {
			if e.Step < at {
				spec.Edits = append([]session.Edit{e}, spec.Edits...)
			}
		}
		for _, c := range q.Changes {
			if c.Step < at {
				spec.Changes = append([]session.Change{c}, spec.Changes...)
			}
		}
	}
	spec.Sampler = base.Sampler
	sortChanges(spec.Changes)
	return spec
}

func sortChanges(cs []session.Change) {
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			if cs[j].Step < cs[i].Step {
				cs[i], cs[j] = cs[j], cs[i]
			}
		}
	}
}

// TestSwitchBackAndForth switches between two branches: the traces are
// identical each time, and the cache is truncated to the shared steps and
// refilled with the rest.
func TestSwitchBackAndForth(t *testing.T) {
	s := newSession(t, session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampled, Steps: 40})
	first := *s.Trace()
	first.Steps = append([]session.Step(nil), first.Steps...)
	if err := s.Force(10, 300); err != nil {
		t.Fatal(err)
	}
	if err := steps(20)(s); err != nil {
		t.Fatal(err)
	}
	second := *s.Trace()
	second.Steps = append([]session.Step(nil), second.Steps...)
	prompt := len(first.Prompt)
	for i, want := range []session.Trace{first, second, first} {
		r, err := s.Switch(1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*s.Trace(), want) {
			t.Fatalf("switch %d: another trace", i)
		}
		// The shared steps 0 … 9 fed their tokens at positions up to
		// prompt+8; step 10's input, at prompt+9, is fed again.
		if r.Kept != prompt+9 || r.Kept+r.Refilled != s.Transformer().Cache.Len {
			t.Errorf("switch %d: kept %d refilled %d, cache %d", i, r.Kept, r.Refilled, s.Transformer().Cache.Len)
		}
	}
}

// TestTreeRules checks what the tree refuses and what clears it.
func TestTreeRules(t *testing.T) {
	base := session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 4}
	for _, tc := range []struct {
		name     string
		branches []session.Branch
		want     string
	}{
		{"from a later path", []session.Branch{{From: 1, At: 1, Steps: 2}}, "want a path before it"},
		{"beyond the steps", []session.Branch{{From: 0, At: 5, Steps: 6}}, "want 0 ≤ at ≤ 4"},
		{"an edit before its first step", []session.Branch{{From: 0, At: 2, Steps: 3, Forced: []session.Force{{Step: 1, Token: 2}}}}, "before the branch's first step"},
		{"a token outside the vocabulary", []session.Branch{{From: 0, At: 2, Steps: 3, Forced: []session.Force{{Step: 2, Token: 99}}}}, "branch 1: forced token 99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := base
			spec.Branches = tc.branches
			if _, err := session.New(spec, loadOnce); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	s := newSession(t, base)
	if err := s.Force(1, 5); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(0); err == nil {
		t.Error("deleted the session's own path")
	}
	if _, err := s.Switch(2); err == nil {
		t.Error("switched to a branch that does not exist")
	}
	if err := s.Reset(); err != nil || len(s.Tree()) != 1 {
		t.Errorf("reset: %v, %d paths", err, len(s.Tree()))
	}
}

// TestTreeMemory grows 20 branches of 64 steps on stories260K, each
// leaving the one before at a step of its own, and measures the heap the
// trees' steps take.
func TestTreeMemory(t *testing.T) {
	s := newSession(t, session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampled, Steps: 64})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b := range 20 {
		if err := s.Force(2+3*b, 300+b); err != nil {
			t.Fatal(err)
		}
		if err := steps(64 - len(s.Trace().Steps))(s); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	tree := s.Tree()
	kept := 0
	for _, p := range tree {
		kept += len(p.Own)
	}
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d paths of 64 steps, %d steps kept (not %d): the heap grew by %d bytes", len(tree), kept, 64*len(tree), grown)
	if len(tree) != 21 || kept >= 64*len(tree) {
		t.Errorf("%d paths, %d steps kept", len(tree), kept)
	}
	if grown > 10<<20 {
		t.Errorf("the tree takes %d bytes, more than 10 MB", grown)
	}
}

// BenchmarkSwitch switches back and forth between two paths of 64 steps of
// stories260K that part at step 9: each switch truncates the cache there
// and runs 56 steps again.
func BenchmarkSwitch(b *testing.B) {
	s, err := session.New(session.Spec{Model: "stories260K", Prompt: "Once upon a time", Steps: 64,
		Sampler:  sampler.Settings{Mode: sampler.Chain, Temperature: 1, Seed: 3},
		Branches: []session.Branch{{From: 0, At: 8, Steps: 64, Forced: []session.Force{{Step: 8, Token: 300}}}}}, loadOnce)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Switch(1); err != nil {
			b.Fatal(err)
		}
	}
}
