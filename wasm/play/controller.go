package play

import (
	"slices"
	"time"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// Host is what the controller needs of the page around it. The page's
// go-app component implements it in the browser; tests implement it with
// a clock of their own.
type Host interface {
	// Changed asks the page to draw the controller's state again: an
	// answer, a Run batch or a timer changed it.
	Changed()
	// After runs f on the page's goroutine once d has passed; cancel stops
	// it if it has not run.
	After(d time.Duration, f func()) (cancel func())
	// Frame runs f on the page's goroutine before the browser next paints.
	Frame(f func())
	// Address shows url, the session's share link, in the address bar.
	Address(url string)
	// Now is the time: Run's batches are budgeted with it.
	Now() time.Time
	// Missing is told that a session needs a model the page does not hold
	// (err says which): it starts fetching it, or asks the reader for its
	// files, and reports whether it did; retry opens the session once the
	// model is in.
	Missing(err error, retry func()) bool
	// Save offers data to the reader as a file called name, of the media
	// type given: the browser downloads it.
	Save(name, mediaType string, data []byte) error
}

// Controller is the page's state and the rules of the interaction; see
// the package documentation. Its methods are the user's actions and run
// on the page's goroutine; Snapshot is what the views draw.
type Controller struct {
	eng  Engine
	host Host

	busy  bool     // a request is out
	queue []queued // actions that came while it was

	sum     *Summary // the session, as the engine last answered
	sumRev  int      // counts summaries taken
	shown   int      // the step on display; sum.Steps() is the next one
	detail  shownDetail
	pending detailKey // a Show request out, or none

	undo, redo []entry
	gesture    int // 1 while a slider is held and nothing changed yet, 2 once its first change was kept

	run    runState
	prompt promptDraft
	page   Page
	// tourRev is the summary count when the tour's stop opened its
	// session (atTourStop).
	tourRev int
	rec     recomputeState
	rows    wantedRows // the tokens the views list besides the detail's own
	query   string     // the text of the tokens the logits card searches for (Search)
	layer   int        // the layer the KV card shows

	field  FieldError // a value refused, by the field it was typed in
	notice string     // about the whole page: a link that could not open, an action that failed
	note   string     // about the last action: a fork's settings, a switch's refill

	export *exportState // the export of the trace under way, or the last one

	rev      int    // counts every change the page draws
	dirty    bool   // changes made since the page last drew
	path     string // the page's path, for links
	address  func() // cancels the pending address bar update
	holdAddr bool   // the address keeps the link that a model on its way needs

	stepsAfterOpen stepsAfter // OpenAddressAndStep's steps, until its link opens
}

// queued is an action that waits for the engine; key lets a newer action
// of the same kind (a slider's next value) replace it while it waits.
type queued struct {
	key string
	do  func()
}

// shownDetail is the detail of the step on display, and what it was
// derived for.
type shownDetail struct {
	key detailKey
	d   *Detail
	err error
}

// detailKey is what a detail is derived for: a summary, a step, the
// logit lens's tokens a layer, the rows the views asked for (a count of
// WantRows calls that changed them), the layer the KV card shows and the
// compare card's chains.
type detailKey struct {
	sum, step, lens, rows, layer int
	compare                      CompareChoice
	query                        string
}

// wantedRows are the tokens whose rows the views want in the details to
// come (WantRows), and a count of their changes.
type wantedRows struct {
	ids []int
	rev int
}

// ShowLayer makes layer l the one whose attention and cache rows the
// details to come hold (Detail.Attention, Detail.KV): the KV card's.
func (c *Controller) ShowLayer(l int) {
	if l == c.layer || l < 0 {
		return
	}
	c.layer = l
	c.do("", c.refresh)
	c.draw()
}

// Search asks for the tokens whose text holds q in the details to come,
// with their rows (Detail.Matches); "" for none.
func (c *Controller) Search(q string) {
	if q == c.query {
		return
	}
	c.query = q
	c.do("", c.refresh)
	c.draw()
}

// WantRows asks for the rows of tokens ids in the details to come, besides
// those a detail lists (Detail.Listed): a search's matches, or the rows a
// table keeps while a slider is held. The detail on display follows if it
// lacks one of them.
func (c *Controller) WantRows(ids []int) {
	if slices.Equal(ids, c.rows.ids) {
		return
	}
	c.rows.ids = slices.Clone(ids)
	c.rows.rev++
	switch d := c.detail.d; {
	case d != nil && d.holds(ids):
		c.detail.key.rows = c.rows.rev // it needs no other
	case d != nil:
		c.do("", c.refresh)
		c.draw()
	}
}

// entry is the state before a user's action: undoing the action goes back
// to it.
type entry struct {
	spec  session.Spec
	shown int
}

// maxUndo bounds the undo history.
const maxUndo = 100

// FieldError is a value a field refused, with the reason in words.
type FieldError struct {
	Field   string // a setting's name, FieldSequence, FieldPrompt, FieldRun, or LogitField(id)
	Message string
}

// The fields an error can be shown by, besides the settings' names.
const (
	FieldSequence = "sequence"
	FieldPrompt   = "prompt"
	FieldRun      = "run"
	FieldDecoding = "decoding"
)

// New makes a controller over the engine and the page around it, whose
// links start with path. Open or OpenAddress starts its session.
func New(eng Engine, host Host, path string) *Controller {
	return &Controller{eng: eng, host: host, path: path,
		run: runState{n: DefaultRunSteps}, page: DefaultPage(), pending: noDetail}
}

var noDetail = detailKey{-1, -1, -1, -1, -1, CompareChoice{}, ""}

// send sends r to the engine. The controller is busy until the answer
// has been taken in; then the actions that waited run, the detail follows,
// and the page draws once for all of it.
func (c *Controller) send(r Request, answer func(Answer)) {
	c.busy = true
	c.eng.Send(r, func(a Answer) {
		answer(a)
		c.busy = false
		c.drain()
		c.draw()
	})
}

// draw asks the page to draw the changes made, unless a request is still
// out: the page draws a change with its detail, never the step's cards
// taken away while the detail is on its way (a worker's few milliseconds),
// which would mount them afresh and drop a slider from under the pointer.
// A Run draws each batch while the next is out: its answers carry their
// details.
func (c *Controller) draw() {
	if c.dirty && (!c.busy || c.run.out) {
		c.dirty = false
		c.host.Changed()
	}
}

// Holding reports whether the page waits for the engine's answer to draw
// (see draw): a request is out, and not a Run's, which draws each batch.
// The page shows what it last drew meanwhile.
func (c *Controller) Holding() bool { return c.busy && !c.run.out }

// do runs action now, or once the engine has answered the request that
// is out; a later action with the same key replaces one still waiting.
func (c *Controller) do(key string, action func()) {
	if !c.busy {
		action()
		return
	}
	if n := len(c.queue); key != "" && n > 0 && c.queue[n-1].key == key {
		c.queue[n-1].do = action
		return
	}
	c.queue = append(c.queue, queued{key, action})
}

// drain runs the actions that waited, then brings the detail up to date.
func (c *Controller) drain() {
	for !c.busy && len(c.queue) > 0 {
		next := c.queue[0]
		c.queue = c.queue[1:]
		next.do()
	}
	c.refresh()
}

// Busy reports whether a request is out: the page may show that it works.
func (c *Controller) Busy() bool { return c.busy }

// take makes an answer's summary the session's.
func (c *Controller) take(s *Summary) {
	if s == nil {
		return
	}
	c.sum = s
	c.sumRev++
	c.shown = min(c.shown, s.Steps())
}

// act sends a request that changes the session, as a user's action:
// undoable, its error shown by field (the notice for ""), and the step on
// display afterwards the one show picks.
func (c *Controller) act(key string, r Request, field string, show func(Answer) int) {
	c.flushPrompt()
	c.do(key, func() {
		if c.sum == nil {
			return
		}
		before := c.entry()
		req := r
		var asked detailKey
		if r.Op == Step {
			asked = c.askShown(&req) // the page shows the new step next
		}
		c.send(req, func(a Answer) {
			c.take(a.Session)
			if a.Err != nil {
				c.fail(field, a.Err)
				return
			}
			c.remember(before)
			c.clearMessages()
			c.note = c.noteOf(r, a)
			c.shown = show(a)
			if req.Shown {
				c.takeShown(asked, a)
			}
			c.changed()
		})
	})
}

// atEnd shows the next step after an action.
func (c *Controller) atEnd(Answer) int { return c.sum.Steps() }

// stay keeps the step on display.
func (c *Controller) stay(Answer) int { return c.shown }

// fail shows an action's error by its field, or at the top of the page.
func (c *Controller) fail(field string, err error) {
	c.clearMessages()
	if field == "" {
		c.notice = Words(err)
	} else {
		c.field = FieldError{field, Words(err)}
	}
	c.changed()
}

func (c *Controller) clearMessages() {
	c.field, c.notice, c.note = FieldError{}, "", ""
}

// changed ends every change: the detail follows the step on display, the
// address bar follows the link, and the page draws (now, or when the
// request out is answered).
func (c *Controller) changed() {
	c.rev++
	c.dirty = true
	c.syncAddress()
	c.refresh()
	c.draw()
}

// refresh asks for the detail of the step on display, and the
// recomputation the cache card wants, when what is held is for another.
func (c *Controller) refresh() {
	if c.busy || c.sum == nil {
		return
	}
	want := c.wantedDetail()
	if want != c.detail.key && want != c.pending {
		c.pending = want
		c.send(c.showRequest(want), func(a Answer) {
			c.detail = shownDetail{key: want, d: a.Detail, err: a.Err}
			c.pending = noDetail
			c.rev++
			c.dirty = true
		})
		return
	}
	c.rec.refresh(c)
}

// wantedDetail is the detail the page shows now.
func (c *Controller) wantedDetail() detailKey {
	return detailKey{c.sumRev, c.detailStep(), c.page.lensTokens(), c.rows.rev, c.layer, c.page.compareAsked(), c.query}
}

// showRequest asks for the detail of key.
func (c *Controller) showRequest(key detailKey) Request {
	return Request{Op: Show, Step: key.step, Lens: key.lens, Rows: c.rows.ids, Layer: key.layer, Compare: key.compare, Query: key.query}
}

// askShown makes r's answer carry the detail of the step the page shows
// after it, as the page would ask for it now (Request.Shown), and returns
// what it asked for: takeShown keeps it. A worker then answers the step
// and its detail in one message, not two requests apart.
func (c *Controller) askShown(r *Request) detailKey {
	asked := c.wantedDetail()
	r.Shown, r.Lens, r.Rows, r.Layer, r.Compare, r.Query = true, asked.lens, c.rows.ids, asked.layer, asked.compare, asked.query
	return asked
}

// takeShown keeps the detail answer a carries for askShown's asked, if the
// page shows that step and would ask for it as it did.
func (c *Controller) takeShown(asked detailKey, a Answer) {
	want := c.wantedDetail()
	if a.Detail == nil || a.Detail.Index != want.step {
		return
	}
	if asked.sum, asked.step = want.sum, want.step; asked == want {
		c.detail = shownDetail{key: want, d: a.Detail}
	}
}

// detailStep is the step whose detail the page shows: the one on display
// (ShownAfter, when that is the newest).
func (c *Controller) detailStep() int {
	if n := c.sum.Steps(); c.shown == n {
		return ShownAfter(n, c.sum.Next == nil)
	}
	return c.shown
}

// entry is the present, as an undo entry.
func (c *Controller) entry() entry {
	return entry{spec: c.sum.Spec, shown: c.shown}
}

// remember keeps the state before an action for Undo: one entry for all
// of a gesture's changes.
func (c *Controller) remember(e entry) {
	switch c.gesture {
	case 2:
		return // the gesture's first change kept the state before it
	case 1:
		c.gesture = 2
	}
	c.undo = append(c.undo, e)
	if len(c.undo) > maxUndo {
		c.undo = c.undo[1:]
	}
	c.redo = nil
}

// Settings are the user's current sampler settings: the next step's.
func (c *Controller) Settings() sampler.Settings {
	return c.sum.Spec.SamplerAt(c.sum.Steps())
}
