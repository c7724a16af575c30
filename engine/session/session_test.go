package session_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/internal/expf"
	"nexttoken/engine/internal/sincosf"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/softmax"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/transformer"
	"nexttoken/web/models"
)

var workedExample = session.Spec{
	Model:   session.LogitsModel,
	Vocab:   []string{"The", "cat", "sat", "on", "the", "mat"},
	Logits:  []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5},
	Sampler: sampler.DefaultSettings(),
	Steps:   1,
}

func detail(t *testing.T, s *session.Session, i int) *session.Detail {
	t.Helper()
	d, err := s.Detail(i)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func newSession(t *testing.T, spec session.Spec) *session.Session {
	t.Helper()
	s, err := session.New(spec, models.Load)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWorkedExample checks the worked example's probabilities against a
// direct evaluation of e^ℓᵢ / Σ e^ℓⱼ, and the greedy choice.
func TestWorkedExample(t *testing.T) {
	s := newSession(t, workedExample)
	tr := s.Trace()
	if len(tr.Steps) != 1 {
		t.Fatalf("%d steps, want 1", len(tr.Steps))
	}
	step := tr.Steps[0]
	d := detail(t, s, 0)
	var z float64
	for _, l := range workedExample.Logits {
		z += math.Exp(l)
	}
	for i, l := range workedExample.Logits {
		if got, want := d.Choice.Softmax.Probs[i], math.Exp(l)/z; math.Abs(got-want) > 1e-12 {
			t.Errorf("p(%s) = %v, want %v", workedExample.Vocab[i], got, want)
		}
	}
	// The textbook's hand-rounded p("The") is 0.005; exact arithmetic says 0.0044.
	if p := d.Choice.Softmax.Probs[0]; math.Abs(p-0.0044) > 5e-5 {
		t.Errorf("p(The) = %v, want ≈ 0.0044", p)
	}
	if got, want := d.Choice.Softmax.Sum, z/math.Exp(3.1); math.Abs(got-want) > 1e-12 {
		t.Errorf("sum = %v, want %v", got, want)
	}
	if step.Token != 2 || step.Piece != "sat" {
		t.Errorf("chose %d %q, want 2 \"sat\"", step.Token, step.Piece)
	}
	if err := s.Step(); !errors.Is(err, session.ErrStopped) {
		t.Errorf("a second step of hand-typed logits: err = %v, want ErrStopped", err)
	}
}

// TestToyModel decodes the toy model greedily from "The cat".
func TestToyModel(t *testing.T) {
	s := newSession(t, session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 4})
	tr := s.Trace()
	if tr.Text != "The cat sat on the mat" {
		t.Errorf("text %q, want %q", tr.Text, "The cat sat on the mat")
	}
	for i, want := range []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5} {
		if got := detail(t, s, 0).Logits[i]; math.Abs(got-want) > 1e-4 {
			t.Errorf("logit %d after \"The cat\" = %v, want %v", i, got, want)
		}
	}
	for i, step := range tr.Steps {
		// The prompt fills positions 0 and 1; each step adds one row.
		if step.KVLen != 3+i || step.KVBytes != step.KVLen*s.Transformer().Cache.RowBytes() {
			t.Errorf("step %d: KV cache %d rows, %d bytes", i, step.KVLen, step.KVBytes)
		}
		if h := detail(t, s, i).Hidden; step.Pos != 1+i || len(h) != 4 {
			t.Errorf("step %d: pos %d, hidden %v", i, step.Pos, h)
		}
	}
}

type runcCase struct {
	Model       string
	Command     string
	Prompt      string
	Temperature float64
	TopP        float64 `json:"top_p"`
	Seed        uint64
	PromptIDs   []int `json:"prompt_ids"`
	Generated   []int
	Logits      string `json:"logits_fnv32"`
}

