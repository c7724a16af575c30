//go:build !js

package ui

import (
	"strings"
	"testing"

	"nexttoken/engine/conversation"
	"nexttoken/engine/session"
)

// TestChatBox draws a chat's messages, its switches and the prompt the
// template rendered with its special tokens marked; a session with a
// prompt is offered the chat instead.
func TestChatBox(t *testing.T) {
	special := []bool{false, false, true, true} // 2 <|im_start|>, 3 <|im_end|>
	box := &ChatBox{
		Chat:    &session.Chat{Messages: []conversation.Message{{Role: "system", Content: "Be <brief>."}, {Role: "tool", Content: "x"}}, GenerationPrompt: true},
		Prompt:  []session.Token{{ID: 2, Text: "<|im_start|>"}, {ID: 0, Piece: "system\nBe <brief>."}, {ID: 3, Text: "<|im_end|>"}, {ID: 1, Piece: "\n"}},
		Special: special, Error: "Message 2: the chat template failed.",
	}
	html, text := render(box)
	contains(t, "chat box", html, `<mark class="special">&lt;|im_start|&gt;</mark>`, `<mark class="special">&lt;|im_end|&gt;</mark>`,
		`checked id="generation-prompt" type="checkbox"`, `<option selected value="tool">`, `id="chat-error"`)
	contains(t, "chat box", text, "<|im_start|> system Be <brief>. <|im_end|>", "Message 2: the chat template failed.", "Add a message", "A plain prompt instead")
	if n := strings.Count(html, `class="message"`); n != 2 {
		t.Errorf("%d messages drawn, want 2", n)
	}
	html, _ = render(&ChatBox{Special: special})
	contains(t, "a prompt's chat box", html, `id="use-chat"`)
	lacks(t, "a prompt's chat box", html, `class="messages"`)

	html, _ = render(&Header{Model: "file:0123456789abcdef:9:chat.gguf", Chat: true})
	lacks(t, "a chat's header", html, `id="prompt"`)
	html, _ = render(&ChipRow{Chips: []Chip{{ID: 3, Label: "<|im_end|>", Prompt: true, Special: true}, {ID: 3, Label: "<|im_end|>", Prob: 1, Special: true}}, Selected: -1})
	if n := strings.Count(html, " special"); n != 2 {
		t.Errorf("%d special chips in %s, want 2", n, html)
	}
}
