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
func recomputeCard(s play.Snapshot, d *play.Detail, do recomputeActions, b *board) app.UI {
	m := s.Model()
	if m.Typed {
		return app.Text("")
	}
	c := &RecomputeCard{Board: b, Model: m, On: s.Page.Recompute, Times: s.Times, Do: do}
	switch {
	case s.Page.Recompute && s.Running:
		c.Error = "Recomputing waits until Run stops: it would run every position again for every step shown."
	case s.RecomputeErr != nil:
		c.Error = play.Words(s.RecomputeErr)
	case s.Page.Recompute:
		c.R, c.Index = s.Recomputed, d.Index
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

	Board *board
	Model *play.Model         // its shape counts the multiply-adds
	On    bool                // recomputing the step on display
	R     *session.Recomputed // that step recomputed, while On
	Index int                 // its number
	Error string
	Times []play.Timing // measured, a point per position
	Do    recomputeActions

	lines [2]linePath[*play.Model] // the chart's two series, cached and recomputed
}

func (c *RecomputeCard) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *RecomputeCard) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *RecomputeCard) OnDismount()              { c.Board.remove(c) }

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
		app.Text("Step "+itoa(c.Index+1)+" recomputed over all "+itoa(r.Pos+1)+" positions: its "+itoa(len(c.Model.Names))+" logits are "),
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

// The chart's frame (viewBox -60 -8 560 150) and its plot area, 480 ×
// 120 at 0, 0, over which the series are stretched.
const costFrame = `<svg class="cost" viewBox="-60 -8 560 150" role="img" aria-label="multiply-adds of a step with and without the cache, by position">` +
	`<rect class="frame" x="0" y="0" width="480" height="120"/>` +
	`<text class="axis" x="-4" y="6" text-anchor="end" id="cost-peak"></text><text class="axis" x="-4" y="120" text-anchor="end">0</text>` +
	`<text class="axis" x="0" y="136">position 0</text><text class="axis" x="480" y="136" text-anchor="end" id="cost-last"></text></svg>`

// chart plots a step's multiply-adds both ways at every position of the
// sequence so far — a line and a parabola — which paint draws, and the
// times measured.
func (c *RecomputeCard) chart() app.UI {
	cached0, _ := c.Model.MultiplyAdds(0)
	cached1, _ := c.Model.MultiplyAdds(1)
	figures := []app.UI{app.Figure().Body(
		app.Div().Class("cost-frame").Body(
			app.Raw(costFrame),
			app.Div().Class("cost-plot").Body(
				app.Raw(`<svg id="cost-lines" class="cost-lines" viewBox="0 -1 1 1" preserveAspectRatio="none" aria-hidden="true">`+
					`<path id="cost-recomputed" class="recomputed"/><path id="cost-cached" class="cached"/></svg>`),
				app.Span().ID("cost-shown").Class("cost-shown"),
			),
		),
		app.FigCaption().Text("Multiply-adds of one step at each position so far, counted from the model's shape: "+
			"with the cache (flat, growing by "+count(cached1-cached0)+" a position for attention) and recomputed (a parabola)."))}
	if len(c.Times) > 0 {
		figures = append(figures, c.timesChart())
	}
	return app.Div().Class("cost-charts").Body(figures...)
}

// paint draws the multiply-adds at every position so far, a position a
// unit wide and a multiply-add a unit high: a step adds a point to each
// series.
func (c *RecomputeCard) paint(s play.Snapshot) {
	d := s.Detail // an ended session's last step too, which its cache holds
	if d == nil {
		return
	}
	t := s.Session.Trace
	n := max(len(t.Prompt)+len(t.Steps), 2)
	for k, id := range []string{"cost-cached", "cost-recomputed"} {
		setAttr(id, "d", c.lines[k].update(c.Model, n, func(pos int) (float64, float64) {
			cached, recomputed := c.Model.MultiplyAdds(pos)
			return float64(pos), -float64([2]int{cached, recomputed}[k])
		}))
	}
	_, peak := c.Model.MultiplyAdds(n - 1)
	setAttr("cost-lines", "viewBox", "0 "+itoa(-peak)+" "+itoa(n-1)+" "+itoa(peak))
	setHTML("cost-peak", count(peak))
	setHTML("cost-last", "position "+itoa(n-1))
	pos := min(d.Step.Pos, n-1)
	_, at := c.Model.MultiplyAdds(pos)
	setStyle("cost-shown", "left:"+pct(float64(pos)/float64(n-1))+";top:"+pct(1-float64(at)/float64(peak)))
}

// timesChart plots the times measured so far, both ways, by position.
func (c *RecomputeCard) timesChart() app.UI {
	n := 2
	for _, t := range c.Times {
		n = max(n, t.Pos+1)
	}
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
