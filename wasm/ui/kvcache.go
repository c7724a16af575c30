package ui

import (
	"math"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/softmax"
	"nexttoken/wasm/play"
)

// maxTableNumbers is the largest cache layer shown number by number (the
// toy model's, 8 numbers a position, up to 16 positions); larger ones are
// heat maps.
const maxTableNumbers = 16 * 8

// maxAttentionTable is the longest context whose attention is a table with
// a column per token; longer ones are a heat map.
const maxAttentionTable = 16

// kvCard is the KV cache card's input: its model's shape. The cache it
// shows — as the step on display read it, or the last step once the
// session has ended — comes from the board.
func kvCard(s play.Snapshot, b *board, do layerShower) app.UI {
	m := s.Model()
	if m.Typed {
		return card("kv", "KV cache", "A session of hand-typed logits has no model, so no cache. Pick a model to watch the cache grow.")
	}
	return &KVCard{Board: b, Layers: m.Layers, Heads: m.Heads, KVHeads: m.KVHeads, HeadSize: m.HeadSize, Extras: m.Extras, Windows: m.Windows, Theme: s.Page.Theme, Layer: s.Layer, Do: do}
}

// KVCard shows the KV cache as a step read it — every number for the toy
// model, heat maps for larger ones, drawn row by row as the cache grows —
// its size and growth, and how the step's query attended to each cached
// position in every head. A hot view: go-app draws its frame, the layer
// tabs and the canvases; the numbers are painted from the board.
type KVCard struct {
	app.Compo

	Board                            *board
	Layers, Heads, KVHeads, HeadSize int
	Extras                           []string // what the architecture adds (play.Model.Extras)
	Windows                          []int    // each layer's sliding window (play.Model.Windows)
	Theme                            string   // light, dark or auto
	Layer                            int      // the layer shown (play.Snapshot.Layer)
	Do                               layerShower

	hover  string     // the number under the pointer
	maps   [2]heatmap // keys and values, as drawn
	att    heatmap    // attention, as drawn
	peaks  kvPeaks    // the ends of the maps' colour scales
	growth linePath[int]
}

// layerShower is what the KV card asks of the controller.
type layerShower interface {
	ShowLayer(l int)
}

// kvPeakKey is what the colour scales are for: a history and a layer.
type kvPeakKey struct{ epoch, layer int }

// kvPeaks are the largest magnitudes among the keys and among the values
// of the positions seen: positions added raise them; positions taken back
// (Undo) leave them, so that the picture's colours stay and only its last
// rows go.
type kvPeaks struct {
	key  kvPeakKey
	seen int
	v    [2]float64
}

// update takes in positions up to n, at(pos) giving a position's largest
// key and value magnitudes, and returns the peaks.
func (p *kvPeaks) update(key kvPeakKey, n int, at func(pos int) (key, value float64)) [2]float64 {
	if key != p.key {
		*p = kvPeaks{key: key}
	}
	for ; p.seen < n; p.seen++ {
		k, v := at(p.seen)
		p.v = [2]float64{math.Max(p.v[0], k), math.Max(p.v[1], v)}
	}
	p.seen = n
	return p.v
}

func (c *KVCard) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *KVCard) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *KVCard) OnDismount()              { c.Board.remove(c) }

// tabular reports whether the cache of n positions is shown number by
// number rather than as heat maps.
// extrasText says what the model's architecture adds (play.Model.Extras),
// or nothing.
func extrasText(extras []string) string {
	if len(extras) == 0 {
		return ""
	}
	return "What this model's architecture does beyond llama2.c's: " + strings.Join(extras, "; ") + "."
}

func (c *KVCard) tabular(n int) bool { return c.KVHeads*c.HeadSize*n <= maxTableNumbers }