// TestRunCCompatible replays runs of llama2.c's run.c, recorded in
// testdata/runc.json by testdata/runcgen, on stories260K and on randmodel's
// checkpoint of stories15M's shape, and expects the same tokens and, at
// every position, logits with the same bits (by their hash). A stories15M
// case costs seconds, mostly run.c's matmul order and its top-p sort over a
// flat distribution of 32,000 tokens: -short replays its first 32 steps.
func TestRunCCompatible(t *testing.T) {
	data, err := os.ReadFile("testdata/runc.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct{ Cases []runcCase }
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	load := func(name string) (*session.Model, error) {
		if name == "stories15M-shape" {
			return stories15MShape() // as runcgen writes it for run.c
		}
		return models.Load(name)
	}
	for _, c := range ref.Cases {
		t.Run(c.Command, func(t *testing.T) {
			spec := session.Spec{
				Model: c.Model, Prompt: c.Prompt,
				Sampler: sampler.Settings{Mode: sampler.RunC, Temperature: c.Temperature, TopP: c.TopP, Seed: c.Seed},
			}
			s, err := session.New(spec, load)
			if err != nil {
				t.Fatal(err)
			}
			tr := s.Trace()
			var prompt, got []int
			for _, p := range tr.Prompt {
				prompt = append(prompt, p.ID)
			}
			if !reflect.DeepEqual(prompt, c.PromptIDs) {
				t.Fatalf("prompt ids %v, run.c %v", prompt, c.PromptIDs)
			}

			// The logits of every forward pass, in order: the prompt's
			// but the last from a transformer fed the prompt alone, then
			// the session's after prefill and after each step.
			want := strings.Fields(c.Logits)
			pos := 0
			check := func(logits []float32) {
				t.Helper()
				if h := logitsHash(logits); h != want[pos] {
					t.Errorf("position %d: logits hash %s, run.c %s", pos, h, want[pos])
				}
				pos++
			}
			alone := transformer.NewWith(s.Model().Checkpoint, transformer.Options{RunC: true})
			for p, id := range prompt[:len(prompt)-1] {
				logits, err := alone.Forward(id, p)
				if err != nil {
					t.Fatal(err)
				}
				check(logits)
			}
			check(s.Transformer().Latest().Logits())
			steps := len(c.Generated)
			if testing.Short() && c.Model == "stories15M-shape" {
				steps = 32
			}
			for range steps {
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
				// run.c -n stops short of the context after sampling
				// from its last position; the session feeds that token.
				if tr.Stop.Kind == session.Running && pos < len(want) {
					check(s.Transformer().Latest().Logits())
				}
			}
			if steps == len(c.Generated) && pos != len(want) {
				t.Errorf("%d forward passes, run.c made %d", pos, len(want))
			}
			for _, st := range tr.Steps {
				got = append(got, st.Token)
			}
			if !reflect.DeepEqual(got, c.Generated[:steps]) {
				t.Errorf("generated %v\nrun.c     %v", got, c.Generated)
			}
			// run.c stops after sampling BOS; so must we.
			if steps == len(c.Generated) && c.Generated[steps-1] == 1 && tr.Stop.Kind == session.Running {
				t.Errorf("no stop after BOS")
			}
		})
	}
}

// TestRunCArithmeticFollowsStep0 checks that the model's arithmetic is the
// step-0 settings': a session switched to run.c mode before its first step,
// and one reset into it, compute exactly as one started in it.
func TestRunCArithmeticFollowsStep0(t *testing.T) {
	runc := sampler.Settings{Mode: sampler.RunC, Temperature: 1, TopP: 0.9, Seed: 3}
	spec := session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: runc, Steps: 20}
	want := newSession(t, spec)

	chain := spec
	chain.Sampler, chain.Steps = sampler.DefaultSettings(), 0
	switched := newSession(t, chain)
	reset := newSession(t, chain)
	if err := switched.SetSampler(runc); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*session.Session{switched, reset} {
		if s == reset {
			for _, do := range []func() error{s.Step, func() error { return s.SetSampler(runc) }, s.Reset} {
				if err := do(); err != nil {
					t.Fatal(err)
				}
			}
		}
		for range spec.Steps {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(s.Trace(), want.Trace()) || !reflect.DeepEqual(s.Spec(), want.Spec()) {
			t.Errorf("trace or spec differs from a session started in run.c mode")
		}
		if got, w := s.Transformer().Latest().Logits(), want.Transformer().Latest().Logits(); !reflect.DeepEqual(got, w) {
			t.Errorf("logits differ from a session started in run.c mode")
		}
	}
}

// TestRunCRoPE recomputes every rotation of run.c's RoPE for even head
// sizes up to 128 and positions below 4096, as the transformer does, and
// expects the hash of glibc's values that runcgen recorded: powf, cosf and
// sinf agree bit for bit over every input run.c gives them there.
func TestRunCRoPE(t *testing.T) {
	data, err := os.ReadFile("testdata/runc.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		RoPE string `json:"rope_fnv32"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	h := fnv.New32a()
	var b [4]byte
	add := func(f float32) {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(f))
		h.Write(b[:])
	}
	for hs := 2; hs <= 128; hs += 2 {
		for hd := 0; hd < hs; hd += 2 {
			freq := 1 / expf.Pow(10000, float32(hd)/float32(hs))
			add(freq)
			for pos := range 4096 {
				angle := float32(pos) * freq
				add(sincosf.Cos(angle))
				add(sincosf.Sin(angle))
			}
		}
	}
	if got := fmt.Sprintf("%08x", h.Sum32()); got != ref.RoPE {
		t.Errorf("RoPE hash %s, run.c's glibc %s", got, ref.RoPE)
	}
}

// logitsHash is runcgen's hash of one position's logits: FNV-1a, 32 bits,
// of the float32 values as little-endian bytes, in hex.
func logitsHash(logits []float32) string {
	h := fnv.New32a()
	var b [4]byte
	for _, v := range logits {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		h.Write(b[:])
	}
	return fmt.Sprintf("%08x", h.Sum32())
}

// edit is one user action on a session.
type edit struct {
	name string
	do   func(*session.Session) error
}

func step(s *session.Session) error { return s.Step() }

// setSampler changes the settings of the next step by edit.
func setSampler(edit func(*sampler.Settings)) func(*session.Session) error {
	return func(s *session.Session) error {
		set := s.Sampler(len(s.Trace().Steps))
		edit(&set)
		return s.SetSampler(set)
	}
}
func undo(s *session.Session) error { return s.Undo() }

// TestSpecReproducesTrace applies sequences of actions and checks that a new
// session built from the resulting Spec — also after a JSON round trip —
// has an identical trace.
func TestSpecReproducesTrace(t *testing.T) {
	sampled := sampler.Settings{Temperature: 0.9, TopK: 40, TopP: 0.95, MinP: 0.01, RepetitionPenalty: 1.2, Seed: 7}
	for _, tc := range []struct {
		name    string
		spec    session.Spec
		actions []edit
	}{
		{"toy greedy steps and undo", session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings()},
			[]edit{{"step", step}, {"step", step}, {"undo", undo}, {"step", step}}},
		{"toy fork", session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 3},
			[]edit{{"force mat at 1", func(s *session.Session) error { return s.Force(1, 5) }}, {"step", step}}},
		{"260K sampled with edits", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampled, Steps: 10},
			[]edit{
				{"edit", func(s *session.Session) error { return s.EditLogit(3, 300, 25) }},
				{"step", step}, {"step", step},
				{"force", func(s *session.Session) error { return s.Force(2, 410) }},
				{"step", step},
				{"mask", func(s *session.Session) error { return s.EditLogit(4, 432, math.Inf(-1)) }},
				{"undo", undo},
			}},
		{"260K reset", session.Spec{Model: "stories260K", Prompt: "Lily", Sampler: sampled, Steps: 5},
			[]edit{{"reset", func(s *session.Session) error { return s.Reset() }}, {"step", step}}},
		{"worked example edit", workedExample,
			[]edit{{"edit cat", func(s *session.Session) error { return s.EditLogit(0, 1, 4) }}}},
		{"260K settings changed along the way", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: sampled, Steps: 4},
			[]edit{
				{"cooler", setSampler(func(s *sampler.Settings) { s.Temperature = 0.3 })}, {"step", step}, {"step", step},
				{"reseed", setSampler(func(s *sampler.Settings) { s.Seed = 1234 })}, {"step", step},
				{"run.c", setSampler(func(s *sampler.Settings) { *s = sampler.Settings{Mode: sampler.RunC, Temperature: 1.2, Seed: 1234} })},
				{"step", step}, {"step", step},
				{"force", func(s *session.Session) error { return s.Force(5, 7) }},
				{"edit", func(s *session.Session) error { return s.EditLogit(6, 20, 9) }},
				{"greedy", setSampler(func(s *sampler.Settings) { *s = sampler.DefaultSettings() })}, {"step", step},
				{"undo", undo},
			}},
		{"260K settings changed, then re-run", session.Spec{Model: "stories260K", Prompt: "Lily", Sampler: sampled, Steps: 6},
			[]edit{
				{"force", func(s *session.Session) error { return s.Force(2, 300) }},
				{"hotter", setSampler(func(s *sampler.Settings) { s.Temperature, s.Seed = 1.5, 3 })}, {"step", step},
				{"rerun", func(s *session.Session) error { return s.Rerun() }}, {"step", step},
			}},
		{"toy settings changed, then reset", session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 2},
			[]edit{
				{"sample", setSampler(func(s *sampler.Settings) { s.Temperature = 1 })}, {"step", step},
				{"reset", func(s *session.Session) error { return s.Reset() }}, {"step", step},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, tc.spec)
			for _, a := range tc.actions {
				if err := a.do(s); err != nil {
					t.Fatalf("%s: %v", a.name, err)
				}
			}
			data, err := json.Marshal(s.Spec())
			if err != nil {
				t.Fatal(err)
			}
			var spec session.Spec
			if err := json.Unmarshal(data, &spec); err != nil {
				t.Fatal(err)
			}
			again := newSession(t, spec)
			if !reflect.DeepEqual(s.Trace(), again.Trace()) {
				t.Errorf("the trace rebuilt from %s differs", data)
			}
		})
	}
}

