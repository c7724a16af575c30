package ui

import (
	"math"
	"slices"
	"strconv"
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
// a number field and a slider that override it for this step. A hot view:
// its rows are painted from the board (logitRowsHTML).
//
// While a field or slider is in use the rows stay as they are — their
// order, their slider scale, the field's own text — so that the row under
// the pointer stays the row being edited and the field keeps the focus;
// only their numbers are painted. They are painted afresh, re-sorted, once
// it is let go.
type LogitsCard struct {
	app.Compo

	Board *board
	Model *play.Model // hand-typed logits (Typed): tokens can be renamed, added and removed
	Do    logitActions

	query  string  // the search box
	held   bool    // a field or slider is in use
	order  []int   // the rows painted
	lo, hi float64 // their slider scale
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

func (c *LogitsCard) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *LogitsCard) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *LogitsCard) OnDismount()              { c.Board.remove(c) }

func (c *LogitsCard) Render() app.UI {
	var search app.UI = app.Text("")
	if len(c.Model.Names) > maxRows {
		search = app.Input().ID("logit-search").Type("search").Placeholder("find a token…").
			Value(c.query).Attr("aria-label", "find a token").OnInput(c.onQuery)
	}
	var add app.UI = app.Text("")
	if c.Model.Typed {
		add = app.Button().ID("add-token").Text("+ token").OnClick(c.onAdd)
	}
	return card("logits", "Logits", "Type a number or drag a slider to override a logit for this step; −inf masks a token.",
		search,
		app.Div().Class("scroll").Body(app.Table().Class("num logits").
			On("focusin", c.onFocusIn).On("focusout", c.onFocusOut).On("pointerdown", c.onPointerDown).
			OnInput(c.onInput).OnChange(c.onChange).OnClick(c.onClick).Body(
			app.THead().Body(app.Tr().Body(app.Th().Text("token"), app.Th().Text("logit ℓ"), app.Th().Class("slider").Text(""), app.Th().Class("p").Text("p"))),
			app.TBody().ID("logit-rows"),
		)),
		app.Div().Class("row").Body(add, app.P().ID("logits-hint").Class("hint")),
	)
}

func (c *LogitsCard) paint(s play.Snapshot) {
	d := shownDetail(s)
	if d == nil {
		return
	}
	if !c.held || c.order == nil {
		probs := probsOf(d)
		c.order = c.rows(d)
		c.lo, c.hi = sliderRange(d.Logits)
		// The rows without their numbers that change with the settings: a
		// new temperature leaves them as they are.
		setHTML("logit-rows", logitRowsHTML(d, c.Model, c.order, c.lo, c.hi))
		hint := ""
		switch {
		case c.query != "" && len(c.order) == 0:
			hint = "No token matches " + quote(c.query) + "."
		case c.query != "":
			hint = itoa(len(c.order)) + " tokens match; at most " + itoa(maxRows) + " are listed."
		case len(probs) > len(c.order):
			hint = "The " + itoa(len(c.order)) + " most probable of " + itoa(len(probs)) + " tokens; search to reach the others."
		}
		setHTML("logits-hint", esc(hint))
	}
	for _, id := range c.order {
		r := logitRow(d, s.Field, id)
		tid := itoa(id)
		setHTML("logit-p-"+tid, r.p)
		setHTML("logit-error-"+tid, esc(r.err))
		setAttr("logit-row-"+tid, "class", r.class)
		setAttr("logit-badge-"+tid, "class", r.badge)
	}
}

// probsOf are step d's probabilities, or with every token masked, where
// the sampler had none, the logits, which still order the rows.
func probsOf(d *session.Detail) []float64 {
	if d.Choice == nil {
		return d.Logits
	}
	return d.Choice.Softmax.Probs
}

// rows picks the tokens to list: all of a small vocabulary, else the
// search's matches or the most probable ones.
func (c *LogitsCard) rows(d *session.Detail) []int {
	if c.query != "" && len(probsOf(d)) > maxRows {
		return c.Model.Matching(c.query, maxRows)
	}
	return c.Board.rows(d)
}

// logitRowView is what paint writes into a row of the logits card.
type logitRowView struct {
	p, class, badge, err string
}

// logitRow is token id's row at step d.
func logitRow(d *session.Detail, field play.FieldError, id int) logitRowView {
	r := logitRowView{p: "–", badge: "badge hidden"}
	if d.Choice != nil {
		r.p = sig(d.Choice.Softmax.Probs[id])
	}
	if slices.Contains(d.Step.Edited, id) {
		// The badge keeps its room when hidden: the column does not widen
		// when a logit is edited.
		r.class, r.badge = "edited", "badge"
	}
	if field.Field == play.LogitField(id) {
		r.err = field.Message
	}
	return r
}

// logitRowsHTML is the logits card's rows for tokens ids at step d, their
// sliders from lo to hi, with their p, their marks of an edit and their
// errors left for paint.
func logitRowsHTML(d *session.Detail, m *play.Model, ids []int, lo, hi float64) string {
	var b strings.Builder
	for _, id := range ids {
		logit := fixed(d.Logits[id], 4)
		name := m.Label(id)
		tid := itoa(id)
		b.WriteString(`<tr data-token="` + tid + `" id="logit-row-` + tid + `">`)
		if m.Typed {
			b.WriteString(`<th><input class="name" value="` + esc(m.Raw[id]) + `" aria-label="token name"><button class="remove" title="remove this token">×</button></th>`)
		} else {
			tag(&b, "th", "", name)
		}
		b.WriteString(`<td><input class="logit" type="text" inputmode="decimal" value="` + esc(logit) + `" aria-label="` + esc("logit of "+name) + `">` +
			`<span class="badge hidden" title="edited by hand" id="logit-badge-` + tid + `">edited</span>` +
			`<span class="field-error" role="alert" id="logit-error-` + tid + `"></span></td>`)
		// Keyboard users edit the number; the slider is for the pointer, so
		// Tab does not stop on it and the arrows do not nudge it.
		b.WriteString(`<td class="slider"><input class="slide" type="range" min="` + num(lo) + `" max="` + num(hi) + `" step="0.1" value="` +
			num(math.Max(lo, d.Logits[id])) + `" tabindex="-1" aria-label="` + esc("slider for "+name) + `"></td>`)
		b.WriteString(`<td class="p" id="logit-p-` + tid + `"></td></tr>`)
	}
	return b.String()
}

// num writes a number as an input's attribute takes it.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

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

// release lets the rows go: they are painted afresh, re-sorted.
func (c *LogitsCard) release() {
	c.held = false
	c.Do.EndGesture()
	c.paint(c.Board.s)
}

func (c *LogitsCard) onQuery(ctx app.Context, e app.Event) {
	c.query = strings.TrimSpace(ctx.JSSrc().Get("value").String())
	c.paint(c.Board.s)
	ctx.PreventUpdate()
}

// edit sets token id's logit at the step on display to the field's value,
// or puts the step's value back when it is refused.
func (c *LogitsCard) edit(id int, field app.Value) {
	d := shownDetail(c.Board.s)
	if d == nil {
		return
	}
	c.Do.EditLogitText(d.Index, id, field.Get("value").String())
	if s := c.Do.Snapshot(); s.Field.Field == play.LogitField(id) {
		if d := shownDetail(s); d != nil {
			field.Set("value", fixed(d.Logits[id], 4))
		}
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