func (c *KVCard) Render() app.UI {
	tabs := make([]app.UI, c.Layers)
	for l := range tabs {
		tabs[l] = disabledIf(app.Button().Class("tab").DataSet("layer", l), l == c.Layer).Text("layer "+itoa(l)).
			Attr("role", "tab").OnClick(c.selectLayer(l), app.EventScope(l))
	}
	kvDim := c.KVHeads * c.HeadSize
	figure := func(i int, name string) app.UI {
		return app.Figure().ID("heat-"+name).Body(
			app.Div().Class("heat-frame").Body(
				app.Canvas().ID("canvas-"+name).Class("heat").
					OnMouseMove(c.onHover(i), app.EventScope(i)).OnMouseLeave(c.leave),
				app.Span().ID("newest-"+name).Class("newest-row"),
			),
			app.FigCaption().ID("caption-"+name),
		)
	}
	return card("kv", "KV cache",
		"Each position's key (K) and value (V), per layer, computed once and reused by every later step. "+
			"This is the cache as the step on display read it; the highlighted row is the token it read.",
		// Always there, so that go-app's diff never moves the painted
		// elements after it to other nodes.
		app.P().ID("kv-extras").Class("hint").Hidden(len(c.Extras) == 0).Text(extrasText(c.Extras)),
		app.P().ID("kv-summary").Class("kv-summary"),
		app.Div().ID("kv-growth").Class("growth-row").Body(
			app.Div().Class("growth-frame").Body(
				app.Raw(growthFrame(0)),
				app.Div().Class("growth-plot").Body(
					app.Raw(`<svg id="kv-growth-lines" class="growth-lines" viewBox="0 0 1 1" preserveAspectRatio="none" aria-hidden="true"><path id="kv-growth-path"/></svg>`),
					app.Span().ID("kv-growth-shown").Class("growth-shown"),
				),
			),
			app.Span().ID("kv-growth-hint").Class("hint"),
		),
		app.Div().Class("tabs").Attr("role", "tablist").Body(tabs...),
		// The table of every number, or the heat maps: the painter shows one.
		app.Div().ID("kv-table-box"),
		app.Div().ID("kv-maps").Body(
			app.Div().Class("heatmaps").Body(figure(0, "keys"), figure(1, "values")),
			app.Div().ID("kv-scales"),
			app.P().Class("hint").Text("Colour scales: blue negative, red positive, the card's background at 0. Hover to read a number; "+
				itoa(kvDim)+" numbers a position ("+itoa(c.KVHeads)+" heads of "+itoa(c.HeadSize)+")."),
			app.P().ID("kv-hover").Class("hint readout"),
		),
		app.Div().ID("attention").Body(
			app.H4().ID("attention-title"),
			app.Div().ID("attention-table"),
			app.Div().ID("attention-map").Class("att-frame").Body(
				app.Div().ID("attention-heads").Class("att-heads"),
				app.Div().Class("att-map").Body(
					app.Canvas().ID("canvas-attention").Class("heat attention").
						Attr("aria-label", "attention weights, a row per head, a column per position").
						OnMouseMove(c.onAttentionHover).OnMouseLeave(c.leave),
					app.Div().ID("attention-axis").Class("att-axis").Attr("aria-hidden", "true"),
				),
			),
			app.Div().ID("attention-tops"),
			c.lines(),
		),
	)
}

// lines is the card's attention lines, a hot view of their own.
func (c *KVCard) lines() *AttentionLines { return &AttentionLines{Board: c.Board, Heads: c.Heads} }

func (c *KVCard) selectLayer(l int) app.EventHandler {
	return func(ctx app.Context, e app.Event) { c.Do.ShowLayer(l) }
}

// kvShown is what the card draws: the detail it reads the cache from and
// the tokens of the cached positions.
type kvShown struct {
	d      *play.Detail
	tokens []string
	growth []int // positions after prefill and after each step
	epoch  int   // the session's: a rewritten past redraws every row
}

// cacheShown is the cache to draw in s, or ok false while there is none.
func cacheShown(s play.Snapshot) (k kvShown, ok bool) {
	d := s.Detail
	if d == nil || d.KV.Len == 0 {
		return k, false
	}
	t := s.Session.Trace
	k.d, k.epoch = d, s.Session.Epoch
	n := d.KV.Len
	k.tokens = make([]string, 0, n)
	for _, tok := range t.Prompt {
		k.tokens = append(k.tokens, s.Model().Label(tok.ID))
	}
	k.growth = make([]int, 0, len(t.Steps)+1)
	k.growth = append(k.growth, len(t.Prompt))
	for _, st := range t.Steps {
		if len(k.tokens) < n {
			k.tokens = append(k.tokens, s.Model().Label(st.Token))
		}
		k.growth = append(k.growth, st.KVLen)
	}
	k.tokens = k.tokens[:min(n, len(k.tokens))]
	return k, len(k.tokens) == n
}

