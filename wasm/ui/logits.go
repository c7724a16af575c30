package ui

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/play"
)

// maxRows is how many tokens a table lists before it shows the most
// probable ones and a search box.
const maxRows = play.ListedRows

// LogitsCard lists the logits of the step on display (all of a small
// vocabulary, else the most probable and any that match a search), each as
// a number field and a slider that override it for this step. A hot view:
// go-app renders its rows once, a fixed set of elements, and paint writes
// into them the tokens they hold and their numbers — a step creates no
// field and no slider.
//
// While a field or slider is in use the rows stay as they are — their
// tokens, their slider scale, the fields' text — so that the row under the
// pointer stays the row being edited; only their numbers are painted. They
// take the step's order again once it is let go.
type LogitsCard struct {
	app.Compo

	Board *board
	Model *play.Model // hand-typed logits (Typed): tokens can be renamed, added and removed
	Do    logitActions

	query  string  // the search box
	held   bool    // a field or slider is in use
	order  []int   // the tokens painted, row by row
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
	WantRows(ids []int)
	Search(q string)
	Snapshot() play.Snapshot
}

func (c *LogitsCard) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *LogitsCard) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *LogitsCard) OnDismount()              { c.Board.remove(c) }

// rowCount is how many rows the card has: every token of a small
// vocabulary, else maxRows.
func (c *LogitsCard) rowCount() int { return min(len(c.Model.Names), maxRows) }

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
		folds(allColumns(), allRows("logits-count")),
		app.Div().Class("scroll").
			On("focusin", c.onFocusIn).On("focusout", c.onFocusOut).On("pointerdown", c.onPointerDown).
			OnInput(c.onInput).OnChange(c.onChange).OnClick(c.onClick).Body(app.Raw(c.tableHTML())),
		app.Div().Class("row").Body(add, app.P().ID("logits-hint").Class("hint")),
		app.P().ID("logits-softcap").Class("hint").Hidden(c.Model.Softcap == 0).Text(softcapText(c.Model.Softcap)),
	)
}

// softcapText says that the logits are soft-capped at limit, or nothing
// for 0.
func softcapText(limit float32) string {
	if limit == 0 {
		return ""
	}
	s := strconv.FormatFloat(float64(limit), 'g', -1, 32)
	return "These logits are soft-capped: ℓ = " + s + "·tanh(z/" + s + ") of the classifier's output z, so none exceeds ±" + s + "."
}

// tableHTML is the card's table, its rows empty: paint writes the tokens
// they hold. It is one piece of HTML, which the browser parses at once:
// go-app built its rows of fields and sliders element by element and
// attribute by attribute, the slowest part of drawing a page. The rows
// carry no handlers: the table's wrapper takes their events.
func (c *LogitsCard) tableHTML() string {
	var b strings.Builder
	b.WriteString(`<table class="num logits"><thead><tr><th>token</th><th>logit ℓ</th><th class="slider sec"></th><th class="p">p</th></tr></thead><tbody>`)
	for i := range c.rowCount() {
		id := func(part string) string { return `id="logit-` + part + "-" + itoa(i) + `"` }
		b.WriteString(`<tr ` + id("row") + `>`)
		if c.Model.Typed {
			b.WriteString(`<th><input ` + id("name") + ` class="name" aria-label="token name"><button class="remove" title="remove this token">×</button></th>`)
		} else {
			b.WriteString(`<th ` + id("label") + `></th>`)
		}
		// The badge keeps its room when hidden: the column does not widen
		// when a logit is edited. Keyboard users edit the number; the
		// slider is for the pointer, so Tab does not stop on it and the
		// arrows do not nudge it.
		b.WriteString(`<td><input ` + id("input") + ` class="logit" type="text" inputmode="decimal">` +
			`<span ` + id("badge") + ` class="badge hidden" title="edited by hand">edited</span>` +
			`<span ` + id("error") + ` class="field-error" role="alert"></span></td>` +
			`<td class="slider sec"><input ` + id("slide") + ` class="slide" type="range" step="0.1" tabindex="-1"></td>` +
			`<td ` + id("p") + ` class="p"></td></tr>`)
	}
	b.WriteString(`</tbody></table>`)
	return b.String()
}

