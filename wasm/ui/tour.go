package ui

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/softmax"
	"nexttoken/wasm/play"
)

// tourActions move through the guided tour.
type tourActions interface {
	StartTour()
	GoTour(k int)
	EndTour()
}

// TourCard is the guided tour at the top of the page: off the tour, a
// button that starts it; on it, the stop's title, its words about the step
// on display, and the way on. The stop's cards are lit by the page's root
// (data-tour-cards, app.css) and the first is brought into view when the
// stop changes.
type TourCard struct {
	app.Compo

	Stop  int    // the stop on display, from 1; 0 off the tour
	Words string // the stop's words, HTML
	Do    tourActions

	scrolled int // the stop last brought into view
}

func (c *TourCard) Render() app.UI {
	if c.Stop == 0 {
		return app.Div().ID("tour").Class("tour off").Body(
			app.Button().ID("tour-start").Text("Start here").OnClick(c.onStart),
			app.Span().Class("hint").Text(" a guided tour of one step, in "+itoa(len(play.Tour))+" stops"),
		)
	}
	stop := play.Tour[c.Stop-1]
	back := app.Button().ID("tour-back").Text("← Back").OnClick(c.onBack)
	if c.Stop == 1 {
		back = back.Disabled(true)
	}
	next := app.Button().ID("tour-next").Text("Next →").OnClick(c.onNext)
	if c.Stop == len(play.Tour) {
		next = app.Button().ID("tour-next").Text("Finish").OnClick(c.onEnd)
	}
	return app.Section().ID("tour").Class("tour card").Attr("aria-live", "polite").Body(
		app.P().Class("tour-where").Text("Tour · stop "+itoa(c.Stop)+" of "+itoa(len(play.Tour))),
		app.H2().ID("tour-title").Text(stop.Title),
		app.Raw(`<div id="tour-words" class="tour-words">`+c.Words+`</div>`),
		app.Div().Class("tour-nav").Body(back, next,
			app.Button().ID("tour-end").Class("link").Text("Leave the tour").OnClick(c.onEnd)),
	)
}

// OnUpdate brings the stop's first card into view when the stop changes.
func (c *TourCard) OnUpdate(ctx app.Context) {
	if c.Stop == 0 || c.Stop == c.scrolled {
		c.scrolled = c.Stop
		return
	}
	c.scrolled = c.Stop
	ctx.ScrollTo(play.Tour[c.Stop-1].Cards[0])
}

func (c *TourCard) onStart(ctx app.Context, e app.Event) { c.Do.StartTour() }
func (c *TourCard) onBack(ctx app.Context, e app.Event)  { c.Do.GoTour(c.Stop - 1) }
func (c *TourCard) onNext(ctx app.Context, e app.Event)  { c.Do.GoTour(c.Stop + 1) }
func (c *TourCard) onEnd(ctx app.Context, e app.Event)   { c.Do.EndTour() }

// tourCard is the tour's input: the stop on display and its words about
// the step on display.
func tourCard(s play.Snapshot, do tourActions) app.UI {
	k := s.Page.Tour
	if s.Page.TourStop() == nil {
		k = 0
	}
	return &TourCard{Stop: k, Words: tourWords(k, s), Do: do}
}

// tourCards are the ids of the cards the tour's stop is about, for the
// page's root (data-tour-cards): "" off the tour.
func tourCards(s play.Snapshot) string {
	if stop := s.Page.TourStop(); stop != nil {
		return strings.Join(stop.Cards, " ")
	}
	return ""
}

// tourWords are stop k's words about the step on display, HTML: every
// number in them is the step's own, as the engine computed it.
func tourWords(k int, s play.Snapshot) string {
	d := shownDetail(s)
	switch {
	case k < 1 || k > len(play.Tour):
		return ""
	case d == nil || d.Choice == nil:
		return para("This stop reads the step on display, which is not ready: step on, or go Back.")
	case s.Model().Typed && k != 2 && k != 3:
		return para("This session has hand-typed logits: no model, no layers and no cache. The tour's first stop opens the model it is about.")
	}
	w := &words{s: s, d: d, m: s.Model()}
	var b strings.Builder
	for _, p := range strings.Split(tourSays[k-1], "\n") {
		b.WriteString(para(w.fill(p)))
	}
	return b.String()
}

