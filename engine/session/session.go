// Package session runs a decoding session: a model, a prompt and sampler
// settings, then one step after another, each step recording everything a
// person may want to look at — the logits, the softmax, what every sampler
// stage did, the random draw, the chosen token and the KV cache.
//
// A session is described completely by a Spec, a plain value: the model's
// name, the prompt (or a chat's messages, which the model's chat template
// renders into it: see Chat), the sampler settings with their seed and
// the changes made to them along the way, the number of steps, and the
// tokens forced and logits edited by hand. New(spec) always produces the
// same trace, so a Spec can travel in a link.
//
// Steps are numbered from 0. Step i reads the logits after the last token of
// the context, lets the sampler choose (or takes the forced token), appends
// the choice and feeds it to the model, so that its key and value join the
// cache and the next step's logits are ready. A step that chooses the
// tokenizer's BOS token ends the session, as run.c stops on BOS; so does EOS,
// except in run.c mode, where run.c goes on after it. A step whose settings
// ignore the end of text (sampler.Settings.IgnoreEOS) masks both, as
// llama.cpp's --ignore-eos does, so that its sampler chooses neither; one
// forced by hand still ends the session. When the context is
// full the last step still samples, from the last position, as run.c does,
// but its token is never fed.
//
// # Changing the sampler's settings
//
// A token once chosen stays chosen: SetSampler makes new settings apply
// from the next step on, and records them as a Change at that step, so
// that the steps before it keep the settings they were chosen with and
// Detail of any step reproduces it exactly. Sampler(i) is what step i
// uses: the latest change at or before step i, else Spec.Sampler. A
// change of seed starts the generator afresh from the new seed at its
// step (as sampler.NewRNG does at step 0); any other change keeps drawing
// from where the generator was. To choose the committed tokens again with
// the new settings is an explicit action, Rerun; Reset starts over with
// them.
//
// # Details
//
// Detail derives a step in full when it is shown, into memory the session
// reuses: a Detail is valid until the next call of Detail or any change
// of the session (a step, an undo, an edit, a setting, KeepTop), and a
// caller that keeps one longer keeps a copy. The next step's decision is
// made once: Next (or Detail of the next step) records it, every stage in
// full, and the session keeps it until it changes, for Detail to show and
// Step to take without the sampler running again. A step taken is
// derived again, its forward pass and its sampler, each time it is
// shown.
//
// # run.c mode
//
// A session whose step 0 uses run.c mode (sampler.RunC) runs the model
// with transformer.Options.RunC, so that its logits, and therefore its
// tokens, are run.c's bit for bit. The arithmetic is the session's, fixed
// by its step-0 settings: a later change of mode changes the sampler only,
// and when the step-0 settings change mode (SetSampler before the first
// step, Reset, Rerun) the prompt is fed again in the new arithmetic.
//
// # llama.cpp and Hugging Face modes
//
// In modes sampler.LlamaCpp and sampler.HF the runtime's own chain
// chooses (compare.Stepper, with the settings compare.ForSession maps and
// checks), reading the step's logits in float32 and the whole context,
// prompt included, for its penalties. Its Choice has the runtime's stages
// and draw. llama.cpp's generators are its own std::mt19937, seeded with
// the session's seed and carried from step to step as llama.cpp carries
// them; a step records how far they had run and mirostat's mu
// (llamacpp.State), not their state, and a change of seed starts them
// afresh as it does the xorshift generator. llama.cpp's chain may be its
// mirostat (v1 or v2) or a sequence of stages of the reader's own, and
// its DRY reads the model's vocabulary as llama.cpp would load it
// (compare.Vocab). A Hugging Face step draws one u from the xorshift
// generator.
package session

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/sampler/llamacpp"
	"nexttoken/engine/softmax"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/transformer"
)

// Spec is a session as a plain value.
type Spec struct {
	Model   string           `json:"model"`             // a name the Loader knows, or LogitsModel
	Prompt  string           `json:"prompt,omitempty"`  // ignored by LogitsModel sessions
	Chat    *Chat            `json:"chat,omitempty"`    // a chat whose rendering is the prompt, in place of Prompt
	Vocab   []string         `json:"vocab,omitempty"`   // LogitsModel: the tokens
	Logits  []float64        `json:"logits,omitempty"`  // LogitsModel: their logits
	Sampler sampler.Settings `json:"sampler"`           // the settings of step 0, until the first change
	Changes []Change         `json:"changes,omitempty"` // by step, strictly increasing, each at a step ≥ 1
	Steps   int              `json:"steps"`
	Forced  []Force          `json:"forced,omitempty"`
	Edits   []Edit           `json:"edits,omitempty"`

	// Branches are the other paths of the generation tree (see Branch).
	Branches []Branch `json:"branches,omitempty"`
}

// Change makes step Step and the steps after it, up to the next change,
// use the settings Sampler. Step is at least 1: step 0's settings are
// Spec.Sampler.
type Change struct {
	Step    int              `json:"step"`
	Sampler sampler.Settings `json:"sampler"`
}

// Force makes step Step choose Token whatever the sampler says. The sampler
// still runs and draws, so the steps after it see the same random numbers.
type Force struct {
	Step  int `json:"step"`
	Token int `json:"token"`
}

// Edit sets the logit of Token at step Step before sampling; −Inf masks it.
type Edit struct {
	Step  int     `json:"step"`
	Token int     `json:"token"`
	Logit float64 `json:"logit"`
}

// ErrStopped is returned by Step when the session cannot go on: it chose an
// end token, filled the context, or has no model to compute further logits.
var ErrStopped = errors.New("the session has ended")