func (c *LogitsCard) paint(s play.Snapshot) {
	d := shownDetail(s)
	if d == nil {
		return
	}
	fresh := !c.held || c.order == nil
	if fresh {
		c.order = c.rows(d)
		c.lo, c.hi = d.LogitRange[0], d.LogitRange[1]
		hint := ""
		switch {
		case c.query != "" && d.Query != c.query && d.Vocab > maxRows:
			hint = "Searching…"
		case c.query != "" && len(c.order) == 0:
			hint = "No token matches " + quote(c.query) + "."
		case c.query != "":
			hint = itoa(len(c.order)) + " tokens match; at most " + itoa(maxRows) + " are listed."
		case d.Vocab > len(c.order):
			hint = "The " + itoa(len(c.order)) + " most probable of " + itoa(d.Vocab) + " tokens; search to reach the others."
		}
		setHTML("logits-hint", esc(hint))
		setHTML("logits-count", itoa(len(c.order)))
	}
	for i := range c.rowCount() {
		id := func(part string) string { return "logit-" + part + "-" + itoa(i) }
		if i >= len(c.order) {
			setVisible(id("row"), false)
			continue
		}
		tok := c.order[i]
		logit, ok := d.Row(tok)
		r := logitRow(d, s.Field, tok)
		if fresh {
			name := c.Model.Label(tok)
			setVisible(id("row"), true)
			setAttr(id("row"), "data-token", itoa(tok))
			if c.Model.Typed {
				setValue(id("name"), c.Model.Raw[tok])
			} else {
				setHTML(id("label"), esc(name))
			}
			value := "" // on its way: the rows the card asked for come with the next detail
			if ok {
				value = fixed(logit.Logit, 4)
			}
			setValue(id("input"), value)
			setAttr(id("input"), "aria-label", "logit of "+name)
			setAttr(id("slide"), "min", num(c.lo))
			setAttr(id("slide"), "max", num(c.hi))
			setValue(id("slide"), num(math.Max(c.lo, logit.Logit)))
			setAttr(id("slide"), "aria-label", "slider for "+name)
		}
		setAttr(id("row"), "class", r.class)
		setAttr(id("badge"), "class", r.badge)
		setHTML(id("error"), esc(r.err))
		setHTML(id("p"), r.p)
	}
}

// rows picks the tokens to list: all of a small vocabulary, else the
// search's matches, once the detail has them, or the most probable ones.
func (c *LogitsCard) rows(d *play.Detail) []int {
	if c.query != "" && d.Vocab > maxRows && d.Query == c.query {
		return d.Matches
	}
	return c.Board.rows(d)
}

// logitRowView is what paint writes into a row of the logits card as the
// step and the settings change.
type logitRowView struct {
	p, class, badge, err string
}

// logitRow is token id's row at step d.
func logitRow(d *play.Detail, field play.FieldError, id int) logitRowView {
	r := logitRowView{p: "–", badge: "badge hidden"}
	if row, ok := d.Row(id); ok && d.Choice != nil {
		r.p = sig(row.P)
	}
	if slices.Contains(d.Step.Edited, id) {
		r.class, r.badge = "edited", "badge"
	}
	if field.Field == play.LogitField(id) {
		r.err = field.Message
	}
	return r
}

// num writes a number as an input's attribute takes it.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// The table's wrapper handles its rows' events: the rows carry no
// handlers, so a new step, which lists other tokens, does not replace a
// handler per field. A row names its token (data-token) and each field its
// role (class).

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

// hold keeps the rows as they are, and their numbers in the details to
// come.
func (c *LogitsCard) hold() {
	c.held = true
	c.Do.WantRows(c.order)
	c.Do.BeginGesture()
}

// release lets the rows go: they are painted afresh, re-sorted.
func (c *LogitsCard) release() {
	c.held = false
	c.Do.EndGesture()
	c.Do.WantRows(nil)
	paintSafely(c, c.Board.s)
}

func (c *LogitsCard) onQuery(ctx app.Context, e app.Event) {
	c.search(ctx.JSSrc().Get("value").String())
	paintSafely(c, c.Board.s)
	ctx.PreventUpdate()
}

// search asks for the tokens whose text holds q, with their rows.
func (c *LogitsCard) search(q string) {
	c.query = strings.TrimSpace(q)
	c.Do.Search(c.query)
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
			r, _ := d.Row(id)
			field.Set("value", fixed(r.Logit, 4))
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
