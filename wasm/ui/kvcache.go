package ui

import (
	"math"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// maxTableNumbers is the largest cache layer shown number by number (the
// toy model's, 8 numbers a position, up to 16 positions); larger ones are
// heat maps.
const maxTableNumbers = 16 * 8

// maxAttentionTable is the longest context whose attention is a table with
// a column per token; longer ones are a heat map.
const maxAttentionTable = 16

// kvCard is the KV cache card's input: the cache as the step on display
// read it (the last step, once the session has ended), that step's
// attention, and the cache's growth.
func kvCard(s play.Snapshot) app.UI {
	m := s.Model()
	if m.Typed {
		return card("kv", "KV cache", "A session of hand-typed logits has no model, so no cache. Pick a model to watch the cache grow.")
	}
	d := s.Detail
	if d == nil {
		return app.Text("")
	}
	t := s.Session.Trace
	tokens := make([]string, 0, len(t.Prompt)+len(t.Steps))
	growth := make([]int, 0, len(t.Steps)+1)
	for _, tok := range t.Prompt {
		tokens = append(tokens, visible(tok.Piece))
	}
	growth = append(growth, len(t.Prompt))
	for _, st := range t.Steps {
		tokens = append(tokens, visible(st.Piece))
		growth = append(growth, st.KVLen)
	}
	return &KVCard{
		D: d, Tokens: tokens[:d.KV.Len()], Growth: growth,
		KVHeads: m.KVHeads, HeadSize: m.HeadSize, Epoch: s.Session.Epoch, Theme: s.Page.Theme,
	}
}

// KVCard shows the KV cache as a step read it — every number for the toy
// model, heat maps for larger ones, drawn row by row as the cache grows —
// its size and growth, and how the step's query attended to each cached
// position in every head.
type KVCard struct {
	app.Compo

	D                 *session.Detail // the step on display: its cache view and attention
	Tokens            []string        // each cached position's token, as shown
	Growth            []int           // positions after prefill and after each step
	KVHeads, HeadSize int
	Epoch             int    // changes when the past was rewritten: redraw everything
	Theme             string // light, dark or auto

	layer int
	hover string     // the number under the pointer
	maps  [2]heatmap // keys and values, as drawn
	att   heatmap    // attention, as drawn
}

func (c *KVCard) OnMount(ctx app.Context)  { ctx.Defer(c.draw) }
func (c *KVCard) OnUpdate(ctx app.Context) { ctx.Defer(c.draw) }

func (c *KVCard) Render() app.UI {
	kv := c.D.KV
	n := kv.Len()
	layer := min(c.layer, kv.Layers()-1)
	kvDim := c.KVHeads * c.HeadSize
	summary := app.P().ID("kv-summary").Class("kv-summary").Body(
		app.Strong().ID("kv-rows").Text(itoa(n)), app.Text(" positions of "+itoa(kv.Capacity())+" · "),
		app.Strong().ID("kv-bytes").Text(byteSize(kv.Bytes())),
		app.Text(" ("+itoa(kv.Layers())+" layers × 2 (K and V) × "+itoa(kvDim)+" numbers × 4 bytes = "+byteSize(kv.RowBytes())+" per position)"),
	)
	tabs := make([]app.UI, kv.Layers())
	for l := range tabs {
		tabs[l] = disabledIf(app.Button().Class("tab").DataSet("layer", l), l == layer).Text("layer "+itoa(l)).
			Attr("role", "tab").OnClick(c.selectLayer(l), app.EventScope(l))
	}
	body := []app.UI{summary, c.growth(), app.Div().Class("tabs").Attr("role", "tablist").Body(tabs...)}
	if kvDim*n <= maxTableNumbers {
		body = append(body, c.table(layer))
	} else {
		body = append(body, c.heatmaps(layer))
	}
	body = append(body, c.attention(layer))
	return card("kv", "KV cache",
		"Each position's key (K) and value (V), per layer, computed once and reused by every later step. "+
			"This is the cache as the step on display read it; the highlighted row is the token it read.", body...)
}

func (c *KVCard) selectLayer(l int) app.EventHandler {
	return func(ctx app.Context, e app.Event) { c.layer = l }
}

// table lists every key and value number of a layer.
func (c *KVCard) table(l int) app.UI {
	head := []app.UI{app.Th().Text("pos"), app.Th().Text("token")}
	for h := range c.KVHeads {
		head = append(head, app.Th().ColSpan(c.HeadSize).Text("K head "+itoa(h)))
	}
	for h := range c.KVHeads {
		head = append(head, app.Th().ColSpan(c.HeadSize).Text("V head "+itoa(h)))
	}
	rows := []app.UI{app.Tr().Body(head...)}
	for pos := range c.D.KV.Len() {
		cells := []app.UI{app.Td().Text(itoa(pos)), app.Th().Text(c.Tokens[pos])}
		for h := range c.KVHeads {
			for _, v := range c.D.KV.Key(l, pos, h) {
				cells = append(cells, app.Td().Text(fixed(float64(v), 3)))
			}
		}
		for h := range c.KVHeads {
			for _, v := range c.D.KV.Value(l, pos, h) {
				cells = append(cells, app.Td().Class("v").Text(fixed(float64(v), 3)))
			}
		}
		row := app.Tr().Class("kv-row").Body(cells...)
		if pos == c.D.KV.Len()-1 {
			row = row.Class("newest")
		}
		rows = append(rows, row)
	}
	return app.Div().Class("scroll").Body(app.Table().ID("kv-table").Class("num kv").Body(rows...))
}

// heatmaps are a layer's keys and values as pictures: a row per position, a
// column per number, red positive and blue negative.
func (c *KVCard) heatmaps(l int) app.UI {
	n := c.D.KV.Len()
	kvDim := c.KVHeads * c.HeadSize
	rows := canvasRows(n)
	figure := func(i int, name, caption string) app.UI {
		return app.Figure().ID("heat-"+name).Body(
			app.Div().Class("heat-frame").Body(
				app.Canvas().ID("canvas-"+name).Class("heat").Width(kvDim).Height(rows).
					Attr("aria-label", caption).
					OnMouseMove(c.onHover(i, l), app.EventScope(i, l)).OnMouseLeave(c.leave),
				app.Span().Class("newest-row").Style("top", pct(float64(n-1)/float64(rows))).
					Style("height", pct(1/float64(rows))),
			),
			app.FigCaption().Text(caption),
		)
	}
	k, v := c.peaks(l)
	scale := func(name string, peak float64) app.UI {
		return app.Div().Class("scale").Body(
			app.Span().Class("name").Text(name), app.Span().Text("−"+sig(peak)), app.Span().Class("gradient"), app.Span().Text("+"+sig(peak)),
		)
	}
	return app.Div().Body(
		app.Div().Class("heatmaps").Body(
			figure(0, "keys", "K: "+itoa(n)+" positions (rows) × "+itoa(kvDim)+" numbers ("+itoa(c.KVHeads)+" heads)"),
			figure(1, "values", "V: "+itoa(n)+" positions (rows) × "+itoa(kvDim)+" numbers"),
		),
		scale("K", k), scale("V", v),
		app.P().Class("hint").Text("Colour scales: blue negative, red positive, the card's background at 0."),
		app.P().ID("kv-hover").Class("hint readout").Text(c.hoverText()),
	)
}

func (c *KVCard) hoverText() string {
	if c.hover == "" {
		return "Point at a heat map to read a number."
	}
	return c.hover
}

// onHover reads the number under the pointer on map i (0 keys, 1 values).
func (c *KVCard) onHover(i, l int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		x, y, ok := pointerCell(e, c.HeadSize*c.KVHeads, canvasRows(c.D.KV.Len()))
		if !ok || y >= c.D.KV.Len() {
			c.hover = ""
			return
		}
		h, j := x/c.HeadSize, x%c.HeadSize
		v, name := c.D.KV.Key(l, y, h)[j], "K"
		if i == 1 {
			v, name = c.D.KV.Value(l, y, h)[j], "V"
		}
		c.hover = "position " + itoa(y) + " (" + c.Tokens[y] + "), layer " + itoa(l) + ", " + name +
			" head " + itoa(h) + " [" + itoa(j) + "] = " + fixed(float64(v), 4)
	}
}