// TestUndoRestores checks that Step then Undo leaves the session as it was:
// same trace, same next decision (so the generator state came back too).
func TestUndoRestores(t *testing.T) {
	s := newSession(t, session.Spec{Model: "stories260K", Prompt: "Lily", Steps: 3,
		Sampler: sampler.Settings{Temperature: 1, Seed: 3}})
	before, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	text := s.Trace().Text
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if err := s.Undo(); err != nil {
		t.Fatal(err)
	}
	after, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) || s.Trace().Text != text {
		t.Errorf("after Step and Undo the next step differs")
	}
}

func TestEditsAreMarked(t *testing.T) {
	s := newSession(t, workedExample)
	if err := s.EditLogit(0, 5, 9); err != nil {
		t.Fatal(err)
	}
	st := s.Trace().Steps[0]
	if logits := detail(t, s, 0).Logits; !reflect.DeepEqual(st.Edited, []int{5}) || logits[5] != 9 || st.Token != 5 {
		t.Errorf("edited %v, logits %v, token %d", st.Edited, logits, st.Token)
	}
	if err := s.Force(0, 0); err != nil {
		t.Fatal(err)
	}
	st = s.Trace().Steps[0]
	if !st.Forced || st.Token != 0 || st.Choice.Token != 5 {
		t.Errorf("forced %v token %d, sampler chose %d", st.Forced, st.Token, st.Choice.Token)
	}
}

