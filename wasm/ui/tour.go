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
	ctx.Defer(func(app.Context) { _ = scrollTo(play.Tour[c.Stop-1].Cards[0]) })
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
	if k < 1 || k > len(play.Tour) {
		return ""
	}
	if d == nil || d.Choice == nil {
		return para("This stop reads the step on display, which is not ready: step on, or go Back.")
	}
	m := s.Model()
	sm := d.Choice.Softmax
	w := &words{m: m}
	if m.Typed && k != 2 && k != 3 {
		return para("This session has hand-typed logits: no model, no layers and no cache. The tour's first stop opens the model it is about.")
	}
	switch k {
	case 1:
		w.say("The model has read the prompt ", w.quote(s.Session.Spec.Prompt), " as ", itoa(len(s.Session.Trace.Prompt)), " tokens. ",
			"For the last token the model read, ", w.tok(d.Step.Input), ", its layers leave one vector of ", itoa(len(d.Hidden)), " numbers, the hidden state h")
		if len(d.Hidden) <= 8 {
			w.say(" = [", w.floats32(d.Hidden), "]")
		}
		w.say(".")
		w.para()
		w.say("The LM head is a matrix W with one row of ", itoa(m.Dim), " numbers per token of the vocabulary, ", itoa(len(m.Names)), " rows. ",
			"W·h multiplies each row with h: one score per token, its logit ℓ. ")
		w.say("Here ", w.logits(d.Computed), ".")
		w.para()
		w.say("A higher logit means the model favours the token more. Logits are not probabilities yet: they can be negative, and they do not add up to 1.")
	case 2:
		top := softmax.Top(sm.Probs, 1, nil)[0]
		w.say("Softmax turns the logits into probabilities in four moves. ",
			"It subtracts the largest logit, m = ", w.num(sm.Max), " (", w.tok(top), "), from every logit, so that the largest becomes 0 and no exponential can overflow. ",
			"It exponentiates: e^(ℓ − m) = ", w.list(sm.Exp), ". ",
			"It adds them up: Σ = ", w.strong(fixed(sm.Sum, 7)), ". ",
			"And it divides each by Σ: p = ", w.list(sm.Probs), ".")
		w.para()
		w.say("Every p is between 0 and 1 and together they add up to 1. The Softmax card shows each move, token by token; a table worked by hand, rounding as it goes, differs from it in the third decimal.")
	case 3:
		w.choice(d)
	case 4:
		rows := d.Step.Pos + 1
		w.say(w.tok(d.Step.Input), " joins the text. Feeding it through the model computes its key and value vectors in every layer — ",
			itoa(m.Layers), " layers × ", itoa(m.KVHeads), " key-value heads × ", itoa(m.HeadSize), " numbers, for K and again for V — and appends them to the KV cache: ",
			"it grows from ", w.strong(itoa(rows-1)), " rows to ", w.strong(itoa(rows)), " (", w.context(d.Context), ").")
		w.para()
		w.say("The rows before it, 0 to ", itoa(rows-2), ", do not change: a token's key and value depend only on it and the tokens before it, so they are computed once and kept. The KV card shows them.")
	case 5:
		w.say("The next step feeds only the newest token, ", w.tok(d.Step.Input), " at position ", itoa(d.Step.Pos), " — not the whole text again. ",
			"In every layer its query vector is compared with each key in the cache, ", itoa(d.Step.Pos+1), " rows (", w.context(d.Context), "): that is attention, ",
			"and its weights say how much of each row's value to mix in. So the cache stands in for the text before, and only attention's work grows with it.")
		w.para()
		w.choice(d)
	case 6:
		w.say("The same loop on a real, if tiny, model: ", w.strong(m.Name), ". Its vocabulary has ", itoa(len(m.Names)), " tokens and its hidden state ", itoa(m.Dim), " numbers; it has ",
			itoa(m.Layers), " layers of ", itoa(m.Heads), " attention heads")
		if m.KVHeads < m.Heads {
			w.say(", which share ", itoa(m.KVHeads), " key-value heads (grouped-query attention: a smaller cache)")
		}
		w.say(". The prompt ", w.quote(s.Session.Spec.Prompt), " became ", itoa(len(s.Session.Trace.Prompt)), " tokens, and the text so far is ", w.quote(s.Session.Trace.Text), ".")
		w.para()
		w.say("This step reads ", w.tok(d.Step.Input), " at position ", itoa(d.Step.Pos), ". W·h gives ", itoa(len(d.Logits)), " logits; softmax makes ",
			w.topProbs(sm.Probs, 3), ".")
		w.para()
		w.choice(d)
	case 7:
		w.sampling(d)
	}
	return w.String()
}

// words builds a tour stop's words, HTML, with the step's numbers.
type words struct {
	m *play.Model
	b strings.Builder
	p strings.Builder // the paragraph being written
}

func (w *words) say(parts ...string) {
	for _, p := range parts {
		w.p.WriteString(p)
	}
}

// para ends a paragraph.
func (w *words) para() {
	if w.p.Len() > 0 {
		w.b.WriteString(para(w.p.String()))
		w.p.Reset()
	}
}

