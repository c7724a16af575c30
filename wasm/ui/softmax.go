package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
)

// renderSoftmax writes out the softmax the way it is computed: subtract
// the max, exponentiate, sum, divide.
func (p *Playground) renderSoftmax(d *session.Detail) app.UI {
	sm := d.Choice.Softmax
	scaled := sm.Temperature != 1
	head := []app.UI{app.Th().Text("token"), app.Th().Text("ℓ")}
	if scaled {
		head = append(head, app.Th().Text("ℓ/T"))
	}
	head = append(head, app.Th().Text("ℓ−max"), app.Th().Text("e^(ℓ−max)"), app.Th().Text("p"))
	rows := []app.UI{app.Tr().Body(head...)}
	ids := rowsToShow(sm.Probs, maxRows)
	for _, id := range ids {
		cells := []app.UI{app.Th().Text(p.tokenName(id)), app.Td().Text(fixed(sm.Logits[id], 4))}
		if scaled {
			cells = append(cells, app.Td().Text(fixed(sm.Scaled[id], 4)))
		}
		cells = append(cells,
			app.Td().Text(fixed(sm.Shifted[id], 4)),
			app.Td().Text(sig(sm.Exp[id])),
			app.Td().Class("p").Text(sig(sm.Probs[id])))
		row := app.Tr().DataSet("token", id).Body(cells...)
		if id == d.Step.Token {
			row = row.Class("chosen")
		}
		rows = append(rows, row)
	}
	argmax := 0
	for i, v := range sm.Scaled {
		if v > sm.Scaled[argmax] {
			argmax = i
		}
	}
	notes := []app.UI{
		app.Li().Body(app.Text("max = "), app.Strong().ID("softmax-max").Text(fixed(sm.Max, 4)),
			app.Text(" ("+p.tokenName(argmax)+"): subtracting it keeps every exponential ≤ 1, so none overflows.")),
		app.Li().Body(app.Text("Σ e^(ℓ − max) = "), app.Strong().ID("softmax-sum").Text(sig(sm.Sum))),
		app.Li().Text("p = e^(ℓ − max) / Σ; the probabilities add up to 1."),
	}
	if scaled {
		notes = append([]app.UI{app.Li().Textf("Temperature T = %s divides every logit first: T < 1 sharpens the distribution, T > 1 flattens it.", sig(sm.Temperature))}, notes...)
	}
	if len(sm.Probs) > len(ids) {
		notes = append(notes, app.Li().Textf("The table lists the %d most probable of %d tokens; Σ runs over all of them.", len(ids), len(sm.Probs)))
	}
	return card("softmax", "Softmax", "Exact float64 arithmetic on the model's logits; hand-rounded tables differ in the third decimal.",
		app.Table().Class("num softmax").Body(rows...),
		app.Ul().Class("notes").Body(notes...),
	)
}
