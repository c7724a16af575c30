package play

import (
	"errors"
	"strconv"
	"strings"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/softmax"
)

// Snapshot is the controller's state as the views draw it. Read it; the
// controller changes what it points to at its next change.
type Snapshot struct {
	Rev     int      // changes whenever anything below does
	Session *Summary // nil before the first session opens
	Shown   int      // the step on display; Session.Steps() is the next one

	// Detail is the step on display in full (for an ended session shown
	// at its end, the last step taken); nil while it is on its way or when
	// DetailErr says why not. It is the engine's, valid until its next
	// Show or change of the session: a snapshot taken after a change holds
	// none until the detail of the changed session comes.
	Detail    *Detail
	DetailErr error

	Layer    int              // the layer the KV card shows (Controller.ShowLayer)
	Settings sampler.Settings // the user's current settings: the next step's
	Used     sampler.Settings // the settings the step on display was taken with
	Rerun    int              // steps taken with other settings than Settings, which Rerun takes again

	CanUndo, CanRedo bool
	CanKeepGoing     bool // the session ended at the end of text, which KeepGoing takes again
	Running, Busy    bool
	RunSteps         int

	Prompt      string // the prompt field's text, which may not run yet
	PromptError string // why it does not
	Field       FieldError
	Notice      string // about the whole page
	Note        string // about the last action

	Page Page

	Recomputed   *session.Recomputed // the step on display without the cache, while Page.Recompute
	RecomputeErr error
	Times        []Timing // the recomputations measured so far

	Export Exporting // the export of the trace under way, or the last one's outcome
}

// Snapshot is the state the views draw now.
func (c *Controller) Snapshot() Snapshot {
	s := Snapshot{
		Rev: c.rev, Session: c.sum, Shown: c.shown,
		CanUndo: len(c.undo) > 0, CanRedo: len(c.redo) > 0, CanKeepGoing: c.CanKeepGoing(),
		Running: c.run.on, Busy: c.busy, RunSteps: c.run.n,
		Prompt: c.prompt.text, PromptError: c.prompt.err,
		Field: c.field, Notice: c.notice, Note: c.note, Page: c.page,
	}
	if c.export != nil {
		s.Export = c.export.Exporting
	}
	if c.sum == nil {
		return s
	}
	if c.detail.key.sum == c.sumRev {
		s.Detail, s.DetailErr = c.detail.d, c.detail.err
	}
	s.Settings = c.Settings()
	s.Layer = min(c.layer, max(c.sum.Model.Layers-1, 0))
	s.Used = c.sum.Spec.SamplerAt(c.shown)
	if tookOthers(c.sum.Spec, c.sum.Steps(), s.Settings) {
		s.Rerun = c.sum.Steps()
	}
	if c.page.Recompute && c.rec.key.sum == c.sumRev && c.rec.key.step == c.detailStep() {
		s.Recomputed, s.RecomputeErr = c.rec.r, c.rec.err
	}
	s.Times = c.rec.times
	return s
}

// tookOthers reports whether any of the first n steps of spec was taken
// with other settings than set. The settings change only where a change
// applies, so those steps and the first are the ones to look at.
func tookOthers(spec session.Spec, n int, set sampler.Settings) bool {
	if n > 0 && spec.SamplerAt(0) != set {
		return true
	}
	for _, ch := range spec.Changes {
		if ch.Step < n && spec.SamplerAt(ch.Step) != set {
			return true
		}
	}
	return false
}

// FieldError is the message by field, or "".
func (s Snapshot) FieldError(field string) string {
	if s.Field.Field != field {
		return ""
	}
	return s.Field.Message
}

// Steps is the number of steps taken.
func (s Snapshot) Steps() int {
	if s.Session == nil {
		return 0
	}
	return s.Session.Steps()
}

// CanStep reports whether there is a next step to take.
func (s Snapshot) CanStep() bool { return s.Session != nil && s.Session.Next != nil }

// Model is the session's model.
func (s Snapshot) Model() *Model {
	if s.Session == nil {
		return nil
	}
	return s.Session.Model
}

// Status says how many steps there are and, when no step can follow, why.
func (s Snapshot) Status() string {
	n := s.Steps()
	status := strconv.Itoa(n) + " steps"
	if n == 1 {
		status = "1 step"
	}
	if why := s.Stopped(); why != "" {
		status += " · " + why
	}
	return status
}

// Stopped says in words why no step can follow, or is "".
func (s Snapshot) Stopped() string {
	if s.Session == nil || s.Session.Next != nil {
		return ""
	}
	if stop := s.Session.Trace.Stop; stop.Kind != session.Running && errors.Is(s.Session.Why, session.ErrStopped) {
		return stop.String()
	}
	if errors.Is(s.Session.Why, softmax.ErrAllMasked) {
		return "every token is masked: type a number into one of the logits, or Undo"
	}
	return strings.TrimSuffix(Words(s.Session.Why), ".")
}

// Context is the text step i continued: the prompt and the tokens the
// steps before it chose.
func (s Snapshot) Context(i int) string {
	if s.Session == nil {
		return ""
	}
	t := s.Session.Trace
	var b strings.Builder
	for _, tok := range t.Prompt {
		b.WriteString(tok.Piece)
	}
	for _, st := range t.Steps[:min(i, len(t.Steps))] {
		b.WriteString(st.Piece)
	}
	return b.String()
}
