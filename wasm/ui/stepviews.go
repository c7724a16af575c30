package ui

import (
	"cmp"
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
)

// renderStepViews lays out everything about one step: how its logits came
// about, the logits, the softmax, the distribution and the sampler.
func (p *Playground) renderStepViews(d *session.Detail, index int) app.UI {
	if d == nil {
		return app.Section().Class("card ended").Body(
			app.H2().Text("The session has ended"),
			app.P().Text(p.stopped+". Undo, or force another token at an earlier step, to go on."),
		)
	}
	title := "Next step"
	if index < len(p.sess.Trace().Steps) {
		title = "Step " + itoa(index+1)
	}
	return app.Div().Body(
		app.H2().ID("step-title").Text(title+p.stepContext(&d.Step)),
		app.Div().Class("views").Body(p.stepCards(d, index)...),
	)
}

func (p *Playground) stepCards(d *session.Detail, index int) []app.UI {
	return []app.UI{
		p.renderHidden(d),
		p.renderLogits(d, index),
		p.renderSoftmax(d),
		p.renderBars(d, index),
		p.renderSampler(d),
	}
}

// stepContext says what the model read for this step.
func (p *Playground) stepContext(step *session.Step) string {
	if step.Input < 0 {
		return ": hand-typed logits"
	}
	return ": position " + itoa(step.Pos) + ", reading " + quote(p.sess.Model().Tokenizer.Piece(-1, step.Input))
}

// tokenName is how a token is labelled in tables.
func (p *Playground) tokenName(id int) string {
	return visible(p.sess.Model().Tokenizer.Piece(-1, id))
}

// rowsToShow picks the tokens a table lists: all of a small vocabulary, else
// the most probable ones, most probable first.
func rowsToShow(probs []float64, limit int) []int {
	ids := make([]int, len(probs))
	for i := range ids {
		ids[i] = i
	}
	if len(ids) <= limit {
		return ids
	}
	slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(probs[b], probs[a]) })
	return ids[:limit]
}

// card is a titled section of the page.
func card(id, title, hint string, body ...app.UI) app.UI {
	head := []app.UI{app.H3().Text(title)}
	if hint != "" {
		head = append(head, app.P().Class("hint").Text(hint))
	}
	return app.Section().ID(id).Class("card").Body(append(head, body...)...)
}

func quote(s string) string { return "“" + visible(s) + "”" }
