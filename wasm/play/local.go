package play

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"nexttoken/engine/link"
	"nexttoken/engine/session"
	"nexttoken/engine/tokenizer"
)

// Local is the engine in the page: a session.Session answered at once, on
// the page's own thread.
type Local struct {
	Load    session.Loader  // finds a model by name
	Options session.Options // how its sessions compute: the kernels the program loaded

	// Decoded counts the steps Step requests took and the time they took
	// with their summaries, which decide the next step, their details apart:
	// the engine's own speed.
	Decoded struct {
		Steps int
		Time  time.Duration
	}

	sess   *session.Session
	model  *Model
	epoch  int
	models map[*session.Model]*Model // the page's view of each model opened, computed once
}

// Alternatives is how many of its most probable tokens each step of the
// page's sessions keeps (session.Step.Top), for the token strip's popover.
const Alternatives = 10

// maxHeadNumbers is the largest classifier the page shows number by
// number: the toy model's 6 × 4.
const maxHeadNumbers = 64

// Send runs r and answers before it returns.
func (e *Local) Send(r Request, answer func(Answer)) { answer(e.run(r)) }

func (e *Local) run(r Request) (a Answer) {
	defer func() {
		// A bug in the engine must not kill the page: it is an error, and
		// the session is rebuilt as it was (below) where it can be.
		if p := recover(); p != nil {
			a = Answer{Err: fmt.Errorf("internal error (please report it): %v", p)}
		}
	}()
	switch r.Op {
	case Open:
		return e.open(r.Spec)
	case Show:
		if e.sess == nil {
			return Answer{Err: errNoSession}
		}
		return e.show(r)
	case Recompute:
		if e.sess == nil {
			return Answer{Err: errNoSession}
		}
		rc, err := e.sess.Recompute(r.Step)
		return Answer{Redo: rc, Err: err}
	case Rename:
		if e.sess == nil {
			return Answer{Err: errNoSession}
		}
		e.sess.RenameModel(r.Spec.Model)
		e.model.Name = r.Spec.Model
		return Answer{}
	}
	if e.sess == nil {
		return Answer{Err: errNoSession}
	}
	before := e.sess.Spec()
	steps := len(e.sess.Trace().Steps)
	start := time.Now()
	a, err := e.act(r)
	if err != nil {
		// An action may fail halfway (a fork whose step then cannot run):
		// go back to exactly where it started.
		// Should that fail too, the summary shows the session as it is.
		if !reflect.DeepEqual(e.sess.Spec(), before) || len(e.sess.Trace().Steps) != steps {
			e.open(before)
		}
		return Answer{Err: err, Session: e.summary()}
	}
	if rewrote(r, steps, before, e.sess.Spec()) {
		e.epoch++
	}
	a.Session = e.summary()
	if r.Op != Step {
		return a
	}
	e.Decoded.Steps += a.Stepped
	e.Decoded.Time += time.Since(start)
	if r.Shown {
		// The page shows the newest step next: a worker answers its detail
		// with the step, not a request later.
		show := r
		show.Step = ShownAfter(a.Session.Steps(), a.Session.Next == nil)
		if d := e.show(show); d.Err == nil {
			a.Detail = d.Detail
		}
	}
	return a
}

// show is the Detail of step r.Step, as r asks for it.
func (e *Local) show(r Request) Answer {
	if err := e.sess.KeepLens(r.Lens); err != nil {
		return Answer{Err: err}
	}
	d, err := e.sess.Detail(r.Step)
	var matches []int
	if r.Query != "" {
		matches = e.model.matching(r.Query, ListedRows)
		r.Rows = slices.Concat(r.Rows, matches)
	}
	t := trim(d, r, e.model.Typed, e.sess.Spec().SamplerAt(r.Step))
	if t != nil {
		t.Query, t.Matches = r.Query, matches
	}
	return Answer{Detail: t, Err: err}
}

// rewrote reports whether request r, run on a session of steps steps,
// changed a step that is still there: a session that only grew, lost its
// last steps or changed what comes next keeps its past, and so its epoch.
func rewrote(r Request, steps int, before, after session.Spec) bool {
	switch r.Op {
	case Step, SetSampler, Delete:
		return false
	case Force, EditLogit:
		return r.Step < steps
	case Restore:
		return !sameHistory(before, after)
	}
	return true
}

var errNoSession = errors.New("no session is open")

