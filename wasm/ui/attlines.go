package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/softmax"
	"nexttoken/wasm/play"
)

// The attention lines' drawing, in the SVG's units: the query's dot on the
// left, the context's positions down a column on the right, each
// labelled to its right.
const (
	linesWidth    = 320
	linesQueryX   = 96  // the query's dot; its label ends left of it
	linesColumnX  = 196 // the context's positions; labels start right of it
	linesPitch    = 16  // a labelled row's height
	linesMargin   = 8   // above the first row and below the last
	linesLabelGap = 11  // the least distance between two labels
)

// Which lines are drawn and which positions are labelled, so that 512
// positions stay readable: a context of up to linesAllLabelled positions
// has a row of its own for each, every one labelled; a longer one shares
// linesAllLabelled rows' height, and only its linesTop most attended
// positions are labelled. Positions below linesFloor of the largest
// weight get no line: they would be invisible anyway.
const (
	linesAllLabelled = 24
	linesTop         = 8
	linesFloor       = 0.01
)

// AttentionLines draws how the step's query — the input token, the newest
// position — attended to each position of the context, for one head of
// the KV card's layer or the mean of its heads: a line from the query to
// each position, its opacity and width in proportion to the weight.
// Beside the card's table or heat map of every head at once, the lines
// read which tokens one head looked at. A hot view: its drawing is
// painted from the board, the weights in each line's data-pos and data-w.
type AttentionLines struct {
	app.Compo

	Board *board
	Heads int // query heads a layer

	head int       // 1 + the head shown, or 0 for the mean of the heads
	mean []float32 // scratch for the mean
}

func (c *AttentionLines) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *AttentionLines) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *AttentionLines) OnDismount()              { c.Board.remove(c) }

func (c *AttentionLines) Render() app.UI {
	options := make([]app.UI, 0, c.Heads+1)
	options = append(options, option("mean", "all heads (mean)", c.head == 0))
	for h := range c.Heads {
		options = append(options, option(itoa(h), "head "+itoa(h), c.head == h+1))
	}
	return app.Div().ID("attention-lines").Body(
		app.H4().Text("Attention as lines"),
		app.Label().Class("field").Body(
			app.Span().Text("lines of"),
			app.Select().ID("attention-head").Body(options...).OnChange(c.onHead),
		),
		app.Div().ID("attention-lines-drawing").Class("att-lines"),
		app.P().ID("attention-lines-hint").Class("hint"),
	)
}

// onHead shows the head chosen. The component's own change calls no
// OnUpdate: it paints again itself.
func (c *AttentionLines) onHead(ctx app.Context, e app.Event) {
	c.head = 0
	if h, err := strconv.Atoi(ctx.JSSrc().Get("value").String()); err == nil && h >= 0 && h < c.Heads {
		c.head = h + 1
	}
	repaint(ctx, c.Board, c)
}

// weights are the weights the lines draw in d: layer l's head's, or the
// mean of its heads'.
func (c *AttentionLines) weights(d *play.Detail) []float32 {
	heads := d.Attention
	if h := c.head - 1; h >= 0 && h < len(heads) {
		return heads[h]
	}
	c.mean = meanOf(c.mean[:0], heads)
	return c.mean
}

// meanOf appends the mean of rows, position by position, to dst.
func meanOf(dst []float32, rows [][]float32) []float32 {
	for pos := range len(rows[0]) {
		var sum float64
		for _, r := range rows {
			sum += float64(r[pos])
		}
		dst = append(dst, float32(sum/float64(len(rows))))
	}
	return dst
}

func (c *AttentionLines) paint(s play.Snapshot) {
	k, ok := cacheShown(s)
	if !ok || len(k.d.Attention) == 0 {
		return
	}
	l := k.d.KV.Layer
	who := "the mean of layer " + itoa(l) + "'s " + itoa(len(k.d.Attention)) + " heads"
	if h := c.head - 1; h >= 0 && h < len(k.d.Attention) {
		who = "head " + itoa(h) + " of layer " + itoa(l)
	}
	w := c.weights(k.d)
	svg, drawn := attentionLinesSVG(w, k.tokens, who)
	setHTML("attention-lines-drawing", svg)
	hint := "From the query of " + quote(k.tokens[len(k.tokens)-1]) + " (position " + itoa(len(k.tokens)-1) + ", left) to the " +
		itoa(len(w)) + " positions it attends to (right), " + who + " (the tabs above choose the layer): the more weight, the darker and wider the line. "
	if len(w) > linesAllLabelled {
		hint += "The " + itoa(linesTop) + " most attended positions are labelled with their weight; "
	}
	hint += itoa(drawn) + " of " + itoa(len(w)) + " positions get at least " + strconv.FormatFloat(100*linesFloor, 'g', -1, 64) + "% of the largest weight; the others get no line."
	setHTML("attention-lines-hint", esc(hint))
}

