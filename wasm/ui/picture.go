package ui

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/play"
)

// PictureParts name the picture's parts, in the order a step goes through
// them: the input token, its embedding, the layers with their attention
// (which reads the KV cache and writes the token's K and V to it) and MLP,
// the final norm, the LM head, the logits, the softmax, the sampler and
// the chosen token, which the next step reads. A guided tour highlights
// parts by these names (Picture.Highlight).
var PictureParts = []string{"tokens", "embedding", "layers", "attention", "kv", "mlp", "norm", "head", "logits", "softmax", "sampler", "token"}

// maxPictureRows is how many tokens the picture lists on the logits and
// the softmax: all of a vocabulary this small (the toy model's), else the
// most probable this many.
const maxPictureRows = 6

// maxPictureTop is how many tokens of a larger vocabulary the picture
// lists.
const maxPictureTop = 3

// Picture is the decoding step drawn as one SVG: the input token through
// the embedding, the layers (attention reading the KV cache, MLP), the
// final norm and the LM head to the logits, the softmax, the sampler's
// stages and the chosen token, which is appended and read next, its K and
// V written to the cache. go-app draws the parts from the model's shape;
// the step's values are painted from the board (paint), as the
// cards' are, in the same frame. Each part is a button that brings its
// card into view.
type Picture struct {
	app.Compo

	Board     *board
	Model     *play.Model
	Highlight []string // parts marked for the reader (PictureParts)
}

// picture is the picture's input: the model's shape. A session of
// hand-typed logits has no network to draw.
func picture(s play.Snapshot, b *board) app.UI {
	if s.Model().Typed {
		return app.Text("")
	}
	return &Picture{Board: b, Model: s.Model()}
}

func (c *Picture) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *Picture) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *Picture) OnDismount()              { c.Board.remove(c) }

func (c *Picture) Render() app.UI {
	return card("picture", "One step, part by part", "The step on display; choose a part to see its card.",
		app.Div().OnClick(c.onPart).OnKeyDown(c.onPart).Body(app.Raw(pictureSVG(c.Model, c.Highlight))))
}

// paint writes the step on display's values, formatted as its cards
// format them (the hidden state as the hidden card, the logits as the
// logits card, p as the softmax and the sampler cards, the cache as the
// KV card); nothing while there is no step to show.
func (c *Picture) paint(s play.Snapshot) {
	d := shownDetail(s)
	if d == nil {
		return
	}
	m := s.Model()
	// The two names alternate from step to step, so that the pulse along
	// the path starts again at each (app.css).
	setAttr("picture-svg", "class", "picture-svg pulse-"+itoa(d.Index%2))
	setHTML("pic-input", esc(quote(m.Label(d.Step.Input))))
	setHTML("pic-pos", "position "+itoa(d.Step.Pos))
	setHTML("pic-kv-rows", itoa(d.KV.Len())+" rows")
	setHTML("pic-kv-bytes", esc(byteSize(d.KV.Bytes())))
	var b strings.Builder
	if len(m.Names) <= maxPictureRows {
		for i, v := range d.Hidden {
			picLine(&b, "h["+itoa(i)+"] "+fixed(float64(v), 3))
		}
		setHTML("pic-hidden", b.String())
	}
	ch := d.Choice
	if ch == nil {
		b.Reset()
		picLine(&b, "nothing to sample")
		setHTML("pic-stages", b.String())
		for _, id := range []string{"pic-logits", "pic-probs", "pic-token", "pic-p"} {
			setHTML(id, "")
		}
		return
	}
	ids := c.Board.rows(d)
	if len(m.Names) > maxPictureRows {
		ids = ids[:min(len(ids), maxPictureTop)]
	}
	var probs strings.Builder
	b.Reset()
	for _, id := range ids {
		picLine(&b, m.Label(id)+" "+fixed(d.Logits[id], 4))
		picLine(&probs, m.Label(id)+" "+sig(ch.Softmax.Probs[id]))
	}
	setHTML("pic-logits", b.String())
	setHTML("pic-probs", probs.String())
	// The sampler's stages that removed tokens, with the tokens each
	// left, and how it chose.
	b.Reset()
	for _, st := range ch.Stages {
		if st.Affected > 0 && st.Survivors > 0 {
			picLine(&b, stageLabel(st.Name)+" → "+itoa(st.Survivors))
		}
	}
	switch {
	case d.Step.Forced:
		picLine(&b, "forced by you")
	case ch.Greedy:
		picLine(&b, "greedy: argmax")
	case ch.Draw != nil:
		picLine(&b, "draw u = "+sig(ch.Draw.U))
	}
	setHTML("pic-stages", b.String())
	setHTML("pic-token", esc(quote(m.Label(d.Step.Token))))
	setHTML("pic-p", "p = "+sig(d.Step.Prob))
}

// picLine writes a line of a painted text, a tspan.
func picLine(b *strings.Builder, s string) { tag(b, "tspan", `x="0" dy="14"`, s) }

