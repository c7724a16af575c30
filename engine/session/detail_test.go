package session_test

import (
	"cmp"
	"errors"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/softmax"
)

// TestDetailOfPastSteps records the detail of every step while it is the
// next one (read from the live model), then checks that after many more
// steps, edits and forces, Detail of each past step (derived again from the
// compact trace) gives the same numbers bit for bit. A Detail is valid
// until the next Detail or change of the session, so the test keeps
// copies.
func TestDetailOfPastSteps(t *testing.T) {
	sampled := sampler.Settings{Temperature: 0.9, TopK: 40, TopP: 0.95, MinP: 0.01, RepetitionPenalty: 1.2, Seed: 7}
	llama := sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1.1, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1.1, Seed: 7}
	for _, tc := range []struct {
		name  string
		spec  session.Spec
		steps int
		act   func(s *session.Session, i int) error
	}{
		{"toy greedy", session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings()}, 6, nil},
		{"260K sampled, forced and edited", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampled}, 30,
			func(s *session.Session, i int) error {
				switch i {
				case 5:
					return s.EditLogit(i, 300, 20)
				case 9:
					return s.Force(i, 410)
				}
				return s.Step()
			}},
		// A change of settings commits nothing, so the test reads the next
		// step again before taking it, as after an edit of the next step.
		{"260K with the settings changed three times", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampled}, 30,
			func(s *session.Session, i int) error {
				switch i {
				case 8: // cooler, the generator kept
					set := sampled
					set.Temperature, set.TopK = 0.5, 10
					return s.SetSampler(set)
				case 14: // run.c, with another seed
					return s.SetSampler(sampler.Settings{Mode: sampler.RunC, Temperature: 1, TopP: 0.9, Seed: 99})
				case 20: // greedy
					return s.SetSampler(sampler.DefaultSettings())
				}
				return s.Step()
			}},
		{"260K in llama.cpp mode, forced and edited", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: llama}, 30,
			func(s *session.Session, i int) error {
				switch i {
				case 4:
					return s.EditLogit(i, 300, 20)
				case 9:
					return s.Force(i, 410)
				}
				return s.Step()
			}},
		{"260K from the chain to llama.cpp, Hugging Face and back", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampled}, 30,
			func(s *session.Session, i int) error {
				switch i {
				case 5: // llama.cpp, the seed kept: its generators start at the seed
					return s.SetSampler(llama)
				case 11: // greedy as llama.cpp does it: the generator still draws
					set := llama
					set.Temperature = 0
					return s.SetSampler(set)
				case 15: // Hugging Face, drawing from the xorshift where the chain left it
					return s.SetSampler(sampler.Settings{Mode: sampler.HF, Temperature: 1.2, TopK: 50, TopP: 0.9, RepetitionPenalty: 1.1, Seed: 7})
				case 20: // llama.cpp again: its generators go on from step 15
					return s.SetSampler(llama)
				case 25: // the chain, with another seed
					return s.SetSampler(sampler.Settings{Temperature: 1, Seed: 8})
				}
				return s.Step()
			}},
		{"260K with llama.cpp's mirostat v2, then DRY in a chain of its own", session.Spec{Model: "stories260K", Prompt: "Once upon a time",
			Sampler: sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, Seed: 7, LlamaSettings: sampler.LlamaSettings{Mirostat: 2, MirostatTau: 3, MirostatEta: 0.2}}}, 30,
			func(s *session.Session, i int) error {
				if i == 12 { // the generator goes on; mu is mirostat's only
					return s.SetSampler(sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1, TopK: 20, Seed: 7, LlamaSettings: sampler.LlamaSettings{Sequence: "edkt", DryMultiplier: 0.8, DryBase: 1.75, DryAllowedLength: 2, DryPenaltyLastN: 64}})
				}
				return s.Step()
			}},
		{"260K like run.c", session.Spec{Model: "stories260K", Prompt: "Lily", Sampler: sampler.Settings{Mode: sampler.RunC, Temperature: 1, TopP: 0.9, Seed: 3}}, 20, nil},
		{"worked example", workedExample, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Steps = 0
			s := newSession(t, spec)
			var live []*session.Detail
			for i := range tc.steps {
				live = append(live, kept(detail(t, s, i)))
				act := tc.act
				if act == nil {
					act = func(s *session.Session, _ int) error { return s.Step() }
				}
				if err := act(s, i); err != nil {
					t.Fatal(err)
				}
				if len(s.Trace().Steps) == i { // an edit of the next step commits nothing
					live[i] = kept(detail(t, s, i))
					if err := s.Step(); err != nil {
						t.Fatal(err)
					}
				}
				if i == 9 && strings.HasSuffix(tc.name, "forced and edited") { // the force changed step 9 after it was read
					live[i] = nil
				}
			}
			steps := s.Trace().Steps
			for i, want := range live {
				got := detail(t, s, i)
				if got.Step.Token != steps[i].Token || !reflect.DeepEqual(got.Step, steps[i]) {
					t.Errorf("step %d: Detail's step differs from the trace's", i)
				}
				if got.Choice.Token != steps[i].Choice.Token || got.Choice.Softmax.Probs[steps[i].Token] != steps[i].Prob {
					t.Errorf("step %d: Detail's choice %d (p %v), the trace's %d (p %v)", i, got.Choice.Token,
						got.Choice.Softmax.Probs[steps[i].Token], steps[i].Choice.Token, steps[i].Prob)
				}
				if got.KV.Len() != steps[i].Pos+1 {
					t.Errorf("step %d: cache view of %d rows, want %d", i, got.KV.Len(), steps[i].Pos+1)
				}
				if want == nil {
					continue
				}
				if !slices.Equal(got.Logits, want.Logits) || !slices.Equal(got.Computed, want.Computed) ||
					!slices.Equal(got.Hidden, want.Hidden) || !reflect.DeepEqual(got.Attention, want.Attention) {
					t.Errorf("step %d: logits, hidden state or attention differ from when it was the next step", i)
				}
				if !reflect.DeepEqual(got.Choice, want.Choice) {
					t.Errorf("step %d: the recorded choice differs from when it was the next step", i)
				}
			}
			if _, err := s.Detail(len(steps) + 1); err == nil {
				t.Error("Detail of a step beyond the next one succeeded")
			}
		})
	}
}