// TestStopsAtEnd decodes stories260K greedily from an empty prompt: run.c
// generates BOS after 345 tokens and stops there.
func TestStopsAtEnd(t *testing.T) {
	s := newSession(t, session.Spec{Model: "stories260K", Sampler: sampler.DefaultSettings(), Steps: 1000})
	tr := s.Trace()
	want := session.Stop{Kind: session.NewText, Token: 1, Text: "<s>"}
	if n := len(tr.Steps); n != 346 || tr.Steps[n-1].Token != 1 || tr.Stop != want {
		t.Fatalf("%d steps, stopped %+v", n, tr.Stop)
	}
	if got := tr.Stop.String(); got != "the model chose <s>, which starts a new text" {
		t.Errorf("the stop in words: %q", got)
	}
	if err := s.Step(); !errors.Is(err, session.ErrStopped) {
		t.Errorf("Step after the end: %v", err)
	}
	if err := s.Undo(); err != nil || s.Step() != nil {
		t.Errorf("undo of the last step and stepping again should work")
	}
}

// TestIgnoreEOS: with settings that ignore the end of text from step 0,
// stories260K's greedy story from BOS goes on where it chose BOS at step
// 345 (TestStopsAtEnd); the logits show the mask, apart from the edits,
// and a forced end still ends the session.
func TestIgnoreEOS(t *testing.T) {
	ignoring := sampler.DefaultSettings()
	ignoring.IgnoreEOS = true
	spec := session.Spec{Model: "stories260K", Sampler: ignoring, Steps: 400,
		Edits: []session.Edit{{Step: 345, Token: 2, Logit: 30}}}
	s := newSession(t, spec)
	tr := s.Trace()
	if n := len(tr.Steps); n != 400 || tr.Stop.Kind != session.Running {
		t.Fatalf("%d steps, stopped %+v", n, tr.Stop)
	}
	for i, st := range tr.Steps {
		if !reflect.DeepEqual(st.EndsMasked, []int{1, 2}) || st.Token == 1 || st.Token == 2 {
			t.Fatalf("step %d: ends masked %v, token %d", i, st.EndsMasked, st.Token)
		}
	}
	d := detail(t, s, 345)
	if inf := math.Inf(-1); d.Logits[1] != inf || d.Logits[2] != inf || d.Computed[1] == inf || !reflect.DeepEqual(d.Step.Edited, []int{2}) {
		t.Errorf("step 345: logits of BOS and EOS %v, %v (the model's %v), edited %v", d.Logits[1], d.Logits[2], d.Computed[1], d.Step.Edited)
	}
	if again := newSession(t, s.Spec()); !reflect.DeepEqual(again.Trace(), tr) {
		t.Error("New(Spec()) gives another trace")
	}
	if err := s.Force(400, 2); err != nil || s.Trace().Stop.Kind != session.EndOfText {
		t.Errorf("EOS forced: %v, stopped %+v", err, s.Trace().Stop)
	}
	// Hand-typed logits have no ends to mask.
	w := workedExample
	w.Sampler.IgnoreEOS = true
	if st := newSession(t, w).Trace().Steps[0]; st.EndsMasked != nil || st.Token != 2 {
		t.Errorf("the worked example with its ends masked: %+v", st)
	}
}

