package play

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/softmax"
	"nexttoken/engine/tokenizer"
)

// fill sets every exported field v reaches to a value drawn from rng:
// extreme numbers, NaN, nil and empty slices, nil pointers and errors
// among them.
func fill(v reflect.Value, rng *rand.Rand, depth int) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		xs := []int64{0, -1, 1, math.MaxInt64, math.MinInt64, rng.Int64() - math.MaxInt64/2}
		x := xs[rng.IntN(len(xs))]
		for v.OverflowInt(x) {
			x /= 3
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		xs := []uint64{0, 1, math.MaxUint64, rng.Uint64()}
		x := xs[rng.IntN(len(xs))]
		for v.OverflowUint(x) {
			x /= 3
		}
		v.SetUint(x)
	case reflect.Float32, reflect.Float64:
		xs := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, 5e-324, rng.NormFloat64()}
		v.SetFloat(xs[rng.IntN(len(xs))])
	case reflect.String:
		v.SetString([]string{"", "é\x00\xff", "the cat"}[rng.IntN(3)])
	case reflect.Slice:
		if depth > 4 || rng.IntN(3) == 0 {
			return // nil
		}
		s := reflect.MakeSlice(v.Type(), rng.IntN(3), 3)
		for i := range s.Len() {
			fill(s.Index(i), rng, depth+1)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), rng, depth+1)
		}
	case reflect.Pointer:
		if depth > 4 || rng.IntN(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), rng, depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), rng, depth+1)
			}
		}
	case reflect.Interface:
		errs := []error{nil, session.ErrStopped, softmax.ErrAllMasked, errors.New("something else")}
		if err := errs[rng.IntN(len(errs))]; err != nil {
			v.Set(reflect.ValueOf(err))
		}
	}
}

// TestWireValues checks that every type that crosses the wire comes back
// as it went, field for field (what the same program's other side reads),
// and that a message cut short or lengthened is refused.
func TestWireValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range []any{new(Request), new(answerWire), new(Model), new(session.Spec), new(session.Step),
		new(session.Trace), new(session.Path), new(checkpoint.Config), new(session.Recomputed)} {
		typ := reflect.TypeOf(v).Elem()
		for round := range 200 {
			in := reflect.New(typ)
			fill(in.Elem(), rng, 0)
			var w wire
			w.value(in.Interface())
			out := reflect.New(typ)
			r := reader{b: w}
			r.value(out.Interface())
			if err := r.done(); err != nil {
				t.Fatalf("%v round %d: %v", typ, round, err)
			}
			var again wire
			again.value(out.Interface())
			if !bytes.Equal(w, again) || !sameErrors(in.Elem(), out.Elem()) {
				t.Fatalf("%v round %d: %+v came back as %+v", typ, round, in.Elem(), out.Elem())
			}
			if round%20 == 0 {
				for _, bad := range [][]byte{w[:len(w)-1], append(slices.Clip(w), 0)} {
					r := reader{b: bad}
					r.value(reflect.New(typ).Interface())
					if r.done() == nil {
						t.Errorf("%v round %d: %d bytes of a %d-byte value read without an error", typ, round, len(bad), len(w))
					}
				}
			}
		}
	}
}

// sameErrors reports whether the errors two values hold, a Request's or
// an Answer's, are the same sentinels with the same words.
func sameErrors(a, b reflect.Value) bool {
	if a.Type() != reflect.TypeFor[answerWire]() {
		return true
	}
	x, y := a.Interface().(answerWire).Err, b.Interface().(answerWire).Err
	if x == nil || y == nil {
		return x == y
	}
	for _, s := range sentinels {
		if errors.Is(x, s) != errors.Is(y, s) {
			return false
		}
	}
	return x.Error() == y.Error()
}

