package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/engine/toymodel"
)

// choices are the models the picker offers, with the session each starts.
var choices = []struct {
	name, label string
	spec        func(session.Spec) session.Spec
}{
	{session.LogitsModel, "Worked example (logits only)", func(s session.Spec) session.Spec {
		return session.Spec{Model: session.LogitsModel, Vocab: toymodel.Words, Logits: toymodel.WorkedLogits, Sampler: s.Sampler}
	}},
	{"toy", "Toy model (d = 4)", func(s session.Spec) session.Spec {
		return session.Spec{Model: "toy", Prompt: "The cat", Sampler: s.Sampler}
	}},
	{"stories260K", "TinyStories 260K", func(s session.Spec) session.Spec {
		return session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: s.Sampler}
	}},
}

func (p *Playground) renderHeader() app.UI {
	model, prompt := "toy", "The cat"
	if p.sess != nil {
		model, prompt = p.sess.Spec().Model, p.prompt
	}
	options := make([]app.UI, len(choices))
	for i, c := range choices {
		options[i] = app.Option().Value(c.name).Text(c.label).Selected(c.name == model)
	}
	var promptField app.UI = app.Text("")
	if model != session.LogitsModel {
		promptField = app.Label().Class("field prompt").Body(
			app.Span().Text("Prompt"),
			app.Input().ID("prompt").Type("text").Value(prompt).
				Attr("autocomplete", "off").Attr("spellcheck", "false").
				OnInput(p.onPrompt),
		)
	}
	return app.Header().Class("top").Body(
		app.H1().Body(app.Span().Class("logo").Text("next"), app.Text("token")),
		app.P().Class("tagline").Text("Watch a language model choose the next token, one step at a time."),
		app.Div().Class("setup").Body(
			app.Label().Class("field").Body(
				app.Span().Text("Model"),
				app.Select().ID("model").Body(options...).OnChange(p.onModel),
			),
			promptField,
		),
	)
}

func (p *Playground) onModel(ctx app.Context, e app.Event) {
	name := ctx.JSSrc().Get("value").String()
	for _, c := range choices {
		if c.name == name {
			p.replace(c.spec(p.sess.Spec()))
		}
	}
}

func (p *Playground) onPrompt(ctx app.Context, e app.Event) {
	spec := p.sess.Spec()
	spec.Prompt = ctx.JSSrc().Get("value").String()
	spec.Steps, spec.Forced, spec.Edits = 0, nil, nil
	p.replace(spec)
	p.prompt = spec.Prompt // keep what the user typed even if it does not tokenize
}

// replace opens spec, or keeps the current session and says why not.
func (p *Playground) replace(spec session.Spec) {
	if err := p.open(spec); err != nil {
		p.notice = err.Error()
		return
	}
	p.notice = ""
	p.syncAddress()
}