// TestIgnoreEOSFromNextStep: ignoring the end of text is a setting like
// any other, which applies from the next step. stories260K's stories end
// with <s> (its EOS never comes close to being chosen), which stops the
// session at step n; with that step undone and the setting switched on,
// step n chooses another token, the steps before keep theirs, and only
// step n shows the mask. Rerun takes every step with it.
func TestIgnoreEOSFromNextStep(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spec  session.Spec
		stops int // the step that chooses <s>
	}{
		{"sampled", session.Spec{Model: "stories260K", Prompt: "Lily", Sampler: sampler.Settings{Temperature: 1, Seed: 2}, Steps: 400}, 212},
		{"greedy from BOS", session.Spec{Model: "stories260K", Sampler: sampler.DefaultSettings(), Steps: 400}, 345},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, tc.spec)
			steps := s.Trace().Steps
			if n := len(steps) - 1; n != tc.stops || steps[n].Token != 1 || s.Trace().Stop.Kind != session.NewText {
				t.Fatalf("stopped after step %d (token %d): %v", n, steps[n].Token, s.Trace().Stop)
			}
			before := slices.Clone(steps[:tc.stops])
			if err := s.Undo(); err != nil {
				t.Fatal(err)
			}
			ignoring := tc.spec.Sampler
			ignoring.IgnoreEOS = true
			if err := s.SetSampler(ignoring); err != nil {
				t.Fatal(err)
			}
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			steps = s.Trace().Steps
			if !reflect.DeepEqual(steps[:tc.stops], before) {
				t.Error("the steps before the change changed")
			}
			if st := steps[tc.stops]; st.Token == 1 || st.Token == 2 || !reflect.DeepEqual(st.EndsMasked, []int{1, 2}) || s.Trace().Stop.Kind != session.Running {
				t.Errorf("step %d: token %d, ends masked %v, stopped %v", tc.stops, st.Token, st.EndsMasked, s.Trace().Stop)
			}
			if ends := steps[tc.stops-1].EndsMasked; ends != nil {
				t.Errorf("step %d, before the change, masks %v", tc.stops-1, ends)
			}
			inf := math.Inf(-1)
			if d := detail(t, s, tc.stops); d.Logits[1] != inf || d.Logits[2] != inf || d.Computed[1] == inf {
				t.Errorf("step %d: logits of BOS and EOS %v, %v (the model's %v)", tc.stops, d.Logits[1], d.Logits[2], d.Computed[1])
			}
			if d := detail(t, s, tc.stops-1); d.Logits[1] == inf || d.Logits[2] == inf {
				t.Errorf("step %d: logits of BOS and EOS %v, %v", tc.stops-1, d.Logits[1], d.Logits[2])
			}
			if again := newSession(t, s.Spec()); !reflect.DeepEqual(again.Trace(), s.Trace()) {
				t.Error("New(Spec()) gives another trace")
			}
			if err := s.Rerun(); err != nil {
				t.Fatal(err)
			}
			for i, st := range s.Trace().Steps {
				if !reflect.DeepEqual(st.EndsMasked, []int{1, 2}) {
					t.Fatalf("after Rerun, step %d masks %v", i, st.EndsMasked)
				}
			}
			fromStart := tc.spec
			fromStart.Sampler, fromStart.Steps = ignoring, tc.stops+1
			if want := newSession(t, fromStart); !reflect.DeepEqual(s.Trace(), want.Trace()) || !s.Spec().Sampler.IgnoreEOS {
				t.Error("Rerun differs from a session that ignores the end of text from step 0")
			}
		})
	}
}

