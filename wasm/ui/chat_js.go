//go:build js

package ui

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/conversation"
	"nexttoken/engine/session"
	"nexttoken/wasm/jsx"
)

// chatScriptLoad lets one goroutine at a time load web/chat-worker.js, the
// engine's side in the page (it defines nexttokenChatCall), which runs
// web/chat.wasm, the chat template engine (wasm/chat), in a worker of its
// own and ends it when a call takes too long.
var chatScriptLoad sync.Mutex

// attachChat gives m its chat template (session.Model.SetChat), rendered
// by the engine at url, which it starts if it is not yet. It blocks: call
// it from a goroutine of its own, never the page's.
func attachChat(m *session.Model, url string) error {
	chatScriptLoad.Lock()
	if call, _ := safejs.Global().Get("nexttokenChatCall"); !jsx.Truthy(call) {
		script := strings.TrimSuffix(url, "chat.wasm") + "chat-worker.js"
		if _, err := jsx.Await(safejs.Global().Call("nexttokenScript", script)); err != nil {
			chatScriptLoad.Unlock()
			return fmt.Errorf("the chat template engine (%s) did not start: %w", url, err)
		}
	}
	chatScriptLoad.Unlock()
	// A call of nothing starts the engine, so that one that cannot start
	// says so with the model.
	if _, err := callChat(url, ""); err != nil {
		return err
	}
	return m.SetChat(chatTemplate{url: url, src: m.ChatTemplate})
}

// callChat calls the engine at url's function name with args, in its
// worker (nexttokenChatCall), and waits for the answer.
func callChat(url, name string, args ...any) (safejs.Value, error) {
	return jsx.Await(safejs.Global().Call("nexttokenChatCall", url, name, args))
}

// chatTemplate is a chat template rendered by the engine at url
// (chatprompt.Template).
type chatTemplate struct {
	url, src string
}

func (t chatTemplate) Render(messages []conversation.Message, bos, eos string, addGenerationPrompt bool) (string, error) {
	roles, contents := make([]any, len(messages)), make([]any, len(messages))
	for i, m := range messages {
		roles[i], contents[i] = m.Role, m.Content
	}
	return chatAnswer(callChat(t.url, "render", t.src, roles, contents, bos, eos, addGenerationPrompt))("prompt")
}

func (t chatTemplate) EndOfTurn(specials []string, bos, eos string) (string, error) {
	list := make([]any, len(specials))
	for i, s := range specials {
		list[i] = s
	}
	return chatAnswer(callChat(t.url, "endOfTurn", t.src, list, bos, eos))("token")
}

// chatAnswer reads the engine's answer: its field key, or its error.
func chatAnswer(answer safejs.Value, err error) func(key string) (string, error) {
	return func(key string) (string, error) {
		if err != nil {
			return "", err
		}
		if msg, err := answer.Get("error"); err == nil && !msg.IsUndefined() {
			s, _ := msg.String()
			return "", errors.New(s)
		}
		v, err := answer.Get(key)
		if err != nil {
			return "", err
		}
		return v.String()
	}
}