// attentionLinesSVG draws lines from the query, the last of tokens, to
// every position with its weight w[pos], labelled by its token; who says
// whose weights they are. It returns the drawing and how many lines it
// has.
func attentionLinesSVG(w []float32, tokens []string, who string) (svg string, lines int) {
	n := len(w)
	wide := softmax.Widen(nil, w)
	top := softmax.Top(wide, linesTop, nil)
	peak := 0.0
	if len(top) > 0 {
		peak = wide[top[0]]
	}
	height, pitch := float64(linesPitch*max(n, 2)+2*linesMargin), float64(linesPitch)
	labelled := make([]int, 0, n)
	if n > linesAllLabelled {
		height = linesPitch*linesAllLabelled + 2*linesMargin
		pitch = (height - 2*linesMargin) / float64(n)
		labelled = append(labelled, top...)
		slices.Sort(labelled)
	} else {
		for pos := range n {
			labelled = append(labelled, pos)
		}
	}
	rowY := func(pos int) float64 { return linesMargin + pitch*(float64(pos)+0.5) }
	queryY := height / 2
	if n <= linesAllLabelled {
		queryY = rowY(n - 1)
	}
	summary := make([]string, len(top))
	for i, pos := range top {
		summary[i] = quote(tokens[pos]) + " (" + itoa(pos) + ") " + fixed(wide[pos], 3)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="attention-lines-svg" class="att-lines-svg" viewBox="0 0 %d %.1f" role="img" aria-label="%s">`+
		`<path class="att-column" d="M%d %.1fV%.1f"/>`, linesWidth, height,
		esc("Attention of "+who+" as lines; most attended: "+strings.Join(summary, ", ")), linesColumnX, rowY(0), rowY(n-1))
	// The lines, each with its weight for the tests and the curious.
	// Appended, not printed: a long context has a line for hundreds of
	// positions, which fmt costs the page a long task.
	var num []byte
	put := func(before string, x float64, format byte, prec, bits int) {
		b.WriteString(before)
		num = strconv.AppendFloat(num[:0], x, format, prec, bits)
		b.Write(num)
	}
	for pos, v := range w {
		if a := float64(v) / peak; peak > 0 && a >= linesFloor {
			put(`<line class="att-line" x1="`, linesQueryX, 'f', 0, 64)
			put(`" y1="`, queryY, 'f', 1, 64)
			put(`" x2="`, linesColumnX, 'f', 0, 64)
			put(`" y2="`, rowY(pos), 'f', 1, 64)
			put(`" stroke-opacity="`, 0.1+0.9*a, 'f', 2, 64)
			put(`" stroke-width="`, 0.5+2.5*a, 'f', 2, 64)
			put(`" data-pos="`, float64(pos), 'f', 0, 64)
			put(`" data-w="`, float64(v), 'g', -1, 32)
			b.WriteString(`"/>`)
			lines++
		}
	}
	fmt.Fprintf(&b, `<circle class="att-query" cx="%d" cy="%.1f" r="4"/><text class="att-label query" x="%d" y="%.1f" text-anchor="end">%s</text>`,
		linesQueryX, queryY, linesQueryX-8, queryY+4, esc(shortLabel(tokens[n-1])))
	if n > linesAllLabelled {
		for _, pos := range []int{0, n - 1} {
			fmt.Fprintf(&b, `<text class="att-label end" x="%d" y="%.1f" text-anchor="end">%d</text>`, linesColumnX-6, rowY(pos)+4, pos)
		}
	}
	// The labels, moved apart where rows are closer than a label's height
	// (within the drawing), with a leader from the row to a label moved.
	ys := make([]float64, len(labelled))
	for i, pos := range labelled {
		ys[i] = rowY(pos)
		if i > 0 {
			ys[i] = max(ys[i], ys[i-1]+linesLabelGap)
		}
	}
	for i := len(ys) - 1; i >= 0; i-- {
		limit := height - linesLabelGap
		if i < len(ys)-1 {
			limit = ys[i+1] - linesLabelGap
		}
		ys[i] = max(min(ys[i], limit), linesLabelGap/2)
	}
	// A dense column's labels stand further off, for the leaders to fan.
	labelX := linesColumnX + 8
	if n > linesAllLabelled {
		labelX += 14
	}
	for i, pos := range labelled {
		faint := ""
		if wide[pos] < linesFloor*peak || peak == 0 {
			faint = " faint"
		}
		if y := rowY(pos); ys[i] != y {
			fmt.Fprintf(&b, `<path class="att-leader" d="M%d %.1fL%d %.1f"/>`, linesColumnX, y, labelX-3, ys[i])
		}
		fmt.Fprintf(&b, `<text class="att-label%s" x="%d" y="%.1f" data-pos="%d">%s %s</text>`,
			faint, labelX, ys[i]+4, pos, esc(shortLabel(tokens[pos])), fixed(wide[pos], 3))
	}
	b.WriteString("</svg>")
	return b.String(), lines
}

// shortLabel is a token's label cut to fit the drawing.
func shortLabel(s string) string {
	const most = 12
	if r := []rune(s); len(r) > most {
		return string(r[:most-1]) + "…"
	}
	return s
}