// onPart brings the card of the part clicked, or of the part that has
// the keyboard on Enter or the space bar, to the top of the window, open
// if it folds (a details element), with the focus, so that Tab goes on
// from it; the page's shortcuts do not see the key.
func (c *Picture) onPart(ctx app.Context, e app.Event) {
	if k := e.Get("key"); k.Truthy() && k.String() != "Enter" && k.String() != " " {
		return
	}
	g := e.Get("target").Call("closest", "[data-card]")
	if !g.Truthy() {
		return
	}
	e.PreventDefault()
	e.Call("stopPropagation")
	card := app.Window().GetElementByID(g.Call("getAttribute", "data-card").String())
	if !card.Truthy() {
		return
	}
	if card.Get("tagName").String() == "DETAILS" {
		card.Set("open", true)
	}
	card.Call("setAttribute", "tabindex", "-1")
	card.Call("scrollIntoView", true)
	card.Call("focus")
}

// pictureSVG draws the parts for model m's shape, those in highlight
// marked; the step's values are left for paint.
func pictureSVG(m *play.Model, highlight []string) string {
	layers, stack := "layer 0", ""
	switch {
	case m.Layers == 2:
		layers, stack = "layers 0, 1", pictureStack[1]
	case m.Layers > 2:
		layers, stack = "layer 0 … layer "+itoa(m.Layers-1), pictureStack[0]+pictureStack[1]
	}
	grouped := "each head its own K, V"
	if m.KVHeads < m.Heads {
		grouped = "GQA: " + itoa(m.Heads/max(m.KVHeads, 1)) + " heads share one"
	}
	tied, h := "", ""
	if m.SharedHead {
		tied = "W is E (tied)"
	}
	top := ""
	if len(m.Names) > maxPictureRows {
		h, top = "RMSNorm, d = "+itoa(m.Dim), "top "+itoa(maxPictureTop)+" of "+itoa(len(m.Names))
	}
	svg := pictureTemplate
	for _, r := range [...][2]string{{"{vocab}", itoa(len(m.Names))}, {"{dim}", itoa(m.Dim)}, {"{n}", itoa(m.Layers)}, {"{layers}", layers},
		{"{heads}", itoa(m.Heads)}, {"{kvheads}", itoa(m.KVHeads)}, {"{headsize}", itoa(m.HeadSize)}, {"{grouped}", grouped},
		{"{tied}", tied}, {"{h}", h}, {"{top}", top}, {"{stack}", stack}} {
		svg = strings.ReplaceAll(svg, r[0], r[1])
	}
	for _, part := range highlight {
		svg = strings.Replace(svg, `class="pic-part" data-part="`+part+`"`, `class="pic-part highlight" data-part="`+part+`"`, 1)
	}
	return svg
}

// pictureStack are the layers drawn behind the first: × N.
var pictureStack = [2]string{
	`<rect class="pic-box pic-stack" x="256" y="2" width="504" height="132" rx="6"/>`,
	`<rect class="pic-box pic-stack" x="252" y="5" width="504" height="132" rx="6"/>`,
}

