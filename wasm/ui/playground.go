package ui

import (
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/modelfile"
	"nexttoken/engine/session"
	"nexttoken/wasm/play"
	"nexttoken/web/models"
)

// Playground is the page: the controller (package play) with the session
// and every rule of the interaction, the views that draw its snapshot,
// and the page's own business with the browser — models fetched or read
// from files, timers, animation frames, the address bar. It hands each
// view exactly what that view shows as exported fields, so that go-app
// re-renders a view only when those change, and the controller's actions
// through an interface of the few a view calls.
//
// go-app keeps an element's event handler when the new one comes from the
// same function literal, whatever it captured; so every handler that
// captures a step, a token or a position carries an app.EventScope naming
// them, or a reused element would act on stale values.
type Playground struct {
	app.Compo

	ctl    *play.Controller
	engine session.Options           // how the page's sessions compute (RegisterWith)
	board  *board                    // the hot views and the snapshot they paint
	live   bool                      // OnMount ran: the wasm program drives the page
	ctx    app.Context               // OnMount's, for work that outlives an event
	models map[string]*session.Model // loaded models, by name
	fetch  *fetching                 // a model on its way, or nil
	worker *engineLink               // the engine's worker, for the models it runs
	files  fileState                 // models from the reader's files

	chatErrs map[string]string // why a model's chat template did not load, by the model's name

	origin, pagePath string // the page's origin and path, for links to it

	// changes counts the controller's changes; a drawn page carries the
	// count it shows (data-drawn) next to the latest, which the hot views
	// write (data-changed), so a reader of the page, a test, can tell when
	// go-app has caught up with them.
	changes int

	later      int    // how many of the page's later parts are drawn, up to laterParts
	drawnModel string // the model whose page the later parts are drawn for

	// The token strip's chips, kept from render to render while the past
	// stays as it was (chipsEpoch).
	chips      []Chip
	chipsEpoch int
}

// OnMount runs only in the browser, before OnNav.
func (p *Playground) OnMount(ctx app.Context) {
	EndTask() // go-app's start, which mounted the page, is a task of its own
	p.live, p.ctx = true, ctx
	p.worker = newEngineLink(ctx, p.engine.KernelName() != "Go", p)
	p.handleActions(ctx)
	serveTips(func(kind string, n int) string { return tipHTML(p.board.snapshot(), kind, n) })
	_ = onFileDrop(func(l fileList) { ctx.Dispatch(func(app.Context) { p.openFiles(l) }) })
}

// OnNav starts the session the address asks for. The server prerenders
// without a session: all computation happens in the reader's browser.
func (p *Playground) OnNav(ctx app.Context) {
	if !p.live {
		return
	}
	u := ctx.Page().URL()
	p.origin, p.pagePath = u.Scheme+"://"+u.Host, u.Path
	p.board = &board{frame: p.paintFrame}
	opts := p.engine
	opts.Prefill = prefillNotice()
	var eng play.Engine = &play.Local{Load: p.load, Options: opts}
	if p.worker != nil {
		eng = &play.Split{Near: eng, Far: p.worker.remote, InFar: p.worker.holds}
	}
	p.ctl = play.New(eng, p, u.Path)
	raw := u.RawQuery
	if repairedQuery != "" {
		raw, repairedQuery = repairedQuery, "" // as typed, so that a stray % is named
	}
	if prelive.steps > 0 {
		p.ctl.OpenAddressAndStep(prelive.from, prelive.steps)
		prelive.steps = 0
	} else {
		address := play.ReadAddress(raw, u.Fragment)
		// Reading the link and opening its session are a task each: they
		// held the page's thread 31–45 ms together, its first run of the
		// code that reads links among them.
		EndTask()
		p.ctl.OpenRead(address)
	}
	// The session's opening and the render of its page are each a task:
	// with go-app's start they held the page's thread 110–130 ms.
	EndTask()
	if p.ctl.Snapshot().Page.Embed {
		p.later = laterParts // an embed is drawn whole: it reports its height
		_ = reportHeight()   // without it the host page keeps its iframe's own height
		return
	}
	// At the next frame: the focus lays out the page, which the frame does
	// anyway, rather than in the task that mounted it.
	_ = nextFrame(func() { _ = focusPlaygroundIfFree() })
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
	p.keep(name, m)
	return m, nil
}

