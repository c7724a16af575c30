package ui

import (
	"math"
	"slices"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
)

// logitLimit bounds a typed logit; softmax is exact far beyond it, but a
// person typing 1e300 made a typo.
const logitLimit = 1e4

// maxRows is how many tokens a table lists before it shows the most
// probable ones and a search box.
const maxRows = 24

// renderLogits lists every logit of the step (or the most probable ones and
// any that match the search) as a number field and a slider.
func (p *Playground) renderLogits(d *session.Detail, index int) app.UI {
	probs := d.Choice.Softmax.Probs
	ids := rowsToShow(probs, maxRows)
	var search app.UI = app.Text("")
	if len(probs) > maxRows {
		search = app.Input().ID("logit-search").Type("search").Placeholder("find a token…").
			Value(p.logitQuery).OnInput(p.onLogitQuery)
		if q := p.logitQuery; q != "" {
			ids = p.matching(q, len(probs))
		}
	}
	logitsModel := p.sess.Spec().Model == session.LogitsModel
	rows := []app.UI{app.Tr().Body(app.Th().Text("token"), app.Th().Text("logit ℓ"), app.Th().Class("slider").Text(""), app.Th().Text("p"))}
	lo, hi := sliderRange(d.Logits)
	for _, id := range ids {
		rows = append(rows, p.logitRow(d, index, id, logitsModel, lo, hi))
	}
	footer := []app.UI{}
	if logitsModel {
		footer = append(footer, app.Button().ID("add-token").Text("+ token").OnClick(p.addToken))
	}
	if len(probs) > len(ids) {
		footer = append(footer, app.P().Class("hint").Textf("%d of %d tokens shown, most probable first; search to reach the others.", len(ids), len(probs)))
	}
	return card("logits", "Logits", "Type a number or drag a slider to override a logit for this step; −inf masks a token.",
		search,
		app.Table().Class("num logits").Body(rows...),
		app.Div().Class("row").Body(footer...),
	)
}

// sliderRange spans the step's finite logits, at least −10 to 10, in whole
// numbers, so every slider of a step has the same scale.
func sliderRange(logits []float64) (lo, hi float64) {
	lo, hi = -10, 10
	for _, l := range logits {
		if !math.IsInf(l, 0) {
			lo, hi = math.Min(lo, math.Floor(l)), math.Max(hi, math.Ceil(l))
		}
	}
	return lo, hi
}

func (p *Playground) logitRow(d *session.Detail, index, id int, editableName bool, lo, hi float64) app.UI {
	l := d.Logits[id]
	edited := slices.Contains(d.Step.Edited, id)
	var name app.UI = app.Th().Text(p.tokenName(id))
	if editableName {
		name = app.Th().Body(
			app.Input().Class("name").Value(p.sess.Model().Tokenizer.Token(id)).Attr("aria-label", "token name").
				OnChange(p.renameToken(id), app.EventScope(id)),
			app.Button().Class("remove").Title("remove this token").Text("×").OnClick(p.removeToken(id), app.EventScope(id)),
		)
	}
	slider := math.Max(lo, l) // a masked token's slider rests at the left end
	row := app.Tr().DataSet("token", id).Body(
		name,
		app.Td().Body(
			app.Input().Class("logit").Type("text").Attr("inputmode", "decimal").Value(fixed(l, 4)).
				Attr("aria-label", "logit of "+p.tokenName(id)).OnChange(p.editLogit(index, id), app.EventScope(index, id)),
			app.If(edited, func() app.UI { return app.Span().Class("badge").Title("edited by hand").Text("edited") }),
		),
		app.Td().Class("slider").Body(
			app.Input().Type("range").Min(lo).Max(hi).Step(0.1).Value(slider).
				Attr("aria-label", "slider for "+p.tokenName(id)).OnInput(p.editLogit(index, id), app.EventScope(index, id)),
		),
		app.Td().Class("p").Text(sig(d.Choice.Softmax.Probs[id])),
	)
	if edited {
		row = row.Class("edited")
	}
	return row
}

func (p *Playground) editLogit(index, id int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		v, err := parseNumber(ctx.JSSrc().Get("value").String(), logitLimit, true)
		if err != nil {
			p.notice = "Logit of " + quote(p.tokenName(id)) + ": " + err.Error() + "; the last good value is kept."
			return
		}
		p.do(func(s *session.Session) error { return s.EditLogit(index, id, v) })
		p.sel = index
	}
}

func (p *Playground) onLogitQuery(ctx app.Context, e app.Event) {
	p.logitQuery = ctx.JSSrc().Get("value").String()
}

// matching lists the tokens whose text contains q, at most maxRows.
func (p *Playground) matching(q string, n int) []int {
	var ids []int
	for id := range n {
		if strings.Contains(strings.ToLower(p.sess.Model().Tokenizer.Piece(-1, id)), strings.ToLower(q)) {
			ids = append(ids, id)
			if len(ids) == maxRows {
				break
			}
		}
	}
	return ids
}

// The worked example's vocabulary can be edited: rename, remove, add.

func (p *Playground) renameToken(id int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		spec := p.sess.Spec()
		spec.Vocab[id] = strings.TrimSpace(ctx.JSSrc().Get("value").String())
		p.replace(spec)
	}
}

func (p *Playground) removeToken(id int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		spec := p.sess.Spec()
		if len(spec.Vocab) == 1 {
			p.notice = "The vocabulary needs at least one token."
			return
		}
		spec.Vocab = slices.Delete(spec.Vocab, id, id+1)
		spec.Logits = slices.Delete(spec.Logits, id, id+1)
		spec.Steps, spec.Forced, spec.Edits = 0, nil, nil
		p.replace(spec)
	}
}

func (p *Playground) addToken(ctx app.Context, e app.Event) {
	spec := p.sess.Spec()
	name := "token" + itoa(len(spec.Vocab))
	for slices.Contains(spec.Vocab, name) {
		name += "'"
	}
	spec.Vocab = append(spec.Vocab, name)
	spec.Logits = append(spec.Logits, 0)
	spec.Steps, spec.Forced, spec.Edits = 0, nil, nil
	p.replace(spec)
}
