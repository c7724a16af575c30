package ui

import (
	"fmt"
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

// maxPictureRows is the largest vocabulary whose every token the picture
// lists on the logits and the softmax, with every number of h (the toy
// model's six tokens, d = 4); of a larger one it lists the maxPictureTop
// most probable tokens.
const (
	maxPictureRows = 6
	maxPictureTop  = 3
)

// Picture is the decoding step drawn as one SVG: the input token through
// the embedding, the layers (attention reading the KV cache, MLP), the
// final norm and the LM head to the logits, the softmax, the sampler's
// stages and the chosen token, which is appended and read next, its K and
// V written to the cache. go-app draws the parts from the model's shape;
// the step's values are painted from the board (paint), as the cards'
// are, in the same batch. Each part is a button that brings its card into
// view.
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
	var b strings.Builder
	picAt(&b, "pic-input", 16, 52, quote(m.Label(d.Step.Input)))
	picAt(&b, "pic-pos", 16, 70, "position "+itoa(d.Step.Pos))
	picAt(&b, "pic-kv-rows", 270, 88, itoa(d.KV.Len)+" rows")
	picAt(&b, "pic-kv-bytes", 270, 106, byteSize(d.KV.Bytes))
	if len(m.Names) <= maxPictureRows {
		for i, v := range d.Hidden {
			picAt(&b, "pic-hidden", 16, 200+picLine*i, "h["+itoa(i)+"] "+fixed(float64(v), 3))
		}
	}
	if ch := d.Choice; ch == nil {
		picAt(&b, "pic-stages", 524, 200, "nothing to sample")
	} else {
		ids := c.Board.rows(d)
		if len(m.Names) > maxPictureRows {
			ids = ids[:min(len(ids), maxPictureTop)]
		}
		for i, id := range ids {
			r, _ := d.Row(id)
			picAt(&b, "pic-logits", 256, 200+picLine*i, m.Label(id)+" "+fixed(r.Logit, 4))
			picAt(&b, "pic-probs", 394, 200+picLine*i, m.Label(id)+" "+sig(r.P))
		}
		// The sampler's stages that removed tokens, with the tokens each
		// left, and how it chose.
		y := 200
		for _, st := range ch.Stages {
			if st.Affected > 0 && st.Survivors > 0 {
				picAt(&b, "pic-stages", 524, y, stageLabel(st.Name)+" → "+itoa(st.Survivors))
				y += picLine
			}
		}
		how := ""
		switch {
		case d.Step.Forced:
			how = "forced by you"
		case ch.Greedy:
			how = "greedy: argmax"
		case ch.Draw != nil:
			how = "draw u = " + sig(ch.Draw.U)
		}
		picAt(&b, "pic-stages", 524, y, how)
		picAt(&b, "pic-token", 666, 210, quote(m.Label(d.Step.Token)))
		picAt(&b, "pic-p", 666, 228, "p = "+sig(d.Step.Prob))
	}
	setHTML("pic-values", b.String())
}

// picLine is the height of a line of the picture's values.
const picLine = 14

// picAt writes a value of the picture: a line of text of class field
// (which says what it is) at x, y.
func picAt(b *strings.Builder, field string, x, y int, s string) {
	tag(b, "text", `class="pic-value `+field+`" x="`+itoa(x)+`" y="`+itoa(y)+`"`, s)
}

// onPart brings the card of the part clicked, or of the part that has
// the keyboard on Enter or the space bar, to the top of the window, open
// if it folds (a details element).
func (c *Picture) onPart(ctx app.Context, e app.Event) {
	if k := e.Get("key"); k.Truthy() && k.String() != "Enter" && k.String() != " " {
		return
	}
	part := e.Get("target").Call("closest", "[data-card]")
	if !part.Truthy() {
		return
	}
	e.PreventDefault()
	card := app.Window().GetElementByID(part.Call("getAttribute", "data-card").String())
	if card.Get("tagName").String() == "DETAILS" {
		card.Set("open", true)
	}
	card.Call("scrollIntoView")
}