// FuzzWire plays the same actions on the page's engine and on one behind
// the wire, and checks after each that the controllers hold the same
// session, field for field, and say the same.
func FuzzWire(f *testing.F) {
	f.Add(byte(0), []byte{0, 0, 3, 1, 4, 0, 2, 6, 20, 0, 7, 8})
	f.Add(byte(1), []byte{5, 0, 1, 30, 0, 0, 11, 0, 0})
	f.Add(byte(0), []byte{0, 0, 0, 4, 1, 5, 11, 1, 0, 14, 0, 14, 1})
	f.Add(byte(2), []byte{6, 10, 0, 0, 0, 4, 1, 100, 6, 15, 11, 0, 0, 12, 3})
	f.Add(byte(1), []byte{18, 0, 0, 0, 18, 1, 1, 5, 18, 2, 0, 3, 0, 18, 1, 0, 6})
	f.Add(byte(3), []byte{13, 0, 2, 0, 13, 0, 1, 1, 2, 1, 0, 0, 13, 0, 4, 1, 13, 0, 1, 0, 3, 2, 13, 0, 3, 1, 7, 8, 13, 0, 0, 1})
	f.Add(byte(2), []byte{0, 0, 0, 0, 4, 2, 9, 0, 0, 11, 1, 0, 7, 7, 8, 11, 1, 1, 10, 12, 4})
	f.Add(byte(2), []byte{0, 0, 19, 1, 20, 3, 200, 0, 18, 0, 0, 7, 19, 2, 0, 12, 3, 7, 8, 19, 0, 0})
	f.Fuzz(func(t *testing.T, model byte, b []byte) {
		if len(b) > 120 {
			return
		}
		spec := []session.Spec{toy(), worked(), stories(0.9), chatSpec()}[int(model)%4]
		local := newRigOn(t, &Local{Load: load}, spec)
		wired := newRigOn(t, overPipe(&Local{Load: load}), spec)
		ls, ws := &script{b: b}, &script{b: b}
		var ran []string
		for {
			what, ok := playOne(local, ls)
			playOne(wired, ws)
			if !ok {
				break
			}
			ran = append(ran, what)
			if diff := sameController(local.c, wired.c); diff != "" {
				t.Fatalf("after %q behind the wire: %s", ran, diff)
			}
		}
	})
}

// sameController says how two controllers differ, or "".
func sameController(a, b *Controller) string {
	var x, y wire
	x.value(a.sum)
	y.value(b.sum)
	switch {
	case !bytes.Equal(x, y):
		return "the sessions differ"
	case a.sum.Model.Label(0) != b.sum.Model.Label(0) || a.sum.Model.Name != b.sum.Model.Name:
		return "the models differ"
	case a.notice != b.notice || a.field != b.field || a.note != b.note:
		return "the messages differ: " + a.notice + a.note + " and " + b.notice + b.note
	case a.shown != b.shown || len(a.undo) != len(b.undo) || len(a.redo) != len(b.redo):
		return "the step shown or the history differ"
	case (a.detail.d == nil) != (b.detail.d == nil) || Words(a.detail.err) != Words(b.detail.err):
		return "the details differ"
	case a.detail.d != nil:
		var x, y wire
		x.value(a.detail.d)
		y.value(b.detail.d)
		if !bytes.Equal(x, y) {
			return "the details differ"
		}
		ka, kb := a.detail.d.KV, b.detail.d.KV
		for pos := range ka.Len {
			for h := range ka.Heads {
				if !slices.Equal(ka.Key(pos, h), kb.Key(pos, h)) || !slices.Equal(ka.Value(pos, h), kb.Value(pos, h)) {
					return "the details' cache rows differ"
				}
			}
		}
	}
	return ""
}