// Session is a running Spec.
type Session struct {
	spec     Spec
	opts     Options
	model    *Model
	tr       *transformer.Transformer // nil for LogitsModel sessions
	fresh    *transformer.Transformer // Recompute's, without the session's cache; nil until asked
	gen      generators
	prompt   string           // the prompt's text: Spec.Prompt, or its chat's rendering
	tokens   []int            // the context: prompt, then every chosen token
	logits   []float64        // the model's logits for the next step, before edits
	edited   []float64        // the same with the next step's edits: what the sampler reads
	scratch  sampler.Scratch  // the next step's sampler: Step's compact choice, or the recorded one kept in next
	past     sampler.Scratch  // Detail's sampler for a step taken
	next     upcoming         // the next step as decided, while nextOK
	nextOK   bool             // next is the decision of the session as it is; every change makes it false (forget)
	view     detailMemory     // Detail's vectors, reused
	stepper  *compare.Stepper // the latest runtime mode's, kept while its settings last
	top      []int            // scratch of Top
	keepTop  int              // candidates each step keeps
	keepLens int              // tokens per layer of Detail's logit lens; 0 leaves it out
	trace    Trace
	branches []branch // the other paths of the tree (spec.Branches is nil)
	ends     []int    // the tokens sampler.Settings.IgnoreEOS masks, ascending

	badLogits *BadLogitsError // the model's logits for the next step are not all numbers; nil if they are
}

// BadLogitsError is a model's forward pass that gave logits that are NaN
// or infinite, which no sampler can read: its weights hold such values.
// New (from the prompt), Step and Next return it for the step that would
// read them.
type BadLogitsError struct {
	Model string // the model's name
	Pos   int    // the position of the input token whose logits they are
	NaN   bool   // one is NaN; else one is infinite
}

func (e *BadLogitsError) Error() string {
	what := "infinite"
	if e.NaN {
		what = "NaN"
	}
	return fmt.Sprintf("the model %s gave %s logits at position %d: its weights hold NaN or infinite values", e.Model, what, e.Pos)
}

// DefaultTop is how many candidates a step keeps unless KeepTop says.
const DefaultTop = 5

// Options are how a session computes, beside the Spec, which says what it
// computes: they change the speed, or how much a step keeps, never a number.
type Options struct {
	// Kernels are the kernels of the model's forward passes
	// (transformer.Options.Kernels): the zero Kernels, Go's loops, or the
	// browser's WebAssembly SIMD kernels (transformer.LoadKernels).
	Kernels transformer.Kernels
	// Prefill, when not nil, hears how the prefill of the prompt goes,
	// and stops it by returning an error.
	Prefill Progress
	// Top is how many candidates each step keeps in Step.Top, from the
	// first (KeepTop changes it later); 0 is DefaultTop.
	Top int
}

// LoadSIMD returns the Options of the browser's WebAssembly SIMD kernels
// (transformer.LoadKernels), which load only in a js/wasm build; on an
// error they are Go's loops.
func LoadSIMD() (Options, error) {
	k, err := transformer.LoadKernels()
	return Options{Kernels: k}, err
}

// KernelName names the kernels o computes with: "SIMD" or "Go".
func (o Options) KernelName() string { return o.Kernels.Name() }

// Progress hears how far the prefill of a prompt has come: done of its
// total tokens, after every PrefillChunk of them and, within a chunk,
// about every PrefillSlice (done unchanged then). An error it returns
// stops the prefill, and the session's making fails with that error.
type Progress func(done, total int) error

// A watched prefill tells its Progress after every PrefillChunk tokens and
// about every PrefillSlice between (transformer.Transformer.Pause): a page
// that shows the progress and reads a Stop there answers within a slice,
// whatever the model, and the chunk's positions still go through the
// layers together.
const (
	PrefillChunk = 64
	PrefillSlice = 20 * time.Millisecond
)

// New checks spec, loads its model, prefills the prompt and runs spec.Steps
// steps (fewer if the session stops first), with the default Options.
func New(spec Spec, load Loader) (*Session, error) { return NewWith(spec, load, Options{}) }

// NewWith is New with opts.
func NewWith(spec Spec, load Loader, opts Options) (*Session, error) {
	if err := CheckSettings(spec.Sampler); err != nil {
		return nil, err
	}
	if err := CheckChanges(spec.Changes); err != nil {
		return nil, err
	}
	s := &Session{spec: spec, opts: opts, keepTop: DefaultTop}
	if opts.Top != 0 {
		if err := s.KeepTop(opts.Top); err != nil {
			return nil, err
		}
	}
	s.spec.Branches = nil
	var err error
	if spec.Model == LogitsModel {
		err = s.startLogits()
	} else {
		err = s.startModel(load)
	}
	if err != nil {
		return nil, err
	}
	s.ends = ends(s.model.Tokenizer)
	if err := s.checkEdits(spec.Forced, spec.Edits); err != nil {
		return nil, err
	}
	if err := CheckBranches(spec.Steps, spec.Branches); err != nil {
		return nil, err
	}
	for i, b := range spec.Branches {
		if err := s.checkEdits(b.Forced, b.Edits); err != nil {
			return nil, fmt.Errorf("branch %d: %w", i+1, err)
		}
	}
	if spec.Steps < 0 {
		return nil, fmt.Errorf("steps = %d is negative", spec.Steps)
	}
	for range spec.Steps {
		if err := s.Step(); errors.Is(err, ErrStopped) {
			break
		} else if err != nil {
			return nil, err
		}
	}
	s.spec.Steps = len(s.trace.Steps)
	if err := s.growTree(spec.Branches); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Session) startLogits() error {
	if len(s.spec.Logits) != len(s.spec.Vocab) {
		return fmt.Errorf("%d logits for %d tokens", len(s.spec.Logits), len(s.spec.Vocab))
	}
	for i, l := range s.spec.Logits {
		if math.IsNaN(l) || math.IsInf(l, 1) {
			return fmt.Errorf("logit %d (%s) is %v", i, s.spec.Vocab[i], l)
		}
	}
	m, err := logitsModel(s.spec.Vocab)
	if err != nil {
		return err
	}
	s.model = m
	s.logits = slices.Clone(s.spec.Logits)
	s.restart()
	return nil
}