// keep holds a model the page has loaded, and fetches the kernels it
// needs that the page has not (fetchKernels).
func (p *Playground) keep(name string, m *session.Model) {
	if p.models == nil {
		p.models = map[string]*session.Model{}
	}
	p.models[name] = m
	p.fetchKernels(m)
}

// The page as the controller's host (play.Host).

// Changed paints the hot views at once and marks the page for drawing at
// go-app's next frame.
func (p *Playground) Changed() {
	p.changes++
	setAttr("playground", "data-changed", itoa(p.changes)) // in the hot views' batch
	s := p.ctl.Snapshot()
	p.board.show(s)
	flushPaint()
	if p.newModelPage(s) {
		p.atNextFrame(func(app.Context) {}) // its top, at the next frame
		return
	}
	p.ctx.Dispatch(nil)
}

// newModelPage reports whether s is a new model's page, and if so draws
// its later parts over: a new model's page is drawn as the page's start
// draws it, its top first and its later parts one a frame after (all at
// once, it held the page's thread 60–80 ms). An embed is drawn whole.
func (p *Playground) newModelPage(s play.Snapshot) bool {
	if s.Session == nil || s.Page.Embed || s.Session.Spec.Model == p.drawnModel {
		return false
	}
	if p.drawnModel != "" {
		holdHeight("later", true) // the last model's length, until they are drawn (drawLater)
	}
	p.drawnModel, p.later = s.Session.Spec.Model, 0
	return true
}

// After runs f on the page's goroutine once d has passed.
func (p *Playground) After(d time.Duration, f func()) (cancel func()) {
	stopped := false
	t := time.AfterFunc(d, func() {
		p.ctx.Dispatch(func(app.Context) {
			if !stopped {
				f()
			}
		})
	})
	return func() { stopped = true; t.Stop() }
}

// Frame runs f before the browser next paints, or a millisecond later
// where there are no animation frames.
func (p *Playground) Frame(f func()) { p.atNextFrame(func(app.Context) { f() }) }

// paintFrame runs paint, which paints hot views (board.again), before the
// browser next paints, without rendering the page again as Frame's
// dispatch does: the hot views paint their own elements.
func (p *Playground) paintFrame(paint func()) {
	p.atNextFrame(func(ctx app.Context) {
		paint()
		ctx.PreventUpdate()
	})
}

// atNextFrame dispatches action before the browser next paints, or a
// millisecond later where there are no animation frames.
func (p *Playground) atNextFrame(action func(app.Context)) {
	if err := nextFrame(func() { p.ctx.Dispatch(action) }); err != nil {
		p.ctx.After(time.Millisecond, action)
	}
}

// Address shows the session's link in the address bar, without adding a
// history entry: an old browser without history keeps the old address.
func (p *Playground) Address(url string) { _ = replaceURL(url) }

// Now is the time.
func (p *Playground) Now() time.Time { return time.Now() }

// Save offers a file to the reader as a download.
func (p *Playground) Save(name, mediaType string, data []byte) error {
	return saveFile(name, mediaType, data)
}

// Missing fetches the model err says a session needs, or asks the reader
// for its files.
func (p *Playground) Missing(err error, retry func()) bool {
	return p.fetchModel(err, retry) || p.askForFiles(err, retry)
}