func (c *KVCard) paint(s play.Snapshot) {
	k, ok := cacheShown(s)
	if !ok {
		return
	}
	kv, n := k.d.KV, k.d.KV.Len
	l := kv.Layer
	kvDim := c.KVHeads * c.HeadSize
	setHTML("kv-summary", `<strong id="kv-rows">`+itoa(n)+`</strong> positions of `+itoa(kv.Capacity)+` · <strong id="kv-bytes">`+
		byteSize(kv.Bytes)+`</strong> `+esc("("+itoa(kv.Layers)+" layers × 2 (K and V) × "+itoa(kvDim)+" numbers × 4 bytes = "+byteSize(kv.RowBytes)+" per position)"))
	c.paintGrowth(k.growth, kv.Capacity, min(k.d.Index, len(k.growth)-1), k.epoch)
	if c.tabular(n) {
		setHTML("kv-table-box", kvTableHTML(k, l, c.KVHeads))
		setVisible("kv-maps", false)
	} else {
		setHTML("kv-table-box", "")
		setVisible("kv-maps", true)
		c.paintMaps(k, l)
	}
	c.paintAttention(k, l)
}

// paintMaps draws layer l's keys and values as heat maps, with the newest
// row marked, and their scales.
func (c *KVCard) paintMaps(k kvShown, l int) {
	kv, n := k.d.KV, k.d.KV.Len
	kvDim := c.KVHeads * c.HeadSize
	rows := canvasRows(n)
	peaks := c.peaks.update(kvPeakKey{k.epoch, l}, n, func(pos int) (key, value float64) {
		for h := range c.KVHeads {
			key = math.Max(key, peakOf(kv.Key(pos, h)))
			value = math.Max(value, peakOf(kv.Value(pos, h)))
		}
		return key, value
	})
	var scales strings.Builder
	more := false // a heat map left rows for the next frame
	for i, name := range []string{"keys", "values"} {
		get := kv.Key
		if i == 1 {
			get = kv.Value
		}
		more = c.maps[i].update("canvas-"+name, drawState{epoch: k.epoch, layer: l, peak: peaks[i], width: kvDim}, n, kvDim, rows, c.dark(),
			func(pos int, row []float32) []float32 {
				for h := range c.KVHeads {
					row = append(row, get(pos, h)...)
				}
				return row
			}) || more
		setStyle("newest-"+name, "top:"+pct(float64(n-1)/float64(rows))+";height:"+pct(1/float64(rows)))
		kind := [2]string{"K", "V"}[i]
		setHTML("caption-"+name, esc(kind+": "+itoa(n)+" positions (rows) × "+itoa(kvDim)+" numbers"))
		scales.WriteString(`<div class="scale"><span class="name">` + kind + `</span><span>` + esc("−"+sig(peaks[i])) +
			`</span><span class="gradient"></span><span>` + esc("+"+sig(peaks[i])) + `</span></div>`)
	}
	setHTML("kv-scales", scales.String())
	setHTML("kv-hover", esc(c.hoverText()))
	if more {
		c.Board.again(c) // the rows past the heat maps' budget
	}
}