func (s *Session) startModel(load Loader) error {
	if load == nil {
		return fmt.Errorf("no models to load %q from", s.spec.Model)
	}
	m, err := load(s.spec.Model)
	if err != nil {
		return err
	}
	text, m, prompt, err := s.promptOf(m)
	if err != nil {
		return err
	}
	s.model, s.prompt = m, text
	options := s.options(s.spec.Sampler)
	tr := transformer.NewWith(m.Checkpoint, options)
	logits, err := prefill(tr, prompt, s.opts.Prefill)
	if err != nil {
		return err
	}
	s.tr = tr
	s.tokens = prompt
	s.setLogits(logits)
	s.restart()
	if s.badLogits != nil {
		return s.badLogits
	}
	return nil
}

// promptOf is the text and tokens of the session's prompt on m (its own, or
// its chat rendered by m's template), and the model that reads it (m, or
// m with its template's tokenizer), once they are known to fit m's
// context.
func (s *Session) promptOf(m *Model) (string, *Model, []int, error) {
	text, m, err := s.chatPrompt(m)
	if err != nil {
		return "", nil, nil, err
	}
	// Refuse a prompt that cannot fit before encoding it: a pasted book
	// must not cost the page its encoding's time and memory for nothing.
	if least, n := m.Tokenizer.MinTokens(text), m.Checkpoint.Config.SeqLen; least > n {
		return "", nil, nil, fmt.Errorf("the prompt is at least %d tokens, longer than the model's context of %d", least, n)
	}
	prompt, err := m.Tokenizer.Encode(text)
	if err != nil {
		return "", nil, nil, fmt.Errorf("prompt: %w", err)
	}
	if len(prompt) == 0 {
		return "", nil, nil, fmt.Errorf("the prompt is empty and the model has no BOS token to start from")
	}
	if n := m.Checkpoint.Config.SeqLen; len(prompt) > n {
		return "", nil, nil, fmt.Errorf("the prompt is %d tokens, longer than the model's context of %d", len(prompt), n)
	}
	return text, m, prompt, nil
}

// prefill runs tr over prompt from position 0, a PrefillChunk at a time
// with progress told after each and about every PrefillSlice between, and
// returns the last position's logits. Each position's pass is the same,
// chunked or not.
func prefill(tr *transformer.Transformer, prompt []int, progress Progress) ([]float32, error) {
	if progress == nil {
		return tr.Prefill(prompt, 0)
	}
	done, told := 0, time.Now()
	tr.Pause = func() error {
		if time.Since(told) < PrefillSlice {
			return nil
		}
		err := progress(done, len(prompt))
		told = time.Now()
		return err
	}
	defer func() { tr.Pause = nil }()
	var logits []float32
	for i := 0; i < len(prompt); i += PrefillChunk {
		end := min(i+PrefillChunk, len(prompt))
		var err error
		if logits, err = tr.Prefill(prompt[i:end], i); err != nil {
			return nil, err
		}
		done = end
		if err := progress(end, len(prompt)); err != nil {
			return nil, err
		}
		told = time.Now()
	}
	return logits, nil
}

// restart sets the trace and generator to the state right after prefill.
func (s *Session) restart() {
	s.edited = slices.Grow(s.edited[:0], len(s.logits))[:len(s.logits)]
	s.gen = newGenerators(s.spec.Sampler.Seed)
	s.trace = Trace{Prompt: s.pieces(s.tokens), Steps: nil}
	s.trace.Text = s.model.Tokenizer.Decode(s.tokens)
}

// CheckChanges applies New's rules to a Spec's changes: each is at a step
// ≥ 1, after the step of the change before it, with valid settings.
func CheckChanges(changes []Change) error {
	after := 0 // the step every change must come after
	for i, c := range changes {
		if c.Step <= after {
			if i == 0 {
				return fmt.Errorf("change 0: step %d: want a step ≥ 1 (step 0's settings are the spec's Sampler)", c.Step)
			}
			return fmt.Errorf("change %d: step %d does not come after step %d of the change before", i, c.Step, after)
		}
		if err := CheckSettings(c.Sampler); err != nil {
			return fmt.Errorf("change %d: %w", i, err)
		}
		after = c.Step
	}
	return nil
}

// checkEdits validates hand-made parts of the spec against the model.
func (s *Session) checkEdits(forced []Force, edits []Edit) error {
	n := s.model.Tokenizer.VocabSize()
	for _, f := range forced {
		if f.Step < 0 || f.Token < 0 || f.Token >= n {
			return fmt.Errorf("forced token %d at step %d: want a step ≥ 0 and a token in 0..%d", f.Token, f.Step, n-1)
		}
	}
	for _, e := range edits {
		if e.Step < 0 || e.Token < 0 || e.Token >= n {
			return fmt.Errorf("edited logit of token %d at step %d: want a step ≥ 0 and a token in 0..%d", e.Token, e.Step, n-1)
		}
		if math.IsNaN(e.Logit) || math.IsInf(e.Logit, 1) {
			return fmt.Errorf("edited logit of token %d at step %d is %v", e.Token, e.Step, e.Logit)
		}
	}
	return nil
}

