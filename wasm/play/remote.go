package play

import (
	"bytes"
	"slices"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// Port carries messages one way: the page's requests to a Server, or its
// answers back to a Remote. A port within one program may deliver a
// message before Post returns: a Remote and a Server allow it, as the
// controller allows an engine that answers at once.
//
// detail is a Show answer's detail, which does not cross as bytes yet:
// only a port within one program carries it, and it is nil otherwise.
type Port interface {
	Post(msg []byte, detail *Detail)
}

// Remote is an engine elsewhere, behind a Port: a session in a worker.
// It sends each request as a message, and keeps a mirror of the session
// from the answers, which carry only what changed since the last one
// (Server).
type Remote struct {
	out     Port
	id      uint64
	waiting map[uint64]func(Answer)

	models map[uint64]*Model // every model the engine has described, by its id
	last   *Summary          // the mirror: the session as the last answer left it
	paths  []session.Path    // the tree's paths past the first, as last sent
	texts  []string          // their texts
}

// NewRemote is an engine that sends its requests to out; the engine's
// answers come back through Receive.
func NewRemote(out Port) *Remote {
	return &Remote{out: out, waiting: map[uint64]func(Answer){}, models: map[uint64]*Model{}}
}

// Send sends r; answer runs when Receive takes its answer in.
func (e *Remote) Send(r Request, answer func(Answer)) {
	e.id++
	e.waiting[e.id] = answer
	var w wire
	w.header(kindRequest, e.id)
	w.value(&r)
	e.out.Post(w, nil)
}

// Receive takes in a message from the engine. A message that does not
// decode is an error; the request it answers, when that can be read,
// gets the error for its answer.
func (e *Remote) Receive(msg []byte, detail *Detail) error {
	r := reader{b: msg}
	kind, id := r.header()
	answer, ok := e.waiting[id]
	if r.err != nil || kind != kindAnswer || !ok {
		return errWire
	}
	delete(e.waiting, id)
	a, err := e.answer(&r, detail)
	if err != nil {
		a = Answer{Err: err}
	}
	answer(a)
	return err
}

// answerWire is the part of an Answer that crosses as it is.
type answerWire struct {
	Err       error
	Stepped   int
	Inherited *sampler.Settings
	Refill    *session.Refill
	Redo      *session.Recomputed
	Detail    bool // Show's detail comes with the message
}

// A model record says what is new of a model: the model itself, or its
// new name.
const (
	modelNew = iota
	modelRenamed
)

func (e *Remote) answer(r *reader, detail *Detail) (Answer, error) {
	var aw answerWire
	r.value(&aw)
	for n := r.count(); n > 0 && r.err == nil; n-- {
		id, kind := r.uint(), r.uint()
		switch kind {
		case modelNew:
			m := new(Model)
			r.value(m)
			e.models[id] = m
		case modelRenamed:
			name := r.string()
			if m, ok := e.models[id]; ok {
				m.Name = name
			} else {
				r.fail()
			}
		default:
			r.fail()
		}
	}
	a := Answer{Err: aw.Err, Stepped: aw.Stepped, Inherited: aw.Inherited, Refill: aw.Refill, Redo: aw.Redo}
	if aw.Detail {
		a.Detail = detail
	}
	if r.bool() {
		a.Session = e.summary(r)
	}
	if err := r.done(); err != nil {
		return Answer{}, err
	}
	if a.Session != nil {
		e.last = a.Session
	}
	return a, nil
}

// summary reads a summary as Server.summary wrote it, against the last.
func (e *Remote) summary(r *reader) *Summary {
	s := &Summary{Trace: new(session.Trace)}
	s.Model = e.models[r.uint()]
	if s.Model == nil {
		r.fail()
		return nil
	}
	if r.bool() {
		r.value(&s.Spec)
	} else if e.last != nil {
		s.Spec = e.last.Spec
	} else {
		r.fail()
		return nil
	}
	s.Spec.Steps = int(r.uint())
	s.Epoch = int(r.int())
	last := e.last
	if r.bool() {
		r.value(&s.Trace.Prompt)
		r.value(&s.Trace.Steps)
	} else if last != nil && last.Epoch == s.Epoch {
		steps := last.Trace.Steps
		if keep := r.uint(); keep < uint64(len(steps)) {
			// Taken back: the steps after keep are not to be written over
			// where an older summary still reads them.
			steps = slices.Clip(steps[:keep])
		} else if keep > uint64(len(steps)) {
			r.fail()
			return nil
		}
		var added []session.Step
		r.value(&added)
		s.Trace.Prompt, s.Trace.Steps = last.Trace.Prompt, append(steps, added...)
		if r.bool() {
			s.Trace.Steps = nil // as the engine's: none, rather than an empty list
		}
	} else {
		r.fail()
		return nil
	}
	text := ""
	if last != nil {
		text = last.Trace.Text
	}
	if keep := r.uint(); keep <= uint64(len(text)) {
		s.Trace.Text = text[:keep] + r.string()
	} else {
		r.fail()
	}
	r.value(&s.Trace.Stop)
	r.value(&s.Next)
	r.value(&s.Why)

	n := r.count()
	if n == 0 {
		return s
	}
	s.Tree = make([]session.Path, n)
	r.value(&s.Tree[0].Branch)
	r.value(&s.Tree[0].Prob)
	s.Tree[0].Own = s.Trace.Steps
	if r.bool() {
		r.value(&e.paths)
		r.value(&e.texts)
	}
	if len(e.paths) != n-1 {
		r.fail()
		return nil
	}
	copy(s.Tree[1:], e.paths)
	if n > 1 {
		if len(e.texts) != n-1 {
			r.fail()
			return nil
		}
		s.Texts = append([]string{s.Trace.Text}, e.texts...)
	}
	return s
}

// Server answers a Remote's requests with an engine of its own: the
// session in a worker. Each answer carries only what changed of the
// session since the answer before it.
type Server struct {
	eng *Local
	out Port

	ids   map[*Model]uint64 // the models described, by their id
	names map[*Model]string // the name each was last described with

	sent struct { // what the Remote's mirror holds
		ok    bool
		spec  []byte // the spec, its Steps left out
		epoch int
		steps int
		text  string
		paths []byte // the tree's paths past the first and their texts
	}
}

// Serve answers the requests Receive takes in with eng, and posts the
// answers to out.
func Serve(eng *Local, out Port) *Server {
	return &Server{eng: eng, out: out, ids: map[*Model]uint64{}, names: map[*Model]string{}}
}

// Receive runs a request from the Remote and posts the answer. A message
// that does not decode is answered with the error, when its id can be
// read, and returned.
func (s *Server) Receive(msg []byte) error {
	r := reader{b: msg}
	kind, id := r.header()
	if r.err != nil || kind != kindRequest {
		return errWire
	}
	var req Request
	r.value(&req)
	a := Answer{Err: r.done()}
	if a.Err == nil {
		a = s.eng.run(req)
	}
	var w wire
	w.header(kindAnswer, id)
	s.answer(&w, a)
	s.out.Post(w, a.Detail)
	return r.err
}

func (s *Server) answer(w *wire, a Answer) {
	w.value(&answerWire{Err: a.Err, Stepped: a.Stepped, Inherited: a.Inherited, Refill: a.Refill, Redo: a.Redo, Detail: a.Detail != nil})
	// The session's model, if the Remote does not know it as it is now.
	m := s.eng.model
	switch id, ok := s.ids[m]; {
	case m == nil || ok && s.names[m] == m.Name:
		w.uint(0)
	case ok:
		w.uint(1)
		w.uint(id)
		w.uint(modelRenamed)
		w.string(m.Name)
	default:
		id = uint64(len(s.ids) + 1)
		s.ids[m] = id
		w.uint(1)
		w.uint(id)
		w.uint(modelNew)
		w.value(m)
	}
	if m != nil {
		s.names[m] = m.Name
	}
	w.bool(a.Session != nil)
	if a.Session != nil {
		s.summary(w, a.Session)
	}
}

// summary writes sum as what changed since the last summary sent.
func (s *Server) summary(w *wire, sum *Summary) {
	sent := &s.sent
	w.uint(s.ids[sum.Model])

	spec := sum.Spec
	spec.Steps = 0
	var sw wire
	sw.value(&spec)
	if same := sent.ok && bytes.Equal(sw, sent.spec); same {
		w.bool(false)
	} else {
		w.bool(true)
		*w = append(*w, sw...)
		sent.spec = sw
	}
	w.uint(uint64(sum.Spec.Steps))

	w.int(int64(sum.Epoch))
	t := sum.Trace
	if !sent.ok || sent.epoch != sum.Epoch {
		w.bool(true)
		w.value(&t.Prompt)
		w.value(&t.Steps)
	} else {
		w.bool(false)
		keep := min(sent.steps, len(t.Steps))
		w.uint(uint64(keep))
		added := t.Steps[keep:]
		w.value(&added)
		w.bool(t.Steps == nil)
	}
	keep := 0
	for keep < min(len(t.Text), len(sent.text)) && t.Text[keep] == sent.text[keep] {
		keep++
	}
	w.uint(uint64(keep))
	w.string(t.Text[keep:])
	w.value(&t.Stop)
	w.value(&sum.Next)
	w.value(&sum.Why)

	// The first path's own steps are the trace's (session.Session.Tree).
	w.uint(uint64(len(sum.Tree)))
	if len(sum.Tree) > 0 {
		w.value(&sum.Tree[0].Branch)
		w.value(&sum.Tree[0].Prob)
		others := sum.Tree[1:]
		var texts []string
		if len(sum.Texts) > 1 {
			texts = sum.Texts[1:]
		}
		var pw wire
		pw.value(&others)
		pw.value(&texts)
		if same := sent.ok && sent.epoch == sum.Epoch && bytes.Equal(pw, sent.paths); same {
			w.bool(false)
		} else {
			w.bool(true)
			*w = append(*w, pw...)
			sent.paths = pw
		}
	}
	sent.ok, sent.epoch, sent.steps, sent.text = true, sum.Epoch, len(t.Steps), t.Text
}
