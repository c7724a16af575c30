package ui

import (
	"math"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// timeline is the timeline card's input: the steps as the trace recorded
// them and the step on display.
func timeline(s play.Snapshot, do selecter) app.UI {
	return &Timeline{Steps: s.Session.Trace.Steps, Selected: s.Shown, Vocab: len(s.Model().Names),
		Epoch: s.Session.Epoch, Do: do}
}

// Timeline plots, across a generation, what each step's softmax said about
// the token chosen — its probability, its surprise −ln p beside the
// distribution's entropy, and its rank — with a point per step: hover to
// read a step, click to open it. Each series is one SVG path, so a long
// generation costs four elements, not four per step.
type Timeline struct {
	app.Compo

	Steps    []session.Step // the trace's, shared: the component only reads them
	Selected int            // the step on display; len(Steps) is the next one
	Vocab    int            // the vocabulary's size, the rank's scale
	Epoch    int            // changes when the past was rewritten, which may keep Steps' length and array
	Do       selecter

	hover int    // 1 + the step under the pointer, 0 for none
	svg   string // the chart as drawn for drawn: Steps' length and Epoch
	drawn [2]int
}

// The chart's geometry in SVG units: three panels stacked, each with the
// top of its band and its height.
const (
	chartWidth = 600.0
	probTop    = 4.0 // probability: 1 at the top, 0 at the bottom
	probHeight = 56.0
	natsTop    = 76.0 // surprise and entropy in nats: 0 at the bottom
	natsHeight = 76.0
	rankTop    = 172.0 // rank, log scale: 1 at the top, the vocabulary's size at the bottom
	rankHeight = 44.0
)

func (c *Timeline) Render() app.UI {
	n := len(c.Steps)
	if n == 0 {
		return card("timeline", "Timeline", "Take a step: each one adds a point, its token's probability, surprise, entropy and rank.")
	}
	if c.drawn != [2]int{n, c.Epoch} || c.svg == "" {
		c.svg, c.drawn = c.chart(), [2]int{n, c.Epoch}
	}
	frame := []app.UI{app.Raw(c.svg)}
	if c.Selected < n {
		frame = append(frame, app.Span().Class("timeline-mark selected").Style("left", pct(c.x(c.Selected)/chartWidth)))
	}
	if c.hover > 0 {
		frame = append(frame, app.Span().Class("timeline-mark hover").Style("left", pct(c.x(c.hover-1)/chartWidth)))
	}
	// One element catches the pointer over the whole chart: the step is
	// where the pointer is across it.
	frame = append(frame, app.Div().ID("timeline-hit").Class("timeline-hit").
		OnMouseMove(c.onHover).OnMouseLeave(c.onLeave).OnClick(c.onClick))
	return card("timeline", "Timeline",
		"Each step's chosen token: its probability p (blue); its surprise −ln p (red: the log-probability, upside down) beside "+
			"the entropy of the distribution it was drawn from (dashed), both in nats (ln 2 nats = 1 bit); its rank among all "+
			itoa(c.Vocab)+" tokens (green). Hover to read a step, click to open it.",
		app.Div().Class("timeline-frame").Body(frame...),
		app.P().ID("timeline-readout").Class("hint readout").Text(c.readout()),
	)
}

// x is the centre of step i's band: n steps share the width equally.
func (c *Timeline) x(i int) float64 { return chartWidth * (float64(i) + 0.5) / float64(len(c.Steps)) }

// chart draws the panels and the series, one path each.
func (c *Timeline) chart() string {
	top := math.Log(2) // the nats panel's scale: the largest finite value shown, at least one bit
	for _, st := range c.Steps {
		for _, v := range []float64{st.Entropy, st.Surprise()} {
			if !math.IsInf(v, 0) {
				top = math.Max(top, v)
			}
		}
	}
	logVocab := math.Log(float64(max(c.Vocab, 2)))
	series := func(class string, y func(session.Step) float64) string {
		return svgPath(class, len(c.Steps), func(i int) (float64, float64) { return c.x(i), y(c.Steps[i]) })
	}
	nats := func(v float64) float64 { return natsTop + natsHeight*(1-math.Min(v, top)/top) }
	var svg strings.Builder
	svg.WriteString(`<svg class="timeline" viewBox="0 0 600 220" role="img" aria-label="probability, surprise, entropy and rank of each step's token">`)
	for _, band := range [][3]float64{{probTop, probHeight}, {natsTop, natsHeight}, {rankTop, rankHeight}} {
		svg.WriteString(`<rect class="frame" x="0" y="` + num1(band[0]) + `" width="600" height="` + num1(band[1]) + `"/>`)
	}
	label := func(y float64, s string) {
		svg.WriteString(`<text class="axis" x="4" y="` + num1(y) + `">` + s + `</text>`)
	}
	label(probTop+11, "p (1 at the top)")
	label(natsTop+11, "nats (up to "+sig(top)+"): surprise, entropy")
	label(rankTop+11, "rank (1 at the top, "+itoa(c.Vocab)+" at the bottom, log scale)")
	svg.WriteString(series("prob", func(st session.Step) float64 { return probTop + probHeight*(1-st.Prob) }))
	svg.WriteString(series("entropy", func(st session.Step) float64 { return nats(st.Entropy) }))
	svg.WriteString(series("surprise", func(st session.Step) float64 { return nats(st.Surprise()) }))
	svg.WriteString(series("rank", func(st session.Step) float64 {
		return rankTop + rankHeight*math.Log(float64(st.Rank))/logVocab
	}))
	svg.WriteString(`</svg>`)
	return svg.String()
}

// readout says the values of the step under the pointer, else of the step
// on display.
func (c *Timeline) readout() string {
	i := c.hover - 1
	if i < 0 {
		i = c.Selected
	}
	if i >= len(c.Steps) {
		return "Hover over the chart to read a step; click to open it."
	}
	st := c.Steps[i]
	return "step " + itoa(i+1) + " " + quote(st.Piece) + ": p = " + sig(st.Prob) + " · ln p = " + sig(st.LogProb) +
		" · surprise " + sig(st.Surprise()) + " nats · entropy " + sig(st.Entropy) + " nats (" + sig(st.Entropy/math.Ln2) +
		" bits) · rank " + itoa(st.Rank) + " of " + itoa(c.Vocab)
}

// step is the step under a pointer event, or -1.
func (c *Timeline) step(e app.Event) int {
	if x, _, ok := pointerCell(e, len(c.Steps), 1); ok {
		return x
	}
	return -1
}

func (c *Timeline) onHover(ctx app.Context, e app.Event) { c.hover = c.step(e) + 1 }

func (c *Timeline) onLeave(ctx app.Context, e app.Event) { c.hover = 0 }

// onClick opens the step clicked, as the token strip does.
func (c *Timeline) onClick(ctx app.Context, e app.Event) {
	if i := c.step(e); i >= 0 {
		c.Do.Select(i)
	}
}

// svgPath is an SVG path of class through n points, point(i) giving the
// i-th: one element however many points.
func svgPath(class string, n int, point func(i int) (x, y float64)) string {
	var d strings.Builder
	for i := range n {
		cmd := " L"
		if i == 0 {
			cmd = "M"
		}
		x, y := point(i)
		d.WriteString(cmd + num1(x) + " " + num1(y))
	}
	return `<path class="` + class + `" d="` + d.String() + `"/>`
}
