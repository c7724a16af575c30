package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// SoftmaxCard writes out the softmax the way it is computed: divide by the
// temperature, subtract the max, exponentiate, sum, divide.
type SoftmaxCard struct {
	app.Compo

	D     *session.Detail
	Model *play.Model
}

func (c *SoftmaxCard) Render() app.UI {
	sm := c.D.Choice.Softmax
	scaled := sm.Temperature != 1
	s := "ℓ"
	head := []app.UI{app.Th().Text("token"), app.Th().Text("ℓ")}
	if scaled {
		s = "ℓ/T"
		head = append(head, app.Th().Text(s))
	}
	head = append(head, app.Th().Text(s+" − max"), app.Th().Text("e^("+s+" − max)"), app.Th().Class("p").Text("p"))
	rows := []app.UI{app.Tr().Body(head...)}
	ids := allOrTop(sm.Probs)
	for _, id := range ids {
		cells := []app.UI{app.Th().Text(c.Model.Label(id)), app.Td().Text(fixed(sm.Logits[id], 4))}
		if scaled {
			cells = append(cells, app.Td().Text(fixed(sm.Scaled[id], 4)))
		}
		cells = append(cells,
			app.Td().Text(fixed(sm.Shifted[id], 4)),
			app.Td().Text(sig(sm.Exp[id])),
			app.Td().Class("p").Text(sig(sm.Probs[id])))
		row := app.Tr().DataSet("token", id).Body(cells...)
		if id == c.D.Step.Token {
			row = row.Class("chosen")
		}
		rows = append(rows, row)
	}
	argmax := sampler.Top(sm.Probs, 1, nil)[0]
	notes := []app.UI{
		app.Li().Body(app.Text("max = "), app.Strong().ID("softmax-max").Text(fixed(sm.Max, 4)),
			app.Text(" ("+c.Model.Label(argmax)+"): subtracting it keeps every exponential ≤ 1, so none overflows; it cancels in the division.")),
		app.Li().Body(app.Text("Σ e^("+s+" − max) = "), app.Strong().ID("softmax-sum").Text(sig6(sm.Sum)),
			app.Text(", over all "+itoa(len(sm.Probs))+" tokens")),
		app.Li().Text("p = e^(" + s + " − max) / Σ, so the probabilities add up to 1."),
	}
	switch {
	case c.D.Choice.Greedy:
		notes = append([]app.UI{app.Li().Text("Greedy decoding (temperature 0) takes the largest logit; the probabilities are shown at T = 1.")}, notes...)
	case scaled:
		notes = append([]app.UI{app.Li().Textf("Temperature T = %s divides every logit first: T < 1 sharpens the distribution, T > 1 flattens it.", sig(sm.Temperature))}, notes...)
	}
	if len(sm.Probs) > len(ids) {
		notes = append(notes, app.Li().Textf("The table lists the %d most probable of %d tokens.", len(ids), len(sm.Probs)))
	}
	return card("softmax", "Softmax", "Exact float64 arithmetic on the model's logits; hand-rounded tables differ in the third decimal.",
		app.Div().Class("scroll").Body(app.Table().Class("num softmax").Body(rows...)),
		app.Ul().Class("notes").Body(notes...),
	)
}

// allOrTop lists every token of a small vocabulary in id order, else the
// maxRows most probable, most probable first.
func allOrTop(probs []float64) []int {
	if len(probs) > maxRows {
		return sampler.Top(probs, maxRows, nil)
	}
	ids := make([]int, len(probs))
	for i := range ids {
		ids[i] = i
	}
	return ids
}
