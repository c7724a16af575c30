package ui

import (
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// recomputeCard is the card's input: the model's shape for the counts and,
// when the switch is on, the step on display recomputed without the cache.
func recomputeCard(s play.Snapshot, d *session.Detail, do recomputeActions) app.UI {
	m := s.Model()
	if m.Typed {
		return app.Text("")
	}
	// A step's multiply-adds at every position so far, both ways: the chart.
	t := s.Session.Trace
	n := max(len(t.Prompt)+len(t.Steps), 2)
	cached, recomputed := make([]int, n), make([]int, n)
	for pos := range n {
		cached[pos], recomputed[pos] = m.MultiplyAdds(pos)
	}
	c := &RecomputeCard{On: s.Page.Recompute, Vocab: len(m.Names), Cached: cached, Recomputed: recomputed,
		Pos: d.Step.Pos, Index: d.Index, Times: s.Times, Do: do}
	switch {
	case s.Page.Recompute && s.Running:
		c.Error = "Recomputing waits until Run stops: it would run every position again for every step shown."
	case s.RecomputeErr != nil:
		c.Error = play.Words(s.RecomputeErr)
	case s.Page.Recompute:
		c.R = s.Recomputed
	}
	return c
}

// recomputeActions switch the recomputation on and off.
type recomputeActions interface{ SetRecompute(on bool) }

// RecomputeCard shows what the KV cache saves: a "recompute without cache"
// switch that runs the step on display again over the whole context and
// compares the logits, the multiply-adds of a step both ways as the
// sequence grows, the measured times, the cache's memory, and the prompt's
// prefill against a decode step.
type RecomputeCard struct {
	app.Compo

	On         bool
	Vocab      int                 // the vocabulary's size: how many logits are compared
	Cached     []int               // a step's multiply-adds with the cache, by position, over the context so far (at least 2)
	Recomputed []int               // the same recomputed without the cache
	Pos        int                 // the position the step on display fed
	Index      int                 // the step on display
	R          *session.Recomputed // the step recomputed, while On
	Error      string
	Times      []play.Timing // measured, a point per position
	Do         recomputeActions
}

func (c *RecomputeCard) Render() app.UI {
	toggle := app.Label().Class("switch").Body(
		app.Input().ID("recompute-toggle").Type("checkbox").Checked(c.On).OnChange(c.onToggle),
		app.Text(" Recompute without cache: run the whole sequence through the model again for the step on display"),
	)
	body := []app.UI{toggle}
	switch {
	case c.Error != "":
		body = append(body, app.P().ID("recompute-diff").Class("notice").Text(c.Error))
	case c.R != nil:
		body = append(body, c.result(), c.costs())
	}
	body = append(body, c.chart())
	return card("recompute", "Cache versus recompute",
		"With the KV cache a step feeds one token: its query reads the keys and values kept from every earlier position. "+
			"Without it, each step runs every position of the sequence again. Same numbers, very different work.", body...)
}

func (c *RecomputeCard) onToggle(ctx app.Context, e app.Event) {
	c.Do.SetRecompute(ctx.JSSrc().Get("checked").Bool())
}

// result says whether the logits were the same both ways.
func (c *RecomputeCard) result() app.UI {
	r := c.R
	verdict := "bit-identical to the cached step's: the cache changes what is computed, not how"
	if !r.Identical {
		verdict = "the same up to a largest difference of " + sig(r.MaxAbsDiff)
	}
	return app.P().ID("recompute-diff").Class("recompute-diff").Body(
		app.Text("Step "+itoa(c.Index+1)+" recomputed over all "+itoa(r.Pos+1)+" positions: its "+itoa(c.Vocab)+" logits are "),
		app.Strong().Text(verdict), app.Text("."),
	)
}

// costs sets the step's two ways side by side, then the prompt's prefill.
func (c *RecomputeCard) costs() app.UI {
	r := c.R
	row := func(name string, madds int, t time.Duration) app.UI {
		return app.Tr().Body(app.Th().Text(name), app.Td().Text(count(madds)), app.Td().Text(millis(t)))
	}
	perToken := r.PrefillTime / time.Duration(max(r.PromptTokens, 1))
	return app.Div().Body(
		app.Table().ID("recompute-costs").Class("num").Body(
			app.Tr().Body(app.Th().Text("step "+itoa(c.Index+1)+", position "+itoa(r.Pos)), app.Th().Text("multiply-adds"), app.Th().Text("time, measured")),
			row("with the cache", r.CachedMultiplyAdds, r.CachedTime),
			row("recomputed", r.RecomputedMultiplyAdds, r.RecomputedTime),
			row("prefill, per prompt token", r.PrefillMultiplyAdds/max(r.PromptTokens, 1), perToken),
		),
		app.P().Class("hint").Text("Recomputing costs "+fixed(float64(r.RecomputedMultiplyAdds)/float64(r.CachedMultiplyAdds), 1)+
			"× the multiply-adds here; the cache that saves them holds "+byteSize(r.KVBytes)+" for these "+itoa(r.Pos+1)+" positions. "+
			"Prefill fed the prompt's "+itoa(r.PromptTokens)+" tokens ("+millis(r.PrefillTime)+" in all) a position at a time, as run.c does, "+
			"so a prompt token costs what a decode step does; batched prefill, matrix by matrix, is the native engine's (nexttoken trace)."),
	)
}

// chart plots a step's multiply-adds both ways at every position of the
// sequence so far — a line and a parabola — and the times measured.
func (c *RecomputeCard) chart() app.UI {
	const w, h = 480.0, 120.0
	n := len(c.Cached)
	peak := float64(c.Recomputed[n-1])
	x := func(pos int) float64 { return w * float64(pos) / float64(n-1) }
	path := func(class string, y func(pos int) float64) string {
		return svgPath(class, n, func(pos int) (float64, float64) { return x(pos), y(pos) })
	}
	madds := func(series []int) func(int) float64 {
		return func(pos int) float64 { return h - h*float64(series[pos])/peak }
	}
	var svg strings.Builder
	svg.WriteString(`<svg class="cost" viewBox="-60 -8 560 150" role="img" aria-label="multiply-adds of a step with and without the cache, by position">`)
	svg.WriteString(`<rect class="frame" x="0" y="0" width="480" height="120"/>`)
	svg.WriteString(`<text class="axis" x="-4" y="6" text-anchor="end">` + count(int(peak)) + `</text><text class="axis" x="-4" y="120" text-anchor="end">0</text>`)
	svg.WriteString(`<text class="axis" x="0" y="136">position 0</text><text class="axis" x="480" y="136" text-anchor="end">position ` + itoa(n-1) + `</text>`)
	svg.WriteString(path("recomputed", madds(c.Recomputed)))
	svg.WriteString(path("cached", madds(c.Cached)))
	svg.WriteString(`<circle class="shown" cx="` + num1(x(min(c.Pos, n-1))) + `" cy="` + num1(madds(c.Recomputed)(min(c.Pos, n-1))) + `" r="4"/>`)
	svg.WriteString(`</svg>`)
	figures := []app.UI{app.Figure().Body(app.Raw(svg.String()),
		app.FigCaption().Text("Multiply-adds of one step at each position so far, counted from the model's shape: "+
			"with the cache (flat, growing by "+count(c.Cached[1]-c.Cached[0])+" a position for attention) and recomputed (a parabola)."))}
	if len(c.Times) > 0 {
		figures = append(figures, c.timesChart(n))
	}
	return app.Div().Class("cost-charts").Body(figures...)
}

// timesChart plots the times measured so far, both ways, by position.
func (c *RecomputeCard) timesChart(n int) app.UI {
	const w, h = 480.0, 120.0
	var peak time.Duration
	for _, t := range c.Times {
		peak = max(peak, t.Recomputed, t.Cached)
	}
	peak = max(peak, time.Microsecond)
	x := func(pos int) float64 { return w * float64(min(pos, n-1)) / float64(n-1) }
	y := func(d time.Duration) float64 { return h - h*float64(d)/float64(peak) }
	var svg strings.Builder
	svg.WriteString(`<svg class="cost" viewBox="-60 -8 560 150" role="img" aria-label="measured time of a step with and without the cache, by position">`)
	svg.WriteString(`<rect class="frame" x="0" y="0" width="480" height="120"/>`)
	svg.WriteString(`<text class="axis" x="-4" y="6" text-anchor="end">` + millis(peak) + `</text><text class="axis" x="-4" y="120" text-anchor="end">0</text>`)
	for _, t := range c.Times {
		svg.WriteString(`<circle class="recomputed" cx="` + num1(x(t.Pos)) + `" cy="` + num1(y(t.Recomputed)) + `" r="3"/>`)
		svg.WriteString(`<circle class="cached" cx="` + num1(x(t.Pos)) + `" cy="` + num1(y(t.Cached)) + `" r="3"/>`)
	}
	svg.WriteString(`</svg>`)
	return app.Figure().ID("recompute-times").Body(app.Raw(svg.String()),
		app.FigCaption().Text("Time measured in this browser for each step recomputed so far ("+itoa(len(c.Times))+
			"), with the cache and without: one run each, so expect noise."))
}
