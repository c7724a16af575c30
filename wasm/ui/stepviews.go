package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// stepActions are everything the step's cards ask of the controller;
// each card takes the part it calls.
type stepActions interface {
	logitActions
	forcer
	samplerActions
	compareActions
	lensActions
	recomputeActions
}

// stepViews lays out everything about the step on display: how its logits
// came about, the logits, the softmax, the distribution and the sampler.
func stepViews(s play.Snapshot, do stepActions, b *board) app.UI {
	d := shownDetail(s)
	if d == nil {
		return ended(s)
	}
	return app.Div().Body(
		&StepTitle{Board: b},
		app.Div().Class("views").Body(hiddenCard(s, b), logitsCard(s, d, do), softmaxCard(b), barsCard(b, do), samplerCard(s, b, do),
			compareCard(s, d, do), lensCard(s, d, do), recomputeCard(s, d, do)),
	)
}

// unsampledHTML says why the sampler could not choose at step d, where a
// card would show what it chose.
func unsampledHTML(d *session.Detail) string {
	return `<p class="notice" role="status">` + esc(play.Words(d.Unsampled)+" Type a number into one of the logits to unmask its token, or Undo.") + `</p>`
}

// shownDetail is the detail of the step on display, or nil when there is
// none to show: the session has ended and its next step is on display, or
// the detail is on its way.
func shownDetail(s play.Snapshot) *session.Detail {
	if s.Detail == nil || s.Detail.Index != s.Shown {
		return nil
	}
	return s.Detail
}

// ended says why the session stopped, or why the step on display cannot
// be shown.
func ended(s play.Snapshot) app.UI {
	if s.DetailErr != nil {
		return app.Section().ID("ended").Class("card ended").Body(
			app.H2().Text("This step cannot be shown"),
			app.P().Text(play.Words(s.DetailErr)+" Undo, or Reset, to go on."),
		)
	}
	if s.Steps() < s.Shown || s.CanStep() {
		return app.Section().ID("ended").Class("card ended").Body(app.P().Class("hint").Text("Working…"))
	}
	return app.Section().ID("ended").Class("card ended").Body(
		app.H2().Text("The session has ended"),
		app.P().Text(capitalize(s.Stopped())+". Undo, or force another token at an earlier step, to go on."),
	)
}

// StepTitle names the step on display and what the model read for it. A
// hot view.
type StepTitle struct {
	app.Compo

	Board *board
}

func (c *StepTitle) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *StepTitle) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *StepTitle) OnDismount()              { c.Board.remove(c) }

func (c *StepTitle) Render() app.UI { return app.H2().ID("step-title") }

func (c *StepTitle) paint(s play.Snapshot) {
	if d := shownDetail(s); d != nil {
		setHTML("step-title", esc(stepTitle(s, d)))
	}
}

// stepTitle names step d and what the model read for it.
func stepTitle(s play.Snapshot, d *session.Detail) string {
	title := "Next step"
	if d.Index < s.Steps() {
		title = "Step " + itoa(d.Index+1)
	}
	if d.Step.Input < 0 {
		return title + ": hand-typed logits"
	}
	return title + ": position " + itoa(d.Step.Pos) + ", reading " + quote(s.Model().Label(d.Step.Input))
}

func hiddenCard(s play.Snapshot, b *board) app.UI { return &HiddenCard{Board: b, Model: s.Model()} }

func logitsCard(s play.Snapshot, d *session.Detail, do logitActions) app.UI {
	return &LogitsCard{D: d, Model: s.Model(), Field: s.Field, Do: do}
}

func softmaxCard(b *board) app.UI { return &SoftmaxCard{Board: b} }

func barsCard(b *board, do forcer) app.UI { return &BarsCard{Board: b, Do: do} }

func samplerCard(s play.Snapshot, b *board, do samplerActions) app.UI {
	return &SamplerCard{Board: b, Settings: s.Settings, Field: s.Field, Note: s.Note, Do: do}
}

// card is a titled section of the page.
func card(id, title, hint string, body ...app.UI) app.UI {
	head := []app.UI{app.H3().Text(title)}
	if hint != "" {
		head = append(head, app.P().Class("hint").Text(hint))
	}
	return app.Section().ID(id).Class("card").Body(append(head, body...)...)
}

// footer links to the documentation and explains the page's symbols.
func footer() app.UI {
	return app.Footer().Class("footer").Body(
		app.P().Body(
			app.A().Href("docs/").Text("How nexttoken works"),
			app.Text(" · ℓ is a logit, the model's raw score for a token; softmax turns the scores into probabilities p. "+
				"Prefill runs the whole prompt through the model at once and fills the KV cache; each step after it feeds one token."),
		),
	)
}