func (c *KVCard) leave(ctx app.Context, e app.Event) { c.hover = "" }

// pointerCell is the cell of a w × h canvas under a mouse event.
func pointerCell(e app.Event, w, h int) (x, y int, ok bool) {
	target := e.Get("target")
	cw, ch := target.Get("clientWidth").Float(), target.Get("clientHeight").Float()
	if cw <= 0 || ch <= 0 {
		return 0, 0, false
	}
	x = int(e.Get("offsetX").Float() / cw * float64(w))
	y = int(e.Get("offsetY").Float() / ch * float64(h))
	return x, y, x >= 0 && x < w && y >= 0 && y < h
}

// canvasRows is the height of a heat map holding n positions: it grows by
// doubling, so that a growing cache redraws all its rows only rarely.
func canvasRows(n int) int {
	rows := 16
	for rows < n {
		rows *= 2
	}
	return rows
}

// peaks are the largest magnitudes in layer l's keys and in its values:
// the ends of their colour scales.
func (c *KVCard) peaks(l int) (k, v float64) {
	for pos := range c.D.KV.Len() {
		for h := range c.KVHeads {
			k = math.Max(k, peakOf(c.D.KV.Key(l, pos, h)))
			v = math.Max(v, peakOf(c.D.KV.Value(l, pos, h)))
		}
	}
	return k, v
}

