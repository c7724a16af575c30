package ui

import (
	"slices"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/conversation"
	"nexttoken/engine/link"
	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// ChatBox is the chat of a model that has a chat template: its messages,
// each a role and a text, whether the prompt ends where the assistant's
// reply starts, and the prompt the template rendered for them as the
// model reads it, its special tokens marked. For a session with a prompt
// it offers the chat instead.
type ChatBox struct {
	app.Compo

	Chat    *session.Chat   // nil: the session has a prompt
	Prompt  []session.Token // the session's prompt, as read
	Special []bool          // the model's special tokens (play.Model.Special)
	Error   string          // why the chat's last edit did not run
	Do      chatActions
}

// chatActions are what the chat box asks of the page.
type chatActions interface {
	UseChat(on bool)
	SetMessage(i int, m conversation.Message)
	AddMessage()
	RemoveMessage(i int)
	SetGenerationPrompt(on bool)
}

func (c *ChatBox) Render() app.UI {
	if c.Chat == nil {
		return app.Section().ID("chat").Class("chat").Body(
			app.Button().ID("use-chat").Text("Chat in the model's template").
				Title("the prompt becomes a user's message, which the model's own chat template renders").OnClick(c.onUse(true)),
			c.error(),
		)
	}
	messages := make([]app.UI, len(c.Chat.Messages))
	for i, m := range c.Chat.Messages {
		messages[i] = c.message(i, m)
	}
	return app.Section().ID("chat").Class("chat").Body(
		app.Ol().Class("messages").Body(messages...),
		app.Div().Class("chat-actions").Body(
			app.Button().ID("add-message").Text("Add a message").OnClick(c.onAdd),
			app.Label().Body(
				app.Input().ID("generation-prompt").Type("checkbox").Checked(c.Chat.GenerationPrompt).OnChange(c.onGenerationPrompt),
				app.Text(" end with the start of the assistant's reply"),
			),
			app.Button().ID("use-prompt").Text("A plain prompt instead").OnClick(c.onUse(false)),
		),
		c.error(),
		app.P().Class("label").Text("The prompt the template rendered, special tokens marked:"),
		app.Div().ID("chat-prompt").Class("chat-prompt").Body(c.rendered()...),
	)
}

func (c *ChatBox) error() app.UI {
	if c.Error == "" {
		return app.Text("")
	}
	return app.P().ID("chat-error").Class("field-error").Attr("role", "alert").Text(c.Error)
}

// message is message i: its role, its text and a button to remove it.
func (c *ChatBox) message(i int, m conversation.Message) app.UI {
	roles := play.Roles
	if !slices.Contains(roles, m.Role) {
		roles = append(slices.Clip(roles), m.Role) // a link's own
	}
	options := make([]app.UI, len(roles))
	for k, r := range roles {
		options[k] = option(r, r, r == m.Role)
	}
	return app.Li().Class("message").DataSet("index", i).Body(
		app.Select().Class("role").Attr("aria-label", "message "+itoa(i+1)+"'s role").Body(options...).OnChange(c.onMessage),
		app.Textarea().Class("content").Attr("rows", 2).MaxLength(link.MaxPrompt).Attr("aria-label", "message "+itoa(i+1)+"'s text").Text(m.Content).OnChange(c.onMessage),
		app.Button().Class("remove").Title("remove message "+itoa(i+1)).Text("×").OnClick(c.onRemove),
	)
}

// onMessage takes a message's role and text as its fields hold them, by
// its place (data-index), which the page reads when the event comes:
// the fields may have changed since the box was drawn.
func (c *ChatBox) onMessage(ctx app.Context, e app.Event) {
	li := ctx.JSSrc().Get("parentNode")
	role, text := li.Call("querySelector", "select").Get("value"), li.Call("querySelector", "textarea").Get("value")
	if i, ok := messageIndex(li); ok {
		c.Do.SetMessage(i, conversation.Message{Role: role.String(), Content: text.String()})
	}
}

func (c *ChatBox) onRemove(ctx app.Context, e app.Event) {
	if i, ok := messageIndex(ctx.JSSrc().Get("parentNode")); ok {
		c.Do.RemoveMessage(i)
	}
}

// messageIndex is the place of a message's element li.
func messageIndex(li app.Value) (int, bool) {
	i, err := strconv.Atoi(li.Get("dataset").Get("index").String())
	return i, err == nil
}

// rendered is the prompt as the model reads it: text, and each special
// token marked.
func (c *ChatBox) rendered() []app.UI {
	var out []app.UI
	text := ""
	for _, t := range c.Prompt {
		if t.ID < len(c.Special) && c.Special[t.ID] {
			if text != "" {
				out = append(out, app.Text(text))
				text = ""
			}
			out = append(out, app.Mark().Class("special").Text(t.Text))
			continue
		}
		text += t.Piece
	}
	if text != "" {
		out = append(out, app.Text(text))
	}
	return out
}

func (c *ChatBox) onUse(on bool) app.EventHandler {
	return func(app.Context, app.Event) { c.Do.UseChat(on) }
}

func (c *ChatBox) onAdd(app.Context, app.Event) { c.Do.AddMessage() }

func (c *ChatBox) onGenerationPrompt(ctx app.Context, e app.Event) {
	c.Do.SetGenerationPrompt(ctx.JSSrc().Get("checked").Bool())
}