// Next returns the step that Step would run now, without running it: the
// decision the model and sampler are about to make. The session keeps the
// decision, with every stage recorded, until it changes: Step takes it
// and Detail of the next step shows it, without the sampler running again.
func (s *Session) Next() (*Step, error) {
	u, err := s.decision(true)
	if err != nil {
		return nil, err
	}
	step := u.step
	return &step, nil
}

// Step runs one more step: the decision Next kept, or one made now.
func (s *Session) Step() error {
	u, err := s.decision(false)
	if err != nil {
		return err
	}
	step, gen := u.step, u.gen
	s.forget()
	s.gen = gen
	s.tokens = append(s.tokens, step.Token)
	s.trace.Stop = s.stopAfter(len(s.trace.Steps), step)
	if s.trace.Stop.Kind == Running {
		next, err := s.tr.Forward(step.Token, len(s.tokens)-1)
		if err != nil {
			return err
		}
		s.setLogits(next)
	}
	step.KVLen, step.KVBytes = s.cacheSize()
	s.trace.Steps = append(s.trace.Steps, step)
	s.trace.Text += step.Piece
	s.spec.Steps = len(s.trace.Steps)
	return nil
}

// upcoming is the decision of the next step: the step, the generators
// after it and the sampler's choice, which lives in s.scratch (or is the
// Stepper's own).
type upcoming struct {
	step   Step
	gen    generators
	choice *sampler.Choice
}

// decision is the next step's decision: the one kept since the session
// last changed, else one made now, which is kept when recorded (record)
// and is compact, for Step to take at once, otherwise. An error is not
// kept.
func (s *Session) decision(record bool) (*upcoming, error) {
	if !s.nextOK {
		step, gen, c, err := s.decide(record)
		if err != nil {
			return nil, err
		}
		s.next, s.nextOK = upcoming{step: step, gen: gen, choice: c}, record
	}
	return &s.next, nil
}

// forget drops the kept decision of the next step: the one home of the
// rule that the decision is the session's as it is. Every change of what
// the next step reads — the context, the logits, the generators, the
// trace, its settings, edits and forced token, KeepTop — calls it.
func (s *Session) forget() { s.nextOK = false }

// decide computes the next step and the generator state after it, changing
// nothing but scratch memory: the choice is s.scratch's, recorded in full
// when record.
func (s *Session) decide(record bool) (Step, generators, *sampler.Choice, error) {
	if stop := s.trace.Stop; stop.Kind != Running {
		return Step{}, s.gen, nil, fmt.Errorf("%w: %s", ErrStopped, stop)
	}
	if s.badLogits != nil {
		return Step{}, s.gen, nil, s.badLogits
	}
	i := len(s.trace.Steps)
	edited := s.prepare(i, s.logits, s.edited)
	gen := s.genFor(i, s.gen)
	choice, probs, err := s.choose(i, &s.scratch, s.edited, s.tokens, &gen, record)
	if err != nil {
		return Step{}, s.gen, nil, err
	}
	step := s.newStep(i, edited, choice)
	step.Prob = probs[step.Token]
	step.LogProb = math.Log(step.Prob)
	step.Entropy = softmax.Entropy(probs)
	step.Rank = softmax.Rank(probs, step.Token)
	s.top = softmax.Top(probs, s.keepTop, s.top)
	step.Top = make([]Candidate, len(s.top))
	runtime := s.Sampler(i).Runtime()
	for j, id := range s.top {
		var by int // the stage that removed id, as the choice just made recorded it
		if runtime {
			by = s.stepper.RemovedBy(id)
		} else {
			by = s.scratch.RemovedBy(id)
		}
		step.Top[j] = Candidate{Token: id, Prob: probs[id], Logit: s.edited[id], Removed: int8(by + 1)}
	}
	step.KVLen, step.KVBytes = s.cacheSize()
	return step, gen, choice, nil
}

// newStep records step i's choice, compactly, and the forced token if any;
// with no choice (c nil), the step has Token -1 unless one is forced.
func (s *Session) newStep(i int, edited []int, c *sampler.Choice) Step {
	step := Step{
		Pos:        len(s.tokens) - 1,
		Input:      -1,
		Edited:     edited,
		EndsMasked: s.masked(i),
		Token:      -1,
		genWas:     s.gen,
		context:    len(s.tokens),
	}
	if c != nil {
		step.Choice, step.Token = c.Compact(), c.Token
	}
	if f, ok := s.forced(i); ok {
		step.Token, step.Forced = f, true
	}
	if n := len(s.tokens); n > 0 {
		step.Input = s.tokens[n-1]
	}
	if step.Token >= 0 {
		step.Piece = s.model.Tokenizer.Piece(step.Input, step.Token) // Input is -1 at the start, as Piece wants
	}
	return step
}

// Detail derives step i in full: i < len(Trace().Steps) for a step taken,
// i = len(Trace().Steps) for the next one. The next step's is the
// decision Next keeps (made now if it was not), read from the live model.
// A step taken runs its forward pass again (Transformer.Probe) for its
// logits, hidden state and attention, and the sampler again, from the
// generator state the step started with, recording every stage: the same
// numbers the step had, computed the same way. A next step whose every
// token is masked has no choice: its Detail has the rest, with Unsampled
// saying why (Next and Step fail with the same error,
// softmax.ErrAllMasked).
//
// The Detail is valid until the next call of Detail or any change of the
// session: its vectors and lists are the session's memory, reused by the
// next Detail, or the model's and the session's own state, which the
// next change rewrites. Read them; do not change them.
func (s *Session) Detail(i int) (*Detail, error) {
	steps := s.trace.Steps
	switch {
	case i < 0 || i > len(steps):
		return nil, fmt.Errorf("step %d does not exist (the session has %d)", i, len(steps))
	case i == len(steps):
		return s.detailNext()
	}
	return s.detailTaken(i)
}

