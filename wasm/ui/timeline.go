package ui

import (
	"math"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// Timeline plots, across a generation, what each step's softmax said about
// the token chosen — its probability, its surprise −ln p beside the
// distribution's entropy, and its rank — with a point per step: hover to
// read a step, click to open it. Each series is one SVG path, so a long
// generation costs four elements, not four per step; a step adds its
// points to the paths (linePath), whose x is the step's number in a
// drawing stretched to the frame's width. A hot view.
type Timeline struct {
	app.Compo

	Board *board
	Do    selecter
	Vocab int // the rank's scale

	hover  int // 1 + the step under the pointer, 0 for none
	series [4]linePath[timelineKey]
}

// timelineKey is what a series' points depend on besides their step: the
// session's epoch, and the nats panel's scale.
type timelineKey struct {
	epoch int
	top   float64
}

func (c *Timeline) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *Timeline) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *Timeline) OnDismount()              { c.Board.remove(c) }

// The chart's geometry in SVG units: three panels stacked, each with the
// top of its band and its height.
// Each panel's label sits in the band above it, clear of the lines.
const (
	chartWidth  = 600.0
	chartHeight = 232.0
	labelAbove  = 4.0  // a label's baseline above its panel
	probTop     = 16.0 // probability: 1 at the top, 0 at the bottom
	probHeight  = 56.0
	natsTop     = 90.0 // surprise and entropy in nats: 0 at the bottom
	natsHeight  = 76.0
	rankTop     = 184.0 // rank, log scale: 1 at the top, the vocabulary's size at the bottom
	rankHeight  = 44.0
)

func (c *Timeline) Render() app.UI {
	// One element catches the pointer over the whole chart: the step is
	// where the pointer is across it.
	return card("timeline", "Timeline",
		"Each step's chosen token: its probability p (blue); its surprise −ln p (red: the log-probability, upside down) beside "+
			"the entropy of the distribution it was drawn from (dashed), both in nats (ln 2 nats = 1 bit); its rank among all "+
			"the tokens (green, log scale). Hover to read a step, click to open it.",
		app.Div().ID("timeline-frame").Class("timeline-frame").Body(
			app.Raw(timelineFrame(c.Vocab)),
			app.Raw(`<svg id="timeline-lines" class="timeline-lines" viewBox="0 0 1 `+num1(chartHeight)+`" preserveAspectRatio="none" aria-hidden="true">`+
				`<path id="timeline-prob" class="prob"/><path id="timeline-entropy" class="entropy"/>`+
				`<path id="timeline-surprise" class="surprise"/><path id="timeline-rank" class="rank"/></svg>`),
			app.Div().ID("timeline-marks"),
			app.Div().ID("timeline-hit").Class("timeline-hit").
				OnMouseMove(c.onHover).OnMouseLeave(c.onLeave).OnClick(c.onClick),
		),
		app.P().ID("timeline-readout").Class("hint readout"),
	)
}

// timelineFrame draws the panels and their labels, which do not stretch
// with the steps: the nats panel's label, whose scale does, is painted.
func timelineFrame(vocab int) string {
	var svg strings.Builder
	svg.WriteString(`<svg class="timeline" viewBox="0 0 ` + num1(chartWidth) + ` ` + num1(chartHeight) + `" role="img" aria-label="probability, surprise, entropy and rank of each step's token">`)
	for _, band := range [][2]float64{{probTop, probHeight}, {natsTop, natsHeight}, {rankTop, rankHeight}} {
		svg.WriteString(`<rect class="frame" x="0" y="` + num1(band[0]) + `" width="600" height="` + num1(band[1]) + `"/>`)
	}
	label := func(id string, y float64, s string) {
		svg.WriteString(`<text class="axis" id="` + id + `" x="4" y="` + num1(y) + `">` + esc(s) + `</text>`)
	}
	label("timeline-p-label", probTop-labelAbove, "p (1 at the top)")
	label("timeline-nats-label", natsTop-labelAbove, "nats: surprise, entropy")
	label("timeline-rank-label", rankTop-labelAbove, "rank (1 at the top, "+itoa(vocab)+" at the bottom, log scale)")
	svg.WriteString(`</svg>`)
	return svg.String()
}

