package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
)

// stepViews lays out everything about the step on display: how its logits
// came about, the logits, the softmax, the distribution and the sampler.
func (p *Playground) stepViews(d *session.Detail) app.UI {
	if d == nil {
		return p.ended()
	}
	return app.Div().Body(
		p.stepTitle(d),
		app.Div().Class("views").Body(p.stepCards(d)...),
	)
}

func (p *Playground) stepCards(d *session.Detail) []app.UI {
	return []app.UI{p.hiddenCard(d), p.logitsCard(d), p.softmaxCard(d), p.barsCard(d), p.samplerCard(d), p.compareCard(d), p.lensCard(d), p.recomputeCard(d)}
}

// ended says why the session stopped.
func (p *Playground) ended() app.UI {
	return app.Section().ID("ended").Class("card ended").Body(
		app.H2().Text("The session has ended"),
		app.P().Text(capitalize(p.stopped)+". Undo, or force another token at an earlier step, to go on."),
	)
}

// stepTitle names the step on display and what the model read for it.
func (p *Playground) stepTitle(d *session.Detail) app.UI {
	title := "Next step"
	if d.Index < len(p.sess.Trace().Steps) {
		title = "Step " + itoa(d.Index+1)
	}
	if d.Step.Input < 0 {
		title += ": hand-typed logits"
	} else {
		title += ": position " + itoa(d.Step.Pos) + ", reading " + quote(p.sess.Model().Tokenizer.Piece(-1, d.Step.Input))
	}
	return app.H2().ID("step-title").Text(title)
}

func (p *Playground) hiddenCard(d *session.Detail) app.UI {
	h := &HiddenCard{D: d, Vocab: p.vocab}
	if m := p.sess.Model(); m.Checkpoint != nil {
		c := m.Checkpoint.Config
		h.Dim, h.Shared = c.Dim, c.SharedHead
		if c.Dim*c.VocabSize <= maxHeadNumbers {
			h.Head = make([][]float32, c.VocabSize)
			for id := range h.Head {
				h.Head[id] = p.sess.HeadRow(id)
			}
		}
	}
	return h
}

func (p *Playground) logitsCard(d *session.Detail) app.UI {
	return &LogitsCard{D: d, Vocab: p.vocab, Editable: p.typedLogits(), Page: p}
}

// typedLogits reports whether the session is of hand-typed logits: no
// model, so no layers, no cache and nothing to recompute.
func (p *Playground) typedLogits() bool { return p.sess.Model().Name == session.LogitsModel }

func (p *Playground) softmaxCard(d *session.Detail) app.UI {
	return &SoftmaxCard{D: d, Vocab: p.vocab}
}

func (p *Playground) barsCard(d *session.Detail) app.UI {
	return &BarsCard{D: d, Vocab: p.vocab, Page: p}
}

func (p *Playground) samplerCard(d *session.Detail) app.UI {
	steps := len(p.sess.Trace().Steps)
	next := p.sess.Sampler(steps)
	rerun := 0
	for i := range steps {
		if p.sess.Sampler(i) != next {
			rerun = steps
			break
		}
	}
	return &SamplerCard{Settings: next, Used: p.sess.Sampler(d.Index), Rerun: rerun, D: d, Vocab: p.vocab,
		Context: p.sess.Trace().Text, Page: p}
}

// card is a titled section of the page.
func card(id, title, hint string, body ...app.UI) app.UI {
	head := []app.UI{app.H3().Text(title)}
	if hint != "" {
		head = append(head, app.P().Class("hint").Text(hint))
	}
	return app.Section().ID(id).Class("card").Body(append(head, body...)...)
}

// footer links to the documentation and explains the page's symbols.
func footer() app.UI {
	return app.Footer().Class("footer").Body(
		app.P().Body(
			app.A().Href("docs/").Text("How nexttoken works"),
			app.Text(" · ℓ is a logit, the model's raw score for a token; softmax turns the scores into probabilities p. "+
				"Prefill runs the whole prompt through the model at once and fills the KV cache; each step after it feeds one token."),
		),
	)
}
