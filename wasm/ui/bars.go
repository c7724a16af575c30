package ui

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
)

// renderBars draws the distribution; clicking a bar forces that token at
// this step, forking the session there.
func (p *Playground) renderBars(d *session.Detail, index int) app.UI {
	probs := d.Choice.Softmax.Probs
	ids := rowsToShow(probs, maxRows)
	if p.barsByID {
		slices.Sort(ids)
	} else {
		slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(probs[b], probs[a]) })
	}
	bars := make([]app.UI, len(ids))
	for i, id := range ids {
		class := "bar"
		if id == d.Step.Token {
			class += " chosen"
		}
		bars[i] = app.Button().Class(class).DataSet("token", id).
			Title("force "+quote(p.tokenName(id))+" at this step").
			OnClick(p.force(index, id), app.EventScope(index, id)).Body(
			app.Span().Class("bar-label").Text(p.tokenName(id)),
			app.Span().Class("bar-track").Body(
				app.Span().Class("bar-fill").Style("width", strconv.FormatFloat(100*probs[id], 'f', 2, 64)+"%"),
			),
			app.Span().Class("bar-value").Text(sig(probs[id])),
		)
	}
	order := "sorted by probability"
	if p.barsByID {
		order = "in vocabulary order"
	}
	return card("bars", "Probabilities", "Click a token to choose it here instead (the session forks at this step).",
		app.Div().Class("row").Body(
			app.Button().ID("sort-bars").Text("Sort: "+order).OnClick(func(ctx app.Context, e app.Event) { p.barsByID = !p.barsByID }),
		),
		app.Div().Class("bars").Body(bars...),
	)
}

func (p *Playground) force(index, id int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		p.do(func(s *session.Session) error { return s.Force(index, id) })
	}
}