// pictureSVG draws the parts for model m's shape, those in highlight
// marked; the step's values are left for paint.
func pictureSVG(m *play.Model, highlight []string) string {
	stack := ""
	if m.Layers > 1 {
		stack = pictureStack
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
	svg := fmt.Sprintf(pictureTemplate, len(m.Names), m.Dim, m.Layers, m.Layers-1, m.Heads, m.KVHeads, m.HeadSize, grouped, tied, h, top, stack)
	for _, part := range highlight {
		svg = strings.Replace(svg, `class="pic-part" data-part="`+part+`"`, `class="pic-part highlight" data-part="`+part+`"`, 1)
	}
	return svg
}

// pictureStack are the layers drawn behind the first: × N.
const pictureStack = `<rect class="pic-box pic-stack" x="256" y="2" width="504" height="132" rx="6"/>` +
	`<rect class="pic-box pic-stack" x="252" y="5" width="504" height="132" rx="6"/>`

// pictureTemplate is the picture, in two rows of boxes: the network
// above (the KV cache inside the layers: each layer has its own) and the
// readout below, and the path back to the input. Each part is a button
// naming its card (data-card), and the template's verbs are the model's
// shape (pictureSVG); the step's values are painted into pic-values.
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
<g class="pic-part" data-part="embedding" data-card="lens" style="--i:1" role="button" tabindex="0" aria-label="embedding: show its card"><rect class="pic-box" x="132" y="8" width="100" height="132" rx="6"/><text class="pic-title" x="140" y="26">embedding</text><text class="pic-note" x="140" y="52">a row of E</text><text class="pic-note" x="140" y="70">%[1]d × %[2]d</text><text class="pic-note" x="140" y="88">x: d = %[2]d</text></g>
<g class="pic-part" data-part="layers" data-card="lens" style="--i:2" role="button" tabindex="0" aria-label="layers: show its card">%[12]s<rect class="pic-box" x="248" y="8" width="504" height="132" rx="6"/><text class="pic-title" x="256" y="26">layers 0 … %[4]d (× %[3]d)</text><text class="pic-note" x="256" y="42">each: RMSNorm, attention, RMSNorm, MLP</text></g>
<g class="pic-part" data-part="attention" data-card="attention" style="--i:3" role="button" tabindex="0" aria-label="attention: show its card"><rect class="pic-box" x="426" y="48" width="150" height="88" rx="6"/><text class="pic-title" x="434" y="66">attention</text><text class="pic-note" x="434" y="84">%[5]d heads · %[6]d KV heads</text><text class="pic-note" x="434" y="100">%[8]s</text><text class="pic-note" x="434" y="116">head size %[7]d</text></g>
<g class="pic-part" data-part="kv" data-card="kv" style="--i:4" role="button" tabindex="0" aria-label="KV cache: show its card"><rect class="pic-box" x="262" y="48" width="150" height="88" rx="6"/><text class="pic-title" x="270" y="66">KV cache</text><text class="pic-note" x="270" y="124">+1 row: this K, V</text></g>
<g class="pic-part" data-part="mlp" data-card="lens" style="--i:5" role="button" tabindex="0" aria-label="MLP: show its card"><rect class="pic-box" x="590" y="48" width="148" height="88" rx="6"/><text class="pic-title" x="598" y="66">MLP</text><text class="pic-note" x="598" y="84">feed-forward</text><text class="pic-note" x="598" y="100">d = %[2]d in and out</text></g>
<g class="pic-part" data-part="norm" data-card="hidden" style="--i:6" role="button" tabindex="0" aria-label="final norm: show its card"><rect class="pic-box" x="8" y="166" width="112" height="116" rx="6"/><text class="pic-title" x="16" y="184">final norm</text><text class="pic-note" x="16" y="200">%[10]s</text></g>
<g class="pic-part" data-part="head" data-card="hidden" style="--i:7" role="button" tabindex="0" aria-label="LM head: show its card"><rect class="pic-box" x="134" y="166" width="100" height="116" rx="6"/><text class="pic-title" x="142" y="184">LM head</text><text class="pic-note" x="142" y="200">W: %[1]d × %[2]d</text><text class="pic-note" x="142" y="218">ℓ = W·h</text><text class="pic-note" x="142" y="236">%[9]s</text></g>
<g class="pic-part" data-part="logits" data-card="logits" style="--i:8" role="button" tabindex="0" aria-label="logits: show its card"><rect class="pic-box" x="248" y="166" width="124" height="116" rx="6"/><text class="pic-title" x="256" y="184">logits ℓ</text><text class="pic-note" x="256" y="274">%[11]s</text></g>
<g class="pic-part" data-part="softmax" data-card="softmax" style="--i:9" role="button" tabindex="0" aria-label="softmax: show its card"><rect class="pic-box" x="386" y="166" width="116" height="116" rx="6"/><text class="pic-title" x="394" y="184">softmax p</text><text class="pic-note" x="394" y="274">%[11]s</text></g>
<g class="pic-part" data-part="sampler" data-card="sampler" style="--i:10" role="button" tabindex="0" aria-label="sampler: show its card"><rect class="pic-box" x="516" y="166" width="128" height="116" rx="6"/><text class="pic-title" x="524" y="184">sampler</text></g>
<g class="pic-part" data-part="token" data-card="bars" style="--i:11" role="button" tabindex="0" aria-label="chosen token: show its card"><rect class="pic-box" x="658" y="166" width="94" height="116" rx="6"/><text class="pic-title" x="666" y="184">chosen</text></g>
<g id="pic-values"></g>
</svg>`
