package play

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// counting is an engine that counts the requests it is sent.
type counting struct {
	eng Engine
	n   int
}

func (c *counting) Send(r Request, answer func(Answer)) {
	c.n++
	c.eng.Send(r, answer)
}

// TestSplit moves a session between the page's engine and a worker's,
// behind the wire: each request goes to the engine of the session's
// model, the epoch moves on at every move (the two engines count epochs
// of their own, which coincide here), and Undo comes back across.
func TestSplit(t *testing.T) {
	near := &counting{eng: &Local{Load: load}}
	far := &counting{eng: overPipe(&Local{Load: load})}
	split := &Split{Near: near, Far: far, InFar: func(model string) bool { return model == "stories260K" }}
	r := newRigOn(t, split, toy())
	steps := []struct {
		name       string
		do         func()
		model      string
		far        bool // every request went to Far, none to Near; or the other way round
		epochMoved bool
	}{
		{"step on the toy", func() { r.c.Step() }, toy().Model, false, false},
		{"open stories260K", func() { r.c.OpenModel("stories260K") }, "stories260K", true, true},
		{"step on stories260K", func() { r.c.Step() }, "stories260K", true, false},
		{"undo the step", func() { r.c.Undo() }, "stories260K", true, false},
		{"undo back to the toy", func() { r.c.Undo() }, toy().Model, false, true},
		{"redo: stories260K again", func() { r.c.Redo() }, "stories260K", true, true},
	}
	epoch := r.c.sum.Epoch
	for _, s := range steps {
		nearBefore, farBefore := near.n, far.n
		s.do()
		r.settle()
		got := r.c.sum
		toNear, toFar := near.n-nearBefore, far.n-farBefore
		if got.Model.Name != s.model || s.far && (toNear > 0 || toFar == 0) || !s.far && (toFar > 0 || toNear == 0) {
			t.Errorf("%s: model %s, %d requests to Near, %d to Far; want %s, all to Far %v (notice %q)", s.name, got.Model.Name, toNear, toFar, s.model, s.far, r.c.notice)
		}
		if s.epochMoved && got.Epoch <= epoch || !s.epochMoved && got.Epoch != epoch {
			t.Errorf("%s: epoch %d after %d", s.name, got.Epoch, epoch)
		}
		epoch = got.Epoch
	}
}

// TestRemoteClose ends the engine behind a Remote while a request is
// out: that request and every one after get the error, and the controller
// is no longer busy.
func TestRemoteClose(t *testing.T) {
	remote := NewRemote(port(func([]byte) {})) // an engine that never answers
	h := &clockHost{now: time.Unix(1e9, 0)}
	c := New(remote, h, "/")
	c.Open(toy())
	if !c.Busy() {
		t.Fatal("the controller is not waiting for the engine")
	}
	gone := errors.New("the engine's worker failed")
	remote.Close(gone)
	if c.Busy() || !strings.Contains(strings.ToLower(c.Snapshot().Notice), gone.Error()) {
		t.Errorf("after Close: busy %v, notice %q; want not busy, and the error", c.Busy(), c.Snapshot().Notice)
	}
	c.Step()
	if c.Busy() {
		t.Error("a request after Close waits")
	}
}
