//go:build js

package ui

import (
	"errors"
	"fmt"
	"sync"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/conversation"
	"nexttoken/engine/session"
	"nexttoken/wasm/jsx"
)

// chatEngine is web/chat.wasm, the chat template engine (wasm/chat),
// fetched and started once for the page, by the first model that has a
// chat template.
var chatEngine struct {
	sync.Mutex
	started bool
	api     safejs.Value // nexttokenChat
	err     error
}

// attachChat gives m its chat template (session.Model.SetChat), rendered
// by the engine at url, which it starts if it is not yet. It blocks: call
// it from a goroutine of its own, never the page's.
func attachChat(m *session.Model, url string) error {
	chatEngine.Lock()
	if !chatEngine.started {
		chatEngine.started = true
		chatEngine.api, chatEngine.err = startChatEngine(url)
	}
	api, err := chatEngine.api, chatEngine.err
	chatEngine.Unlock()
	if err != nil {
		return err
	}
	return m.SetChat(chatTemplate{api: api, src: m.ChatTemplate})
}

// startChatEngine fetches the program at url, runs it as Go's wasm_exec
// runs app.wasm, and returns the object it sets. Its main function sets
// it before the program's first pause, so it is there when run returns.
func startChatEngine(url string) (safejs.Value, error) {
	fail := func(err error) (safejs.Value, error) {
		return safejs.Undefined(), fmt.Errorf("the chat template engine (%s) did not start: %w", url, err)
	}
	resp, status, err := fetch(url, safejs.Undefined())
	if err != nil {
		return fail(err)
	}
	if status != 200 {
		return fail(fmt.Errorf("the server answered %d", status))
	}
	buf, err := jsx.Await(resp.Call("arrayBuffer"))
	if err != nil {
		return fail(err)
	}
	runtime, err := jsx.New("Go")
	if err != nil {
		return fail(err)
	}
	imports, err := runtime.Get("importObject")
	if err != nil {
		return fail(err)
	}
	wasm, err := safejs.Global().Get("WebAssembly")
	if err != nil {
		return fail(err)
	}
	result, err := jsx.Await(wasm.Call("instantiate", buf, imports))
	if err != nil {
		return fail(err)
	}
	instance, err := result.Get("instance")
	if err != nil {
		return fail(err)
	}
	if _, err := runtime.Call("run", instance); err != nil {
		return fail(err)
	}
	api, err := safejs.Global().Get("nexttokenChat")
	if err == nil && !jsx.Truthy(api) {
		err = errors.New("it set no nexttokenChat")
	}
	if err != nil {
		return fail(err)
	}
	return api, nil
}

// chatTemplate is a chat template rendered by the engine's api
// (chatprompt.Template).
type chatTemplate struct {
	api safejs.Value
	src string
}

func (t chatTemplate) Render(messages []conversation.Message, bos, eos string, addGenerationPrompt bool) (string, error) {
	roles, contents := make([]any, len(messages)), make([]any, len(messages))
	for i, m := range messages {
		roles[i], contents[i] = m.Role, m.Content
	}
	return chatAnswer(t.api.Call("render", t.src, roles, contents, bos, eos, addGenerationPrompt))("prompt")
}

func (t chatTemplate) EndOfTurn(specials []string, bos, eos string) string {
	list := make([]any, len(specials))
	for i, s := range specials {
		list[i] = s
	}
	token, _ := chatAnswer(t.api.Call("endOfTurn", t.src, list, bos, eos))("token")
	return token
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
