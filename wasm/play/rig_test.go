package play

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// overWire is true while the package's tests run a second time, with
// their engines behind the wire (TestMain).
var overWire bool

// TestMain runs the tests twice: with the page's engine, then with the
// same engine behind a Remote and a Server talking through an in-memory
// port, as a worker's engine would. The controller must not tell them
// apart.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && !flagSet("test.fuzz") && !flagSet("test.list") {
		overWire = true
		fmt.Println("the same tests again, the engine behind the wire")
		code = m.Run()
	}
	os.Exit(code)
}

// flagSet reports whether the go test flag called name has a value.
func flagSet(name string) bool {
	f := flag.Lookup(name)
	return f != nil && f.Value.String() != ""
}

// engineOf is the engine the tests run local as: itself, or behind the
// wire.
func engineOf(local *Local) Engine {
	if !overWire {
		return local
	}
	return overPipe(local)
}

// port is a Port that is a function.
type port func(msg []byte)

func (p port) Post(msg []byte) { p(msg) }

// overPipe is local behind a Remote whose messages reach a Server at
// once, copied as a worker's postMessage copies them.
func overPipe(local *Local) *Remote {
	var remote *Remote
	server := Serve(local, port(func(msg []byte) {
		if err := remote.Receive(slices.Clone(msg)); err != nil {
			panic(err)
		}
	}))
	remote = NewRemote(port(func(msg []byte) {
		if err := server.Receive(slices.Clone(msg)); err != nil {
			panic(err)
		}
	}))
	return remote
}

// rig is a controller over the page's own engine, with a host whose clock,
// timers and animation frames the test moves by hand.
type rig struct {
	t    *testing.T
	c    *Controller
	host *clockHost
	eng  Engine
}

// clockHost is a Host on a clock of the test's.
type clockHost struct {
	now     time.Time
	timers  []*timer
	frames  []func()
	address string
	drawn   int // Changed calls
	missing []string
	saved   []savedFile
	tick    time.Duration

	fetching bool   // Missing fetches the model: it keeps retry and says so
	retry    func() // Missing's retry, when fetching
}

type timer struct {
	at   time.Time
	f    func()
	done bool
}

func (h *clockHost) Changed()           { h.drawn++ }
func (h *clockHost) Frame(f func())     { h.frames = append(h.frames, f) }
func (h *clockHost) Address(url string) { h.address = url }

// Now is the clock's time; with tick set, each look moves it on by tick,
// as work between two looks takes time.
func (h *clockHost) Now() time.Time {
	h.now = h.now.Add(h.tick)
	return h.now
}
func (h *clockHost) Save(name, mediaType string, data []byte) error {
	h.saved = append(h.saved, savedFile{name, mediaType, string(data)})
	return nil
}

// savedFile is a file the page was asked to save.
type savedFile struct{ name, mediaType, data string }

func (h *clockHost) Missing(err error, retry func()) bool {
	h.missing = append(h.missing, err.Error())
	if h.fetching {
		h.retry = retry
	}
	return h.fetching
}

func (h *clockHost) After(d time.Duration, f func()) func() {
	t := &timer{at: h.now.Add(d), f: f}
	h.timers = append(h.timers, t)
	return func() { t.done = true }
}

// wait moves the clock on by d, running the timers that come due, in order.
func (h *clockHost) wait(d time.Duration) {
	end := h.now.Add(d)
	for {
		i := slices.IndexFunc(h.timers, func(t *timer) bool { return !t.done && !t.at.After(end) })
		if i < 0 {
			break
		}
		t := h.timers[i]
		h.timers = slices.Delete(h.timers, i, i+1)
		t.done = true
		h.now = t.at
		t.f()
	}
	h.now = end
}

// frame runs the animation frames asked for, a frame's time later.
func (h *clockHost) frame() bool {
	if len(h.frames) == 0 {
		return false
	}
	fs := h.frames
	h.frames = nil
	h.wait(16 * time.Millisecond)
	for _, f := range fs {
		f()
	}
	return true
}

// load loads the page's built-in models once per test binary, and
// chatModel as chatName.
var loaded = map[string]*session.Model{}

func load(name string) (*session.Model, error) {
	if m, ok := loaded[name]; ok {
		return m, nil
	}
	load := models.Load
	if name == chatName {
		load = func(string) (*session.Model, error) { return chatModel() }
	}
	m, err := load(name)
	if err == nil {
		loaded[name] = m
	}
	return m, err
}

// newRig opens spec in a controller whose engine answers at once.
func newRig(t *testing.T, spec session.Spec) *rig {
	t.Helper()
	return newRigOn(t, engineOf(&Local{Load: load}), spec)
}

func newRigOn(t *testing.T, eng Engine, spec session.Spec) *rig {
	t.Helper()
	h := &clockHost{now: time.Unix(1e9, 0)}
	r := &rig{t: t, c: New(eng, h, "/"), host: h, eng: eng}
	r.c.Open(spec)
	r.settle()
	if r.c.sum == nil {
		t.Fatalf("%+v did not open: %s", spec, r.c.notice)
	}
	return r
}

// settle lets an engine that answers later answer everything asked, runs
// the animation frames Run asks for, and the timers due within a moment
// (the address bar's, not the typing's pause).
func (r *rig) settle() {
	for range 10000 {
		if l, ok := r.eng.(*later); ok && l.flush() {
			continue
		}
		if r.host.frame() {
			continue
		}
		r.host.wait(2 * addressDelay)
		if l, ok := r.eng.(*later); !ok || len(l.waiting) == 0 {
			return
		}
	}
	r.t.Fatal("the controller did not settle")
}

func (r *rig) snap() Snapshot { return r.c.Snapshot() }

// later is an engine that answers only when the test says: a worker's, as
// far as the controller can tell.
type later struct {
	eng     Engine
	waiting []func()
}

func (l *later) Send(req Request, answer func(Answer)) {
	l.waiting = append(l.waiting, func() { l.eng.Send(req, answer) })
}

// flush answers the requests out, and those their answers send; it
// reports whether there were any.
func (l *later) flush() bool {
	any := len(l.waiting) > 0
	for len(l.waiting) > 0 {
		f := l.waiting[0]
		l.waiting = l.waiting[1:]
		f()
	}
	return any
}

// text is the session's text so far.
func (r *rig) text() string { return r.c.sum.Trace.Text }

func (r *rig) wantNoMessages() {
	r.t.Helper()
	s := r.snap()
	if s.Notice != "" || s.Field != (FieldError{}) {
		r.t.Errorf("messages: notice %q, field %+v", s.Notice, s.Field)
	}
}

func contains(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s = %q, want it to contain %q", what, s, w)
		}
	}
}