func (p *Playground) Render() (page app.UI) {
	defer func() {
		// A bug in a view must not leave a dead page: show it instead.
		if r := recover(); r != nil {
			page = app.Main().ID("playground").DataSet("ready", "true").Body(
				app.Div().ID("notice").Class("notice").Attr("role", "alert").
					Text(fmt.Sprintf("Something went wrong drawing this page (please report it): %v. Undo or Reset to go on.", r)),
				controls(p.ctl.Snapshot(), p.ctl, p.board),
			)
		}
	}()
	var s play.Snapshot
	if p.ctl != nil {
		// A change the engine works on is drawn with its detail (Changed):
		// until then the page renders what it last drew, as its hot views
		// show it. Any event in a card renders the page, and a render of
		// the change would take the step's cards away while the detail is
		// on its way, and the slider under the reader's pointer with them.
		if s = p.board.snapshot(); !p.ctl.Holding() || s.Session == nil {
			s = p.ctl.Snapshot()
		}
	}
	if s.Session == nil {
		// Prerendered by the server, or before the first session opens.
		// The browser shows its server's page meanwhile: go-app's first
		// mount, in the task that starts it, draws only what it must.
		if app.IsClient {
			return app.Main().ID("playground").DataSet("ready", "false").Body(app.P().Class("loading").Text("Starting the model…"))
		}
		return app.Main().ID("playground").DataSet("ready", "false").Body(
			&Header{Model: "toy", Prompt: "The cat"},
			app.P().Class("loading").Text("Starting the model…"),
			app.NoScript().Body(app.P().Class("notice").Text("nexttoken runs the model in your browser with WebAssembly: please turn JavaScript on.")),
		)
	}
	if s.Page.Embed {
		return p.renderEmbed(s)
	}
	present := "" // the root's data-present, which app.css reads
	if s.Page.Present {
		present = "on"
	}
	// The page's top (the prompt, the strip, the buttons) is drawn first,
	// and its later parts one a frame after it: the reader can step while
	// the cards below are drawn.
	drawn := p.later
	later := p.laterUI(s, drawn)
	return app.Main().ID("playground").DataSet("ready", p.ready()).DataSet("drawn", p.drawnChanges()).DataSet("theme", s.Page.Theme).
		DataSet("tour-cards", tourCards(s)).DataSet("present", present).TabIndex(-1).OnKeyDown(p.onKey).Body(
		&Header{Model: p.shownModel(s), Prompt: s.Prompt, Error: s.PromptError, Chat: s.Session.Spec.Chat != nil, Files: p.files.status(), Do: p.ctl},
		promptTokens(s),
		tourCard(s, p.ctl),
		p.chatBox(s),
		notice(s),
		p.loadingBanner(),
		p.filesBanner(),
		p.strip(s),
		controls(s, p.ctl, p.board),
		p.topMark(drawn),
		app.Div().ID("later").Class("later").Body(append(later, p.nextMark(drawn))...),
	)
}

// The page's later parts, in the order the live page draws them after its
// top, one a frame: a card or a few each, so that no frame's render holds
// the page's thread long (a card's first render in the program is its
// slowest). laterParts is how many there are.
const (
	partPicture = iota
	partTree
	partShare
	partTimeline
	partSteps  // the step's cards, in stepViewGroups parts
	partKV     = partSteps + stepViewGroups
	partFooter = partKV + 1
	laterParts = partFooter + 1
)

// laterUI is the page's first drawn later parts. In presentation mode the
// page is the session and the cards chosen, without the panels around
// them.
func (p *Playground) laterUI(s play.Snapshot, drawn int) []app.UI {
	var ui []app.UI
	if drawn > partPicture {
		ui = append(ui, shown(s, "picture", picture(s, p.board)))
	}
	if drawn > partTree {
		ui = append(ui, shown(s, "tree", treeCard(s, p.ctl, false)))
	}
	if drawn > partShare && !s.Page.Present {
		ui = append(ui, &Share{Spec: s.Session.Spec, Export: s.Export, Do: p.ctl, View: s.Page.View, Compare: s.Page.EmbedCompare(), Origin: p.origin, Path: p.pagePath, Link: p.ctl.ShareLink()})
	}
	if drawn > partTimeline {
		ui = append(ui, shown(s, "timeline", &Timeline{Board: p.board, Do: p.ctl, Vocab: len(s.Model().Names)}))
	}
	if drawn > partSteps {
		ui = append(ui, someStepViews(s, p.ctl, p.board, min(drawn-partSteps, stepViewGroups)))
	}
	if drawn > partKV {
		ui = append(ui, shown(s, "kv", kvCard(s, p.board, p.ctl)))
	}
	if drawn > partFooter && !s.Page.Present {
		ui = append(ui, &StoredModels{}, footer())
	}
	return ui
}

