package play

import (
	"math"
	"strings"
	"testing"
	"time"

	"nexttoken/engine/catalog"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

func toy() session.Spec { return catalog.Default() }

func stories(temperature float64) session.Spec {
	return session.Spec{Model: "stories260K", Prompt: "Once upon a time",
		Sampler: sampler.Settings{Temperature: temperature, Seed: 3}}
}

func worked() session.Spec {
	m, _ := catalog.Lookup(session.LogitsModel)
	return m.Spec(sampler.DefaultSettings())
}

// TestRules runs each rule of the package documentation as a sequence of
// actions and checks the snapshot it leaves.
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spec  session.Spec
		do    func(r *rig)
		check func(t *testing.T, r *rig, s Snapshot)
	}{
		{"a step shows the next step", toy(), func(r *rig) { r.c.Step(); r.c.Step() },
			func(t *testing.T, r *rig, s Snapshot) {
				if s.Steps() != 2 || s.Shown != 2 || r.text() != "The cat sat on" {
					t.Errorf("%d steps, shown %d, text %q", s.Steps(), s.Shown, r.text())
				}
			}},
		{"→ on a past step moves to the next, not a new step", toy(), func(r *rig) {
			r.c.Step()
			r.c.Step()
			r.c.Select(0)
			r.c.Press(Key{Name: "ArrowRight"})
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Steps() != 2 || s.Shown != 1 {
				t.Errorf("%d steps, shown %d; want 2 steps, step 1 shown", s.Steps(), s.Shown)
			}
		}},
		{"→ on the next step takes it", toy(), func(r *rig) { r.c.Press(Key{Name: "ArrowRight"}) },
			func(t *testing.T, r *rig, s Snapshot) {
				if s.Steps() != 1 || s.Shown != 1 {
					t.Errorf("%d steps, shown %d", s.Steps(), s.Shown)
				}
			}},
		{"← moves back through the history, not Undo", toy(), func(r *rig) {
			r.c.Step()
			r.c.Step()
			r.c.Press(Key{Name: "ArrowLeft"})
			r.c.Press(Key{Name: "ArrowLeft"})
			r.c.Press(Key{Name: "ArrowLeft"}) // at step 0: nothing
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Steps() != 2 || s.Shown != 0 {
				t.Errorf("%d steps, shown %d; want 2 steps, step 0 shown", s.Steps(), s.Shown)
			}
		}},
		{"Ctrl+Z undoes, Shift+Ctrl+Z redoes", toy(), func(r *rig) {
			r.c.Step()
			r.c.Step()
			r.c.Press(Key{Name: "z", Ctrl: true})
			r.c.Press(Key{Name: "z", Ctrl: true})
			r.c.Press(Key{Name: "Z", Ctrl: true, Shift: true})
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Steps() != 1 || !s.CanUndo || !s.CanRedo {
				t.Errorf("%d steps, undo %v, redo %v; want 1 step, both", s.Steps(), s.CanUndo, s.CanRedo)
			}
		}},
		{"a setting stays the user's across a fork at an earlier step", stories(0.8), func(r *rig) {
			for range 5 {
				r.c.Step()
			}
			r.c.SetSetting("temperature", 1.2)
			r.c.Select(2)
			r.c.EditLogit(2, 100, 5)
			r.c.Step()
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Settings.Temperature != 1.2 {
				t.Errorf("after the fork the temperature is %v, want the user's 1.2", s.Settings.Temperature)
			}
			if s.Steps() != 4 || s.Session.Spec.SamplerAt(3).Temperature != 1.2 {
				t.Errorf("%d steps; step 3 taken at T = %v, want 1.2", s.Steps(), s.Session.Spec.SamplerAt(3).Temperature)
			}
			if len(s.Session.Tree) != 2 {
				t.Errorf("%d paths, want the fork's 2", len(s.Session.Tree))
			}
		}},
		{"a fork says when its own settings differed", stories(0.8), func(r *rig) {
			for range 3 {
				r.c.Step()
			}
			r.c.SetSetting("temperature", 1.2)
			r.c.Force(1, 100)
		}, func(t *testing.T, r *rig, s Snapshot) {
			contains(t, "the note", s.Note, "current settings: temperature 1.2 where it was 0.8")
			if s.Settings.Temperature != 1.2 || s.Steps() != 2 {
				t.Errorf("T %v, %d steps", s.Settings.Temperature, s.Steps())
			}
		}},
		{"a switch of branch keeps the current settings", stories(0.8), func(r *rig) {
			for range 3 {
				r.c.Step()
			}
			r.c.Force(1, 100)
			r.c.SetSetting("temperature", 1.5)
			r.c.Switch(1)
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Settings.Temperature != 1.5 || s.Steps() != 3 {
				t.Errorf("after the switch: T %v, %d steps; want 1.5, 3", s.Settings.Temperature, s.Steps())
			}
			contains(t, "the note", s.Note, "Switched")
		}},
		{"a setting applies from the next step", stories(0.8), func(r *rig) {
			r.c.Step()
			r.c.Step()
			r.c.SetSetting("temperature", 1.5)
			r.c.Step()
		}, func(t *testing.T, r *rig, s Snapshot) {
			spec := s.Session.Spec
			if spec.SamplerAt(1).Temperature != 0.8 || spec.SamplerAt(2).Temperature != 1.5 || s.Rerun != 3 {
				t.Errorf("steps at T %v and %v, rerun %d", spec.SamplerAt(1).Temperature, spec.SamplerAt(2).Temperature, s.Rerun)
			}
		}},
		{"typing a prompt is one gesture for Undo", toy(), func(r *rig) {
			for range 3 {
				r.c.Step()
			}
			for _, text := range []string{"The", "The m", "The mat"} {
				r.c.SetPrompt(text)
				r.host.wait(100 * time.Millisecond)
			}
			r.host.wait(PromptPause) // a pause: the session follows
			if r.c.sum.Spec.Prompt != "The mat" || r.c.sum.Steps() != 0 {
				r.t.Errorf("after the pause: prompt %q, %d steps", r.c.sum.Spec.Prompt, r.c.sum.Steps())
			}
			r.c.SetPrompt("The mat sat")
			r.c.EndPrompt()
			r.c.Undo()
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Session.Spec.Prompt != "The cat" || s.Steps() != 3 || s.Prompt != "The cat" {
				t.Errorf("one Undo gave prompt %q (field %q) and %d steps; want The cat and its 3 steps", s.Session.Spec.Prompt, s.Prompt, s.Steps())
			}
		}},
		{"a keystroke does not touch the steps before the pause", toy(), func(r *rig) {
			r.c.Step()
			r.c.SetPrompt("The")
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Steps() != 1 || s.Prompt != "The" {
				t.Errorf("%d steps, field %q", s.Steps(), s.Prompt)
			}
		}},
		{"a prompt that cannot run leaves the session", toy(), func(r *rig) {
			r.c.Step()
			r.c.SetPrompt("The zebra")
			r.c.EndPrompt()
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Steps() != 1 || s.Session.Spec.Prompt != "The cat" || s.Prompt != "The zebra" || s.PromptError == "" {
				t.Errorf("%d steps, prompt %q, field %q, error %q", s.Steps(), s.Session.Spec.Prompt, s.Prompt, s.PromptError)
			}
		}},
		{"another action commits the prompt typed", toy(), func(r *rig) {
			r.c.SetPrompt("The mat")
			r.c.Step()
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Session.Spec.Prompt != "The mat" || s.Steps() != 1 {
				t.Errorf("prompt %q, %d steps", s.Session.Spec.Prompt, s.Steps())
			}
		}},
		{"a bad value is refused by its field and goes when it is fixed", stories(0.8), func(r *rig) {
			r.c.SetSetting("top_p", 2)
			if f := r.c.Snapshot().Field; f.Field != "top_p" {
				r.t.Errorf("field error %+v, want top_p's", f)
			}
			r.c.SetSetting("top_p", 0.9)
		}, func(t *testing.T, r *rig, s Snapshot) {
			r.wantNoMessages()
			if s.Settings.TopP != 0.9 {
				t.Errorf("top-p %v", s.Settings.TopP)
			}
		}},
		{"a field's error goes when another field is edited", stories(0.8), func(r *rig) {
			r.c.SetSetting("top_p", 2)
			r.c.SetSetting("temperature", 1)
		}, func(t *testing.T, r *rig, s Snapshot) { r.wantNoMessages() }},
		{"a logit out of range is refused by its field", worked(), func(r *rig) {
			r.c.EditLogit(0, 1, 1e300)
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Field.Field != LogitField(1) || len(s.Session.Spec.Edits) != 0 {
				t.Errorf("field %+v, edits %v", s.Field, s.Session.Spec.Edits)
			}
		}},
		{"a slider drag is one action for Undo", stories(0.8), func(r *rig) {
			r.c.BeginGesture()
			for _, v := range []float64{0.9, 1, 1.1, 1.2} {
				r.c.SetSetting("temperature", v)
			}
			r.c.EndGesture()
			r.c.Undo()
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Settings.Temperature != 0.8 || s.CanUndo {
				t.Errorf("T %v, can undo %v: want 0.8 and nothing more to undo", s.Settings.Temperature, s.CanUndo)
			}
		}},
		{"Run takes its steps, one action for Undo", stories(1), func(r *rig) {
			r.c.SetRunSteps("40")
			r.c.Run()
			r.settle()
			if n := r.c.sum.Steps(); n != 40 {
				r.t.Errorf("Run took %d steps, want 40", n)
			}
			r.c.Undo()
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Steps() != 0 || s.Running {
				t.Errorf("%d steps, running %v", s.Steps(), s.Running)
			}
		}},
		{"Run's number of steps is checked", toy(), func(r *rig) { r.c.SetRunSteps("0") },
			func(t *testing.T, r *rig, s Snapshot) {
				if s.Field.Field != FieldRun || s.RunSteps != DefaultRunSteps {
					t.Errorf("field %+v, run steps %d", s.Field, s.RunSteps)
				}
			}},
		{"Undo restores the step on display", toy(), func(r *rig) {
			r.c.Step()
			r.c.Step()
			r.c.Select(1)
			r.c.Step()
			r.c.Undo()
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Steps() != 2 || s.Shown != 1 {
				t.Errorf("%d steps, shown %d; want 2 steps, step 1 shown", s.Steps(), s.Shown)
			}
		}},
		{"a past step's context is its own, not the session's end", toy(), func(r *rig) {
			for range 3 {
				r.c.Step()
			}
			r.c.Select(1)
		}, func(t *testing.T, r *rig, s Snapshot) {
			if got := s.Context(s.Shown); !strings.HasSuffix(got, "sat") || strings.Contains(got, "on") {
				t.Errorf("step 1's context %q, want the prompt and sat", got)
			}
		}},
		{"the detail follows the step on display", toy(), func(r *rig) {
			r.c.Step()
			r.c.Step()
			r.c.Select(0)
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Detail == nil || s.Detail.Index != 0 {
				t.Fatalf("detail %+v, want step 0's", s.Detail)
			}
		}},
		{"the lens is derived while its card is open", stories(0), func(r *rig) { r.c.SetLensOpen(true) },
			func(t *testing.T, r *rig, s Snapshot) {
				if s.Detail == nil || len(s.Detail.Lens) == 0 {
					t.Errorf("no lens in the detail")
				}
			}},
		{"recompute measures the step on display", stories(0), func(r *rig) {
			r.c.Step()
			r.c.SetRecompute(true)
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.Recomputed == nil || !s.Recomputed.Identical || len(s.Times) != 1 {
				t.Errorf("recomputed %+v, %d times", s.Recomputed, len(s.Times))
			}
		}},
		{"recompute switched off and on measures again", stories(0), func(r *rig) {
			r.c.Step()
			r.c.SetRecompute(true)
			first := r.c.Snapshot().Recomputed
			r.c.SetRecompute(false)
			r.c.SetRecompute(true)
			if again := r.c.Snapshot().Recomputed; again == nil || again == first {
				r.t.Errorf("switched on again, the card shows the first measurement %p (now %p)", first, again)
			}
		}, func(t *testing.T, r *rig, s Snapshot) {
			if len(s.Times) != 1 {
				t.Errorf("%d times, want the position's latest alone", len(s.Times))
			}
		}},
		{"a link naming a runtime opens with its defaults", toy(), func(r *rig) {
			r.c.OpenAddress("model=stories260K&sampler=hf&temperature=0.7", "")
		}, func(t *testing.T, r *rig, s Snapshot) {
			if set := s.Settings; set.Mode != sampler.HF || set.Temperature != 0.7 || set.TopK != 50 || s.Notice != "" {
				t.Errorf("settings %+v, notice %q", set, s.Notice)
			}
		}},
		{"a damaged link keeps what it can and says what it dropped", toy(), func(r *rig) {
			r.c.OpenAddress("model=stories260K&temperature=abc&steps=3&at=9", "s1.AAN0b3kHVGhlIGNhdANhbGwABWNoYWluAAAAAAAAAAIAKgAAAA&fbclid=x")
		}, func(t *testing.T, r *rig, s Snapshot) {
			contains(t, "the notice", s.Notice, "temperature", "abc", "step 9")
			for _, internal := range []string{"sampler:", "step -1", "does not exist"} {
				if strings.Contains(s.Notice, internal) {
					t.Errorf("the notice %q has internal text %q", s.Notice, internal)
				}
			}
		}},
		{"keep going past the end of text takes the last step again, one action", stories(1), func(r *rig) {
			r.c.SetRunSteps("512")
			r.c.Run()
			r.settle()
			if !r.c.CanKeepGoing() {
				r.t.Fatalf("the run ended with %q, not at the end of a text", r.c.Snapshot().Stopped())
			}
			ended := r.c.sum.Steps()
			r.c.KeepGoing()
			r.settle()
			if s := r.c.Snapshot(); s.Steps() != ended || !s.CanStep() || !s.Settings.IgnoreEOS {
				r.t.Errorf("after KeepGoing: %d steps (ended at %d), can step %v, ignore EOS %v", s.Steps(), ended, s.CanStep(), s.Settings.IgnoreEOS)
			}
			r.c.Undo()
		}, func(t *testing.T, r *rig, s Snapshot) {
			if s.CanStep() || !s.CanKeepGoing {
				t.Errorf("one Undo after KeepGoing: can step %v; want the ended session back", s.CanStep())
			}
		}},
		{"a decoding of a runtime takes its defaults", stories(0), func(r *rig) { r.c.SetDecoding(LlamaCpp) },
			func(t *testing.T, r *rig, s Snapshot) {
				set := s.Settings
				if set.Temperature != 0.8 || set.TopK != 40 || set.TopP != 0.95 || set.MinP != 0.05 {
					t.Errorf("llama.cpp decoding: %+v", set)
				}
			}},
		{"all logits masked keeps the logits on display", worked(), func(r *rig) {
			for id := range 6 {
				r.c.EditLogit(0, id, math.Inf(-1))
			}
		}, func(t *testing.T, r *rig, s Snapshot) {
			if len(s.Session.Spec.Edits) != 6 {
				t.Errorf("%d edits, want 6", len(s.Session.Spec.Edits))
			}
			if s.CanStep() || !strings.Contains(s.Stopped(), "every token is masked") {
				t.Errorf("can step %v, stopped %q", s.CanStep(), s.Stopped())
			}
			if d := s.Detail; d == nil || d.Choice != nil || d.Unsampled == nil || d.Vocab != 6 || len(d.Rows) != 6 {
				t.Errorf("detail %+v: want the logits, no choice and why", d)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.spec)
			tc.do(r)
			r.settle()
			tc.check(t, r, r.snap())
		})
	}
}
