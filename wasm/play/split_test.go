package play

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSplit moves a session between the page's engine and a worker's,
// behind the wire: each request goes to the engine of the session's
// model, the epoch moves on at every move (the two engines count epochs
// of their own, which coincide here), and Undo comes back across.
func TestSplit(t *testing.T) {
	near := &opLog{eng: &Local{Load: load}}
	far := &opLog{eng: overPipe(&Local{Load: load})}
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
		nearBefore, farBefore := len(near.ops), len(far.ops)
		s.do()
		r.settle()
		got := r.c.sum
		toNear, toFar := len(near.ops)-nearBefore, len(far.ops)-farBefore
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

// opLog is an engine that logs the requests it is sent, and takes one
// step a batch, as a large model does in Run's budget.
type opLog struct {
	eng Engine
	ops []Op
}

func (o *opLog) Send(r Request, answer func(Answer)) {
	o.ops = append(o.ops, r.Op)
	if r.Op == Step {
		r.N = 1
	}
	o.eng.Send(r, answer)
}

// inWorker is an engine that answers later, from a thread of its own.
type inWorker struct{ *later }

func (inWorker) Concurrent() bool { return true }

// TestRunPipelined runs 12 steps, a step a batch, on an engine in the
// page and on one in a worker, answering a request at a time. Each batch's answer carries
// the detail of the step it shows, so that Run asks for no Show; with the
// worker the next batch goes out as soon as one is answered, and the page
// draws each while the next is out, where the page's own engine waits for
// an animation frame between batches.
func TestRunPipelined(t *testing.T) {
	for _, worker := range []bool{false, true} {
		log := &opLog{eng: engineOf(&Local{Load: load})}
		l := &later{eng: log}
		var eng Engine = l
		if worker {
			eng = inWorker{l}
		}
		h := &clockHost{now: time.Unix(1e9, 0)}
		c := New(eng, h, "/")
		c.Open(stories(1))
		l.flush()
		c.SetRunSteps("12")
		log.ops = nil
		c.Run()
		var frames, batches, drawnOut int
		for range 1000 {
			if len(l.waiting) > 0 {
				answer := l.waiting[0]
				l.waiting = l.waiting[1:]
				drawn := h.drawn
				answer()
				batches++
				if c.run.out && h.drawn > drawn {
					drawnOut++ // drawn while the next batch is out
				}
				continue
			}
			if !h.frame() {
				break
			}
			frames++
		}
		s := c.Snapshot()
		if s.Steps() != 12 || s.Running {
			t.Fatalf("worker %v: %d steps, running %v; want 12 steps, the run over", worker, s.Steps(), s.Running)
		}
		if slices.Contains(log.ops, Show) {
			t.Errorf("worker %v: Run sent %v, asking for details its batches did not carry", worker, log.ops)
		}
		if s.Detail == nil || s.Detail.Index != ShownAfter(12, c.sum.Next == nil) {
			t.Errorf("worker %v: the run ends showing detail %+v, want step 12's", worker, s.Detail)
		}
		switch {
		case worker && (frames != 0 || drawnOut != batches-1):
			t.Errorf("worker: %d animation frames waited for, %d of %d batches drawn while the next was out; want none and all but the last", frames, drawnOut, batches)
		case !worker && (frames != batches-1 || drawnOut != 0):
			t.Errorf("page: %d animation frames waited for in %d batches, %d drawn while the next was out; want a frame between batches", frames, batches, drawnOut)
		}
	}
}

// TestStepCarriesDetail steps on an engine that answers later: the Step's
// answer carries the detail of the step shown next, so that the page
// asks for nothing more, unless what it shows changed meanwhile.
func TestStepCarriesDetail(t *testing.T) {
	log := &opLog{eng: engineOf(&Local{Load: load})}
	l := &later{eng: log}
	c := New(l, &clockHost{now: time.Unix(1e9, 0)}, "/")
	c.Open(stories(1))
	l.flush()
	for _, tc := range []struct {
		name     string
		meantime func() // while the Step is out
		want     []Op
	}{
		{"a step", func() {}, []Op{Step}},
		{"a step while the KV card switches layer", func() { c.ShowLayer(1) }, []Op{Step, Show}},
	} {
		log.ops = nil
		c.Step()
		tc.meantime()
		l.flush()
		if !slices.Equal(log.ops, tc.want) {
			t.Errorf("%s: the engine was sent %v, want %v", tc.name, log.ops, tc.want)
		}
		if d := c.Snapshot().Detail; d == nil || d.Index != c.sum.Steps() || c.detail.key != c.wantedDetail() {
			t.Errorf("%s: the page shows detail %+v of key %+v, want step %d's of %+v", tc.name, d, c.detail.key, c.sum.Steps(), c.wantedDetail())
		}
	}
}

// TestSearch searches a vocabulary in the engine: the detail lists the
// tokens whose text holds the query, with their rows, and the page's
// model carries the vocabulary's entries only for hand-typed logits,
// whose names the page edits.
func TestSearch(t *testing.T) {
	r := newRig(t, stories(1))
	if raw := r.c.sum.Model.Raw; raw != nil {
		t.Errorf("a model's %d vocabulary entries are on the page", len(raw))
	}
	for _, tc := range []struct {
		query string
		want  int
	}{{"x", ListedRows}, {"Lily", 1}, {"zzzq", 0}, {"", 0}} { // the byte tokens <0x..> match x
		r.c.Search(tc.query)
		r.settle()
		d := r.snap().Detail
		if n := len(d.Matches); d.Query != tc.query || n < tc.want || n > ListedRows || tc.want == 0 && n > 0 {
			t.Errorf("search %q: the detail is for %q and lists %d tokens, want %d", tc.query, d.Query, n, tc.want)
		}
		for _, id := range d.Matches {
			if _, ok := d.Row(id); !ok {
				t.Errorf("search %q: match %d (%q) has no row", tc.query, id, r.c.sum.Model.Label(id))
			}
		}
	}
	if r := newRig(t, worked()); len(r.c.sum.Model.Raw) != len(r.c.sum.Model.Names) {
		t.Errorf("hand-typed logits: %d vocabulary entries for %d tokens", len(r.c.sum.Model.Raw), len(r.c.sum.Model.Names))
	}
}

// TestStopAtOnce stops a Run on a worker while a batch is out: the page
// shows the run stopped at once, the batch out is the last, and its step
// is shown when it comes.
func TestStopAtOnce(t *testing.T) {
	log := &opLog{eng: engineOf(&Local{Load: load})}
	l := &later{eng: log}
	h := &clockHost{now: time.Unix(1e9, 0)}
	c := New(inWorker{l}, h, "/")
	c.Open(stories(1))
	l.flush()
	c.SetRunSteps("12")
	c.Run()
	for range 2 { // two batches answered, the third out
		answer := l.waiting[0]
		l.waiting = l.waiting[1:]
		answer()
	}
	drawn := h.drawn
	c.Run()
	if s := c.Snapshot(); s.Running || h.drawn == drawn {
		t.Fatalf("Stop pressed while a batch is out: running %v, drawn %v; want the run stopped and drawn at once", s.Running, h.drawn > drawn)
	}
	log.ops = nil // the later engine logs a request when it answers it
	l.flush()
	if s := c.Snapshot(); s.Steps() != 3 || !slices.Equal(log.ops, []Op{Step}) {
		t.Errorf("after the last batch: %d steps, and the engine ran %v; want 3 steps, the batch out and no other", s.Steps(), log.ops)
	}
}

// checkingHost is a host that checks, at every drawing, that the step on
// display comes with its detail.
type checkingHost struct {
	*clockHost
	c      *Controller
	t      *testing.T
	action string
}

func (h *checkingHost) Changed() {
	h.clockHost.Changed()
	s := h.c.Snapshot()
	if s.CanStep() && (s.Detail == nil || s.Detail.Index != s.Shown) {
		held := -1
		if s.Detail != nil {
			held = s.Detail.Index
		}
		h.t.Errorf("%s: the page draws step %d without its detail (it holds step %d's, -1 for none)", h.action, s.Shown, held)
	}
}

// TestDrawsWithDetail acts on an engine that answers a request at a time,
// later: the page never draws the step on display without its detail,
// which would take its cards away and mount them again a moment later.
func TestDrawsWithDetail(t *testing.T) {
	l := &later{eng: engineOf(&Local{Load: load})}
	h := &checkingHost{clockHost: &clockHost{now: time.Unix(1e9, 0)}, t: t, action: "open"}
	h.c = New(l, h, "/")
	h.c.Open(stories(1))
	l.flush()
	for _, a := range []struct {
		name string
		do   func()
	}{
		{"step", func() { h.c.Step() }},
		{"step", func() { h.c.Step() }},
		{"temperature", func() { h.c.SetSetting("temperature", 1.3) }},
		{"select the first step", func() { h.c.Select(0) }},
		{"edit a logit", func() { h.c.EditLogit(0, 5, 3) }},
		{"layer", func() { h.c.ShowLayer(1) }},
	} {
		h.action = a.name
		drawn := h.drawn
		a.do()
		l.flush()
		if h.drawn == drawn {
			t.Errorf("%s: not drawn", a.name)
		}
	}
}