func peakOf(x []float32) float64 {
	var peak float64
	for _, v := range x {
		peak = math.Max(peak, math.Abs(float64(v)))
	}
	return peak
}

// draw brings the canvases up to date after a render.
func (c *KVCard) draw(ctx app.Context) {
	kvDim := c.HeadSize * c.KVHeads
	n := c.D.KV.Len()
	if kvDim*n > maxTableNumbers {
		l := min(c.layer, c.D.KV.Layers()-1)
		k, v := c.peaks(l)
		for i, name := range []string{"keys", "values"} {
			get, peak := c.D.KV.Key, k
			if i == 1 {
				get, peak = c.D.KV.Value, v
			}
			c.maps[i].update("canvas-"+name, drawState{epoch: c.Epoch, layer: l, peak: peak, width: kvDim}, n, kvDim, c.dark(), func(pos int, row []float32) []float32 {
				for h := range c.KVHeads {
					row = append(row, get(l, pos, h)...)
				}
				return row
			})
		}
	}
	if n > maxAttentionTable {
		l := min(c.layer, len(c.D.Attention)-1)
		heads := c.D.Attention[l]
		var peak float64
		for _, w := range heads {
			peak = math.Max(peak, peakOf(w))
		}
		// Every step has attention of its own: a new step redraws it all.
		state := drawState{epoch: c.Epoch, layer: l, peak: peak, width: n, version: c.D.Index}
		c.att.update("canvas-attention", state, len(heads), n, c.dark(), func(h int, row []float32) []float32 {
			return append(row, heads[h]...)
		})
	}
}

func (c *KVCard) dark() bool {
	switch c.Theme {
	case "dark":
		return true
	case "light":
		return false
	}
	return prefersDark()
}

// attention shows, for each head of layer l, how the step's query attended
// to the cached positions: a table with a column per token for a short
// context, else a heat map with the most attended tokens of each head.
func (c *KVCard) attention(l int) app.UI {
	if l >= len(c.D.Attention) {
		return app.Text("")
	}
	heads := c.D.Attention[l]
	n := c.D.KV.Len()
	title := app.H4().Text("Attention of the query of " + quote(c.Tokens[n-1]) + " (position " + itoa(n-1) + "), layer " + itoa(l) + ", per head")
	if n <= maxAttentionTable {
		head := []app.UI{app.Th().Text("head")}
		for pos := range n {
			head = append(head, app.Th().Title("position "+itoa(pos)).Text(c.Tokens[pos]))
		}
		rows := []app.UI{app.Tr().Body(head...)}
		for h, weights := range heads {
			cells := []app.UI{app.Th().Text(itoa(h))}
			for _, a := range weights {
				cells = append(cells, app.Td().Style("--a", strconv.FormatFloat(float64(a), 'f', 3, 64)).Class("att").Text(fixed(float64(a), 3)))
			}
			rows = append(rows, app.Tr().Body(cells...))
		}
		return app.Div().ID("attention").Body(title, app.Div().Class("scroll").Body(app.Table().Class("num attention").Body(rows...)))
	}
	tops := make([]app.UI, len(heads))
	for h, weights := range heads {
		tops[h] = app.Li().Text("head " + itoa(h) + ": " + topAttended(weights, c.Tokens, 3))
	}
	headLabels := make([]app.UI, len(heads))
	for h := range heads {
		headLabels[h] = app.Span().Text("head " + itoa(h))
	}
	return app.Div().ID("attention").Body(
		title,
		app.Div().Class("att-frame").Body(
			app.Div().Class("att-heads").Body(headLabels...),
			app.Div().Class("att-map").Body(
				app.Canvas().ID("canvas-attention").Class("heat attention").Width(n).Height(len(heads)).
					Attr("aria-label", "attention weights, a row per head, a column per position").
					OnMouseMove(c.onAttentionHover(l), app.EventScope(l)).OnMouseLeave(c.leave),
				c.positionAxis(n),
			),
		),
		app.P().Class("hint").Text(itoa(len(heads))+" heads (rows) × "+itoa(n)+" positions (columns); darker is more attention."),
		app.Ul().Class("attended").Body(tops...),
	)
}