// FuzzWireMessages feeds damaged messages to both ends of the wire: each
// is refused with an error, never a panic, and the request it answers,
// when that can be read, is answered with the error.
func FuzzWireMessages(f *testing.F) {
	r := reqBytes(Request{Op: Step, N: 3, Budget: time.Second})
	f.Add(r)
	var a wire
	a.header(kindAnswer, 1)
	(&Server{ids: map[*Model]uint64{}, names: map[*Model]string{}, eng: &Local{}}).answer(&a, Answer{Err: session.ErrStopped})
	f.Add([]byte(a))
	f.Add([]byte("NT\x01\x02\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		local := &Local{Load: load}
		var answered []byte
		server := Serve(local, port(func(m []byte) { answered = m }))
		server.Receive(msg)
		if answered != nil {
			r := reader{b: answered}
			if kind, _ := r.header(); kind != kindAnswer || r.err != nil {
				t.Fatalf("the server answered %q with %q", msg, answered)
			}
		}
		remote := NewRemote(port(func([]byte) {}))
		var got *Answer
		remote.Send(Request{Op: Show}, func(a Answer) { got = &a })
		err := remote.Receive(msg)
		if got != nil && err != nil && got.Err == nil {
			t.Fatalf("%q: the answer's error is lost", msg)
		}
	})
}

func reqBytes(r Request) []byte {
	var w wire
	w.header(kindRequest, 1)
	w.value(&r)
	return w
}

// TestWireBytes measures what crosses the wire on SmolLM2-135M's
// vocabulary (a model 8 times narrower, the bytes are the vocabulary's):
// the model once, then a request and answer a step, which carry only the
// step and what comes next, and the detail of the step shown, never a
// vector as long as the vocabulary.
func TestWireBytes(t *testing.T) {
	c := randmodel.SmolLM2
	c.Dim, c.HiddenDim, c.Layers, c.Heads, c.KVHeads = 72, 192, 2, 9, 3
	ckpt, vocab, err := randmodel.Build(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.New(vocab)
	if err != nil {
		t.Fatal(err)
	}
	m, err := session.Pair("smol", ckpt, tok)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	// A pipe that counts: the Remote's requests and the Server's answers.
	var server *Server
	remote := NewRemote(port(func(msg []byte) {
		sizes = append(sizes, len(msg))
		server.Receive(slices.Clone(msg))
	}))
	server = Serve(&Local{Load: func(string) (*session.Model, error) { return m, nil }}, port(func(msg []byte) {
		sizes = append(sizes, len(msg))
		remote.Receive(slices.Clone(msg))
	}))
	h := &clockHost{now: time.Unix(1e9, 0)}
	ctl := New(remote, h, "/")
	set := sampler.DefaultSettings()
	set.Temperature, set.TopP = 0.8, 0.9
	ctl.Open(session.Spec{Model: "smol", Prompt: "Once upon a time", Sampler: set})
	if ctl.sum == nil {
		t.Fatalf("the session did not open: %s", ctl.notice)
	}
	opened := slices.Clone(sizes)
	for range 20 {
		ctl.Step()
	}
	sizes = sizes[len(opened):]
	// Each step is a Step request and its answer, which carries the detail
	// of the next step, shown next.
	if len(sizes) != 40 {
		t.Fatalf("20 steps made %d messages, want 40", len(sizes))
	}
	withDetail := 0
	for i := 0; i < len(sizes); i += 2 {
		withDetail = max(withDetail, sizes[i]+sizes[i+1])
	}
	// The same steps without the detail, as Step asks when nothing shows it.
	sizes = nil
	for range 20 {
		remote.Send(Request{Op: Step, N: 1}, func(Answer) {})
	}
	stepBytes := 0
	for i := 0; i < len(sizes); i += 2 {
		stepBytes = max(stepBytes, sizes[i]+sizes[i+1])
	}
	t.Logf("opening: %d bytes in %d messages (the model's %d tokens once); a step: at most %d bytes, request and answer; with the next step's detail: at most %d", sum(opened), len(opened), c.VocabSize, stepBytes, withDetail)
	if stepBytes > 1000 {
		t.Errorf("a step is %d bytes on the wire, want at most 1,000", stepBytes)
	}
	// On SmolLM2's own widths the hidden state is 2.3 KB, a new cache row
	// 1.5 KB and the attention of a layer 36 B a position more than here.
	if withDetail-stepBytes > 16<<10 {
		t.Errorf("a step's detail is %d bytes on the wire, want at most 16 KiB", withDetail-stepBytes)
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
