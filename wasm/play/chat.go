package play

import (
	"slices"

	"nexttoken/engine/conversation"
	"nexttoken/engine/link"
	"nexttoken/engine/session"
)

// FieldChat is the chat's box, which a chat's errors are shown by.
const FieldChat = "chat"

// The roles the chat's box offers; a link may bring any other.
var Roles = []string{"system", "user", "assistant"}

// UseChat makes the session a chat on its model's template (asChat), or
// (off) a prompt again (asPrompt).
func (c *Controller) UseChat(on bool) {
	if c.sum == nil || (c.sum.Spec.Chat != nil) == on {
		return
	}
	if on {
		c.openChat(asChat(c.sum.Spec))
	} else {
		c.openChat(asPrompt(c.sum.Spec))
	}
}

// asChat is spec as a chat: its own, or its prompt as the user's one
// message, with the generation prompt.
func asChat(spec session.Spec) session.Spec {
	if spec.Chat == nil {
		spec.Chat = &session.Chat{Messages: []conversation.Message{{Role: "user", Content: spec.Prompt}}, GenerationPrompt: true}
	}
	spec.Prompt = ""
	return spec
}

// asPrompt is spec with a prompt: its own, or the text of its chat's last
// message that has any.
func asPrompt(spec session.Spec) session.Spec {
	if c := spec.Chat; c != nil {
		for _, m := range c.Messages {
			if m.Content != "" {
				spec.Prompt = m.Content
			}
		}
	}
	spec.Chat = nil
	return spec
}

// SetMessage sets message i of the chat.
func (c *Controller) SetMessage(i int, m conversation.Message) {
	c.editChat(func(chat *session.Chat) bool {
		if i < 0 || i >= len(chat.Messages) || chat.Messages[i] == m {
			return false
		}
		chat.Messages[i] = m
		return true
	})
}

// AddMessage adds an empty message to the chat, the assistant's after a
// user's, else the user's.
func (c *Controller) AddMessage() {
	c.editChat(func(chat *session.Chat) bool {
		role := "user"
		if n := len(chat.Messages); n > 0 && chat.Messages[n-1].Role == "user" {
			role = "assistant"
		}
		chat.Messages = append(chat.Messages, conversation.Message{Role: role})
		return true
	})
}

// RemoveMessage removes message i of the chat.
func (c *Controller) RemoveMessage(i int) {
	c.editChat(func(chat *session.Chat) bool {
		if i < 0 || i >= len(chat.Messages) {
			return false
		}
		chat.Messages = slices.Delete(chat.Messages, i, i+1)
		return true
	})
}

// SetGenerationPrompt says whether the chat's prompt ends where the
// assistant's reply starts.
func (c *Controller) SetGenerationPrompt(on bool) {
	c.editChat(func(chat *session.Chat) bool {
		if chat.GenerationPrompt == on {
			return false
		}
		chat.GenerationPrompt = on
		return true
	})
}

// editChat opens the session with its chat as edit changes a copy of it,
// if edit reports a change.
func (c *Controller) editChat(edit func(*session.Chat) bool) {
	if c.sum == nil || c.sum.Spec.Chat == nil {
		return
	}
	spec := c.sum.Spec
	chat := *spec.Chat
	chat.Messages = slices.Clone(chat.Messages)
	if !edit(&chat) {
		return
	}
	spec.Chat = &chat
	c.openChat(spec)
}

// openChat opens spec, a new session from its prompt or chat with the
// current settings, as an undoable action; an error is shown by the
// chat's box, the session left as it was. A chat that a link cannot
// carry (link.MaxMessages, link.MaxPrompt) is refused: its session would
// have no link.
func (c *Controller) openChat(spec session.Spec) {
	c.flushPrompt()
	spec.Sampler = c.Settings()
	spec.Steps, spec.Changes, spec.Forced, spec.Edits, spec.Branches = 0, nil, nil, nil, nil
	if err := link.CheckChat(&spec); err != nil {
		c.fail(FieldChat, err)
		return
	}
	c.do("", func() {
		before := c.entry()
		c.send(Request{Op: Open, Spec: spec}, func(a Answer) {
			if a.Err != nil {
				c.fail(FieldChat, a.Err)
				return
			}
			c.take(a.Session)
			c.remember(before)
			c.clearMessages()
			c.prompt.reset(a.Session.Spec.Prompt)
			c.shown = c.sum.Steps()
			c.changed()
		})
	})
}