// act runs a request that changes the session.
func (e *Local) act(r Request) (Answer, error) {
	s := e.sess
	var a Answer
	var err error
	switch r.Op {
	case Restore:
		err = e.restore(r.Spec)
	case Step:
		start := time.Now()
		for a.Stepped < r.N && (r.Budget == 0 || time.Since(start) < r.Budget) {
			if err = s.Step(); err != nil {
				break
			}
			a.Stepped++
		}
		if a.Stepped > 0 && errors.Is(err, session.ErrStopped) {
			err = nil // Run stops where the session does
		}
	case Force:
		err = s.Force(r.Step, r.Token)
	case EditLogit:
		err = s.EditLogit(r.Step, r.Token, r.Value)
	case SetSampler:
		err = s.SetSampler(r.Set)
	case Rerun:
		err = s.Rerun()
	case Reset:
		err = s.Reset()
	case Switch:
		var refill session.Refill
		refill, err = s.Switch(r.Path)
		a.Refill = &refill
	case Delete:
		err = s.Delete(r.Path)
	default:
		err = fmt.Errorf("unknown request %v", r.Op)
	}
	if err == nil && r.Keep != nil {
		n := len(s.Trace().Steps)
		if was := s.Sampler(n); was != *r.Keep {
			a.Inherited = &was
			err = s.SetSampler(*r.Keep)
		}
	}
	return a, err
}

// open replaces the session with a new one built from spec; on an error
// the old one stays.
func (e *Local) open(spec session.Spec) Answer {
	opts := e.Options
	opts.Top = Alternatives
	s, err := session.NewWith(spec, e.Load, opts)
	if err != nil {
		return Answer{Err: err}
	}
	e.sess = s
	e.epoch++
	e.model = e.modelOf(s)
	return Answer{Session: e.summary()}
}

// restore makes the session spec: by stepping or undoing steps when only
// the number of steps differs (fast, and the model's state stays), else by
// building it again.
func (e *Local) restore(spec session.Spec) error {
	s := e.sess
	if !sameHistory(s.Spec(), spec) {
		a := e.open(spec)
		return a.Err
	}
	for len(s.Trace().Steps) > spec.Steps {
		if err := s.Undo(); err != nil {
			return err
		}
	}
	for len(s.Trace().Steps) < spec.Steps {
		if err := s.Step(); err != nil {
			return err
		}
	}
	return nil
}

// summary is the session as the controller shows it.
func (e *Local) summary() *Summary {
	s := e.sess
	sum := &Summary{Spec: s.Spec(), Model: e.model, Trace: s.Trace(), Tree: s.Tree(), Epoch: e.epoch}
	sum.Next, sum.Why = s.Next()
	if len(sum.Tree) > 1 {
		sum.Texts = make([]string, len(sum.Tree))
		for id := range sum.Tree {
			sum.Texts[id], _ = s.Text(id) // id is one of the tree's
		}
	}
	return sum
}

// modelOf is the page's view of the session's model, made once per model.
func (e *Local) modelOf(s *session.Session) *Model {
	sm := s.Model()
	if m, ok := e.models[sm]; ok {
		m.Name = sm.Name // renamed since (session.Model.SetName)
		return m
	}
	tok := sm.Tokenizer
	n := tok.VocabSize()
	m := &Model{Name: sm.Name, Typed: sm.Checkpoint == nil, Names: make([]string, n), raw: make([]string, n)}
	for id := range n {
		m.Names[id] = tokenizer.Readable(tok.Piece(-1, id))
		m.raw[id] = tok.Token(id)
	}
	if m.Typed {
		m.Raw = m.raw // the page renames them
	}
	if sm.Chat != nil {
		m.Chat, m.Special = true, make([]bool, n)
		for id := range n {
			m.Special[id] = sm.Chat.Special(id)
		}
	}
	if c := sm.Checkpoint; c != nil {
		cfg := c.Config
		m.Dim, m.Layers, m.Heads, m.KVHeads, m.HeadSize, m.SeqLen = cfg.Dim, cfg.Layers, cfg.Heads, cfg.KVHeads, cfg.HeadSize(), cfg.SeqLen
		m.SharedHead, m.Extras, m.Softcap = cfg.SharedHead, c.Extras(), cfg.FinalSoftcap
		m.Windows = make([]int, cfg.Layers)
		for l := range m.Windows {
			if cfg.Windowed(l) {
				m.Windows[l] = cfg.Window
			}
		}
		if cfg.Dim*cfg.VocabSize <= maxHeadNumbers {
			m.Head = make([][]float32, cfg.VocabSize)
			for id := range m.Head {
				m.Head[id] = s.HeadRow(id)
			}
		}
		m.Config = &cfg
	}
	if e.models == nil {
		e.models = map[*session.Model]*Model{}
	}
	e.models[sm] = m
	return m
}

// matching lists up to limit tokens whose text contains q, as it reads or
// as stored, ignoring case.
func (m *Model) matching(q string, limit int) []int {
	q = strings.ToLower(q)
	var ids []int
	for id, name := range m.Names {
		if strings.Contains(strings.ToLower(name), q) || strings.Contains(strings.ToLower(m.raw[id]), q) {
			ids = append(ids, id)
			if len(ids) == limit {
				break
			}
		}
	}
	return ids
}

// sameHistory reports whether two specs differ at most in their number of
// steps, so that one is the other with steps added or undone.
func sameHistory(a, b session.Spec) bool {
	a.Steps, b.Steps = 0, 0
	return reflect.DeepEqual(link.Canonical(a), link.Canonical(b))
}
