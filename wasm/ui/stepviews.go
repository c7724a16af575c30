package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

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
	keepGoer
}

// stepViews lays out everything about the step on display: how its logits
// came about, the logits, the softmax, the distribution and the sampler.
func stepViews(s play.Snapshot, do stepActions, b *board) app.UI {
	return someStepViews(s, do, b, stepViewGroups)
}

// stepViewGroups is how many groups someStepViews draws the step's cards in.
const stepViewGroups = 4

// someStepViews is stepViews with the first groups of its cards, of
// stepViewGroups: the live page draws them one a frame.
func someStepViews(s play.Snapshot, do stepActions, b *board, groups int) app.UI {
	d := shownDetail(s)
	if d == nil {
		return ended(s, do)
	}
	cards := []app.UI{shown(s, "hidden", hiddenCard(s, b))}
	if groups > 1 {
		cards = append(cards, shown(s, "logits", logitsCard(s, b, do)))
	}
	if groups > 2 {
		cards = append(cards, shown(s, "softmax", softmaxCard(b)), shown(s, "bars", barsCard(b, do)), shown(s, "sampler", samplerCard(s, b, do)))
	}
	if groups > 3 {
		cards = append(cards, shown(s, "compare", compareCard(s, d, do)), shown(s, "lens", lensCard(s, d, do)), shown(s, "recompute", recomputeCard(s, d, do, b)))
	}
	return app.Div().Body(&StepTitle{Board: b}, app.Div().Class("views").Body(cards...))
}

// unsampledHTML says why the sampler could not choose at step d, where a
// card would show what it chose.
func unsampledHTML(d *play.Detail) string {
	return `<p class="notice" role="status">` + esc(play.Words(d.Unsampled)+" Type a number into one of the logits to unmask its token, or Undo.") + `</p>`
}

// shownDetail is the detail of the step on display, or nil when there is
// none to show: the session has ended and its next step is on display, or
// the detail is on its way.
func shownDetail(s play.Snapshot) *play.Detail {
	if s.Detail == nil || s.Detail.Index != s.Shown {
		return nil
	}
	return s.Detail
}

// ended says why the session stopped, or why the step on display cannot
// be shown.
func ended(s play.Snapshot, do keepGoer) app.UI {
	e := &Ended{CanKeepGoing: s.CanKeepGoing, Do: do}
	switch {
	case s.DetailErr != nil:
		e.Title, e.Why = "This step cannot be shown", play.Words(s.DetailErr)+" Undo, or Reset, to go on."
	case s.Steps() < s.Shown || s.CanStep():
		e.Why = "Working…"
	default:
		e.Title, e.Why = "The session has ended", capitalize(s.Stopped())+"."
	}
	return e
}

// keepGoer takes the step that ended the text again, ignoring the end.
type keepGoer interface{ KeepGoing() }

// Ended is the card in place of the step's when there is no step to show:
// why, and how to go on.
type Ended struct {
	app.Compo

	Title, Why   string
	CanKeepGoing bool
	Do           keepGoer
}

func (e *Ended) Render() app.UI {
	body := []app.UI{}
	if e.Title != "" {
		body = append(body, app.H2().Text(e.Title))
	}
	body = append(body, app.P().Text(e.Why))
	if e.CanKeepGoing {
		body = append(body, app.P().Body(
			app.Button().ID("keep-going").Text("Keep going past the end of text").OnClick(e.onKeepGoing),
			app.Text(" takes that step again with the end-of-text tokens masked (llama.cpp's --ignore-eos), from there on."),
		))
	}
	if e.Title == "The session has ended" {
		body = append(body, app.P().Class("hint").Text("Or Undo, or force another token at an earlier step, to go on."))
	}
	return app.Section().ID("ended").Class("card ended").Body(body...)
}

func (e *Ended) onKeepGoing(ctx app.Context, ev app.Event) { e.Do.KeepGoing() }

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
func stepTitle(s play.Snapshot, d *play.Detail) string {
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

func logitsCard(s play.Snapshot, b *board, do logitActions) app.UI {
	return &LogitsCard{Board: b, Model: s.Model(), Do: do}
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

// Narrow cards fold their tables (app.css): the cells of class "sec", the
// columns a table can do without, fold away, and so do the rows past a
// long table's top ones, each behind a switch the card shows only when it
// is narrow. The switches are checkboxes the stylesheet reads, so folding
// needs no program, and a step, which repaints a table, keeps them.

// secondary marks a table cell as one a narrow card folds away.
const secondary = `class="sec"`

// allColumns is the switch that shows a narrow card's folded columns.
func allColumns() app.UI {
	return app.Label().Class("fold-switch all-columns").Body(app.Input().Type("checkbox"), app.Text(" show all columns"))
}

// allRows is the switch that shows a narrow card's folded rows; paint
// writes how many there are into the element of the id given.
func allRows(countID string) app.UI {
	return app.Label().Class("fold-switch all-rows").Body(app.Input().Type("checkbox"), app.Text(" show all "), app.Span().ID(countID), app.Text(" rows"))
}

// folds are a card's switches, in a row.
func folds(switches ...app.UI) app.UI { return app.Div().Class("folds").Body(switches...) }

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
