package session

import (
	"errors"
	"fmt"

	"nexttoken/engine/chatprompt"
	"nexttoken/engine/conversation"
)

// Chat is a conversation whose rendering by the model's chat template is
// the prompt: a session with one has no Prompt of its own. The model's
// tokenizer then reads the rendering as its template's (Model.Chat):
// special tokens parsed as such, and EOS its end of turn, at which the
// reply stops.
type Chat struct {
	Messages []conversation.Message `json:"messages"`
	// GenerationPrompt ends the prompt where the assistant's reply starts
	// (add_generation_prompt).
	GenerationPrompt bool `json:"generation_prompt"`
}

// ErrNoChat is the error of a session with messages on a model whose chat
// template is not there to render them.
var ErrNoChat = errors.New("no chat template")

// chatPrompt returns the prompt of s's spec on model m, and the model
// that reads it: m itself, or for a chat, m with its template's
// tokenizer.
func (s *Session) chatPrompt(m *Model) (string, *Model, error) {
	c := s.spec.Chat
	if c == nil {
		return s.spec.Prompt, m, nil
	}
	switch {
	case s.spec.Prompt != "":
		return "", nil, errors.New("a session has a prompt or a chat's messages, not both")
	case m.Chat == nil && m.ChatTemplate != "":
		return "", nil, fmt.Errorf("%w: the chat template of the model %s is not loaded", ErrNoChat, m.Name)
	case m.Chat == nil:
		return "", nil, fmt.Errorf("%w: the model %s has none, so it takes a prompt, not messages", ErrNoChat, m.Name)
	}
	if err := conversation.Check(c.Messages); err != nil {
		return "", nil, err
	}
	prompt, err := m.Chat.Render(c.Messages, c.GenerationPrompt)
	if err != nil {
		return "", nil, err
	}
	return prompt, m.chatModel(), nil
}

// chatModel is m with its chat template's tokenizer, made once so that
// every session of a chat on m has the same *Model.
func (m *Model) chatModel() *Model {
	if m.chat == nil || m.chat.Tokenizer != m.Chat {
		m.chat = &Model{Name: m.Name, Checkpoint: m.Checkpoint, Tokenizer: m.Chat, ChatTemplate: m.ChatTemplate, Chat: m.Chat}
	}
	return m.chat
}

// SetChat gives m its chat template's tokenizer (chatprompt.NewTokenizer
// over m's own), for sessions with messages.
func (m *Model) SetChat(template chatprompt.Template) error {
	c, err := chatprompt.NewTokenizer(template, m.Tokenizer)
	if err != nil {
		return fmt.Errorf("model %s: %w", m.Name, err)
	}
	m.Chat = c
	return nil
}
