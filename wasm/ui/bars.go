package ui

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// BarsCard draws the distribution the sampler chose from: each token's
// probability, and, when filters removed tokens, which stage removed each
// and what the survivors' probabilities became once renormalised. Clicking
// a bar forces that token at this step, forking the session there.
type BarsCard struct {
	app.Compo

	D     *session.Detail
	Model *play.Model
	Do    forcer

	byID bool // in vocabulary order, not by probability
}

// forcer chooses a token at a step by hand.
type forcer interface{ Force(i, token int) }

func (c *BarsCard) Render() app.UI {
	ch := c.D.Choice
	probs := ch.Softmax.Probs
	final := finalProbs(ch)
	ids := allOrTop(probs)
	if c.byID {
		slices.Sort(ids)
	} else {
		slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(probs[b], probs[a]) })
	}
	bars := make([]app.UI, len(ids))
	for i, id := range ids {
		class := "bar"
		if id == c.D.Step.Token {
			class += " chosen"
		}
		value := sig(probs[id])
		var after app.UI = app.Span().Class("bar-after")
		switch by := removedBy(ch, id); {
		case by != "":
			class += " removed"
			after = app.Span().Class("bar-after").Title("removed by " + by).Text("✕ " + by)
		case final != nil:
			after = app.Span().Class("bar-after").Title("renormalised after the filters").Text("→ " + sig(final[id]))
		}
		bars[i] = app.Button().Class(class).DataSet("token", id).
			Title("force "+quote(c.Model.Label(id))+" at this step").Body(
			app.Span().Class("bar-label").Text(c.Model.Label(id)),
			app.Span().Class("bar-track").Body(
				app.Span().Class("bar-fill").Style("width", strconv.FormatFloat(100*probs[id], 'f', 2, 64)+"%"),
			),
			app.Span().Class("bar-value").Text(value),
			after,
		)
	}
	order := "sorted by probability"
	if c.byID {
		order = "in vocabulary order"
	}
	hint := "Click a token to choose it here instead (the session forks at this step)."
	if final != nil {
		hint += " ✕ marks a token a filter removed; → is a survivor's probability once the survivors are renormalised to sum to 1."
	}
	return card("bars", "Probabilities", hint,
		app.Div().Class("row").Body(
			app.Button().ID("sort-bars").Text("Sort: "+order).OnClick(c.toggleOrder),
		),
		app.Div().Class("bars").OnClick(c.force).Body(bars...),
	)
}

func (c *BarsCard) toggleOrder(ctx app.Context, e app.Event) { c.byID = !c.byID }

// force forces the clicked bar's token at the step on display; the list
// handles its bars' clicks (see rowEvent).
func (c *BarsCard) force(ctx app.Context, e app.Event) {
	if id, _, ok := rowEvent(e, "bar"); ok {
		c.Do.Force(c.D.Index, id)
	}
}

// filters reports whether a stage removes tokens.
func filters(st sampler.Stage) bool {
	return st.Name != "repetition_penalty" && st.Name != "temperature"
}

// finalProbs is the distribution after the last filter, or nil when no
// filter ran.
func finalProbs(c *sampler.Choice) []float64 {
	var p []float64
	for _, st := range c.Stages {
		if filters(st) {
			p = st.Probs
		}
	}
	return p
}

// removedBy names the stage that removed token id, or "".
func removedBy(c *sampler.Choice, id int) string {
	for _, st := range c.Stages {
		if _, found := slices.BinarySearch(st.Removed, id); found && filters(st) {
			return stageLabel(st.Name)
		}
	}
	return ""
}

// stageLabel is how a stage is named on the page.
func stageLabel(name string) string {
	switch name {
	case "top_k":
		return "top-k"
	case "top_p":
		return "top-p"
	case "min_p":
		return "min-p"
	case "runc_cutoff":
		return "run.c's cutoff"
	case "repetition_penalty":
		return "repetition penalty"
	}
	return name
}