// detailNext is Detail of the next step: the decision kept, the logits the
// session holds and the views of the latest forward pass.
func (s *Session) detailNext() (*Detail, error) {
	i := len(s.trace.Steps)
	d := &Detail{Index: i, Logits: s.edited, Context: s.tokens[:len(s.tokens):len(s.tokens)]}
	switch u, err := s.decision(true); {
	case errors.Is(err, softmax.ErrAllMasked):
		d.Step, d.Unsampled = s.newStep(i, s.prepare(i, s.logits, s.edited), nil), err
	case err != nil:
		return nil, err
	default:
		d.Step, d.Choice = u.step, u.choice
	}
	if s.tr != nil {
		d.Computed = s.logits
		if err := s.passDetail(d, s.tr.Latest(), false); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// detailTaken is Detail of step i, a step taken: derived again into the
// session's memory for Detail (s.view, s.past).
func (s *Session) detailTaken(i int) (*Detail, error) {
	step := s.trace.Steps[i]
	d := &Detail{Index: i, Step: step, Context: s.tokens[:step.context:step.context]}
	raw := s.logits // a LogitsModel session's one step reads its logits
	if s.tr != nil {
		pass, err := s.tr.Probe(step.Input, step.Pos)
		if err != nil {
			return nil, err
		}
		s.view.computed = softmax.Widen(s.view.computed, pass.Logits())
		raw = s.view.computed
		d.Computed = raw
		if err := s.passDetail(d, pass, true); err != nil {
			return nil, err
		}
	}
	s.view.logits = slices.Grow(s.view.logits[:0], len(raw))[:len(raw)]
	d.Logits = s.view.logits
	s.prepare(i, raw, d.Logits)
	gen := s.genFor(i, step.genWas)
	var err error
	switch d.Choice, _, err = s.choose(i, &s.past, d.Logits, d.Context, &gen, true); {
	case errors.Is(err, softmax.ErrAllMasked):
		d.Unsampled = err
	case err != nil:
		return nil, err
	}
	return d, nil
}

// detailMemory is what Detail derives into, reused from one call to the
// next.
type detailMemory struct {
	logits, computed []float64     // a step taken's
	hidden           []float32     // a step taken's
	weights          []float32     // a step taken's attention, head after head
	attention        [][][]float32 // Detail.Attention: views of weights or of the latest pass
}

// passDetail gives d the hidden state, attention and cache of pass, the
// forward pass of d's step, and its logit lens when KeepLens asked for
// it. The latest pass's are views of the transformer's memory, which
// stays until the session changes; a pass run again (keep) is copied
// into the session's, as the next Probe (Recompute's) would overwrite it.
func (s *Session) passDetail(d *Detail, pass *transformer.Pass, keep bool) error {
	c := s.tr.Config
	n := d.Step.Pos + 1
	v := &s.view
	d.Hidden = pass.Hidden()
	if keep {
		v.hidden = append(v.hidden[:0], d.Hidden...)
		d.Hidden = v.hidden
	}
	d.Hidden = d.Hidden[:len(d.Hidden):len(d.Hidden)]
	if len(v.attention) != c.Layers {
		v.attention = make([][][]float32, c.Layers)
		for l := range v.attention {
			v.attention[l] = make([][]float32, c.Heads)
		}
	}
	if keep {
		v.weights = slices.Grow(v.weights[:0], c.Layers*c.Heads*n)[:c.Layers*c.Heads*n]
	}
	for l, heads := range v.attention {
		for h := range heads {
			w := pass.Attention(l, h)
			if keep {
				w = append(v.weights[(l*c.Heads+h)*n:][:0], w...)
			}
			heads[h] = w[:n:n]
		}
	}
	d.Attention = v.attention
	d.KV = s.tr.Cache.View(n)
	if s.keepLens > 0 {
		var err error
		if d.Lens, err = pass.Lens(s.keepLens); err != nil {
			return err
		}
	}
	return nil
}

// choose runs step i's sampler on logits with the context so far, from the
// generators gen, which it advances: the compact choice, or the recorded
// one, in sc's memory, with the distribution the step shows. Chain and
// run.c modes are package sampler's, the other runtimes' package
// compare's, whose recorded choices are their own.
func (s *Session) choose(i int, sc *sampler.Scratch, logits []float64, context []int, gen *generators, record bool) (*sampler.Choice, []float64, error) {
	set := s.Sampler(i)
	var c *sampler.Choice
	var probs []float64
	var err error
	switch {
	case set.Runtime():
		if s.stepper == nil || s.stepper.Settings() != set {
			if s.stepper, err = compare.NewStepper(set, compare.Vocab(s.model.Tokenizer)); err != nil {
				return nil, nil, fmt.Errorf("step %d: %w", i, err)
			}
		}
		c, err = s.stepper.Choose(logits, context, &gen.rng, &gen.llama, record)
		probs = s.stepper.Probs()
	case record:
		c, err = sc.Record(set, logits, context, &gen.rng)
		probs = sc.Probs()
	default:
		c, err = sc.Choose(set, logits, context, &gen.rng)
		probs = sc.Probs()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("step %d: %w", i, err)
	}
	return c, probs, nil
}

// generators are a session's random state: nexttoken's xorshift, which
// the chain, run.c and Hugging Face modes draw from, and how far
// llama.cpp's two std::mt19937 (dist and XTC), seeded with the same seed,
// have run — 24 bytes, kept by every step for undo and Detail.
type generators struct {
	rng   sampler.RNG
	llama llamacpp.State
}

// newGenerators are the generators freshly seeded.
func newGenerators(seed uint64) generators { return generators{rng: sampler.NewRNG(seed)} }

// stopAfter says why no step can follow step i, which took step.Token
// and which the context now ends with; its Kind is Running if one can.
//
// BOS ends a text in both modes; EOS ends it in the chain, but run.c goes
// on after it, so run.c mode does too. A token that has no position left
// in the context, because the token before it filled the last one, is
// sampled but never fed, as run.c samples once more from the last
// position.
func (s *Session) stopAfter(i int, step Step) Stop {
	tok, token := s.model.Tokenizer, step.Token
	eos := token == tok.EOS() && s.Sampler(i).Mode != sampler.RunC
	switch {
	case s.tr == nil:
		return Stop{Kind: OneStep}
	case eos, token == tok.BOS():
		kind := NewText
		switch {
		case eos && s.spec.Chat != nil: // the chat tokenizer's EOS is its template's end of turn
			kind = EndOfTurn
		case eos: // a tokenizer's one token for both ends a text
			kind = EndOfText
		}
		text := strings.TrimSpace(tok.Token(token))
		if text == "" {
			text = fmt.Sprintf("token %d", token)
		}
		return Stop{Kind: kind, Token: token, Text: text, Forced: step.Forced}
	case len(s.tokens) > s.model.Checkpoint.Config.SeqLen:
		return Stop{Kind: ContextFull, Context: s.model.Checkpoint.Config.SeqLen}
	}
	return Stop{}
}

// Undo removes the last step; the branches stay.
func (s *Session) Undo() error {
	n := len(s.trace.Steps)
	if n == 0 {
		return errors.New("nothing to undo")
	}
	s.regrow(s.retake(n-1, n-1), s.ids(0))
	return s.truncate(n - 1)
}

// Reset goes back to the state after prefill and forgets every hand edit,
// every branch and every change of settings but the last: the settings
// the next step would have used become the session's from step 0.
func (s *Session) Reset() error {
	set := s.Sampler(len(s.trace.Steps))
	s.spec.Forced, s.spec.Edits, s.spec.Changes = nil, nil, nil
	s.branches = nil
	if err := s.truncate(0); err != nil {
		return err
	}
	return s.restartWith(set)
}

// Sampler returns the settings step i uses, for a step taken (i <
// len(Trace().Steps)) or the next one (i = len(Trace().Steps)): those of
// the latest change at or before step i, else Spec.Sampler.
func (s *Session) Sampler(i int) sampler.Settings { return s.spec.SamplerAt(i) }

// SamplerAt returns the settings step i of spec uses: those of the latest
// change at or before step i, else spec.Sampler.
func (spec Spec) SamplerAt(i int) sampler.Settings {
	set := spec.Sampler
	for _, c := range spec.Changes {
		if c.Step > i {
			break
		}
		set = c.Sampler
	}
	return set
}

// SetSampler makes set the sampler's settings from the next step on; the
// steps taken keep theirs. It replaces any change at or after the next
// step, and records none if set is what the next step would use anyway.
// Before the first step it sets Spec.Sampler instead, which every path
// of the tree starts from: new settings there clear the tree.
func (s *Session) SetSampler(set sampler.Settings) error {
	if err := CheckSettings(set); err != nil {
		return err
	}
	n := len(s.trace.Steps)
	s.forget()
	s.spec.Changes = slices.DeleteFunc(s.spec.Changes, func(c Change) bool { return c.Step >= n })
	switch {
	case n == 0:
		if set != s.spec.Sampler {
			s.branches = nil
		}
		return s.restartWith(set)
	case set != s.Sampler(n):
		s.spec.Changes = append(s.spec.Changes, Change{Step: n, Sampler: set})
	}
	return nil
}

// Rerun chooses every step again with the settings the next step would
// use, as if they had been the session's from the start: they become
// Spec.Sampler and the changes go. Forced tokens and edits stay; the
// branches go, as every path would change. It runs
// as many steps as there were, fewer if the session stops sooner; after
// an error, the steps re-run before it.
func (s *Session) Rerun() error {
	n := len(s.trace.Steps)
	set := s.Sampler(n)
	if err := s.rewind(0); err != nil {
		return err
	}
	s.spec.Changes, s.branches = nil, nil
	if err := s.restartWith(set); err != nil {
		return err
	}
	for range n {
		if err := s.Step(); errors.Is(err, ErrStopped) {
			break
		} else if err != nil {
			return err
		}
	}
	return nil
}

// restartWith makes set the settings of step 0, before any step is taken,
// and feeds the prompt again if they change the model's arithmetic.
func (s *Session) restartWith(set sampler.Settings) error {
	s.forget()
	s.spec.Sampler = set
	s.gen = newGenerators(set.Seed)
	if s.tr == nil || s.tr.Options() == s.options(set) {
		return nil
	}
	s.tr = transformer.NewWith(s.model.Checkpoint, s.options(set))
	logits, err := s.tr.Prefill(s.tokens, 0)
	if err != nil {
		return err
	}
	s.setLogits(logits)
	return nil
}

// options are the model's arithmetic for a session whose step 0 uses set,
// with the session's kernels.
func (s *Session) options(set sampler.Settings) transformer.Options {
	return transformer.Options{RunC: set.Mode == sampler.RunC, Kernels: s.opts.Kernels}
}

// genFor returns the generators step i starts from, given the state was
// that the steps before it left: a change at step i to another seed
// starts them all afresh from that seed.
func (s *Session) genFor(i int, was generators) generators {
	if set := s.Sampler(i); i > 0 && set.Seed != s.Sampler(i-1).Seed {
		return newGenerators(set.Seed)
	}
	return was
}

// CheckSettings reports settings a session cannot sample with, naming the
// setting: what sampler.Settings.Validate refuses, and in llama.cpp and
// Hugging Face modes what that runtime refuses (compare.ForSession).
func CheckSettings(set sampler.Settings) error {
	if err := set.Validate(); err != nil {
		return err
	}
	if set.Runtime() {
		_, err := compare.ForSession(set)
		return err
	}
	return nil
}

// Force makes step i choose token by hand. At the next step it is one
// more step; at a step taken it starts a branch of the tree there, keeping
// the path it leaves (or switches to the branch that already forces token
// there).
func (s *Session) Force(i, token int) error {
	if err := s.checkStep(i, token); err != nil {
		return err
	}
	if i == len(s.trace.Steps) {
		s.forget()
		s.spec.Forced = append(unforced(s.spec.Forced, i), Force{Step: i, Token: token})
		return s.Step()
	}
	target := s.retake(i, i+1)
	target.forced = append(unforced(target.forced, i), Force{Step: i, Token: token})
	return s.fork(target)
}

// EditLogit sets the logit of token at step i to value (−Inf masks it). An
// edit of the next step (i = the number of steps) changes what Next shows;
// an edit of an earlier step starts a branch there, as Force does.
func (s *Session) EditLogit(i, token int, value float64) error {
	if err := s.checkStep(i, token); err != nil {
		return err
	}
	if math.IsNaN(value) || math.IsInf(value, 1) {
		return fmt.Errorf("a logit must be a number or −Inf, not %v", value)
	}
	edit := func(edits []Edit) []Edit {
		edits = slices.DeleteFunc(edits, func(e Edit) bool { return e.Step == i && e.Token == token })
		return append(edits, Edit{Step: i, Token: token, Logit: value})
	}
	if i == len(s.trace.Steps) {
		s.forget()
		s.spec.Edits = edit(s.spec.Edits)
		return nil
	}
	target := s.retake(i, i+1)
	target.forced, target.edits = unforced(target.forced, i), edit(target.edits)
	return s.fork(target)
}

// unforced is forced without a token forced at step i.
func unforced(forced []Force, i int) []Force {
	return slices.DeleteFunc(forced, func(f Force) bool { return f.Step == i })
}

// checkStep says whether step i (taken, or the next) and token exist.
func (s *Session) checkStep(i, token int) error {
	if i < 0 || i > len(s.trace.Steps) {
		return fmt.Errorf("step %d does not exist (the session has %d)", i, len(s.trace.Steps))
	}
	if n := s.model.Tokenizer.VocabSize(); token < 0 || token >= n {
		return fmt.Errorf("token %d is not in the vocabulary of %d", token, n)
	}
	return nil
}

// retake is the session's path cut to n steps, ready for step i ≤ n to be
// taken (again): with the hand edits of the steps up to i.
func (s *Session) retake(i, n int) path {
	p := s.pathOf(0)
	return path{
		steps:   n,
		forced:  slices.DeleteFunc(slices.Clone(p.forced), func(f Force) bool { return f.Step > i }),
		edits:   slices.DeleteFunc(slices.Clone(p.edits), func(e Edit) bool { return e.Step > i }),
		changes: slices.DeleteFunc(slices.Clone(p.changes), func(c Change) bool { return c.Step > i }),
	}
}

// truncate keeps the first n steps and the forced tokens, edits and
// changes that belong to them or to the next step.
func (s *Session) truncate(n int) error {
	if err := s.rewind(n); err != nil {
		return err
	}
	s.spec.Forced = slices.DeleteFunc(s.spec.Forced, func(f Force) bool { return f.Step > n })
	s.spec.Edits = slices.DeleteFunc(s.spec.Edits, func(e Edit) bool { return e.Step > n })
	s.spec.Changes = slices.DeleteFunc(s.spec.Changes, func(c Change) bool { return c.Step > n })
	return nil
}

// rewind takes the session back to its state after n steps, keeping the
// spec's hand edits.
func (s *Session) rewind(n int) error {
	s.forget()
	if n < len(s.trace.Steps) {
		cut := s.trace.Steps[n]
		s.gen = cut.genWas
		s.tokens = s.tokens[:cut.context]
		s.trace.Steps = s.trace.Steps[:n]
		if n == 0 {
			s.trace.Steps = nil // as New leaves it, so that traces compare equal
		}
		s.trace.Stop = Stop{}
		if s.tr != nil {
			// Re-feed the last context token: its logits, attention and
			// hidden state are the ones step n reads.
			logits, err := s.tr.Forward(s.tokens[len(s.tokens)-1], len(s.tokens)-1)
			if err != nil {
				return err
			}
			s.setLogits(logits)
		}
		s.trace.Text = s.model.Tokenizer.Decode(s.tokens)
	}
	s.spec.Steps = n
	return nil
}

// prepare writes into out the logits the sampler reads at step i: logits
// with the step's edits, then −Inf for the tokens its settings' IgnoreEOS
// masks (masked). It returns the tokens the edits changed.
func (s *Session) prepare(i int, logits, out []float64) []int {
	copy(out, logits)
	var edited []int
	for _, e := range s.spec.Edits {
		if e.Step == i {
			out[e.Token] = e.Logit
			edited = append(edited, e.Token)
		}
	}
	for _, t := range s.masked(i) {
		out[t] = math.Inf(-1)
	}
	slices.Sort(edited)
	return slices.Compact(edited)
}

// masked are the tokens whose logits step i masks whatever its edits: the
// ends of a text when its settings ignore them, else none.
func (s *Session) masked(i int) []int {
	if s.Sampler(i).IgnoreEOS {
		return s.ends
	}
	return nil
}

// ends are the tokens that end a text, EOS and BOS, ascending, each once.
func ends(tok tokenizer.Tokenizer) []int {
	var ids []int
	for _, id := range []int{tok.BOS(), tok.EOS()} {
		if id >= 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// setLogits keeps the model's logits for the next step, those of the
// context's last token, and whether they are all numbers (badLogits).
func (s *Session) setLogits(logits []float32) {
	s.forget()
	s.logits = slices.Grow(s.logits[:0], len(logits))[:len(logits)]
	var sum float32 // of v − v: 0, unless a v is NaN or infinite
	for i, v := range logits {
		s.logits[i] = float64(v)
		sum += v - v
	}
	s.badLogits = nil
	if sum != 0 {
		nan := slices.ContainsFunc(logits, func(v float32) bool { return v != v })
		s.badLogits = &BadLogitsError{Model: s.model.Name, Pos: len(s.tokens) - 1, NaN: nan}
	}
}

func (s *Session) forced(i int) (int, bool) {
	for _, f := range slices.Backward(s.spec.Forced) {
		if f.Step == i {
			return f.Token, true
		}
	}
	return 0, false
}

// HeadRow is a copy of the classifier's row for token (dequantized, for a
// quantized model): Detail.Computed of the token is this row times
// Detail.Hidden (for a quantized model, times Detail.Hidden quantized as
// package quant's kernels do). It is nil for a LogitsModel session.
func (s *Session) HeadRow(token int) []float32 {
	if s.tr == nil || token < 0 || token >= s.tr.Config.VocabSize {
		return nil
	}
	row := make([]float32, s.tr.Config.Dim)
	s.tr.Matrices.Classifier.Row(token, row)
	return row
}

// KeepTop sets how many of its most probable tokens each step from now on
// keeps in Step.Top (DefaultTop at first), 0 ≤ n ≤ 1000.
func (s *Session) KeepTop(n int) error {
	if n < 0 || n > 1000 {
		return fmt.Errorf("a step keeps 0 to 1000 candidates, not %d", n)
	}
	s.forget()
	s.keepTop = n
	return nil
}

// KeepLens makes Detail carry the logit lens of its step, the k most
// probable tokens after every layer (transformer.Pass.Lens), 0 ≤ k ≤ 1000;
// 0, at first, leaves it out: the lens costs a product by the classifier
// per layer, for stories15M three and a half decode steps.
func (s *Session) KeepLens(k int) error {
	if k < 0 || k > 1000 {
		return fmt.Errorf("the logit lens keeps 0 to 1000 tokens a layer, not %d", k)
	}
	s.keepLens = k
	return nil
}

// Spec returns the session as a plain value; New(s.Spec()) reproduces it.
func (s *Session) Spec() Spec {
	spec := s.spec
	spec.Vocab = slices.Clone(spec.Vocab)
	spec.Logits = slices.Clone(spec.Logits)
	spec.Changes = slices.Clone(spec.Changes)
	spec.Forced = slices.Clone(spec.Forced)
	spec.Edits = slices.Clone(spec.Edits)
	for _, b := range s.branches {
		spec.Branches = append(spec.Branches, b.clone())
	}
	return spec
}

// Trace returns what the session has computed so far. It is shared with the
// session: read it, do not change it.
func (s *Session) Trace() *Trace { return &s.trace }

// Prompt returns the text the prompt's tokens were read from: the spec's
// Prompt, or its chat template's rendering of its Chat.
func (s *Session) Prompt() string { return s.prompt }

// Model returns the session's model.
func (s *Session) Model() *Model { return s.model }

// RunsModel reports whether the session runs a model's forward passes,
// which Lens, Recompute and Detail's hidden state and attention read:
// false for a LogitsModel session, whose logits are typed by hand.
func (s *Session) RunsModel() bool { return s.tr != nil }

// KVRowBytes is the memory one position takes in the KV cache, its keys
// and values in every layer; 0 for a LogitsModel session.
func (s *Session) KVRowBytes() int {
	if s.tr == nil {
		return 0
	}
	return s.tr.Cache.RowBytes()
}

// Lens is the logit lens of the latest forward pass, the one whose logits
// the next step samples from: the k most probable tokens after every
// layer (transformer.Pass.Lens). It fails for a LogitsModel session.
func (s *Session) Lens(k int) ([]LensLayer, error) {
	if s.tr == nil {
		return nil, errors.New("a session of hand-typed logits has no model to read the logit lens of")
	}
	return s.tr.Latest().Lens(k)
}

func (s *Session) cacheSize() (length, bytes int) {
	if s.tr == nil {
		return 0, 0
	}
	return s.tr.Cache.Len, s.tr.Cache.Bytes()
}

func (s *Session) pieces(ids []int) []Token {
	out := make([]Token, len(ids))
	prev := -1
	for i, id := range ids {
		out[i] = Token{ID: id, Piece: s.model.Tokenizer.Piece(prev, id), Text: s.model.Tokenizer.Token(id)}
		prev = id
	}
	return out
}

// RenameModel changes the model's name in the session's Spec to name: the
// name a Loader finds it by once a page renames it (Model.SetName), when
// the hash of the files it was opened from comes in.
func (s *Session) RenameModel(name string) { s.spec.Model = name }
