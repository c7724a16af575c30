package play

import (
	"bytes"
	"maps"
	"reflect"
	"slices"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// Port carries messages one way: the page's requests to a Server, or its
// answers back to a Remote. A port within one program may deliver a
// message before Post returns: a Remote and a Server allow it, as the
// controller allows an engine that answers at once.
type Port interface {
	Post(msg []byte)
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
	kv     kvMirror          // the cache rows of the layer the page shows
	closed error             // why the engine is gone, once it is (Close)
}

// Close says the engine is gone, for the reason err: the requests out, and
// every one after, get err for their answer.
func (e *Remote) Close(err error) {
	e.closed = err
	waiting := e.waiting
	e.waiting = map[uint64]func(Answer){}
	for _, id := range slices.Sorted(maps.Keys(waiting)) {
		waiting[id](Answer{Err: err})
	}
}

// NewRemote is an engine that sends its requests to out; the engine's
// answers come back through Receive.
func NewRemote(out Port) *Remote {
	return &Remote{out: out, waiting: map[uint64]func(Answer){}, models: map[uint64]*Model{}}
}

// Send sends r; answer runs when Receive takes its answer in.
func (e *Remote) Send(r Request, answer func(Answer)) {
	if e.closed != nil {
		answer(Answer{Err: e.closed})
		return
	}
	e.id++
	e.waiting[e.id] = answer
	var w wire
	w.header(kindRequest, e.id)
	w.value(&r)
	e.out.Post(w)
}

// Receive takes in a message from the engine. A message that does not
// decode is an error; the request it answers, when that can be read,
// gets the error for its answer.
func (e *Remote) Receive(msg []byte) error {
	r := reader{b: msg}
	kind, id := r.header()
	answer, ok := e.waiting[id]
	if r.err != nil || kind != kindAnswer || !ok {
		return errWire
	}
	delete(e.waiting, id)
	a, err := e.answer(&r)
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
	Detail    *Detail // Show's; its cache rows follow (kvMirror)
}

// A model record says what is new of a model: the model itself, or its
// new name.
const (
	modelNew = iota
	modelRenamed
)

func (e *Remote) answer(r *reader) (Answer, error) {
	var aw answerWire
	r.value(&aw)
	if aw.Detail != nil {
		e.kv.read(r, &aw.Detail.KV)
	}
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
	a := Answer{Err: aw.Err, Stepped: aw.Stepped, Inherited: aw.Inherited, Refill: aw.Refill, Redo: aw.Redo, Detail: aw.Detail}
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
	kv    kvSent            // the cache rows the Remote holds

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
	s.out.Post(w)
	return r.err
}

func (s *Server) answer(w *wire, a Answer) {
	w.value(&answerWire{Err: a.Err, Stepped: a.Stepped, Inherited: a.Inherited, Refill: a.Refill, Redo: a.Redo, Detail: a.Detail})
	if a.Detail != nil {
		s.kv.write(w, a.Detail.KV, s.eng.model)
	}
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

// kvSent is what a Server sent of the cache: the model, the layer and the
// inputs of the positions whose rows the Remote holds. A row depends on
// the model and the inputs up to its position alone, so the rows the
// Remote holds stay good up to the first input that changed.
type kvSent struct {
	model  *Model
	layer  int
	inputs []int
}

// write appends the rows of kv the Remote lacks: the first position sent,
// then each position's keys and values, head by head.
func (k *kvSent) write(w *wire, kv Cache, model *Model) {
	keep := 0
	if k.model == model && k.layer == kv.Layer {
		for keep < min(len(k.inputs), len(kv.inputs)) && k.inputs[keep] == kv.inputs[keep] {
			keep++
		}
	}
	w.uint(uint64(keep))
	for pos := keep; pos < kv.Len; pos++ {
		for _, get := range []func(pos, h int) []float32{kv.Key, kv.Value} {
			for h := range kv.Heads {
				v := get(pos, h)
				w.put(reflect.ValueOf(&v).Elem())
			}
		}
	}
	k.model, k.layer, k.inputs = model, kv.Layer, slices.Clone(kv.inputs)
}

// kvMirror is the rows of one layer of the cache a Remote holds, as a
// Server sent them: a position's keys and values, head by head.
type kvMirror struct {
	keys, values [][][]float32 // by position, then kv head
}

// read reads what kvSent.write wrote into the mirror, and makes it kv's
// rows.
func (m *kvMirror) read(r *reader, kv *Cache) {
	keep, heads := r.uint(), kv.Heads
	n := kv.Len - int(min(keep, uint64(kv.Len))) // the rows that follow
	if kv.Len < 0 || keep > uint64(len(m.keys)) || keep > uint64(kv.Len) || heads < 0 ||
		n > 0 && (heads > len(r.b) || n > len(r.b) || n*2*heads > len(r.b)) { // a vector takes a byte at least
		r.fail()
		return
	}
	// Rows past keep were another history's: an older detail may still
	// read them, so the mirror grows from a copy.
	m.keys, m.values = slices.Clip(m.keys[:keep]), slices.Clip(m.values[:keep])
	for pos := int(keep); pos < kv.Len && r.err == nil; pos++ {
		for _, rows := range []*[][][]float32{&m.keys, &m.values} {
			row := make([][]float32, heads)
			for h := range row {
				row[h] = r.float32s()
			}
			*rows = append(*rows, row)
		}
	}
	kv.rows = *m
}

// Key is the key vector of kv head h at position pos; l is the layer the
// mirror holds.
func (m kvMirror) Key(l, pos, h int) []float32 { return m.keys[pos][h] }

// Value is the value vector of kv head h at position pos.
func (m kvMirror) Value(l, pos, h int) []float32 { return m.values[pos][h] }
