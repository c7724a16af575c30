package ui

import (
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// renderKVCache shows the cache the next step will read: every number for
// the toy model, heat maps for larger ones; its size and growth; and how
// the newest query attended to each cached position.
func (p *Playground) renderKVCache() app.UI {
	tr := p.sess.Transformer()
	if tr == nil {
		return card("kv", "KV cache", "A session of hand-typed logits has no model, so no cache. Pick a model to watch the cache grow.")
	}
	c := tr.Config
	cache := &tr.Cache
	summary := app.P().ID("kv-summary").Class("kv-summary").Body(
		app.Strong().ID("kv-rows").Text(itoa(cache.Len)), app.Text(" positions of "+itoa(cache.Capacity())+" · "),
		app.Strong().ID("kv-bytes").Text(byteSize(cache.Bytes())),
		app.Text(" ("+itoa(c.Layers)+" layers × 2 (K and V) × "+itoa(c.KVDim())+" numbers × 4 bytes = "+byteSize(cache.RowBytes())+" per position)"),
	)
	layer := min(p.kvLayer, c.Layers-1)
	tabs := make([]app.UI, c.Layers)
	for l := range tabs {
		tabs[l] = app.Button().Class("tab").DataSet("layer", l).Text("layer "+itoa(l)).
			Disabled(l == layer).OnClick(func(ctx app.Context, e app.Event) { p.kvLayer = l }, app.EventScope(l))
	}
	body := []app.UI{summary, p.renderGrowth(), app.Div().Class("tabs").Body(tabs...)}
	if c.KVDim()*cache.Len <= 16*8 {
		body = append(body, p.kvTable(layer))
	} else {
		body = append(body, p.kvHeatmaps(layer))
	}
	body = append(body, p.attention(layer))
	return card("kv", "KV cache", "Each position's key and value, per layer, computed once and reused by every later step. The newest row is highlighted.", body...)
}

// kvTable lists every key and value number of a layer.
func (p *Playground) kvTable(l int) app.UI {
	tr := p.sess.Transformer()
	c := tr.Config
	head := []app.UI{app.Th().Text("pos"), app.Th().Text("token")}
	for h := range c.KVHeads {
		head = append(head, app.Th().ColSpan(c.HeadSize()).Text("K head "+itoa(h)))
	}
	for h := range c.KVHeads {
		head = append(head, app.Th().ColSpan(c.HeadSize()).Text("V head "+itoa(h)))
	}
	rows := []app.UI{app.Tr().Body(head...)}
	tokens := p.contextTokens()
	for pos := range tr.Cache.Len {
		cells := []app.UI{app.Td().Text(itoa(pos)), app.Th().Text(visible(tokens[pos]))}
		for h := range c.KVHeads {
			for _, v := range tr.Cache.Key(l, pos, h) {
				cells = append(cells, app.Td().Text(fixed(float64(v), 3)))
			}
		}
		for h := range c.KVHeads {
			for _, v := range tr.Cache.Value(l, pos, h) {
				cells = append(cells, app.Td().Class("v").Text(fixed(float64(v), 3)))
			}
		}
		row := app.Tr().Class("kv-row").Body(cells...)
		if pos == tr.Cache.Len-1 {
			row = row.Class("newest")
		}
		rows = append(rows, row)
	}
	return app.Table().ID("kv-table").Class("num kv").Body(rows...)
}

// kvHeatmaps draws a layer's keys and values as images: one row per
// position, one column per number, blue negative and red positive.
func (p *Playground) kvHeatmaps(l int) app.UI {
	tr := p.sess.Transformer()
	c := tr.Config
	n := tr.Cache.Len
	keys := make([][]float32, n)
	values := make([][]float32, n)
	for pos := range n {
		for h := range c.KVHeads {
			keys[pos] = append(keys[pos], tr.Cache.Key(l, pos, h)...)
			values[pos] = append(values[pos], tr.Cache.Value(l, pos, h)...)
		}
	}
	return app.Div().Class("heatmaps").Body(
		figure("keys", "K: "+itoa(n)+" positions × "+itoa(c.KVDim()), heatmap(keys)),
		figure("values", "V: "+itoa(n)+" positions × "+itoa(c.KVDim()), heatmap(values)),
	)
}

func figure(id, caption, src string) app.UI {
	return app.Figure().ID("heat-"+id).Body(
		app.Img().Class("heat").Src(src).Alt(caption),
		app.FigCaption().Text(caption),
	)
}

// attention shows, for each head of layer l, the weights with which the
// newest query attended to the cached positions.
func (p *Playground) attention(l int) app.UI {
	tr := p.sess.Transformer()
	c := tr.Config
	tokens := p.contextTokens()
	if tr.Cache.Len > 16 {
		rows := make([][]float32, c.Heads)
		for h := range rows {
			rows[h] = tr.Latest().Attention(l, h)
		}
		return app.Div().ID("attention").Body(
			app.H4().Text("Attention of the newest query ("+visible(tokens[tr.Cache.Len-1])+"), per head"),
			app.Img().Class("heat attention").Src(heatmap(rows)).Alt("attention weights, one row per head"),
			app.P().Class("hint").Text(itoa(c.Heads)+" heads (rows) × "+itoa(tr.Cache.Len)+" positions (columns); darker is more attention."),
		)
	}
	head := []app.UI{app.Th().Text("head")}
	for pos := range tr.Cache.Len {
		head = append(head, app.Th().Text(visible(tokens[pos])))
	}
	rows := []app.UI{app.Tr().Body(head...)}
	for h := range c.Heads {
		cells := []app.UI{app.Th().Text(itoa(h))}
		for _, a := range tr.Latest().Attention(l, h) {
			cells = append(cells, app.Td().Style("--a", strconv.FormatFloat(float64(a), 'f', 3, 64)).Class("att").Text(fixed(float64(a), 3)))
		}
		rows = append(rows, app.Tr().Body(cells...))
	}
	return app.Div().ID("attention").Body(
		app.H4().Text("Attention of the newest query ("+visible(tokens[tr.Cache.Len-1])+"), per head"),
		app.Table().Class("num attention").Body(rows...),
	)
}

// renderGrowth plots the cache size after prefill and after every step.
func (p *Playground) renderGrowth() app.UI {
	tr := p.sess.Transformer()
	steps := p.sess.Trace().Steps
	sizes := []int{len(p.sess.Trace().Prompt)}
	for _, st := range steps {
		sizes = append(sizes, st.KVLen)
	}
	const w, h = 240.0, 48.0
	capacity := float64(tr.Cache.Capacity())
	var pts strings.Builder
	for i, n := range sizes {
		x := w * float64(i) / float64(max(len(sizes)-1, 1))
		y := h - h*float64(n)/capacity
		pts.WriteString(strconv.FormatFloat(x, 'f', 1, 64) + "," + strconv.FormatFloat(y, 'f', 1, 64) + " ")
	}
	svg := `<svg class="growth" viewBox="-2 -2 244 52" role="img" aria-label="cache size per step"><rect x="0" y="0" width="240" height="48" class="frame"/><polyline points="` +
		pts.String() + `"/></svg>`
	return app.Div().Class("growth-row").Body(
		app.Raw(svg),
		app.Span().Class("hint").Text("cache size per step, up to the context of "+itoa(tr.Cache.Capacity())+" positions"),
	)
}

// contextTokens is the text of every token in the context, by position.
func (p *Playground) contextTokens() []string {
	t := p.sess.Trace()
	out := make([]string, 0, len(t.Prompt)+len(t.Steps))
	for _, tok := range t.Prompt {
		out = append(out, tok.Piece)
	}
	for _, st := range t.Steps {
		out = append(out, st.Piece)
	}
	return out
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return itoa(n) + " bytes"
}