// TestAllMasked: with every logit of the next step masked, in every mode,
// Next and Step fail with softmax.ErrAllMasked, and Detail still has the
// step's logits, with no choice.
func TestAllMasked(t *testing.T) {
	hot := sampler.Settings{Mode: sampler.Chain, Temperature: 1, Seed: 42}
	for _, tc := range []struct {
		name string
		spec session.Spec
	}{
		{"worked example, greedy", workedExample},
		{"worked example, run.c", with(workedExample, func(s *session.Spec) { s.Sampler = sampler.Settings{Mode: sampler.RunC, Temperature: 1, Seed: 42} })},
		{"worked example, llama.cpp", with(workedExample, func(s *session.Spec) {
			s.Sampler = sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 0.8, TopK: 40, Seed: 42}
		})},
		{"worked example, Hugging Face", with(workedExample, func(s *session.Spec) { s.Sampler = sampler.Settings{Mode: sampler.HF, Temperature: 1, Seed: 42} })},
		{"toy model, a step in, sampled", session.Spec{Model: "toy", Prompt: "The cat", Sampler: hot, Steps: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Steps = 0
			if spec.Model != session.LogitsModel {
				spec.Steps = 1
			}
			s := newSession(t, spec)
			next := len(s.Trace().Steps)
			for tok := range s.Model().Tokenizer.VocabSize() {
				if err := s.EditLogit(next, tok, math.Inf(-1)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Next(); !errors.Is(err, softmax.ErrAllMasked) {
				t.Errorf("Next: %v", err)
			}
			if err := s.Step(); !errors.Is(err, softmax.ErrAllMasked) || len(s.Trace().Steps) != next {
				t.Errorf("Step: %v, %d steps", err, len(s.Trace().Steps))
			}
			d, err := s.Detail(next)
			if err != nil {
				t.Fatal(err)
			}
			masked := slices.IndexFunc(d.Logits, func(l float64) bool { return !math.IsInf(l, -1) }) < 0
			if !masked || d.Choice != nil || !errors.Is(d.Unsampled, softmax.ErrAllMasked) || d.Step.Token != -1 ||
				len(d.Step.Edited) != len(d.Logits) || len(d.Context) != next+len(s.Trace().Prompt) {
				t.Errorf("Detail: logits %v, choice %v, unsampled %v, step %+v", d.Logits, d.Choice, d.Unsampled, d.Step)
			}
			if spec.Model != session.LogitsModel && (d.Computed == nil || d.Hidden == nil) {
				t.Error("Detail of a model session without the model's logits")
			}
			// A number typed into one token makes the step again.
			if err := s.EditLogit(next, 1, 0); err != nil || s.Step() != nil || s.Trace().Steps[next].Token != 1 {
				t.Errorf("after an edit: %v", err)
			}
		})
	}
}

// with is spec changed by edit.
func with(spec session.Spec, edit func(*session.Spec)) session.Spec {
	edit(&spec)
	return spec
}

// TestStops: why a session stops, typed and in words.
func TestStops(t *testing.T) {
	chain, runc := sampler.DefaultSettings(), sampler.Settings{Mode: sampler.RunC, Temperature: 0, Seed: 42}
	for _, tc := range []struct {
		name  string
		spec  session.Spec
		force int // at step 0, or -1
		want  session.Stop
		words string
	}{
		{"end of text forced", session.Spec{Model: "stories260K", Sampler: chain}, 2,
			session.Stop{Kind: session.EndOfText, Token: 2, Text: "</s>", Forced: true}, "the end-of-text token </s> was forced by hand"},
		{"a new text forced", session.Spec{Model: "stories260K", Sampler: chain}, 1,
			session.Stop{Kind: session.NewText, Token: 1, Text: "<s>", Forced: true}, "<s>, which starts a new text, was forced by hand"},
		{"run.c goes on after EOS", session.Spec{Model: "stories260K", Sampler: runc}, 2, session.Stop{}, ""},
		{"hand-typed logits", workedExample, -1, session.Stop{Kind: session.OneStep}, "hand-typed logits give one step"},
	} {
		s := newSession(t, tc.spec)
		if tc.force >= 0 {
			if err := s.Force(0, tc.force); err != nil {
				t.Fatal(err)
			}
		}
		if got := s.Trace().Stop; got != tc.want || got.String() != tc.words {
			t.Errorf("%s: %+v, %q; want %+v, %q", tc.name, got, got, tc.want, tc.words)
		}
		if _, err := s.Next(); (tc.want.Kind != session.Running) != errors.Is(err, session.ErrStopped) {
			t.Errorf("%s: Next: %v", tc.name, err)
		}
	}
}

func TestContextFull(t *testing.T) {
	s := newSession(t, session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 100})
	// Positions 0…15 hold "The cat" and 14 steps' tokens; the 15th step
	// samples from position 15, as run.c does, and is never fed.
	stop := s.Trace().Stop
	if n := len(s.Trace().Steps); n != 15 || stop != (session.Stop{Kind: session.ContextFull, Context: 16}) ||
		stop.String() != "the context of 16 tokens is full" {
		t.Errorf("%d steps (want 16 - 2 + 1), stopped %+v: %q", n, stop, stop)
	}
}

