package ui

import (
	"math"
	"slices"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// maxRows is how many tokens a table lists before it shows the most
// probable ones and a search box.
const maxRows = 24

// LogitsCard lists the logits of the step on display (all of a small
// vocabulary, else the most probable and any that match a search), each as
// a number field and a slider that override it for this step.
//
// While a field or slider is in use the rows keep their order and their
// slider scale, so that the row under the pointer stays the row being
// edited; they re-sort when it is let go.
type LogitsCard struct {
	app.Compo

	D     *session.Detail // the session's, whose vectors it reuses: Rev says when they changed
	Rev   int
	Model *play.Model     // hand-typed logits (Typed): tokens can be renamed, added and removed
	Field play.FieldError // a value refused, shown by its token's field
	Do    logitActions

	query  string  // the search box
	held   bool    // a field or slider is in use
	order  []int   // the rows while held
	lo, hi float64 // the slider scale while held
}

// logitActions are what the logits card asks of the controller.
type logitActions interface {
	EditLogitText(i, token int, text string)
	RenameToken(id int, name string)
	RemoveToken(id int)
	AddToken()
	BeginGesture()
	EndGesture()
	Snapshot() play.Snapshot
}

func (c *LogitsCard) Render() app.UI {
	probs := c.probs()
	ids, lo, hi := c.order, c.lo, c.hi
	if !c.held || ids == nil {
		ids = c.rows(probs)
		lo, hi = sliderRange(c.D.Logits)
		c.order, c.lo, c.hi = ids, lo, hi
	}
	var search app.UI = app.Text("")
	if len(probs) > maxRows {
		search = app.Input().ID("logit-search").Type("search").Placeholder("find a token…").
			Value(c.query).Attr("aria-label", "find a token").OnInput(c.onQuery)
	}
	rows := []app.UI{app.Tr().Body(app.Th().Text("token"), app.Th().Text("logit ℓ"), app.Th().Class("slider").Text(""), app.Th().Class("p").Text("p"))}
	for _, id := range ids {
		rows = append(rows, c.row(id, lo, hi))
	}
	var footer []app.UI
	if c.Model.Typed {
		footer = append(footer, app.Button().ID("add-token").Text("+ token").OnClick(c.onAdd))
	}
	switch {
	case c.query != "" && len(ids) == 0:
		footer = append(footer, app.P().Class("hint").Text("No token matches "+quote(c.query)+"."))
	case c.query != "":
		footer = append(footer, app.P().Class("hint").Textf("%d tokens match; at most %d are listed.", len(ids), maxRows))
	case len(probs) > len(ids):
		footer = append(footer, app.P().Class("hint").Textf("The %d most probable of %d tokens; search to reach the others.", len(ids), len(probs)))
	}
	return card("logits", "Logits", "Type a number or drag a slider to override a logit for this step; −inf masks a token.",
		search,
		app.Div().Class("scroll").Body(app.Table().Class("num logits").
			On("focusin", c.onFocusIn).On("focusout", c.onFocusOut).On("pointerdown", c.onPointerDown).
			OnInput(c.onInput).OnChange(c.onChange).OnClick(c.onClick).Body(rows...)),
		app.Div().Class("row").Body(footer...),
	)
}

// probs are the step's probabilities, or with every token masked, where
// the sampler had none, the logits, which still order the rows.
func (c *LogitsCard) probs() []float64 {
	if c.D.Choice == nil {
		return c.D.Logits
	}
	return c.D.Choice.Softmax.Probs
}

// p is token id's probability as the p column shows it.
func (c *LogitsCard) p(id int) string {
	if c.D.Choice == nil {
		return "–"
	}
	return sig(c.D.Choice.Softmax.Probs[id])
}

// rows picks the tokens to list: all of a small vocabulary, else the
// search's matches or the most probable ones.
func (c *LogitsCard) rows(probs []float64) []int {
	if c.query != "" && len(probs) > maxRows {
		return c.Model.Matching(c.query, maxRows)
	}
	return allOrTop(probs)
}

// sliderRange spans the step's finite logits, at least −10 to 10, in whole
// numbers, so every slider of a step has the same scale.
func sliderRange(logits []float64) (lo, hi float64) {
	lo, hi = -10, 10
	for _, l := range logits {
		if !math.IsInf(l, 0) {
			lo, hi = math.Min(lo, math.Floor(l)), math.Max(hi, math.Ceil(l))
		}
	}
	return lo, hi
}

func (c *LogitsCard) row(id int, lo, hi float64) app.UI {
	l := c.D.Logits[id]
	name := c.Model.Label(id)
	edited := slices.Contains(c.D.Step.Edited, id)
	var label app.UI = app.Th().Text(name)
	if c.Model.Typed {
		label = app.Th().Body(
			app.Input().Class("name").Value(c.Model.Raw[id]).Attr("aria-label", "token name"),
			app.Button().Class("remove").Title("remove this token").Text("×"),
		)
	}
	badge := app.Span().Class("badge").Title("edited by hand").Text("edited")
	if !edited {
		badge = badge.Class("hidden") // keeps its room: the column does not widen when a logit is edited
	}
	cell := []app.UI{
		app.Input().Class("logit").Type("text").Attr("inputmode", "decimal").Value(fixed(l, 4)).
			Attr("aria-label", "logit of "+name),
		badge,
	}
	if c.Field.Field == play.LogitField(id) {
		cell = append(cell, app.Span().Class("field-error").Attr("role", "alert").Text(c.Field.Message))
	}
	row := app.Tr().DataSet("token", id).Body(
		label,
		app.Td().Body(cell...),
		app.Td().Class("slider").Body(
			// Keyboard users edit the number; the slider is for the pointer,
			// so Tab does not stop on it and the arrows do not nudge it.
			app.Input().Class("slide").Type("range").Min(lo).Max(hi).Step(0.1).Value(math.Max(lo, l)).TabIndex(-1).
				Attr("aria-label", "slider for "+name),
		),
		app.Td().Class("p").Text(c.p(id)),
	)
	if edited {
		row = row.Class("edited")
	}
	return row
}

// The table handles its rows' events: the rows carry no handlers, so a new
// step, which lists other tokens, does not replace a handler per field.
// A row names its token (data-token) and each field its role (class).

func (c *LogitsCard) onFocusIn(ctx app.Context, e app.Event) {
	if _, _, ok := rowEvent(e, "logit"); ok {
		c.hold()
	}
}

func (c *LogitsCard) onFocusOut(ctx app.Context, e app.Event) {
	if _, _, ok := rowEvent(e, "logit"); ok {
		c.release()
	}
}

func (c *LogitsCard) onPointerDown(ctx app.Context, e app.Event) {
	if _, _, ok := rowEvent(e, "slide"); ok {
		c.hold()
	}
}

// onInput follows a slider as it moves.
func (c *LogitsCard) onInput(ctx app.Context, e app.Event) {
	if id, field, ok := rowEvent(e, "slide"); ok {
		c.edit(id, field)
	}
}

func (c *LogitsCard) onChange(ctx app.Context, e app.Event) {
	if _, _, ok := rowEvent(e, "slide"); ok {
		c.release() // the slider's input events made the edits
	} else if id, field, ok := rowEvent(e, "logit"); ok {
		c.edit(id, field)
	} else if id, field, ok := rowEvent(e, "name"); ok {
		c.rename(id, field)
	}
}

func (c *LogitsCard) onClick(ctx app.Context, e app.Event) {
	if id, _, ok := rowEvent(e, "remove"); ok {
		c.Do.RemoveToken(id)
	}
}

func (c *LogitsCard) hold() {
	c.held = true
	c.Do.BeginGesture()
}

func (c *LogitsCard) release() {
	c.held = false
	c.Do.EndGesture()
}

func (c *LogitsCard) onQuery(ctx app.Context, e app.Event) {
	c.query = strings.TrimSpace(ctx.JSSrc().Get("value").String())
}

// edit sets token id's logit at the step on display to the field's value,
// or puts the step's value back when it is refused.
func (c *LogitsCard) edit(id int, field app.Value) {
	c.Do.EditLogitText(c.D.Index, id, field.Get("value").String())
	if c.Do.Snapshot().Field.Field == play.LogitField(id) {
		field.Set("value", fixed(c.D.Logits[id], 4))
	}
}

// rename renames token id, or puts its name back when it is refused.
func (c *LogitsCard) rename(id int, field app.Value) {
	c.Do.RenameToken(id, field.Get("value").String())
	if c.Do.Snapshot().Notice != "" {
		field.Set("value", c.Model.Raw[id])
	}
}

func (c *LogitsCard) onAdd(ctx app.Context, e app.Event) { c.Do.AddToken() }
