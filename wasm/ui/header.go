package ui

import (
	"strings"
	"unicode/utf16"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// Header is the page's title, the model picker and the prompt.
type Header struct {
	app.Compo

	Model  string
	Prompt string
	Error  string    // why the prompt cannot run, shown under it
	Files  fileState // reading the reader's model files, or why they did not open
	Page   *Playground
}

func (h *Header) Render() app.UI {
	options := make([]app.UI, len(catalog.Models))
	for i, m := range catalog.Models {
		options[i] = option(m.Name, m.Label, m.Name == h.Model)
	}
	if ref, err := modelfile.ParseRef(h.Model); err == nil {
		label := ref.Name + " (your files)"
		if ref.URL {
			label = ref.Name
		}
		options = append(options, option(h.Model, label, true))
	}
	var prompt app.UI = app.Text("")
	if h.Model != session.LogitsModel {
		prompt = app.Label().Class("field prompt").Body(
			app.Span().Text("Prompt"),
			app.Input().ID("prompt").Type("text").Value(h.Prompt).MaxLength(link.MaxPrompt).
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
			app.Label().Class("field").Body(
				app.Span().Text("or your own model"),
				app.Input().ID("model-file").Type("file").Attr("multiple", true).Attr("accept", ".gguf,.bin").
					Title("a GGUF file, or a llama2.c checkpoint with its tokenizer.bin; or drop them on the page").
					OnChange(h.onModelFile),
				fileStatus(h.Files),
			),
			app.Label().Class("field").Body(
				app.Span().Text("or a GGUF file's URL"),
				app.Input().ID("model-url").Type("url").Placeholder("https://…/model.gguf").
					Attr("autocomplete", "off").OnChange(h.onModelURL),
			),
			prompt,
		),
	)
}

func (h *Header) onModel(ctx app.Context, e app.Event) {
	if m, ok := catalog.Lookup(ctx.JSSrc().Get("value").String()); ok {
		// The new model starts with the settings the next step would use.
		p := h.Page
		spec := m.Spec(p.nextSettings())
		err := p.replace(spec)
		if !p.fetchModel(err, func() { p.notify(p.replace(spec)) }) {
			p.notify(err)
		}
	}
	// The arrow keys would go on changing the model: give them back to the
	// playground's shortcuts.
	_ = focusPlayground()
}

// onModelFile opens the files chosen in the file field. (A method, not a
// closure over Page: go-app keeps the handler of the prerendered header,
// which has no Page.)
func (h *Header) onModelFile(ctx app.Context, e app.Event) { h.Page.openPicked("model-file") }

// onModelURL fetches the model at the URL typed.
func (h *Header) onModelURL(ctx app.Context, e app.Event) {
	if u := strings.TrimSpace(ctx.JSSrc().Get("value").String()); u != "" {
		h.Page.openURL(u)
	}
}

// onPrompt runs the prompt as typed. The field takes link.MaxPrompt
// characters, far more than any context here: a full field is most likely
// a longer paste that the browser cut, and the message says so.
func (h *Header) onPrompt(ctx app.Context, e app.Event) {
	text := ctx.JSSrc().Get("value").String()
	h.Page.setPrompt(text, utf16Len(text) >= link.MaxPrompt)
}

// utf16Len is the length of s as JavaScript counts it, in UTF-16 code
// units, as a field's maxlength does.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1) // an invalid rune reads as U+FFFD
	}
	return n
}

// setPrompt re-runs prefill on text, keeping what was typed even when it
// cannot run, with the reason by the field; full says the field is full, so
// that a longer paste was cut.
func (p *Playground) setPrompt(text string, full bool) {
	spec := p.sess.Spec()
	spec.Prompt = text
	spec.Steps, spec.Forced, spec.Edits = 0, nil, nil
	err := p.replace(spec)
	p.prompt, p.promptError = text, ""
	if full {
		p.promptError = "The field holds " + sampler.Readable(link.MaxPrompt) + " characters: a longer paste is cut there. "
	}
	if err != nil {
		p.promptError += err.Error()
	}
	p.promptError = strings.TrimSpace(p.promptError)
}