// paintAttention shows, for each head of layer l, how the step's query
// attended to the cached positions: a table with a column per token for a
// short context, else a heat map with the most attended tokens of each
// head.
func (c *KVCard) paintAttention(k kvShown, l int) {
	heads := k.d.Attention
	if len(heads) == 0 {
		return
	}
	n := k.d.KV.Len
	title := "Attention of the query of " + quote(k.tokens[n-1]) + " (position " + itoa(n-1) + "), layer " + itoa(l) + ", per head"
	if l < len(c.Windows) && c.Windows[l] > 0 && n > c.Windows[l] {
		title += "; a sliding window of " + itoa(c.Windows[l]) + " positions: those before " + itoa(n-c.Windows[l]) + " get no weight"
	}
	setHTML("attention-title", esc(title))
	if n <= maxAttentionTable {
		setHTML("attention-table", attentionTableHTML(heads, k.tokens))
		setVisible("attention-map", false)
		setHTML("attention-tops", "")
		return
	}
	setHTML("attention-table", "")
	setVisible("attention-map", true)
	var peak float64
	for _, w := range heads {
		peak = math.Max(peak, peakOf(w))
	}
	// Every step has attention of its own: a new step redraws it all.
	state := drawState{epoch: k.epoch, layer: l, peak: peak, width: n, version: k.d.Index}
	if c.att.update("canvas-attention", state, len(heads), n, len(heads), c.dark(), func(h int, row []float32) []float32 {
		return append(row, heads[h]...)
	}) {
		c.Board.again(c)
	}
	var labels, tops strings.Builder
	for h := range heads {
		labels.WriteString("<span>head " + itoa(h) + "</span>")
	}
	setHTML("attention-heads", labels.String())
	setHTML("attention-axis", positionAxis(k.tokens))
	tops.WriteString(`<p class="hint">` + itoa(len(heads)) + " heads (rows) × " + itoa(n) + ` positions (columns); darker is more attention.</p><ul class="attended">`)
	for h, weights := range heads {
		tag(&tops, "li", "", "head "+itoa(h)+": "+topAttended(weights, k.tokens, 3))
	}
	tops.WriteString("</ul>")
	setHTML("attention-tops", tops.String())
}