// pictureTemplate is the picture, in two rows of boxes: the network
// above (the KV cache inside the layers: each layer has its own) and the
// readout below, and the path back to the input. Each part is a button
// naming its card (data-card); the texts with an id are the step's,
// painted a line a tspan.
const pictureTemplate = `<svg id="picture-svg" class="picture-svg" viewBox="0 0 760 312" role="group" aria-label="the decoding step, part by part">
<defs><marker id="pic-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" class="pic-head"/></marker></defs>
<path class="pic-flow" d="M116,74 H132" marker-end="url(#pic-arrow)"/>
<path class="pic-flow" d="M232,74 H248" marker-end="url(#pic-arrow)"/>
<path class="pic-flow" d="M576,92 H590" marker-end="url(#pic-arrow)"/>
<path class="pic-flow" d="M500,140 V152 H64 V166" marker-end="url(#pic-arrow)"/>
<path class="pic-flow" d="M120,224 H134" marker-end="url(#pic-arrow)"/>
<path class="pic-flow" d="M234,224 H248" marker-end="url(#pic-arrow)"/>
<path class="pic-flow" d="M372,224 H386" marker-end="url(#pic-arrow)"/>
<path class="pic-flow" d="M502,224 H516" marker-end="url(#pic-arrow)"/>
<path class="pic-flow" d="M644,224 H658" marker-end="url(#pic-arrow)"/>
<path class="pic-flow" d="M705,282 V294 H4 V74 H8" marker-end="url(#pic-arrow)"/>
<path class="pic-flow pic-cache" d="M412,92 H426" marker-start="url(#pic-arrow)" marker-end="url(#pic-arrow)"/>
<text class="pic-note" x="12" y="308">appended to the context: the next step reads it</text>
<g class="pic-part" data-part="tokens" data-card="tokens" style="--i:0" role="button" tabindex="0" aria-label="input token: show its card"><rect class="pic-box" x="8" y="8" width="108" height="132" rx="6"/><text class="pic-title" x="16" y="26">input token</text></g>
<g class="pic-part" data-part="embedding" data-card="lens" style="--i:1" role="button" tabindex="0" aria-label="embedding: show its card"><rect class="pic-box" x="132" y="8" width="100" height="132" rx="6"/><text class="pic-title" x="140" y="26">embedding</text><text class="pic-note" x="140" y="52">a row of E</text><text class="pic-note" x="140" y="70">{vocab} × {dim}</text><text class="pic-note" x="140" y="88">x: d = {dim}</text></g>
<g class="pic-part" data-part="layers" data-card="lens" style="--i:2" role="button" tabindex="0" aria-label="layers: show its card">{stack}<rect class="pic-box" x="248" y="8" width="504" height="132" rx="6"/><text class="pic-title" x="256" y="26">{layers} (× {n})</text><text class="pic-note" x="256" y="42">each: RMSNorm, attention, RMSNorm, MLP</text></g>
<g class="pic-part" data-part="attention" data-card="attention" style="--i:3" role="button" tabindex="0" aria-label="attention: show its card"><rect class="pic-box" x="426" y="48" width="150" height="88" rx="6"/><text class="pic-title" x="434" y="66">attention</text><text class="pic-note" x="434" y="84">{heads} heads · {kvheads} KV heads</text><text class="pic-note" x="434" y="100">{grouped}</text><text class="pic-note" x="434" y="116">head size {headsize}</text></g>
<g class="pic-part" data-part="kv" data-card="kv" style="--i:4" role="button" tabindex="0" aria-label="KV cache: show its card"><rect class="pic-box" x="262" y="48" width="150" height="88" rx="6"/><text class="pic-title" x="270" y="66">KV cache</text><text class="pic-note" x="270" y="124">+1 row: this K, V</text></g>
<g class="pic-part" data-part="mlp" data-card="lens" style="--i:5" role="button" tabindex="0" aria-label="MLP: show its card"><rect class="pic-box" x="590" y="48" width="148" height="88" rx="6"/><text class="pic-title" x="598" y="66">MLP</text><text class="pic-note" x="598" y="84">feed-forward</text><text class="pic-note" x="598" y="100">d = {dim} in and out</text></g>
<g class="pic-part" data-part="norm" data-card="hidden" style="--i:6" role="button" tabindex="0" aria-label="final norm: show its card"><rect class="pic-box" x="8" y="166" width="112" height="116" rx="6"/><text class="pic-title" x="16" y="184">final norm</text><text class="pic-note" x="16" y="200">{h}</text></g>
<g class="pic-part" data-part="head" data-card="hidden" style="--i:7" role="button" tabindex="0" aria-label="LM head: show its card"><rect class="pic-box" x="134" y="166" width="100" height="116" rx="6"/><text class="pic-title" x="142" y="184">LM head</text><text class="pic-note" x="142" y="200">W: {vocab} × {dim}</text><text class="pic-note" x="142" y="218">ℓ = W·h</text><text class="pic-note" x="142" y="236">{tied}</text></g>
<g class="pic-part" data-part="logits" data-card="logits" style="--i:8" role="button" tabindex="0" aria-label="logits: show its card"><rect class="pic-box" x="248" y="166" width="124" height="116" rx="6"/><text class="pic-title" x="256" y="184">logits ℓ</text><text class="pic-note" x="256" y="274">{top}</text></g>
<g class="pic-part" data-part="softmax" data-card="softmax" style="--i:9" role="button" tabindex="0" aria-label="softmax: show its card"><rect class="pic-box" x="386" y="166" width="116" height="116" rx="6"/><text class="pic-title" x="394" y="184">softmax p</text><text class="pic-note" x="394" y="274">{top}</text></g>
<g class="pic-part" data-part="sampler" data-card="sampler" style="--i:10" role="button" tabindex="0" aria-label="sampler: show its card"><rect class="pic-box" x="516" y="166" width="128" height="116" rx="6"/><text class="pic-title" x="524" y="184">sampler</text></g>
<g class="pic-part" data-part="token" data-card="bars" style="--i:11" role="button" tabindex="0" aria-label="chosen token: show its card"><rect class="pic-box" x="658" y="166" width="94" height="116" rx="6"/><text class="pic-title" x="666" y="184">chosen</text></g>
<text id="pic-input" class="pic-value pic-big" transform="translate(16 52)"></text>
<text id="pic-pos" class="pic-value" transform="translate(16 70)"></text>
<text id="pic-kv-rows" class="pic-value pic-big" transform="translate(270 88)"></text>
<text id="pic-kv-bytes" class="pic-value" transform="translate(270 106)"></text>
<text id="pic-hidden" class="pic-value" transform="translate(16 186)"></text>
<text id="pic-logits" class="pic-value" transform="translate(256 186)"></text>
<text id="pic-probs" class="pic-value" transform="translate(394 186)"></text>
<text id="pic-stages" class="pic-value" transform="translate(524 186)"></text>
<text id="pic-token" class="pic-value pic-big" transform="translate(666 210)"></text>
<text id="pic-p" class="pic-value" transform="translate(666 228)"></text>
</svg>`
