package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/catalog"
	"nexttoken/engine/session"
)

// maxPrompt bounds what the prompt field takes: far more than any context
// here, and little enough to tokenize in a moment.
const maxPrompt = 4096

// Header is the page's title, the model picker and the prompt.
type Header struct {
	app.Compo

	Model  string
	Prompt string
	Error  string // why the prompt cannot run, shown under it
	Page   *Playground
}

func (h *Header) Render() app.UI {
	options := make([]app.UI, len(catalog.Models))
	for i, m := range catalog.Models {
		options[i] = option(m.Name, m.Label, m.Name == h.Model)
	}
	var prompt app.UI = app.Text("")
	if h.Model != session.LogitsModel {
		prompt = app.Label().Class("field prompt").Body(
			app.Span().Text("Prompt"),
			app.Input().ID("prompt").Type("text").Value(h.Prompt).MaxLength(maxPrompt).
				Attr("autocomplete", "off").Attr("spellcheck", "false").
				Attr("aria-describedby", "prompt-error").OnInput(h.onPrompt),
			app.If(h.Error != "", func() app.UI {
				return app.Span().ID("prompt-error").Class("field-error").Attr("role", "alert").Text(h.Error)
			}),
		)
	}
	return app.Header().Class("top").Body(
		app.H1().Body(app.Span().Class("logo").Text("next"), app.Text("token")),
		app.P().Class("tagline").Body(
			app.Text("Watch a language model choose the next token, one step at a time. "),
			app.A().Href("docs/").Text("How it works"),
		),
		app.Div().Class("setup").Body(
			app.Label().Class("field").Body(
				app.Span().Text("Model"),
				app.Select().ID("model").Body(options...).OnChange(h.onModel),
			),
			prompt,
		),
	)
}

func (h *Header) onModel(ctx app.Context, e app.Event) {
	if m, ok := catalog.Lookup(ctx.JSSrc().Get("value").String()); ok {
		// The new model starts with the settings the next step would use.
		p := h.Page
		p.notify(p.replace(m.Spec(p.sess.Sampler(len(p.sess.Trace().Steps)))))
	}
	// The arrow keys would go on changing the model: give them back to the
	// playground's shortcuts.
	_ = focusPlayground()
}

func (h *Header) onPrompt(ctx app.Context, e app.Event) {
	h.Page.setPrompt(ctx.JSSrc().Get("value").String())
}

// setPrompt re-runs prefill on text, keeping what was typed even when it
// cannot run, with the reason by the field.
func (p *Playground) setPrompt(text string) {
	spec := p.sess.Spec()
	spec.Prompt = text
	spec.Steps, spec.Forced, spec.Edits = 0, nil, nil
	err := p.replace(spec)
	p.prompt, p.promptError = text, ""
	if err != nil {
		p.promptError = err.Error()
	}
}