// axisLabels is about how many token labels the attention map's axis
// holds: more would overlap.
const axisLabels = 24

// positionAxis labels the attention map's columns with the context's
// tokens: every few positions, so that the labels do not overlap, and the
// query's own, the last.
func (c *KVCard) positionAxis(n int) app.UI {
	stride := (n + axisLabels - 1) / axisLabels
	var labels []app.UI
	for pos := 0; pos < n; pos += stride {
		if n-1-pos < stride/2 && pos != n-1 {
			continue // too close to the last one, which is always labelled
		}
		labels = append(labels, c.axisLabel(pos, n))
	}
	if (n-1)%stride != 0 {
		labels = append(labels, c.axisLabel(n-1, n))
	}
	return app.Div().Class("att-axis").Attr("aria-hidden", "true").Body(labels...)
}

func (c *KVCard) axisLabel(pos, n int) app.UI {
	return app.Span().Style("left", pct((float64(pos)+0.5)/float64(n))).Title("position " + itoa(pos)).Text(c.Tokens[pos])
}

func (c *KVCard) onAttentionHover(l int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		heads := c.D.Attention[l]
		x, y, ok := pointerCell(e, c.D.KV.Len(), len(heads))
		if !ok {
			c.hover = ""
			return
		}
		c.hover = "head " + itoa(y) + " → position " + itoa(x) + " (" + c.Tokens[x] + "): " + fixed(float64(heads[y][x]), 4)
	}
}

// topAttended names the k positions a head attended to most.
func topAttended(weights []float32, tokens []string, k int) string {
	w := make([]float64, len(weights))
	for i, v := range weights {
		w[i] = float64(v)
	}
	best := sampler.Top(w, k, nil)
	parts := make([]string, len(best))
	for i, pos := range best {
		parts[i] = tokens[pos] + " (" + itoa(pos) + ") " + fixed(float64(weights[pos]), 2)
	}
	return strings.Join(parts, ", ")
}

// growth plots the cache's size after prefill and after every step, up to
// the context's capacity, with the step on display marked.
func (c *KVCard) growth() app.UI {
	const w, h = 480.0, 96.0
	capacity := float64(c.D.KV.Capacity())
	last := len(c.Growth) - 1
	x := func(i int) float64 { return w * float64(i) / float64(max(last, 1)) }
	y := func(n int) float64 { return h - h*float64(n)/capacity }
	var pts strings.Builder
	for i, n := range c.Growth {
		pts.WriteString(num1(x(i)) + "," + num1(y(n)) + " ")
	}
	shown := min(c.D.Index, last)
	svg := `<svg class="growth" viewBox="-36 -8 532 124" role="img" aria-label="cache size after prefill and after each step">` +
		`<rect x="0" y="0" width="480" height="96" class="frame"/>` +
		`<text x="-4" y="4" class="axis" text-anchor="end">` + itoa(c.D.KV.Capacity()) + `</text>` +
		`<text x="-4" y="96" class="axis" text-anchor="end">0</text>` +
		`<text x="0" y="112" class="axis">prefill</text>` +
		`<text x="480" y="112" class="axis" text-anchor="end">step ` + itoa(last) + `</text>` +
		`<polyline points="` + pts.String() + `"/>` +
		`<circle cx="` + num1(x(shown)) + `" cy="` + num1(y(c.Growth[shown])) + `" r="4" class="shown"/></svg>`
	return app.Div().Class("growth-row").Body(
		app.Raw(svg),
		app.Span().Class("hint").Text("positions in the cache after prefill ("+itoa(c.Growth[0])+") and after each step: one more per step, up to the context of "+itoa(c.D.KV.Capacity())),
	)
}

func num1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
