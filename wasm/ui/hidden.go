package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
)

// renderHidden shows where the logits come from: the final hidden state h
// times the LM head W. For the toy model every number fits on screen.
func (p *Playground) renderHidden(d *session.Detail) app.UI {
	m := p.sess.Model()
	if m.Checkpoint == nil {
		return card("hidden", "Logits typed by hand", "This session has no model: the logits below are the input. Pick a model to see where logits come from.")
	}
	c := m.Checkpoint.Config
	h := make([]app.UI, len(d.Hidden))
	for i, v := range d.Hidden {
		h[i] = app.Span().Title("h[" + itoa(i) + "]").Text(fixed(float64(v), 3))
	}
	body := []app.UI{
		app.Div().ID("hidden-h").Class("vector").Body(append([]app.UI{app.Strong().Text("h =")}, h...)...),
	}
	if c.Dim > 8 {
		body = append(body, app.P().Class("hint").Textf(
			"W is the %d × %d %s; each logit is one row of W times h.", c.VocabSize, c.Dim, headName(c.SharedHead)))
		return card("hidden", "Hidden state h → logits", "The last layer's output for the input token, after the final RMSNorm.", body...)
	}
	rows := []app.UI{app.Tr().Body(app.Th().Text("token"), app.Th().ColSpan(c.Dim).Text("row of W"), app.Th().Text("W·h"))}
	for v := range c.VocabSize {
		cells := []app.UI{app.Th().Text(p.tokenName(v))}
		for _, w := range p.sess.HeadRow(v) {
			cells = append(cells, app.Td().Text(fixed(float64(w), 3)))
		}
		cells = append(cells, app.Td().Class("result").Text(fixed(d.Computed[v], 4)))
		rows = append(rows, app.Tr().Body(cells...))
	}
	body = append(body, app.Table().ID("lm-head").Class("num matrix").Body(rows...))
	return card("hidden", "Hidden state h and LM head W",
		"h is the last layer's output for the input token, after the final RMSNorm. Each logit is a row of W times h.", body...)
}

func headName(shared bool) string {
	if shared {
		return "token-embedding matrix (shared with the input embedding)"
	}
	return "classifier matrix"
}
