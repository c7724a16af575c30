package ui

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/wasm/play"
)

// BarsCard draws the distribution the sampler chose from: each token's
// probability, and, when filters removed tokens, which stage removed each
// and what the survivors' probabilities became once renormalised.
// Choosing a bar (a click, or Enter on the list) forces that token at this
// step, forking the session there. The list is one stop for Tab; the
// arrow keys move through it. A hot view: it paints its bars from the
// board (barsHTML).
type BarsCard struct {
	app.Compo

	Board *board
	Do    forcer

	byID   bool // in vocabulary order, not by probability
	active int  // the bar the keyboard is on, by its place in the list
}

// forcer chooses a token at a step by hand.
type forcer interface{ Force(i, token int) }

func (c *BarsCard) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *BarsCard) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *BarsCard) OnDismount()              { c.Board.remove(c) }

func (c *BarsCard) Render() app.UI {
	order := "sorted by probability"
	if c.byID {
		order = "in vocabulary order"
	}
	return card("bars", "Probabilities", "",
		app.P().ID("bars-hint").Class("hint"),
		app.Div().Class("row").Body(
			app.Button().ID("sort-bars").Text("Sort: "+order).OnClick(c.toggleOrder),
			folds(allRows("bars-count")),
		),
		app.Div().ID("bars-list").Class("bars").Attr("role", "listbox").TabIndex(0).
			Attr("aria-label", "tokens by probability: Enter chooses the token at this step").
			OnClick(c.onClick).OnKeyDown(c.onKey),
	)
}

func (c *BarsCard) paint(s play.Snapshot) {
	if d := shownDetail(s); d != nil && d.Choice == nil {
		setHTML("bars-list", "")
		setHTML("bars-hint", unsampledHTML(d))
	} else if d != nil {
		ids := c.rows(d)
		c.active = min(c.active, len(ids)-1)
		bars, hint := barsHTML(d, s.Model(), ids, c.active)
		setHTML("bars-count", itoa(len(ids)))
		setHTML("bars-list", bars)
		setHTML("bars-hint", hint)
	}
}

// rows are the tokens listed, in the card's order.
func (c *BarsCard) rows(d *play.Detail) []int {
	ids := slices.Clone(c.Board.rows(d))
	if c.byID {
		slices.Sort(ids)
	} else {
		p := func(id int) float64 { r, _ := d.Row(id); return r.P }
		slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(p(b), p(a)) })
	}
	return ids
}

// barsHTML is the list of bars of step d, tokens ids in order with the
// keyboard on the active-th, and the card's hint.
func barsHTML(d *play.Detail, m *play.Model, ids []int, active int) (bars, hint string) {
	var b strings.Builder
	for i, id := range ids {
		r, _ := d.Row(id)
		class := "bar"
		if id == d.Step.Token {
			class += " chosen"
		}
		if i == active {
			class += " active"
		}
		after := `<span class="bar-after"></span>`
		switch {
		case r.RemovedBy > 0:
			by := stageLabel(d.Choice.Stages[r.RemovedBy-1].Name)
			class += " removed"
			after = `<span class="bar-after" title="removed by ` + esc(by) + `">` + esc("✕ "+by) + `</span>`
		case d.Filtered:
			after = `<span class="bar-after" title="renormalised after the filters">` + esc("→ "+sig(r.Final)) + `</span>`
		}
		b.WriteString(`<div role="option" class="` + class + `" data-token="` + itoa(id) + `" aria-selected="` + strconv.FormatBool(i == active) +
			`" title="` + esc("choose "+quote(m.Label(id))+" at this step") + `">`)
		tag(&b, "span", `class="bar-label"`, m.Label(id))
		b.WriteString(`<span class="bar-track"><span class="bar-fill" style="width:` + strconv.FormatFloat(100*r.P, 'f', 2, 64) + `%"></span></span>`)
		tag(&b, "span", `class="bar-value"`, sig(r.P))
		b.WriteString(after + `</div>`)
	}
	hint = "Click a token, or press Enter on it, to choose it here instead (the session forks at this step)."
	if d.Filtered {
		hint += " ✕ marks a token a filter removed; → is a survivor's probability once the survivors are renormalised to sum to 1."
	}
	return b.String(), esc(hint)
}

func (c *BarsCard) toggleOrder(ctx app.Context, e app.Event) {
	c.byID = !c.byID
	paintSafely(c, c.Board.s)
}

// onClick forces the clicked bar's token at the step on display; the list
// handles its bars' clicks (see rowEvent).
func (c *BarsCard) onClick(ctx app.Context, e app.Event) {
	if id, _, ok := rowEvent(e, "bar"); ok {
		c.force(id)
	}
}

// onKey moves through the bars with the arrow keys, Home and End, and
// chooses the one it is on with Enter or Space.
func (c *BarsCard) onKey(ctx app.Context, e app.Event) {
	d := shownDetail(c.Board.s)
	if d == nil || d.Choice == nil {
		return
	}
	ids := c.rows(d)
	switch e.Get("key").String() {
	case "ArrowDown":
		c.active = min(c.active+1, len(ids)-1)
	case "ArrowUp":
		c.active = max(c.active-1, 0)
	case "Home":
		c.active = 0
	case "End":
		c.active = len(ids) - 1
	case "Enter", " ":
		if c.active >= 0 && c.active < len(ids) {
			c.force(ids[c.active])
		}
	default:
		return
	}
	e.PreventDefault()
	e.Call("stopPropagation") // the page's own shortcuts stay out of the list
	paintSafely(c, c.Board.s)
}

func (c *BarsCard) force(token int) {
	if d := shownDetail(c.Board.s); d != nil {
		c.Do.Force(d.Index, token)
	}
}

// stageLabel is how a stage is named on the page: another runtime's by
// its own name.
func stageLabel(name sampler.StageName) string {
	switch name {
	case sampler.StageTopK:
		return "top-k"
	case sampler.StageTopP:
		return "top-p"
	case sampler.StageMinP:
		return "min-p"
	case sampler.StageRunCCutoff:
		return "run.c's cutoff"
	case sampler.StageRepetitionPenalty:
		return "repetition penalty"
	}
	return string(name)
}
