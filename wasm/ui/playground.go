package ui

import (
	"fmt"
	"reflect"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// Playground is the page. It owns the session and the actions on it, and
// hands each view, a component of its own, exactly what that view shows as
// exported fields: go-app re-renders a view only when those change, so a
// keystroke in one view does not rebuild the others.
//
// go-app keeps an element's event handler when the new one comes from the
// same function literal, whatever it captured; so every handler that
// captures a step, a token or a position carries an app.EventScope naming
// them, or a reused element would act on stale values.
type Playground struct {
	app.Compo

	live   bool                      // OnMount ran: the wasm program drives the page
	ctx    app.Context               // OnMount's, for work that outlives an event
	models map[string]*session.Model // loaded models, by name
	fetch  *fetching                 // a model on its way, or nil
	files  fileState                 // models from the reader's files
	sess   *session.Session
	vocab  *Vocab // how the session's tokens are labelled
	rev    int    // counts changes of the session, so views know to redraw
	epoch  int    // counts changes that rewrote the past (undo, fork, reset, a new session)

	next    *session.Step // the decision the next Step would make, or nil
	stopped string        // why there is no next step
	sel     int           // the step on display; len(steps) means the next one
	cmp     compareState  // the compare card's choices

	lensOpen bool           // the logit lens card is open: Detail carries the lens
	rec      recomputeState // the cache-versus-recompute card's

	// The detail of one step (the one on display), derived once per change.
	detail               *session.Detail
	detailRev, detailSel int

	notice string // a message about the whole page, such as a broken link
	refill string // what the last switch of branch did to the KV cache, until the next change

	undo, redo []snapshot // the user's actions, to undo and redo
	gesture    int        // > 0 while a slider is dragged or a field edited: one undo for all its changes

	running  bool // Run is stepping
	runLeft  int
	runDrawn time.Time // when the last batch ended and the page began to draw it
	runN     int

	// Where the page is, and how it is shown.
	origin, path string      // the page's origin and path, for links to this session
	embed        bool        // inside another page: one view, no header
	view         string      // the view an embed shows (views)
	theme        string      // light, dark or auto (the reader's system)
	link         string      // shareURL of the current session
	addressTimer *time.Timer // pending address bar update (syncAddress)
	prompt       string      // the prompt field's text, which may not tokenize yet
	promptError  string      // why it does not

	// The token strip's chips, kept from render to render while the past
	// stays as it was (chipsEpoch = epoch).
	chips      []Chip
	chipsEpoch int
}

// snapshot is the session before a user's action: undoing the action
// rebuilds it.
type snapshot struct {
	spec session.Spec
	sel  int
}

// maxUndo bounds the undo history.
const maxUndo = 100

// OnMount runs only in the browser, before OnNav.
func (p *Playground) OnMount(ctx app.Context) {
	p.live, p.ctx = true, ctx
	p.runN = 16
	_ = onFileDrop(func(l fileList) { ctx.Dispatch(func(app.Context) { p.openFiles(l) }) })
}

// OnNav starts the session the address asks for. The server prerenders
// without a session: all computation happens in the reader's browser.
func (p *Playground) OnNav(ctx app.Context) {
	if !p.live {
		return
	}
	u := ctx.Page().URL()
	p.origin, p.path = u.Scheme+"://"+u.Host, u.Path
	raw := u.RawQuery
	if repairedQuery != "" {
		raw, repairedQuery = repairedQuery, "" // as typed, so that a stray % is named
	}
	p.start(raw, u.Fragment)
	if p.embed {
		_ = reportHeight() // without it the host page keeps its iframe's own height
		return
	}
	p.syncAddress()
	ctx.Defer(func(app.Context) { _ = focusPlayground() })
}

// start opens the session that a link's raw query and fragment describe,
// or the default session with a message saying what was wrong with the
// link.
func (p *Playground) start(rawQuery, fragment string) {
	query, err := link.ParseQuery(rawQuery)
	page := link.PageOf(query)
	p.embed = page.Embed
	p.view, p.theme = "all", "auto"
	var state link.State
	if err == nil {
		state, err = link.Merge(query, fragment)
	}
	if err == nil && state.View != "" {
		err = checkView(state.View)
		p.view = state.View
	}
	if err == nil && page.Theme != "" {
		err = checkTheme(page.Theme)
		p.theme = page.Theme
	}
	if err == nil {
		p.cmp = compareStateOf(state) // before open, which makes the page's link
		err = p.open(state.Spec)
	}
	if err == nil && state.At > 0 {
		p.selectStep(state.At - 1)
	}
	again := func() { p.start(rawQuery, fragment); p.syncAddress() }
	if p.fetchModel(err, again) || p.askForFiles(err, again) {
		// The default session meanwhile; the address keeps the link
		// (syncAddress).
		err = p.open(catalog.Default())
	}
	if err != nil {
		p.view, p.cmp = "all", compareState{}
		if err := p.open(catalog.Default()); err != nil {
			p.notice = err.Error()
			return
		}
		p.notice = "This link could not be opened: " + err.Error() + ". Showing the default session instead."
	}
}

// open replaces the session with a new one built from spec.
func (p *Playground) open(spec session.Spec) (err error) {
	defer catch(&err)
	s, err := session.New(spec, p.load)
	if err != nil {
		return err
	}
	if p.sess == nil || p.sess.Model() != s.Model() {
		p.vocab = newVocab(s.Model())
	}
	p.sess = s
	p.prompt, p.promptError = spec.Prompt, ""
	p.epoch++
	p.changed()
	return nil
}

// load finds a model, reading each embedded model once.
func (p *Playground) load(name string) (*session.Model, error) {
	if m, ok := p.models[name]; ok {
		return m, nil
	}
	if modelfile.IsRef(name) {
		ref, err := modelfile.ParseRef(name)
		switch {
		case err != nil:
			return nil, err
		case ref.URL:
			return nil, &notFetchedError{ref}
		}
		return nil, &notOpenedError{ref}
	}
	m, err := models.Load(name)
	if err != nil {
		return nil, err
	}
	if p.models == nil {
		p.models = map[string]*session.Model{}
	}
	p.models[name] = m
	return m, nil
}

// changed records that the session changed: the pending decision, the
// selection (the next step) and the link follow it.
func (p *Playground) changed() {
	p.rev++
	p.refill = ""
	p.next, p.stopped = nil, ""
	if next, err := p.sess.Next(); err != nil {
		p.stopped = err.Error()
		if stop := p.sess.Trace().Stop; stop.Kind != session.Running {
			p.stopped = stop.String()
		}
	} else {
		p.next = next
	}
	p.sel = len(p.sess.Trace().Steps)
	p.link = p.shareURL()
}

// act runs a user's action on the session and makes it undoable. An error,
// or a Go panic, leaves the session as it was and is returned, for the view
// that asked to show by its field.
func (p *Playground) act(action func(*session.Session) error) error {
	if p.sess == nil {
		return nil
	}
	before := p.snapshot()
	steps := len(p.sess.Trace().Steps)
	err := func() (err error) {
		defer catch(&err)
		return action(p.sess)
	}()
	if err != nil {
		// An action may fail halfway (a fork whose step then cannot run):
		// go back to exactly where it started.
		if p.sess.Spec().Steps != before.spec.Steps || len(p.sess.Trace().Steps) != steps {
			_ = p.open(before.spec)
		}
		return err
	}
	p.remember(before)
	if len(p.sess.Trace().Steps) < steps || !sameHistory(before.spec, p.sess.Spec()) {
		p.epoch++
	}
	p.notice = ""
	p.changed()
	p.syncAddress()
	return nil
}

// replace opens spec as an undoable action of the user's.
func (p *Playground) replace(spec session.Spec) error {
	before := p.snapshot()
	if err := p.open(spec); err != nil {
		return err
	}
	p.remember(before)
	p.notice = ""
	p.syncAddress()
	return nil
}

func (p *Playground) snapshot() snapshot {
	return snapshot{spec: p.sess.Spec(), sel: p.sel}
}

func (p *Playground) remember(s snapshot) {
	if p.gesture > 1 {
		return // the gesture's first change saved the state before it
	}
	if p.gesture == 1 {
		p.gesture++
	}
	p.undo = append(p.undo, s)
	if len(p.undo) > maxUndo {
		p.undo = p.undo[1:]
	}
	p.redo = nil
}

// beginGesture starts a drag or an edit whose changes undo as one.
func (p *Playground) beginGesture() { p.gesture = 1 }

// endGesture ends it.
func (p *Playground) endGesture() { p.gesture = 0 }

// undoAction takes back the user's last action: a step, a run, a force, an
// edit, a setting, a reset or a new prompt or model.
func (p *Playground) undoAction() { p.travel(&p.undo, &p.redo) }

// redoAction does again what undoAction took back.
func (p *Playground) redoAction() { p.travel(&p.redo, &p.undo) }

// travel restores the newest snapshot of from, keeping the present in to.
func (p *Playground) travel(from, to *[]snapshot) {
	if len(*from) == 0 || p.sess == nil {
		return
	}
	p.running = false
	target := (*from)[len(*from)-1]
	present := p.snapshot()
	if err := p.restore(target.spec); err != nil {
		p.notice = err.Error()
		return
	}
	*from = (*from)[:len(*from)-1]
	*to = append(*to, present)
	p.notice = ""
	p.sel = min(target.sel, len(p.sess.Trace().Steps))
	p.syncAddress()
}

// restore makes the session spec: by stepping or undoing steps when only
// the number of steps differs (fast, and the model state stays), else by
// rebuilding it.
func (p *Playground) restore(spec session.Spec) error {
	cur := p.sess.Spec()
	if !sameHistory(cur, spec) {
		return p.open(spec)
	}
	for len(p.sess.Trace().Steps) > spec.Steps {
		if err := p.sess.Undo(); err != nil {
			return err
		}
		p.epoch++
	}
	for len(p.sess.Trace().Steps) < spec.Steps {
		if err := p.sess.Step(); err != nil {
			return err
		}
	}
	p.changed()
	return nil
}

// sameHistory reports whether two specs differ at most in their number of
// steps, so that one is the other with steps added or undone.
func sameHistory(a, b session.Spec) bool {
	a.Steps, b.Steps = 0, 0
	return reflect.DeepEqual(normal(a), normal(b))
}

// normal makes the empty lists of a spec nil, as DeepEqual needs.
func normal(s session.Spec) session.Spec {
	if len(s.Forced) == 0 {
		s.Forced = nil
	}
	if len(s.Edits) == 0 {
		s.Edits = nil
	}
	if len(s.Vocab) == 0 {
		s.Vocab, s.Logits = nil, nil
	}
	return s
}

// The actions the views ask for.

func (p *Playground) step() { p.notify(p.act((*session.Session).Step)) }

func (p *Playground) reset() { p.notify(p.act((*session.Session).Reset)) }

// notify shows an action's error at the top of the page: for actions that
// have no field of their own.
func (p *Playground) notify(err error) {
	if err != nil {
		p.notice = err.Error()
	}
}

// selectStep shows step i; the link says so.
func (p *Playground) selectStep(i int) {
	if p.sess != nil && i >= 0 && i <= len(p.sess.Trace().Steps) {
		p.sel = i
		p.link = p.shareURL()
		p.syncAddress()
	}
}

func (p *Playground) force(step, token int) {
	p.notify(p.act(func(s *session.Session) error { return s.Force(step, token) }))
}

// editLogit sets a logit of step i; the step stays on display.
func (p *Playground) editLogit(i, token int, v float64) error {
	if err := p.act(func(s *session.Session) error { return s.EditLogit(i, token, v) }); err != nil {
		return err
	}
	p.sel = i
	return nil
}

// toggleRun starts or stops running runN steps.
func (p *Playground) toggleRun(ctx app.Context) {
	if p.running {
		p.running = false
		p.syncAddress()
		return
	}
	if p.next == nil {
		return
	}
	p.remember(p.snapshot())
	p.running, p.runLeft, p.runDrawn = true, p.runN, time.Time{}
	p.runBatch(ctx)
}

// Run steps back to back for a budget, then lets the page draw the newest
// step. The budget is at least runBudget and follows what the last drawing
// took, up to runBudgetMax: when drawing is slow the engine still gets half
// the time, and Stop is read within a tenth of a second.
const (
	runBudget    = 10 * time.Millisecond
	runBudgetMax = 100 * time.Millisecond
)

// runBatch takes steps back to back for the budget, lets the page draw the
// newest one, and asks for another batch at the next animation frame, so
// that the browser paints each frame once, between batches, and Stop is
// read before the next batch. The address bar follows when Run ends.
func (p *Playground) runBatch(ctx app.Context) {
	if !p.running {
		return
	}
	start := time.Now()
	budget := runBudget
	if !p.runDrawn.IsZero() {
		budget = min(max(budget, start.Sub(p.runDrawn)), runBudgetMax)
	}
	stepped := 0
	for p.runLeft > 0 && time.Since(start) < budget {
		if err := p.sess.Step(); err != nil {
			p.runLeft = 0
			break
		}
		p.runLeft--
		stepped++
	}
	if stepped > 0 {
		p.changed()
	}
	if p.runLeft <= 0 || p.next == nil {
		p.running = false
		p.syncAddress()
		return
	}
	p.runDrawn = time.Now()
	ctx.Defer(func(ctx app.Context) {
		if err := nextFrame(func() { ctx.Dispatch(p.runBatch) }); err != nil {
			ctx.After(time.Millisecond, p.runBatch) // no animation frames: a timer does instead
		}
	})
}

func (p *Playground) setRunN(n int) { p.runN = n }

// onKey handles the keyboard shortcuts shown on the buttons, unless the user
// is typing in a field.
func (p *Playground) onKey(ctx app.Context, e app.Event) {
	switch e.Get("target").Get("tagName").String() {
	case "INPUT", "TEXTAREA", "SELECT":
		return
	}
	if e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool() || e.Get("altKey").Bool() {
		return
	}
	switch e.Get("key").String() {
	case "ArrowRight", "s":
		p.step()
	case "ArrowLeft", "u":
		p.undoAction()
	case "y":
		p.redoAction()
	case "r":
		p.reset()
	case "g":
		p.toggleRun(ctx)
	default:
		return
	}
	e.PreventDefault()
}

// shown is the detail of the step on display, derived once per change of
// the session or the selection; nil when the session has ended and the
// next step is selected.
func (p *Playground) shown() *session.Detail {
	if p.sel == len(p.sess.Trace().Steps) && p.next == nil {
		return nil
	}
	return p.detailAt(p.sel)
}

// detailAt is the detail of step i, derived once per change of the
// session.
func (p *Playground) detailAt(i int) *session.Detail {
	if p.detail != nil && p.detailRev == p.rev && p.detailSel == i {
		return p.detail
	}
	p.detail, p.detailRev, p.detailSel = nil, p.rev, i
	_ = p.sess.KeepLens(p.lensWanted()) // in range by construction
	d, err := p.sess.Detail(i)
	if err != nil {
		p.notice = err.Error()
		return nil
	}
	p.detail = d
	return d
}

func (p *Playground) Render() (page app.UI) {
	defer func() {
		// A bug in a view must not leave a dead page: show it instead.
		if r := recover(); r != nil {
			page = app.Main().ID("playground").DataSet("ready", "true").Body(
				app.Div().ID("notice").Class("notice").Attr("role", "alert").
					Text(fmt.Sprintf("Something went wrong drawing this page (please report it): %v. Undo or Reset to go on.", r)),
				p.controls(),
			)
		}
	}()
	if p.sess == nil {
		// Prerendered by the server, or before OnMount: the default session
		// is shown once the wasm program runs.
		return app.Main().ID("playground").DataSet("ready", "false").Body(
			&Header{Model: "toy", Prompt: "The cat"},
			app.P().Class("loading").Text("Starting the model…"),
			app.NoScript().Body(app.P().Class("notice").Text("nexttoken runs the model in your browser with WebAssembly: please turn JavaScript on.")),
		)
	}
	if p.embed {
		return p.renderEmbed()
	}
	d := p.shown()
	spec := p.sess.Spec()
	return app.Main().ID("playground").DataSet("ready", p.ready()).DataSet("theme", p.theme).TabIndex(-1).
		OnKeyDown(p.onKey).Body(
		&Header{Model: p.shownModel(), Prompt: p.prompt, Error: p.promptError, Files: p.files.status(), Page: p},
		p.renderNotice(),
		p.loadingBanner(),
		p.filesBanner(),
		p.strip(),
		p.controls(),
		p.treeCard(),
		&Share{Spec: spec, View: p.view, Compare: p.compareChoice(), Origin: p.origin, Path: p.path, Link: p.link},
		p.timeline(),
		p.stepViews(d),
		p.kvCard(d),
		&StoredModels{},
		footer(),
	)
}

// shownModel is the model the picker shows: the one on its way while it
// is, so that Cancel puts the picker back.
func (p *Playground) shownModel() string {
	if p.fetch != nil {
		return p.fetch.name
	}
	return p.sess.Spec().Model
}

// ready is the page's data-ready: "true" once it shows what was asked for,
// or why it cannot, and not while a model is on its way.
func (p *Playground) ready() string {
	if p.fetch != nil && p.fetch.err == "" {
		return "false"
	}
	return "true"
}

func (p *Playground) renderNotice() app.UI {
	if p.notice == "" {
		return app.Text("")
	}
	return app.Div().ID("notice").Class("notice").Attr("role", "alert").Text(p.notice)
}

// strip is the token strip's input: the context, and the step on display.
func (p *Playground) strip() app.UI {
	t := p.sess.Trace()
	// The chips grow with the steps, in one array: a chunk of the strip
	// whose chips did not change gets the very same slice, which go-app
	// compares in constant time. A rewritten past starts a new array.
	n := len(t.Prompt) + len(t.Steps)
	if p.chipsEpoch != p.epoch || len(p.chips) > n {
		p.chips, p.chipsEpoch = make([]Chip, 0, n+64), p.epoch
	}
	for i := len(p.chips); i < n; i++ {
		if i < len(t.Prompt) {
			tok := t.Prompt[i]
			p.chips = append(p.chips, Chip{ID: tok.ID, Piece: tok.Piece, Prompt: true})
			continue
		}
		st := t.Steps[i-len(t.Prompt)]
		p.chips = append(p.chips, Chip{ID: st.Token, Piece: st.Piece, Prob: st.Prob, Forced: st.Forced})
	}
	chips := p.chips
	next := "■"
	if p.next != nil {
		next = visible(p.next.Piece) + "?"
	}
	return &Strip{Chips: chips, Selected: len(t.Prompt) + p.sel, Next: next, Text: t.Text, Page: p}
}

func (p *Playground) controls() app.UI {
	steps := 0
	if p.sess != nil {
		steps = len(p.sess.Trace().Steps)
	}
	return &Controls{
		Steps: steps, CanStep: p.next != nil, Running: p.running, RunN: p.runN,
		CanUndo: len(p.undo) > 0, CanRedo: len(p.redo) > 0, Stopped: p.stopped, Page: p,
	}
}

// catch turns a panic into an error: a bug must not kill the page.
func catch(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("internal error (please report it): %v", r)
	}
}