// TestNextDecidesOnce: the sampler runs once for the next step however
// often it is read. Next keeps its decision, with every stage recorded,
// until the session changes: Detail of the next step shows it and Step
// takes it, neither running the sampler again — which in llama.cpp's and
// Hugging Face's modes allocates dozens of times, so that the
// allocations tell.
func TestNextDecidesOnce(t *testing.T) {
	mallocs := func(f func() error) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := f(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	for _, set := range []sampler.Settings{
		{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1, Seed: 5},
		{Mode: sampler.HF, Temperature: 1, TopK: 50, TopP: 0.9, Seed: 5},
	} {
		s := newSession(t, session.Spec{Model: "stories260K", Prompt: "Lily", Sampler: set, Steps: 5})
		n := len(s.Trace().Steps)
		if _, err := s.Detail(n - 1); err != nil { // Detail's memory grown
			t.Fatal(err)
		}
		deciding := mallocs(s.Step) // the decision made by Step
		next, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		shown := mallocs(func() error {
			_, err := s.Detail(n + 1)
			return err
		})
		if _, err := s.Detail(n); err != nil { // a step taken between
			t.Fatal(err)
		}
		again := mallocs(func() error {
			d, err := s.Detail(n + 1)
			if err == nil && (d.Step.Token != next.Token || d.Choice.Token != next.Token) {
				t.Errorf("%s: Detail shows token %d, Next %d", set.Mode, d.Step.Token, next.Token)
			}
			return err
		})
		taking := mallocs(s.Step)
		// The counts are the process's: the runtime's own work may add one
		// or two to them, while a decision made again adds dozens.
		if shown > 5 || again > 5 || taking >= deciding/2 {
			t.Errorf("%s: Detail of the next step allocated %d and %d times, Step taking the decision %d, making it %d",
				set.Mode, shown, again, taking, deciding)
		}
		if got := s.Trace().Steps[n+1]; got.Token != next.Token || !reflect.DeepEqual(got.Choice, next.Choice) || !reflect.DeepEqual(got.Top, next.Top) {
			t.Errorf("%s: Step took token %d, Next said %d", set.Mode, got.Token, next.Token)
		}
	}
}

// kept is a copy of d in memory of its own, which outlives d.
func kept(d *session.Detail) *session.Detail {
	k := *d
	k.Logits, k.Context, k.Computed, k.Hidden = slices.Clone(d.Logits), slices.Clone(d.Context), slices.Clone(d.Computed), slices.Clone(d.Hidden)
	k.Attention = make([][][]float32, len(d.Attention))
	for l, heads := range d.Attention {
		k.Attention[l] = make([][]float32, len(heads))
		for h, w := range heads {
			k.Attention[l][h] = slices.Clone(w)
		}
	}
	if d.Choice != nil {
		c := *d.Choice
		c.Stages = slices.Clone(c.Stages)
		for i := range c.Stages {
			st := &c.Stages[i]
			st.Removed, st.Changed, st.Logits, st.Probs = slices.Clone(st.Removed), slices.Clone(st.Changed), slices.Clone(st.Logits), slices.Clone(st.Probs)
		}
		if c.Draw != nil {
			dr := *c.Draw
			dr.Order, dr.CDF = slices.Clone(dr.Order), slices.Clone(dr.CDF)
			c.Draw = &dr
		}
		if c.Softmax != nil {
			sm := *c.Softmax
			sm.Logits, sm.Scaled, sm.Shifted, sm.Exp, sm.Probs = slices.Clone(sm.Logits), slices.Clone(sm.Scaled), slices.Clone(sm.Shifted), slices.Clone(sm.Exp), slices.Clone(sm.Probs)
			c.Softmax = &sm
		}
		k.Choice = &c
	}
	return &k
}

// TestTextIsDecodedContext checks that the text, built a piece per step,
// is the tokenizer's decoding of the whole context.
func TestTextIsDecodedContext(t *testing.T) {
	s := newSession(t, session.Spec{Model: "stories260K", Prompt: "Once upon a time", Steps: 200,
		Sampler: sampler.Settings{Temperature: 1, Seed: 11}})
	var ids []int
	for _, p := range s.Trace().Prompt {
		ids = append(ids, p.ID)
	}
	for _, st := range s.Trace().Steps {
		ids = append(ids, st.Token)
	}
	if got, want := s.Trace().Text, s.Model().Tokenizer.Decode(ids); got != want {
		t.Errorf("text %q\nwant %q", got, want)
	}
}

// TestTraceIsCompact checks that a step costs about a kilobyte (its stage
// summaries, the draw, the growing text), not vectors as long as the
// vocabulary: a trace that kept them took 60 KB a step here.
func TestTraceIsCompact(t *testing.T) {
	spec := session.Spec{Model: "stories260K", Prompt: "Once upon a time",
		Sampler: sampler.Settings{Temperature: 0.8, TopK: 40, TopP: 0.9, MinP: 0.05, RepetitionPenalty: 1.1, Seed: 5}}
	s := newSession(t, spec)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 400 {
		if err := s.Step(); errors.Is(err, session.ErrStopped) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	steps := len(s.Trace().Steps)
	perStep := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(steps)
	if steps < 100 || perStep > 2048 {
		t.Errorf("%d steps, %d bytes of heap per step", len(s.Trace().Steps), perStep)
	}
}

// TestDetailContext checks that a step's detail carries the context its
// sampler read: the prompt, then the tokens of the steps before it.
func TestDetailContext(t *testing.T) {
	s, err := session.New(session.Spec{Model: "stories260K", Prompt: "Once upon a time",
		Sampler: sampler.Settings{Temperature: 1, RepetitionPenalty: 1.3, Seed: 5}, Steps: 6}, loadOnce)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, p := range s.Trace().Prompt {
		want = append(want, p.ID)
	}
	for i := 0; i <= len(s.Trace().Steps); i++ {
		d, err := s.Detail(i)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.Context, want) {
			t.Errorf("step %d read %v, want %v", i, d.Context, want)
		}
		if i < len(s.Trace().Steps) {
			want = append(want, s.Trace().Steps[i].Token)
		}
	}
}

// TestStepMeasures checks what each step records for the timeline against
// its distribution derived again by Detail: the chosen token's
// log-probability and surprise, the entropy and the rank, counted here by
// sorting the whole distribution.
func TestStepMeasures(t *testing.T) {
	sampled := sampler.Settings{Temperature: 0.9, TopK: 40, TopP: 0.95, Seed: 7}
	for _, tc := range []struct {
		name  string
		spec  session.Spec
		force int // a step whose token is forced to the distribution's least likely, or -1
	}{
		{"worked example", workedExample, -1},
		{"toy greedy", session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 6}, -1},
		{"260K sampled, one step forced", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampled, Steps: 20}, 7},
		{"260K in llama.cpp mode", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Steps: 10,
			Sampler: sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1.1, TopK: 40, Seed: 7}}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, tc.spec)
			if tc.force >= 0 {
				probs := detail(t, s, tc.force).Choice.Softmax.Probs
				if err := s.Force(tc.force, slices.Index(probs, slices.Min(probs))); err != nil {
					t.Fatal(err)
				}
			}
			for i, st := range s.Trace().Steps {
				probs := detail(t, s, i).Choice.Softmax.Probs
				if st.LogProb != math.Log(probs[st.Token]) || st.Surprise() != -st.LogProb {
					t.Errorf("step %d: log p = %v, surprise %v, want ln %v", i, st.LogProb, st.Surprise(), probs[st.Token])
				}
				if want := softmax.Entropy(probs); st.Entropy != want || !(want >= 0 && want <= math.Log(float64(len(probs)))) {
					t.Errorf("step %d: entropy %v, want %v, in [0, ln %d]", i, st.Entropy, want, len(probs))
				}
				ranked := make([]int, len(probs))
				for id := range ranked {
					ranked[id] = id
				}
				slices.SortStableFunc(ranked, func(a, b int) int { return cmp.Compare(probs[b], probs[a]) })
				if want := slices.Index(ranked, st.Token) + 1; st.Rank != want {
					t.Errorf("step %d: rank %d, want %d", i, st.Rank, want)
				}
				if i == tc.force && st.Rank < len(probs)/2 {
					t.Errorf("step %d: the least likely token forced has rank %d of %d", i, st.Rank, len(probs))
				}
			}
		})
	}
}

