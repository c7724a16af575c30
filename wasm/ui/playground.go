package ui

import (
	"fmt"
	"net/url"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// Playground is the whole page. It owns the session; every view renders a
// part of the session's trace and reports the user's actions back here.
//
// go-app keeps an element's event handler when the new one comes from the
// same function literal, whatever it captured; so every handler that
// captures a step, a token or a position carries an app.EventScope naming
// them, or a reused element would act on stale values.
type Playground struct {
	app.Compo

	live    bool                      // OnMount ran: the wasm program drives the page
	models  map[string]*session.Model // loaded models, by name
	sess    *session.Session
	next    *session.Step // the decision the next Step would make, or nil
	stopped string        // why there is no next step
	sel     int           // the step on display; len(steps) means the next one
	notice  string        // the last error, shown until the next action
	running bool          // Run N is stepping
	runLeft int
	runN    int

	// Where the page is, and how it is shown.
	origin, path string      // the page's origin and path, for links to this session
	embed        bool        // inside another page: one view, no header
	view         string      // the view an embed shows (views)
	embedView    string      // the view the share panel's embed code shows
	copied       string      // what the last copy button did
	link         string      // shareURL of the current session
	addressTimer *time.Timer // pending address bar update (syncAddress)

	// View settings.
	prompt     string // the prompt field's text, which may not tokenize yet
	logitQuery string // search box of the logits table
	barsByID   bool   // probability bars in vocabulary order, not by probability
	kvLayer    int    // the layer the KV cache view shows
}

// OnMount runs only in the browser, before OnNav.
func (p *Playground) OnMount(ctx app.Context) {
	p.live = true
	p.runN = 16
}

// OnNav starts the session the address asks for. The server prerenders
// without a session: all computation happens in the reader's browser.
func (p *Playground) OnNav(ctx app.Context) {
	if !p.live {
		return
	}
	u := ctx.Page().URL()
	p.origin, p.path = u.Scheme+"://"+u.Host, u.Path
	p.start(u.Query(), u.Fragment)
	if p.embed {
		_ = reportHeight() // without it the host page keeps its iframe's own height
		return
	}
	p.syncAddress()
	ctx.Defer(func(app.Context) { _ = focusPlayground() })
}

// start opens the session that a link's query and fragment describe, or the
// default session with a message saying what was wrong with the link.
func (p *Playground) start(query url.Values, fragment string) {
	p.embed = query.Get("embed") == "1"
	view := query.Get("view")
	query.Del("embed")
	query.Del("view")
	state, err := link.Merge(query, fragment)
	if view == "" {
		view = state.View
	}
	p.view, p.embedView = "all", "softmax"
	if err == nil && view != "" {
		err = checkView(view)
		p.view = view
	}
	if err == nil {
		err = p.open(state.Spec)
	}
	if err != nil {
		p.view = "all"
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
	p.sess = s
	p.prompt = spec.Prompt
	p.refresh()
	return nil
}

// load finds a model, reading each embedded model once.
func (p *Playground) load(name string) (*session.Model, error) {
	if m, ok := p.models[name]; ok {
		return m, nil
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

// do runs an action on the session. An error, or a Go panic, becomes a
// message on the page; the session keeps its last good state either way.
func (p *Playground) do(action func(*session.Session) error) {
	if p.sess == nil {
		return
	}
	err := func() (err error) {
		defer catch(&err)
		return action(p.sess)
	}()
	p.notice = ""
	if err != nil {
		p.notice = err.Error()
	}
	p.refresh()
	p.syncAddress()
}

// refresh recomputes the pending decision and keeps the selection valid.
func (p *Playground) refresh() {
	p.next, p.stopped = nil, ""
	next, err := p.sess.Next()
	if err != nil {
		p.stopped = err.Error()
	} else {
		p.next = next
	}
	p.sel = len(p.sess.Trace().Steps)
	p.link = p.shareURL()
}

// shown is the step on display, derived in full: a committed step, or the
// pending one; nil when the session has ended and the pending one is shown.
func (p *Playground) shown() (*session.Detail, int) {
	steps := p.sess.Trace().Steps
	if p.sel == len(steps) && p.next == nil {
		return nil, p.sel
	}
	d, err := p.sess.Detail(p.sel)
	if err != nil {
		p.notice = err.Error()
		return nil, p.sel
	}
	return d, p.sel
}

func (p *Playground) step(ctx app.Context)  { p.do((*session.Session).Step) }
func (p *Playground) undo(ctx app.Context)  { p.do((*session.Session).Undo) }
func (p *Playground) reset(ctx app.Context) { p.do((*session.Session).Reset) }

// toggleRun starts or stops stepping runN times, one step per frame so the
// page shows every step and Stop stays responsive.
func (p *Playground) toggleRun(ctx app.Context) {
	if p.running {
		p.running = false
		return
	}
	p.running, p.runLeft = true, p.runN
	p.runStep(ctx)
}

func (p *Playground) runStep(ctx app.Context) {
	if !p.running || p.runLeft <= 0 || p.next == nil {
		p.running = false
		return
	}
	p.step(ctx)
	p.runLeft--
	ctx.After(time.Millisecond, p.runStep)
}

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
		p.step(ctx)
	case "ArrowLeft", "u":
		p.undo(ctx)
	case "r":
		p.reset(ctx)
	case "g":
		p.toggleRun(ctx)
	default:
		return
	}
	e.PreventDefault()
}

func (p *Playground) Render() (page app.UI) {
	defer func() {
		// A bug in a view must not leave a dead page: show it instead.
		if r := recover(); r != nil {
			page = app.Main().ID("playground").DataSet("ready", "true").Body(
				p.renderHeader(),
				app.Div().ID("notice").Class("notice").Attr("role", "alert").
					Text(fmt.Sprintf("Something went wrong drawing this page (please report it): %v. Undo or Reset to go on.", r)),
				p.renderControls(),
			)
		}
	}()
	if p.sess == nil {
		// Prerendered by the server, or before OnMount: the default session
		// is shown once the wasm program runs.
		return app.Main().ID("playground").DataSet("ready", "false").Body(
			p.renderHeader(),
			app.P().Class("loading").Text("Starting the model…"),
		)
	}
	step, index := p.shown()
	if p.embed {
		return p.renderEmbed(step, index)
	}
	return app.Main().ID("playground").DataSet("ready", "true").TabIndex(-1).
		OnKeyDown(p.onKey).Body(
		p.renderHeader(),
		p.renderNotice(),
		p.renderStrip(),
		p.renderControls(),
		p.renderShare(),
		p.renderStepViews(step, index),
		p.renderKVCache(),
	)
}

func (p *Playground) renderNotice() app.UI {
	if p.notice == "" {
		return app.Text("")
	}
	return app.Div().ID("notice").Class("notice").Attr("role", "alert").Text(p.notice)
}

// catch turns a panic into an error: a bug must not kill the page.
func catch(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("internal error (please report it): %v", r)
	}
}
