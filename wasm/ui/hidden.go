package ui

import (
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/play"
)

// HiddenCard shows where the logits come from: the final hidden state h
// times the LM head W. For the toy model every number fits on screen. A
// hot view: it paints h and the products from the board (hiddenHTML).
type HiddenCard struct {
	app.Compo

	Board *board
	Model *play.Model // its shape: Dim 0 for a session of hand-typed logits; Head when small
}

func (c *HiddenCard) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *HiddenCard) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *HiddenCard) OnDismount()              { c.Board.remove(c) }

func (c *HiddenCard) Render() app.UI {
	m := c.Model
	switch {
	case m.Dim == 0:
		return card("hidden", "Logits typed by hand", "This session has no model: the logits below are the input. Pick a model to see where logits come from.")
	case m.Head == nil:
		return card("hidden", "Hidden state h → logits", "The last layer's output for the input token, after the final RMSNorm.",
			app.Div().ID("hidden-body"),
			app.P().Class("hint").Textf("W is the %d × %d %s; each logit is one row of W times h.", len(m.Names), m.Dim, headName(m.SharedHead)))
	}
	return card("hidden", "Hidden state h and LM head W",
		"h is the last layer's output for the input token, after the final RMSNorm. Each logit is a row of W times h.",
		folds(allColumns()),
		app.Div().ID("hidden-body"))
}

func (c *HiddenCard) paint(s play.Snapshot) {
	if d := shownDetail(s); d != nil && c.Model.Dim > 0 {
		setHTML("hidden-body", hiddenHTML(d, s.Model()))
	}
}

// maxHiddenSpans is the widest h shown as an element a number, each with
// its index on hover.
const maxHiddenSpans = 16

// hiddenHTML is h, and for a classifier small enough every row of W with
// the logit it gives.
func hiddenHTML(d *play.Detail, m *play.Model) string {
	var b strings.Builder
	b.WriteString(`<div id="hidden-h" class="vector"><strong>h =</strong>`)
	if len(d.Hidden) <= maxHiddenSpans {
		for i, v := range d.Hidden {
			b.WriteString(`<span title="h[` + strconv.Itoa(i) + `]">` + fixed(float64(v), 3) + `</span>`)
		}
	} else {
		// Hundreds of numbers are one text, not an element each: a new step
		// makes the page one node, not 576 (SmolLM2-135M's width).
		b.WriteString(`<span class="numbers" title="h[0] … h[` + strconv.Itoa(len(d.Hidden)-1) + `]">`)
		for i, v := range d.Hidden {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(fixed(float64(v), 3))
		}
		b.WriteString(`</span>`)
	}
	b.WriteString(`</div>`)
	if m.Head == nil {
		return b.String()
	}
	b.WriteString(`<div class="scroll"><table id="lm-head" class="num matrix"><tr><th>token</th><th colspan="` + itoa(m.Dim) + `" ` + secondary + `>row of W</th><th>W·h</th></tr>`)
	for id, row := range m.Head {
		b.WriteString("<tr>")
		tag(&b, "th", "", m.Label(id))
		for _, w := range row {
			tag(&b, "td", secondary, fixed(float64(w), 3))
		}
		r, _ := d.Row(id) // the head is shown only where every token is listed
		tag(&b, "td", `class="result"`, fixed(r.Computed, 4))
		b.WriteString("</tr>")
	}
	b.WriteString("</table></div>")
	if len(d.Step.Edited) > 0 {
		tag(&b, "p", `class="hint"`, "W·h is what the model computed; the logits card shows your edits on top of it.")
	}
	return b.String()
}

func headName(shared bool) string {
	if shared {
		return "token-embedding matrix (shared with the input embedding)"
	}
	return "classifier matrix"
}