// TestDetailLens checks the logit lens Detail carries once asked for:
// a layer each, and at the last layer the top k of the softmax of the
// model's own logits (at temperature 1, before edits), for past steps, an
// edited one and the next; and nothing when not asked for.
func TestDetailLens(t *testing.T) {
	const k = 6
	for _, spec := range []session.Spec{
		{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 4},
		{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampler.Settings{Temperature: 0.7, TopK: 20, Seed: 3}, Steps: 12,
			Edits: []session.Edit{{Step: 4, Token: 300, Logit: 30}}},
	} {
		s := newSession(t, spec)
		if d := detail(t, s, 0); d.Lens != nil {
			t.Errorf("%s: a lens nobody asked for", spec.Model)
		}
		if err := s.KeepLens(k); err != nil {
			t.Fatal(err)
		}
		layers := s.Transformer().Config.Layers
		for i := range len(s.Trace().Steps) + 1 {
			d := detail(t, s, i)
			if len(d.Lens) != layers {
				t.Fatalf("%s step %d: %d lens layers, want %d", spec.Model, i, len(d.Lens), layers)
			}
			probs := make([]float64, len(d.Computed))
			if _, _, err := softmax.Probs(probs, d.Computed, 1); err != nil {
				t.Fatal(err)
			}
			last := d.Lens[layers-1]
			top := softmax.Top(probs, k, nil)
			if last.Layer != layers-1 || len(last.Top) != len(top) {
				t.Fatalf("%s step %d: last lens layer %+v", spec.Model, i, last)
			}
			for j, id := range top {
				if last.Top[j].Token != id || last.Top[j].P != probs[id] {
					t.Errorf("%s step %d: lens top %d is %+v, the step's softmax has %d (p %v)", spec.Model, i, j, last.Top[j], id, probs[id])
				}
			}
		}
	}
	if err := newSession(t, session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings()}).KeepLens(-1); err == nil {
		t.Error("KeepLens(-1) succeeded")
	}
}
