package link

import (
	"encoding/json"
	"errors"
	"fmt"

	"nexttoken/engine/conversation"
	"nexttoken/engine/session"
)

// MaxMessages bounds a chat's messages; MaxPrompt bounds their texts'
// bytes together, as it bounds a prompt's.
const MaxMessages = 64

// CheckChat says why a link cannot carry s's chat, if it cannot: the
// query form's rules and the share link's, which are the same.
func CheckChat(s *session.Spec) error {
	c := s.Chat
	switch {
	case c == nil:
		return nil
	case s.Model == session.LogitsModel:
		return errors.New("model=logits has no chat")
	case s.Prompt != "":
		return errors.New("a session has a prompt or a chat, not both")
	case len(c.Messages) > MaxMessages:
		return fmt.Errorf("%d messages, more than %d", len(c.Messages), MaxMessages)
	}
	text := 0
	for _, m := range c.Messages {
		text += len(m.Content)
	}
	if text > MaxPrompt {
		return fmt.Errorf("the messages' texts have %d bytes together, more than %d", text, MaxPrompt)
	}
	return conversation.Check(c.Messages)
}

// readChat reads the query form's chat=, the messages as a JSON list,
// [{"role": "user", "content": "Hello"}], as the command line's
// --messages file holds them (other keys are ignored): the session's
// chat, with the generation prompt, in place of its prompt.
func readChat(s *session.Spec, v string) error {
	var messages []conversation.Message
	if err := json.Unmarshal([]byte(v), &messages); err != nil {
		return errors.New(`not a JSON list of messages, [{"role":"user","content":"Hello"}]`)
	}
	chat := &session.Spec{Model: s.Model, Chat: &session.Chat{Messages: nilIfEmpty(messages), GenerationPrompt: true}}
	if err := CheckChat(chat); err != nil {
		return err
	}
	s.Chat, s.Prompt = chat.Chat, ""
	return nil
}

// readGenerationPrompt reads generation_prompt=, 1 (the default) or 0.
func readGenerationPrompt(s *session.Spec, v string) error {
	if s.Chat == nil {
		return errors.New("goes with chat=")
	}
	on, err := ParseBool(v)
	if err != nil {
		return err
	}
	chat := *s.Chat
	chat.GenerationPrompt = on
	s.Chat = &chat
	return nil
}

// chatQuery is the query form's chat=, written as readChat reads it.
func chatQuery(c *session.Chat) string {
	messages := c.Messages
	if messages == nil {
		messages = []conversation.Message{}
	}
	b, _ := json.Marshal(messages) // strings only: it cannot fail
	return string(b)
}

// chatRecord writes the session's chat: uint n, then n × (role string,
// content string), then uint 1 if the prompt ends with the generation
// prompt, else 0. ok is false when the session has no chat.
func chatRecord(spec session.Spec) (body writer, ok bool) {
	c := spec.Chat
	if c == nil {
		return nil, false
	}
	body.int(len(c.Messages))
	for _, m := range c.Messages {
		body.string(m.Role)
		body.string(m.Content)
	}
	gen := 0
	if c.GenerationPrompt {
		gen = 1
	}
	body.int(gen)
	return body, true
}

// chat reads the record of tag tagChat, all of r, into spec.
func (r *reader) chat(spec *session.Spec) {
	n := r.count("chat", 2, MaxMessages) // two lengths, at least
	c := &session.Chat{}
	for range n {
		role := r.string("chat")
		content := r.string("chat")
		c.Messages = append(c.Messages, conversation.Message{Role: role, Content: content})
	}
	switch gen := r.uint("chat"); {
	case r.err != nil:
		return
	case gen > 1:
		r.fail("chat", "the generation prompt is %d, not 0 or 1", gen)
		return
	default:
		c.GenerationPrompt = gen == 1
	}
	if len(r.b) > 0 {
		r.fail("chat", "%d bytes after the record's last field", len(r.b))
		return
	}
	spec.Chat = c
}