func (c *Timeline) paint(s play.Snapshot) {
	steps := s.Session.Trace.Steps
	n := len(steps)
	top := natsTopOf(steps)
	logVocab := math.Log(float64(max(c.Vocab, 2)))
	nats := func(v float64) float64 { return natsTop + natsHeight*(1-math.Min(v, top)/top) }
	key := timelineKey{s.Session.Epoch, top}
	for k, series := range []struct {
		id string
		y  func(session.Step) float64
	}{
		{"timeline-prob", func(st session.Step) float64 { return probTop + probHeight*(1-st.Prob) }},
		{"timeline-entropy", func(st session.Step) float64 { return nats(st.Entropy) }},
		{"timeline-surprise", func(st session.Step) float64 { return nats(st.Surprise()) }},
		{"timeline-rank", func(st session.Step) float64 { return rankTop + rankHeight*math.Log(float64(st.Rank))/logVocab }},
	} {
		d := c.series[k].update(key, n, func(i int) (float64, float64) { return float64(i) + 0.5, series.y(steps[i]) })
		setAttr(series.id, "d", d)
	}
	setAttr("timeline-lines", "viewBox", "0 0 "+itoa(max(n, 1))+" "+num1(chartHeight))
	setHTML("timeline-nats-label", esc("nats (up to "+sig(top)+"): surprise, entropy"))
	setHTML("timeline-marks", timelineMarks(n, s.Shown, c.hover))
	setHTML("timeline-readout", esc(timelineReadout(steps, s.Model(), s.Shown, c.hover)))
}

// natsTopOf is the nats panel's scale: the largest finite surprise or
// entropy of the steps, at least one bit.
func natsTopOf(steps []session.Step) float64 {
	top := math.Log(2)
	for _, st := range steps {
		for _, v := range []float64{st.Entropy, st.Surprise()} {
			if !math.IsInf(v, 0) {
				top = math.Max(top, v)
			}
		}
	}
	return top
}

// timelineMarks are the lines of the step on display and the step under
// the pointer (hover, 1 + its index, 0 for none).
func timelineMarks(n, selected, hover int) string {
	var marks string
	if selected < n {
		marks = `<span class="timeline-mark selected" style="left:` + pct(stepX(selected, n)/chartWidth) + `"></span>`
	}
	if hover > 0 {
		marks += `<span class="timeline-mark hover" style="left:` + pct(stepX(hover-1, n)/chartWidth) + `"></span>`
	}
	return marks
}

// stepX is the centre of step i's band: n steps share the width equally.
func stepX(i, n int) float64 { return chartWidth * (float64(i) + 0.5) / float64(n) }

// timelineReadout says the values of the step under the pointer (hover,
// 1 + its index), else of the step on display.
func timelineReadout(steps []session.Step, m *play.Model, selected, hover int) string {
	i := hover - 1
	if i < 0 {
		i = selected
	}
	if i >= len(steps) {
		if len(steps) == 0 {
			return "Take a step: each one adds a point, its token's probability, surprise, entropy and rank."
		}
		return "Hover over the chart to read a step; click to open it."
	}
	st := steps[i]
	return "step " + itoa(i+1) + " “" + m.Label(st.Token) + "”: p = " + sig(st.Prob) + " · ln p = " + sig(st.LogProb) +
		" · surprise " + sig(st.Surprise()) + " nats · entropy " + sig(st.Entropy) + " nats (" + sig(st.Entropy/math.Ln2) +
		" bits) · rank " + itoa(st.Rank) + " of " + itoa(len(m.Names))
}

// step is the step under a pointer event, or -1.
func (c *Timeline) step(e app.Event) int {
	if x, _, ok := pointerCell(e, len(c.Board.s.Session.Trace.Steps), 1); ok {
		return x
	}
	return -1
}

func (c *Timeline) onHover(ctx app.Context, e app.Event) {
	if h := c.step(e) + 1; h != c.hover {
		c.hover = h
		paintSafely(c, c.Board.s)
	}
	ctx.PreventUpdate()
}

func (c *Timeline) onLeave(ctx app.Context, e app.Event) {
	c.hover = 0
	paintSafely(c, c.Board.s)
	ctx.PreventUpdate()
}

// onClick opens the step clicked, as the token strip does.
func (c *Timeline) onClick(ctx app.Context, e app.Event) {
	if i := c.step(e); i >= 0 {
		c.Do.Select(i)
	}
}
