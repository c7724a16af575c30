package ui

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// HiddenCard shows where the logits come from: the final hidden state h
// times the LM head W. For the toy model every number fits on screen.
type HiddenCard struct {
	app.Compo

	D     *session.Detail
	Model *play.Model // its shape: Dim 0 for a session of hand-typed logits; Head when small
}

func (c *HiddenCard) Render() app.UI {
	m := c.Model
	if m.Dim == 0 {
		return card("hidden", "Logits typed by hand", "This session has no model: the logits below are the input. Pick a model to see where logits come from.")
	}
	body := []app.UI{app.Raw(hiddenVector(c.D.Hidden))}
	if m.Head == nil {
		body = append(body, app.P().Class("hint").Textf(
			"W is the %d × %d %s; each logit is one row of W times h.", len(m.Names), m.Dim, headName(m.SharedHead)))
		return card("hidden", "Hidden state h → logits", "The last layer's output for the input token, after the final RMSNorm.", body...)
	}
	rows := []app.UI{app.Tr().Body(app.Th().Text("token"), app.Th().ColSpan(m.Dim).Text("row of W"), app.Th().Text("W·h"))}
	for id, row := range m.Head {
		cells := []app.UI{app.Th().Text(m.Label(id))}
		for _, w := range row {
			cells = append(cells, app.Td().Text(fixed(float64(w), 3)))
		}
		cells = append(cells, app.Td().Class("result").Text(fixed(c.D.Computed[id], 4)))
		rows = append(rows, app.Tr().Body(cells...))
	}
	body = append(body, app.Div().Class("scroll").Body(app.Table().ID("lm-head").Class("num matrix").Body(rows...)))
	if len(c.D.Step.Edited) > 0 {
		body = append(body, app.P().Class("hint").Text("W·h is what the model computed; the logits card shows your edits on top of it."))
	}
	return card("hidden", "Hidden state h and LM head W",
		"h is the last layer's output for the input token, after the final RMSNorm. Each logit is a row of W times h.", body...)
}

// hiddenVector is h as HTML, a span per number: one string, so that a new
// step costs the page one element's update rather than one per number
// (576 for SmolLM2-135M, which made it the slowest view to redraw).
func hiddenVector(h []float32) string {
	var b strings.Builder
	b.WriteString(`<div id="hidden-h" class="vector"><strong>h =</strong>`)
	for i, v := range h {
		b.WriteString(`<span title="h[`)
		b.WriteString(itoa(i))
		b.WriteString(`]">`)
		b.WriteString(fixed(float64(v), 3))
		b.WriteString(`</span>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

func headName(shared bool) string {
	if shared {
		return "token-embedding matrix (shared with the input embedding)"
	}
	return "classifier matrix"
}