// tourSays are the stops' words, a stop each: paragraphs a line each,
// with the step's numbers as {names} that words.value gives.
var tourSays = [...]string{
	"The model has read the prompt {prompt} as {prompt tokens} tokens. For the last token it read, {input}, its layers leave one vector of {hidden size} numbers, the hidden state h{hidden}.\n" +
		"The LM head is a matrix W with one row of {dim} numbers per token of the vocabulary, {vocab} rows. W·h multiplies each row with h: one score per token, its logit ℓ. Here {logits}.\n" +
		"A higher logit means the model favours the token more. Logits are not probabilities yet: they can be negative, and they do not add up to 1.",
	"Softmax turns the logits into probabilities in four moves. It subtracts the largest logit, m = {max} ({top}), from every logit, so that the largest becomes 0 and no exponential can overflow. " +
		"It exponentiates: e^(ℓ − m) = {exps}. It adds them up: Σ = {sum}. And it divides each by Σ: p = {probs}.\n" +
		"Every p is between 0 and 1 and together they add up to 1. The Softmax card shows each move, token by token; a table worked by hand, rounding as it goes, differs from it in the third decimal.",
	"{choice}",
	"{input} joins the text. Feeding it through the model computes its key and value vectors in every layer — {layers} layers × {kv heads} key-value heads × {head size} numbers, for K and again for V — " +
		"and appends them to the KV cache: it grows from {rows before} rows to {rows} ({context}).\n" +
		"The rows before it, 0 to {last kept}, do not change: a token's key and value depend only on it and the tokens before it, so they are computed once and kept. The KV card shows them.",
	"The next step feeds only the newest token, {input} at position {pos} — not the whole text again. In every layer its query vector is compared with each key in the cache, {rows} rows ({context}): " +
		"that is attention, and its weights say how much of each row's value to mix in. So the cache stands in for the text before, and only attention's work grows with it.\n{choice}",
	"The same loop on a real, if tiny, model: {model}. Its vocabulary has {vocab} tokens and its hidden state {dim} numbers; it has {layers} layers of {heads} attention heads{grouped}. " +
		"The prompt {prompt} became {prompt tokens} tokens, and the text so far is {text}.\n" +
		"This step reads {input} at position {pos}. W·h gives {vocab} logits; softmax makes {top three}.\n{choice}",
	"{sampling}",
}

// fill writes the step's numbers into p's {names}.
func (w *words) fill(p string) string {
	var b strings.Builder
	for {
		before, rest, ok := strings.Cut(p, "{")
		b.WriteString(before)
		if !ok {
			return b.String()
		}
		name, after, _ := strings.Cut(rest, "}")
		b.WriteString(w.value(name))
		p = after
	}
}

// value is the step's number, or words, that {name} stands for.
func (w *words) value(name string) string {
	s, d, m := w.s, w.d, w.m
	sm := d.Softmax
	switch name {
	case "prompt":
		return w.quote(s.Session.Spec.Prompt)
	case "prompt tokens":
		return itoa(len(s.Session.Trace.Prompt))
	case "text":
		return w.quote(s.Session.Trace.Text)
	case "input":
		return w.tok(d.Step.Input)
	case "pos":
		return itoa(d.Step.Pos)
	case "hidden size":
		return itoa(len(d.Hidden))
	case "hidden":
		if len(d.Hidden) > tourList {
			return ""
		}
		h := make([]float64, len(d.Hidden))
		for i, x := range d.Hidden {
			h[i] = float64(x)
		}
		return " = [" + w.list(h, 4) + "]"
	case "model":
		return w.strong(m.Name)
	case "dim":
		return itoa(m.Dim)
	case "vocab":
		return itoa(len(m.Names))
	case "layers":
		return itoa(m.Layers)
	case "heads":
		return itoa(m.Heads)
	case "kv heads":
		return itoa(m.KVHeads)
	case "head size":
		return itoa(m.HeadSize)
	case "grouped":
		if m.KVHeads < m.Heads {
			return ", which share " + itoa(m.KVHeads) + " key-value heads (grouped-query attention: a smaller cache)"
		}
		return ""
	case "logits":
		return w.tokens(func(r play.Row) float64 { return r.Computed }, tourList, 4)
	case "max":
		return w.strong(fixed(sm.Max, 4))
	case "top":
		return w.tok(sm.Argmax)
	case "top three":
		return w.tokens(prob, 3, 7)
	case "exps":
		return w.tokens(func(r play.Row) float64 { return r.Exp }, 0, 7)
	case "sum":
		return w.strong(fixed(sm.Sum, 7))
	case "probs":
		return w.tokens(prob, 0, 7)
	case "rows":
		return w.strong(itoa(d.Step.Pos + 1))
	case "rows before":
		return w.strong(itoa(d.Step.Pos))
	case "last kept":
		return itoa(d.Step.Pos - 1)
	case "context":
		return w.context(s.Session.Trace, d.Index)
	case "choice":
		return w.choice()
	case "sampling":
		return w.sampling()
	}
	return "{" + name + "}"
}

// words writes a tour stop's words, HTML, with the step's numbers.
type words struct {
	s play.Snapshot
	d *play.Detail
	m *play.Model
}

// para is a paragraph of HTML.
func para(html string) string { return "<p>" + html + "</p>" }

func (w *words) strong(s string) string { return `<strong class="num">` + esc(s) + "</strong>" }

func (w *words) tok(id int) string {
	if id < 0 {
		return "(no token)"
	}
	return "<q>" + esc(w.m.Label(id)) + "</q>"
}

func (w *words) quote(s string) string { return "<q>" + esc(visible(s)) + "</q>" }

