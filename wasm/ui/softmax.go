package ui

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/play"
)

// SoftmaxCard writes out the softmax the way it is computed: divide by the
// temperature, subtract the max, exponentiate, sum, divide. A hot view:
// it paints its table from the board (softmaxHTML).
type SoftmaxCard struct {
	app.Compo

	Board *board
}

func (c *SoftmaxCard) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *SoftmaxCard) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *SoftmaxCard) OnDismount()              { c.Board.remove(c) }

func (c *SoftmaxCard) Render() app.UI {
	return card("softmax", "Softmax", "Exact float64 arithmetic on the model's logits; hand-rounded tables differ in the third decimal.",
		folds(allColumns(), allRows("softmax-count")),
		app.Div().ID("softmax-body"))
}

func (c *SoftmaxCard) paint(s play.Snapshot) {
	if d := shownDetail(s); d != nil {
		ids := c.Board.rows(d)
		setHTML("softmax-count", itoa(len(ids)))
		setHTML("softmax-body", softmaxHTML(d, s.Model(), ids))
	}
}

// softmaxHTML is the softmax card's table and notes for step d.
func softmaxHTML(d *play.Detail, m *play.Model, ids []int) string {
	sm := d.Softmax
	if sm == nil {
		return unsampledHTML(d)
	}
	scaled := sm.Temperature != 1
	s := "ℓ"
	var b strings.Builder
	b.WriteString(`<div class="scroll"><table class="num softmax"><tr><th>token</th><th>ℓ</th>`)
	if scaled {
		s = "ℓ/T"
		tag(&b, "th", secondary, s)
	}
	tag(&b, "th", secondary, s+" − max")
	tag(&b, "th", secondary, "e^("+s+" − max)")
	b.WriteString(`<th class="p">p</th></tr>`)
	for _, id := range ids {
		r, _ := d.Row(id)
		b.WriteString(`<tr data-token="` + itoa(id) + `"`)
		if id == d.Step.Token {
			b.WriteString(` class="chosen"`)
		}
		b.WriteString(">")
		tag(&b, "th", "", m.Label(id))
		tag(&b, "td", "", fixed(r.In, 4))
		if scaled {
			tag(&b, "td", secondary, fixed(r.Scaled, 4))
		}
		tag(&b, "td", secondary, fixed(r.Shifted, 4))
		tag(&b, "td", secondary, sig(r.Exp))
		tag(&b, "td", `class="p"`, sig(r.P))
		b.WriteString("</tr>")
	}
	b.WriteString(`</table></div><ul class="notes">`)
	switch {
	case d.Choice.Greedy:
		tag(&b, "li", "", "Greedy decoding (temperature 0) takes the largest logit; the probabilities are shown at T = 1.")
	case scaled:
		tag(&b, "li", "", "Temperature T = "+sig(sm.Temperature)+" divides every logit first: T < 1 sharpens the distribution, T > 1 flattens it.")
	}
	b.WriteString("<li>max = ")
	tag(&b, "strong", `id="softmax-max"`, fixed(sm.Max, 4))
	b.WriteString(esc(" (" + m.Label(sm.Argmax) + "): subtracting it keeps every exponential ≤ 1, so none overflows; it cancels in the division."))
	b.WriteString("</li><li>" + esc("Σ e^("+s+" − max) = "))
	tag(&b, "strong", `id="softmax-sum"`, sig6(sm.Sum))
	b.WriteString(esc(", over all "+itoa(d.Vocab)+" tokens") + "</li>")
	tag(&b, "li", "", "p = e^("+s+" − max) / Σ, so the probabilities add up to 1.")
	if d.Vocab > len(ids) {
		tag(&b, "li", "", "The table lists the "+itoa(len(ids))+" most probable of "+itoa(d.Vocab)+" tokens.")
	}
	b.WriteString("</ul>")
	return b.String()
}