func TestBadSpecs(t *testing.T) {
	good := session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 1}
	for _, tc := range []struct {
		name   string
		change func(*session.Spec)
		want   string
	}{
		{"unknown model", func(s *session.Spec) { s.Model = "gpt-5" }, "no model"},
		{"unknown word", func(s *session.Spec) { s.Prompt = "The dog" }, "dog"},
		{"empty prompt without BOS", func(s *session.Spec) { s.Prompt = "" }, "empty"},
		{"negative steps", func(s *session.Spec) { s.Steps = -1 }, "negative"},
		{"forced token out of range", func(s *session.Spec) { s.Forced = []session.Force{{Step: 0, Token: 6}} }, "forced"},
		{"NaN edit", func(s *session.Spec) { s.Edits = []session.Edit{{Step: 0, Token: 1, Logit: math.NaN()}} }, "NaN"},
		{"bad sampler", func(s *session.Spec) { s.Sampler.TopP = 2 }, "top_p: 2 is not a number from 0 to 1"},
		{"logits length", func(s *session.Spec) {
			*s = workedExample
			s.Logits = s.Logits[:5]
		}, "5 logits for 6 tokens"},
		{"NaN logit", func(s *session.Spec) {
			*s = workedExample
			s.Logits = []float64{0, math.NaN(), 0, 0, 0, 0}
		}, "NaN"},
		{"prompt longer than context", func(s *session.Spec) { s.Prompt = strings.Repeat("the ", 17) }, "context"},
		// 100 KB pasted: refused before it is encoded.
		{"book for a prompt", func(s *session.Spec) { s.Model, s.Prompt = "stories260K", strings.Repeat("Once upon a time. ", 6000) }, "at least"},
		{"change at step 0", func(s *session.Spec) { s.Changes = []session.Change{{Step: 0, Sampler: s.Sampler}} },
			"change 0: step 0: want a step ≥ 1 (step 0's settings are the spec's Sampler)"},
		{"changes out of order", func(s *session.Spec) {
			s.Changes = []session.Change{{Step: 3, Sampler: s.Sampler}, {Step: 3, Sampler: s.Sampler}}
		}, "change 1: step 3 does not come after step 3 of the change before"},
		{"a bad change", func(s *session.Spec) {
			s.Changes = []session.Change{{Step: 1, Sampler: s.Sampler}, {Step: 2, Sampler: sampler.Settings{Seed: 0}}}
		}, "change 1: sampler: seed: 0 is not a whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := good
			tc.change(&spec)
			_, err := session.New(spec, models.Load)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestEditPendingStep edits the step about to run: nothing is committed, and
// Next — and a session rebuilt from the Spec — shows the edit.
func TestEditPendingStep(t *testing.T) {
	spec := workedExample
	spec.Steps = 0
	s := newSession(t, spec)
	if err := s.EditLogit(0, 0, 5); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Trace().Steps); n != 0 {
		t.Fatalf("editing the pending step committed it: %d steps", n)
	}
	for _, sess := range []*session.Session{s, newSession(t, s.Spec())} {
		next, err := sess.Next()
		if err != nil {
			t.Fatal(err)
		}
		if logits := detail(t, sess, 0).Logits; next.Token != 0 || logits[0] != 5 || !reflect.DeepEqual(next.Edited, []int{0}) {
			t.Errorf("next step: token %d, logits %v, edited %v", next.Token, logits, next.Edited)
		}
	}
}

// badModel is a small random model whose weights edit spoils, shared head
// off so that the embedding and the classifier are apart.
func badModel(t *testing.T, edit func(w *checkpoint.Weights)) session.Loader {
	t.Helper()
	c := checkpoint.Config{Dim: 16, HiddenDim: 32, Layers: 1, Heads: 2, KVHeads: 2, VocabSize: 400, SeqLen: 32}
	ckpt, v, err := randmodel.Build(c, 3)
	if err != nil {
		t.Fatal(err)
	}
	edit(&ckpt.Weights)
	tok, err := tokenizer.New(v)
	if err != nil {
		t.Fatal(err)
	}
	m := &session.Model{Name: "spoilt", Checkpoint: ckpt, Tokenizer: tok}
	return func(string) (*session.Model, error) { return m, nil }
}

// TestBadLogits: a model whose weights hold a NaN or an infinity gives a
// typed error naming the model and the position, from New when the
// prompt's logits are spoilt, from Next and Step when a token fed later
// spoils them.
func TestBadLogits(t *testing.T) {
	const spoiler = 399 // a token whose embedding holds a NaN
	nanEmbedding := func(w *checkpoint.Weights) { w.TokenEmbedding[spoiler*16] = float32(math.NaN()) }
	spec := session.Spec{Model: "spoilt", Prompt: "Once upon a time", Sampler: sampler.DefaultSettings()}
	prompt := 5 // BOS and four words
	for _, tc := range []struct {
		name   string
		load   session.Loader
		forced []session.Force
		want   session.BadLogitsError
	}{
		{"a NaN in the final norm", badModel(t, func(w *checkpoint.Weights) { w.RMSFinal[3] = float32(math.NaN()) }), nil,
			session.BadLogitsError{Model: "spoilt", Pos: prompt - 1, NaN: true}},
		{"an infinity in the classifier", badModel(t, func(w *checkpoint.Weights) { w.Classifier[5*16] = float32(math.Inf(1)) }), nil,
			session.BadLogitsError{Model: "spoilt", Pos: prompt - 1}},
		{"a NaN in a token's embedding, fed", badModel(t, nanEmbedding), []session.Force{{Step: 0, Token: spoiler}},
			session.BadLogitsError{Model: "spoilt", Pos: prompt, NaN: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := spec
			sp.Forced, sp.Steps = tc.forced, 3
			var be *session.BadLogitsError
			if _, err := session.New(sp, tc.load); !errors.As(err, &be) || *be != tc.want {
				t.Fatalf("New: %v, want %+v", err, tc.want)
			}
			if tc.forced == nil {
				return
			}
			sp.Steps = 0
			s, err := session.New(sp, tc.load)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Step(); err != nil { // the forced token: its own logits were good
				t.Fatal(err)
			}
			if _, err := s.Next(); !errors.As(err, &be) || *be != tc.want {
				t.Errorf("Next: %v", err)
			}
			if err := s.Step(); !errors.As(err, &be) || *be != tc.want {
				t.Errorf("Step: %v", err)
			}
			if err := s.Undo(); err != nil || s.Force(0, 7) != nil || s.Step() != nil {
				t.Errorf("Undo, then another token, then a step: %v", err)
			}
		})
	}
	want := "the model spoilt gave NaN logits at position 4: its weights hold NaN or infinite values"
	if got := (&session.BadLogitsError{Model: "spoilt", Pos: 4, NaN: true}).Error(); got != want {
		t.Errorf("the message: %q, want %q", got, want)
	}
}