// tourList is the most values a stop lists in full.
const tourList = 8

// list is a vector's values to d decimals.
func (w *words) list(v []float64, d int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = w.strong(fixed(x, d))
	}
	return strings.Join(parts, ", ")
}

// tokens are a number of the step's rows to d decimals, token by token:
// every token's when there are few, else the n largest (none: how many
// there are).
func (w *words) tokens(v func(play.Row) float64, n, d int) string {
	var ids []int
	switch {
	case w.d.Vocab <= tourList:
		ids = w.d.Listed // all of them, in id order
	case n == 0:
		return itoa(w.d.Vocab) + " values (the Softmax card lists them)"
	default:
		ids = w.top(v, n)
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		r, _ := w.d.Row(id)
		parts[i] = w.tok(id) + " " + w.strong(fixed(v(r), d))
	}
	return strings.Join(parts, ", ")
}

// top are the n tokens of the step's rows whose v is largest, as
// softmax.Top ranks them: the rows hold every token's that can be.
func (w *words) top(v func(play.Row) float64, n int) []int {
	vals := make([]float64, len(w.d.Rows))
	for i, r := range w.d.Rows {
		vals[i] = v(r)
	}
	ids := softmax.Top(vals, n, nil)
	for i, at := range ids {
		ids[i] = w.d.Rows[at].Token
	}
	return ids
}

// prob is a row's probability.
func prob(r play.Row) float64 { return r.P }

// context names the tokens step i read, the prompt's and the steps'
// before it, or counts them when there are many.
func (w *words) context(t *session.Trace, i int) string {
	var ids []int
	for _, tok := range t.Prompt {
		ids = append(ids, tok.ID)
	}
	for _, st := range t.Steps[:min(i, len(t.Steps))] {
		ids = append(ids, st.Token)
	}
	if len(ids) > tourList {
		return itoa(len(ids)) + " tokens"
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = esc(w.m.Label(id))
	}
	return strings.Join(parts, ", ")
}

// choice says how the sampler chose at the step.
func (w *words) choice() string {
	c := w.d.Choice
	p := func(id int) float64 { r, _ := w.d.Row(id); return r.P }
	var s string
	if c.Greedy {
		s = "At temperature 0 the sampler is greedy: it takes the most probable token, " + w.tok(c.Token) + " (id " + itoa(c.Token) + "), at p = " +
			w.strong(fixed(p(c.Token), 7)) + ", and draws no random number."
		if ids := w.top(prob, 2); len(ids) == 2 {
			s += " The runner-up, " + w.tok(ids[1]) + ", had p = " + w.strong(fixed(p(ids[1]), 7)) + "."
		}
	} else {
		s = "The sampler drew " + w.tok(c.Token) + " (id " + itoa(c.Token) + "), whose p was " + w.strong(fixed(c.Prob, 7)) + "."
	}
	if w.d.Step.Forced {
		s += " This step's token was forced by hand: " + w.tok(w.d.Step.Token) + "."
	}
	return s
}

// sampling says how a sampled step chose: temperature, the filters and
// the draw.
func (w *words) sampling() string {
	c := w.d.Choice
	if c.Greedy {
		return "This step is greedy, so there is no draw to show: set a temperature above 0 in the Sampler card."
	}
	s := "Greedy decoding always takes the top token, so the text never varies. Sampling draws instead. "
	for _, st := range c.Stages {
		n := w.strong(itoa(st.Survivors))
		switch st.Name {
		case sampler.StageTemperature:
			s += "Temperature T = " + w.strong(sig(w.d.Softmax.Temperature)) + " divides every logit first: below 1 it sharpens the distribution, above 1 it flattens it. "
		case sampler.StageTopP:
			s += "Top-p keeps the most probable tokens until their probabilities add up to p — here " + n + " of " + itoa(w.d.Vocab) +
				" tokens, leaving out " + w.strong(fixed(st.RemovedMass, 7)) + " of the probability — and scales them up to add to 1 again. "
		case sampler.StageTopK:
			s += "Top-k keeps the " + n + " most probable tokens. "
		case sampler.StageMinP:
			s += "Min-p keeps the " + n + " tokens at least that fraction as probable as the top one. "
		}
	}
	if dr := c.Draw; dr != nil {
		s += "</p><p>Then one random number u = " + w.strong(fixed(dr.U, 7)) + " points into the survivors' running total, which runs from " + w.strong(fixed(dr.Lo, 7)) +
			" to " + w.strong(fixed(dr.Hi, 7)) + " for the token it lands on: " + w.tok(c.Token) + ", whose p = " + w.strong(fixed(c.Prob, 7)) +
			" grew to the width of that range, " + w.strong(fixed(dr.Hi-dr.Lo, 7)) + ", as the filters left fewer tokens to share 1. " +
			"The numbers come from a generator seeded by the link, so the same link always gives the same text. The Sampler card shows the draw."
	}
	return s
}