// kvTableHTML lists every key and value number of layer l.
func kvTableHTML(k kvShown, l, kvHeads int) string {
	kv := k.d.KV
	headSize := len(kv.Key(0, 0))
	var b strings.Builder
	b.WriteString(`<div class="scroll"><table id="kv-table" class="num kv"><tr><th>pos</th><th>token</th>`)
	for h := range kvHeads {
		b.WriteString(`<th colspan="` + itoa(headSize) + `">K head ` + itoa(h) + `</th>`)
	}
	for h := range kvHeads {
		b.WriteString(`<th colspan="` + itoa(headSize) + `">V head ` + itoa(h) + `</th>`)
	}
	b.WriteString("</tr>")
	for pos := range kv.Len {
		class := "kv-row"
		if pos == kv.Len-1 {
			class += " newest"
		}
		b.WriteString(`<tr class="` + class + `"><td>` + itoa(pos) + `</td>`)
		tag(&b, "th", "", k.tokens[pos])
		for h := range kvHeads {
			for _, v := range kv.Key(pos, h) {
				tag(&b, "td", "", fixed(float64(v), 3))
			}
		}
		for h := range kvHeads {
			for _, v := range kv.Value(pos, h) {
				tag(&b, "td", `class="v"`, fixed(float64(v), 3))
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table></div>")
	return b.String()
}

// attentionTableHTML is a layer's attention over a short context: a row
// per head, a column per token.
func attentionTableHTML(heads [][]float32, tokens []string) string {
	var b strings.Builder
	b.WriteString(`<div class="scroll"><table class="num attention"><tr><th>head</th>`)
	for pos := range len(heads[0]) {
		tag(&b, "th", `title="position `+itoa(pos)+`"`, tokens[pos])
	}
	b.WriteString("</tr>")
	for h, weights := range heads {
		b.WriteString("<tr><th>" + itoa(h) + "</th>")
		for _, a := range weights {
			tag(&b, "td", `class="att" style="--a:`+strconv.FormatFloat(float64(a), 'f', 3, 64)+`"`, fixed(float64(a), 3))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table></div>")
	return b.String()
}

func (c *KVCard) hoverText() string {
	if c.hover == "" {
		return "Point at a heat map to read a number."
	}
	return c.hover
}

// onHover reads the number under the pointer on map i (0 keys, 1 values).
func (c *KVCard) onHover(i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		ctx.PreventUpdate()
		k, ok := cacheShown(c.Board.s)
		if !ok {
			return
		}
		kv, n := k.d.KV, k.d.KV.Len
		l := kv.Layer
		c.hover = ""
		if x, y, ok := pointerCell(e, c.HeadSize*c.KVHeads, canvasRows(n)); ok && y < n {
			h, j := x/c.HeadSize, x%c.HeadSize
			v, name := kv.Key(y, h)[j], "K"
			if i == 1 {
				v, name = kv.Value(y, h)[j], "V"
			}
			c.hover = "position " + itoa(y) + " (" + k.tokens[y] + "), layer " + itoa(l) + ", " + name +
				" head " + itoa(h) + " [" + itoa(j) + "] = " + fixed(float64(v), 4)
		}
		setHTML("kv-hover", esc(c.hoverText()))
		flushPaint()
	}
}

func (c *KVCard) onAttentionHover(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	k, ok := cacheShown(c.Board.s)
	if !ok {
		return
	}
	heads := k.d.Attention
	c.hover = ""
	if x, y, ok := pointerCell(e, k.d.KV.Len, len(heads)); ok {
		c.hover = "head " + itoa(y) + " → position " + itoa(x) + " (" + k.tokens[x] + "): " + fixed(float64(heads[y][x]), 4)
	}
	setHTML("kv-hover", esc(c.hoverText()))
	flushPaint()
}

func (c *KVCard) leave(ctx app.Context, e app.Event) {
	ctx.PreventUpdate()
	c.hover = ""
	setHTML("kv-hover", esc(c.hoverText()))
	flushPaint()
}

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

func peakOf(x []float32) float64 {
	var peak float64
	for _, v := range x {
		peak = math.Max(peak, math.Abs(float64(v)))
	}
	return peak
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

// axisLabels is about how many token labels the attention map's axis
// holds: more would overlap.
const axisLabels = 24

// positionAxis labels the attention map's columns with the context's
// tokens: every few positions, so that the labels do not overlap, and the
// query's own, the last.
func positionAxis(tokens []string) string {
	n := len(tokens)
	stride := (n + axisLabels - 1) / axisLabels
	var b strings.Builder
	label := func(pos int) {
		tag(&b, "span", `style="left:`+pct((float64(pos)+0.5)/float64(n))+`" title="position `+itoa(pos)+`"`, tokens[pos])
	}
	for pos := 0; pos < n; pos += stride {
		if n-1-pos < stride/2 && pos != n-1 {
			continue // too close to the last one, which is always labelled
		}
		label(pos)
	}
	if (n-1)%stride != 0 {
		label(n - 1)
	}
	return b.String()
}

// topAttended names the k positions a head attended to most.
func topAttended(weights []float32, tokens []string, k int) string {
	w := softmax.Widen(nil, weights)
	best := softmax.Top(w, k, nil)
	parts := make([]string, len(best))
	for i, pos := range best {
		parts[i] = tokens[pos] + " (" + itoa(pos) + ") " + fixed(float64(weights[pos]), 2)
	}
	return strings.Join(parts, ", ")
}

// growthFrame is the growth chart's axes, which do not stretch with the
// steps: the frame, 0 and the context's capacity, prefill.
func growthFrame(capacity int) string {
	return `<svg class="growth" viewBox="-36 -8 532 124" role="img" aria-label="cache size after prefill and after each step">` +
		`<rect x="0" y="0" width="480" height="96" class="frame"/>` +
		`<text x="-4" y="4" class="axis" text-anchor="end" id="kv-growth-capacity">` + itoa(capacity) + `</text>` +
		`<text x="-4" y="96" class="axis" text-anchor="end">0</text>` +
		`<text x="0" y="112" class="axis">prefill</text>` +
		`<text x="480" y="112" class="axis" text-anchor="end" id="kv-growth-last"></text></svg>`
}

// paintGrowth plots the cache's size after prefill and after every step
// (growth), up to the context's capacity, with step shown marked: a line
// through a point per step, in a drawing a step wide per step stretched
// over the frame, which a step adds a point to.
func (c *KVCard) paintGrowth(growth []int, capacity, shown, epoch int) {
	last := len(growth) - 1
	d := c.growth.update(epoch, len(growth), func(i int) (float64, float64) {
		return float64(i), float64(capacity - growth[i])
	})
	setAttr("kv-growth-path", "d", d)
	setAttr("kv-growth-lines", "viewBox", "0 0 "+itoa(max(last, 1))+" "+itoa(capacity))
	setHTML("kv-growth-capacity", itoa(capacity))
	setHTML("kv-growth-last", "step "+itoa(last))
	setStyle("kv-growth-shown", "left:"+pct(float64(shown)/float64(max(last, 1)))+";top:"+pct(1-float64(growth[shown])/float64(capacity)))
	setHTML("kv-growth-hint", esc("positions in the cache after prefill ("+itoa(growth[0])+") and after each step: one more per step, up to the context of "+itoa(capacity)))
}

func num1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
