package ui

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/session"
)

// Header is the page's title, the model picker and the prompt.
type Header struct {
	app.Compo

	Model  string
	Prompt string
	Error  string    // why the prompt cannot run, shown under it
	Chat   bool      // the session is a chat, whose box takes the prompt's place
	Files  fileState // reading the reader's model files, or why they did not open
	Do     headerActions
}

// headerActions are what the header asks of the page.
type headerActions interface {
	SetModel(name string)
	SetPrompt(text string)
	EndPrompt()
}

// The page's own actions (the Playground handles them): a model from the
// reader's files, from a URL, and the download under way.
const (
	actionOpenFiles    = "open-files"    // Value: the id of the file field
	actionOpenURL      = "open-url"      // Value: the URL typed
	actionCancelFetch  = "cancel-fetch"  //
	actionRetryFetch   = "retry-fetch"   //
	actionConfirmFetch = "confirm-fetch" //
)

func (h *Header) Render() app.UI {
	options := make([]app.UI, len(catalog.Models))
	for i, m := range catalog.Models {
		options[i] = option(m.Name, m.Label, m.Name == h.Model)
	}
	if ref, err := modelfile.ParseName(h.Model); err == nil {
		label := ref.Name + " (your files)"
		if ref.URL {
			label = downloadLabel(ref.Name)
		}
		options = append(options, option(h.Model, label, true))
	}
	if h.Do != nil { // the live page: the prerendered one cannot fetch them
		options = append(options, knownModels()...)
	}
	var prompt app.UI = app.Text("")
	if h.Model != session.LogitsModel && !h.Chat {
		prompt = app.Label().Class("field prompt").Body(
			app.Span().Text("Prompt"),
			app.Input().ID("prompt").Type("text").Value(h.Prompt).MaxLength(link.MaxPrompt).
				Attr("autocomplete", "off").Attr("spellcheck", "false").
				Attr("aria-describedby", "prompt-error").
				Title("the text the model continues; it runs when you pause, press Enter or leave the field").
				OnInput(h.onPrompt).OnChange(h.onPromptDone).OnKeyDown(h.onPromptKey),
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

// The header is prerendered by the server without a page to act on: its
// handlers do nothing until the page is live.

func (h *Header) onModel(ctx app.Context, e app.Event) {
	value := ctx.JSSrc().Get("value").String()
	if _, known := catalog.DownloadAt(value); known {
		ctx.NewActionWithValue(actionOpenURL, value)
	} else if h.Do != nil {
		h.Do.SetModel(value)
	}
	// The arrow keys would go on changing the model: give them back to the
	// playground's shortcuts.
	_ = focusPlayground()
}

func (h *Header) onModelFile(ctx app.Context, e app.Event) {
	ctx.NewActionWithValue(actionOpenFiles, "model-file")
}

func (h *Header) onModelURL(ctx app.Context, e app.Event) {
	if u := strings.TrimSpace(ctx.JSSrc().Get("value").String()); u != "" {
		ctx.NewActionWithValue(actionOpenURL, u)
	}
}

// onPrompt takes the prompt as typed; the session follows when the typing
// pauses.
func (h *Header) onPrompt(ctx app.Context, e app.Event) {
	if h.Do != nil {
		h.Do.SetPrompt(ctx.JSSrc().Get("value").String())
	}
}

// onPromptDone runs the prompt when the field loses the focus.
func (h *Header) onPromptDone(ctx app.Context, e app.Event) {
	if h.Do != nil {
		h.Do.EndPrompt()
	}
}

// onPromptKey runs the prompt on Enter.
func (h *Header) onPromptKey(ctx app.Context, e app.Event) {
	if e.Get("key").String() == "Enter" && h.Do != nil {
		h.Do.EndPrompt()
	}
}