// drawLater draws the later part after part once the browser has painted
// the page as it is: after its next frame, not in it.
func (p *Playground) drawLater(part int) {
	p.Frame(func() {
		p.After(0, func() {
			if p.later = max(p.later, part+1); p.later == laterParts {
				p.paintFrame(func() { holdHeight("later", false) }) // once drawn
			}
		})
	})
}

// topMark is the page's last child before its later parts while they are
// being drawn and it is otherwise ready: its paint marks the root
// data-top, and the live page's top shows over the prerendered page's,
// above its later parts (app.css).
func (p *Playground) topMark(drawn int) app.UI {
	if drawn == laterParts || p.settled() != "true" {
		return app.Text("")
	}
	return &RootMark{Board: p.board, Attr: "data-top", Value: "painted"}
}

// nextMark is the later parts' last child: it asks for the next part, and
// once all are drawn it is the ready mark.
func (p *Playground) nextMark(drawn int) app.UI {
	if drawn < laterParts {
		return &NextMark{Part: drawn, Next: p.drawLater}
	}
	return p.readyMark()
}

// NextMark asks for the page's later part after Part once it is drawn.
type NextMark struct {
	app.Compo

	Part int
	Next func(part int)
}

func (m *NextMark) OnMount(ctx app.Context)  { m.Next(m.Part) }
func (m *NextMark) OnUpdate(ctx app.Context) { m.Next(m.Part) }
func (m *NextMark) Render() app.UI           { return app.Span().Hidden(true) }

// shown is card, the card of id, where the page shows it (play.Page.Shows),
// and nothing elsewhere.
func shown(s play.Snapshot, id string, card app.UI) app.UI {
	if !s.Page.Shows(id) {
		return app.Text("")
	}
	return card
}

// readyMark is the page's last child once it is ready: its paint,
// deferred like the hot views' and after theirs, marks the root
// data-painted, and a prerendered page gives way to the live one then
// (app.css, web/boot.js).
func (p *Playground) readyMark() app.UI {
	if p.ready() != "true" {
		return app.Text("")
	}
	return &RootMark{Board: p.board, Attr: "data-painted", Value: "true"}
}

// RootMark marks the page's root Attr=Value when it paints, with the hot
// views and after those before it.
type RootMark struct {
	app.Compo

	Board       *board
	Attr, Value string
}

func (m *RootMark) OnMount(ctx app.Context) { mount(ctx, m.Board, m) }
func (m *RootMark) OnDismount()             { m.Board.remove(m) }
func (m *RootMark) Render() app.UI          { return app.Span().Hidden(true) }
func (m *RootMark) paint(play.Snapshot)     { setAttr("playground", m.Attr, m.Value) }

// shownModel is the model the picker shows: the one on its way while it
// is, so that Cancel puts the picker back.
func (p *Playground) shownModel(s play.Snapshot) string {
	if p.fetch != nil {
		return p.fetch.name
	}
	return s.Session.Spec.Model
}

// drawnChanges is the page's data-drawn: how many of the controller's
// changes it shows, once all of its later parts are drawn too.
func (p *Playground) drawnChanges() string {
	if p.later < laterParts {
		return ""
	}
	return itoa(p.changes)
}

// ready is the page's data-ready: "true" once it shows what was asked for,
// or why it cannot, all of the page drawn, and not while a model is on its
// way or the engine works.
func (p *Playground) ready() string {
	if p.later < laterParts {
		return "false"
	}
	return p.settled()
}

// settled is ready, but for the page's later parts.
func (p *Playground) settled() string {
	if p.fetch != nil && p.fetch.err == "" || p.ctl.Busy() {
		return "false"
	}
	return "true"
}