func (w *words) String() string {
	w.para()
	return w.b.String()
}

// para is a paragraph of HTML.
func para(html string) string { return "<p>" + html + "</p>" }

func (w *words) strong(s string) string { return `<strong class="num">` + esc(s) + "</strong>" }

// num is a number as the cards write a logit.
func (w *words) num(x float64) string { return w.strong(fixed(x, 4)) }

func (w *words) tok(id int) string {
	if id < 0 {
		return "(no token)"
	}
	return "<q>" + esc(w.m.Label(id)) + "</q>"
}

func (w *words) quote(s string) string { return "<q>" + esc(visible(s)) + "</q>" }

func (w *words) floats32(v []float32) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fixed(float64(x), 4)
	}
	return w.strong(strings.Join(parts, ", "))
}

// tourList is the most values a stop lists in full.
const tourList = 8

// list is a vector's values, to 7 decimals, token by token when the
// vocabulary is small; else how many there are.
func (w *words) list(v []float64) string {
	if len(v) > tourList {
		return itoa(len(v)) + " values (the Softmax card lists them)"
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = w.strong(fixed(x, 7))
	}
	return strings.Join(parts, ", ")
}

// logits are the model's logits, token by token when the vocabulary is
// small; else the largest few.
func (w *words) logits(v []float64) string {
	ids := softmax.Top(v, min(len(v), tourList), nil)
	if len(v) <= tourList {
		ids = ids[:0]
		for i := range v {
			ids = append(ids, i)
		}
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = w.tok(id) + " " + w.num(v[id])
	}
	if len(v) > tourList {
		return "the largest of the " + itoa(len(v)) + " are " + strings.Join(parts, ", ")
	}
	return strings.Join(parts, ", ")
}

// topProbs are the n most probable tokens and their p.
func (w *words) topProbs(p []float64, n int) string {
	ids := softmax.Top(p, n, nil)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = w.tok(id) + " p = " + w.strong(fixed(p[id], 7))
	}
	return strings.Join(parts, ", then ")
}

// context names the tokens of a context, or counts them when there are
// many.
func (w *words) context(ids []int) string {
	if len(ids) > tourList {
		return itoa(len(ids)) + " tokens"
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = esc(w.m.Label(id))
	}
	return strings.Join(parts, ", ")
}

// choice says how the sampler chose at step d.
func (w *words) choice(d *session.Detail) {
	c, sm := d.Choice, d.Choice.Softmax
	if c.Greedy {
		w.say("At temperature 0 the sampler is greedy: it takes the most probable token, ", w.tok(c.Token), " (id ", itoa(c.Token), "), at p = ",
			w.strong(fixed(sm.Probs[c.Token], 7)), ", and draws no random number.")
		if ids := softmax.Top(sm.Probs, 2, nil); len(ids) == 2 {
			w.say(" The runner-up, ", w.tok(ids[1]), ", had p = ", w.strong(fixed(sm.Probs[ids[1]], 7)), ".")
		}
	} else {
		w.say("The sampler drew ", w.tok(c.Token), " (id ", itoa(c.Token), "), whose p was ", w.strong(fixed(c.Prob, 7)), ".")
	}
	if d.Step.Forced {
		w.say(" This step's token was forced by hand: ", w.tok(d.Step.Token), ".")
	}
}

// sampling says how a sampled step chose: temperature, the filters and
// the draw.
func (w *words) sampling(d *session.Detail) {
	c := d.Choice
	if c.Greedy {
		w.say("This step is greedy, so there is no draw to show: set a temperature above 0 in the Sampler card, or go Back and Next to this stop again.")
		return
	}
	w.say("Greedy decoding always takes the top token, so the text never varies. Sampling draws instead. ")
	for _, st := range c.Stages {
		switch st.Name {
		case sampler.StageTemperature:
			w.say("Temperature T = ", w.strong(sig(c.Softmax.Temperature)), " divides every logit first: below 1 it sharpens the distribution, above 1 it flattens it. ")
		case sampler.StageTopP:
			w.say("Top-p keeps the most probable tokens until their probabilities add up to p — here ", w.strong(itoa(st.Survivors)), " of ", itoa(len(d.Logits)),
				" tokens, which held all but ", w.strong(fixed(st.RemovedMass, 7)), " of the probability — and scales them up to add to 1 again. ")
		case sampler.StageTopK:
			w.say("Top-k keeps the ", w.strong(itoa(st.Survivors)), " most probable tokens. ")
		case sampler.StageMinP:
			w.say("Min-p keeps the ", w.strong(itoa(st.Survivors)), " tokens at least that fraction as probable as the top one. ")
		}
	}
	if dr := c.Draw; dr != nil {
		w.para()
		w.say("Then one random number u = ", w.strong(fixed(dr.U, 7)), " points into the survivors' running total, from ", w.strong(fixed(dr.Lo, 7)), " to ",
			w.strong(fixed(dr.Hi, 7)), " for the token it lands on: ", w.tok(c.Token), ", p = ", w.strong(fixed(c.Prob, 7)), ". ",
			"The numbers come from a generator seeded by the link, so the same link always gives the same text. The Sampler card shows the draw.")
	}
}