// onKey passes the keyboard's shortcuts to the controller, unless the user
// is typing in a field, or a list that the arrows move through has the
// focus.
func (p *Playground) onKey(ctx app.Context, e app.Event) {
	target := e.Get("target")
	switch target.Get("tagName").String() {
	case "INPUT", "TEXTAREA", "SELECT":
		return
	}
	if r := target.Get("getAttribute"); r.Truthy() && target.Call("getAttribute", "role").String() == "listbox" {
		return
	}
	k := play.Key{
		Name:  e.Get("key").String(),
		Ctrl:  e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool(),
		Shift: e.Get("shiftKey").Bool(),
		Alt:   e.Get("altKey").Bool(),
	}
	if p.ctl.Press(k) {
		e.PreventDefault()
	}
}

func notice(s play.Snapshot) app.UI {
	if s.Notice == "" {
		return app.Text("")
	}
	return app.Div().ID("notice").Class("notice").Attr("role", "alert").Text(s.Notice)
}

// strip is the token strip's input: the context, and the step on display.
func (p *Playground) strip(s play.Snapshot) app.UI {
	t, m := s.Session.Trace, s.Model()
	// The chips grow with the steps, in one array: a chunk of the strip
	// whose chips did not change gets the very same slice, which go-app
	// compares in constant time. A rewritten past starts a new array.
	n := len(t.Prompt) + len(t.Steps)
	if p.chipsEpoch != s.Session.Epoch || len(p.chips) > n {
		p.chips, p.chipsEpoch = make([]Chip, 0, n+64), s.Session.Epoch
	}
	for i := len(p.chips); i < n; i++ {
		if i < len(t.Prompt) {
			tok := t.Prompt[i]
			p.chips = append(p.chips, Chip{ID: tok.ID, Label: m.Label(tok.ID), Prompt: true, Special: m.IsSpecial(tok.ID)})
			continue
		}
		st := t.Steps[i-len(t.Prompt)]
		p.chips = append(p.chips, Chip{ID: st.Token, Label: m.Label(st.Token), Prob: st.Prob, Forced: st.Forced, Special: m.IsSpecial(st.Token)})
	}
	next := "■"
	if s.Session.Next != nil {
		next = m.Label(s.Session.Next.Token) + "?"
	}
	return &Strip{Chips: p.chips, Selected: len(t.Prompt) + s.Shown, Next: next, Text: t.Text, Typed: m.Typed, Do: p.ctl}
}

// promptTokens is the tokenizer's view of the prompt, under the prompt
// field: nothing where there is no field, for hand-typed logits (no
// tokenizer) and a chat (whose box shows its rendered prompt).
func promptTokens(s play.Snapshot) app.UI {
	if s.Model().Typed || s.Session.Spec.Chat != nil {
		return app.Text("")
	}
	return &PromptTokens{Tokens: s.Session.Trace.Prompt}
}

// chatBox is the chat of a model that has a chat template, or why its
// template did not load; nothing for another model.
func (p *Playground) chatBox(s play.Snapshot) app.UI {
	m := s.Model()
	if why := p.chatErrs[m.Name]; why != "" {
		return app.P().ID("chat-error").Class("notice").Attr("role", "alert").Text(why)
	}
	if !m.Chat {
		return app.Text("")
	}
	return &ChatBox{Chat: s.Session.Spec.Chat, Prompt: s.Session.Trace.Prompt, Special: m.Special, Error: s.FieldError(play.FieldChat), Do: p.ctl}
}

// controls are the step buttons' input.
func controls(s play.Snapshot, do controlActions, b *board) app.UI {
	return &Controls{Board: b,
		Steps: s.Steps(), CanStep: s.CanStep(), Running: s.Running, RunN: s.RunSteps,
		CanUndo: s.CanUndo, CanRedo: s.CanRedo, Status: s.Status(), RunError: s.FieldError(play.FieldRun), Do: do,
	}
}
