//go:build js

// Command chat is the playground's chat template engine, package chat, as
// a WebAssembly program of its own (make web/chat.wasm): the page starts it
// in a worker (web/chat-worker.js) only with a model that has a chat
// template, so that the engine costs the first page nothing and a template
// that never ends costs only its worker. It sets one JavaScript object,
// nexttokenChat, whose functions answer at once, as package chat does:
//
//	render(template, roles, contents, bos, eos, generationPrompt) → {prompt} or {error}
//	endOfTurn(template, specials, bos, eos) → {token}, "" for none, or {error}
//
// template is a template's Jinja source (compiled once, then kept while
// the next call has the same), roles and contents the messages' as two
// arrays of strings, specials the vocabulary's special tokens.
package main

import (
	"syscall/js"

	"nexttoken/engine/chat"
	"nexttoken/engine/conversation"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("render", js.FuncOf(render))
	api.Set("endOfTurn", js.FuncOf(endOfTurn))
	js.Global().Set("nexttokenChat", api)
	select {}
}

// compiled is the template compiled last, for the source src.
var compiled struct {
	src string
	t   *chat.Template
}

// template compiles src, or returns it compiled.
func template(src string) (*chat.Template, error) {
	if compiled.t != nil && compiled.src == src {
		return compiled.t, nil
	}
	t, err := chat.Compile(src)
	if err != nil {
		return nil, err
	}
	compiled.src, compiled.t = src, t
	return t, nil
}

func render(_ js.Value, args []js.Value) any {
	if len(args) != 6 {
		return answer("error", "render takes 6 arguments")
	}
	t, err := template(args[0].String())
	if err != nil {
		return answer("error", err.Error())
	}
	roles, contents := strings(args[1]), strings(args[2])
	if len(roles) != len(contents) {
		return answer("error", "as many roles as contents, please")
	}
	messages := make([]conversation.Message, len(roles))
	for i := range messages {
		messages[i] = conversation.Message{Role: roles[i], Content: contents[i]}
	}
	prompt, err := t.Render(messages, args[3].String(), args[4].String(), args[5].Truthy())
	if err != nil {
		return answer("error", err.Error())
	}
	return answer("prompt", prompt)
}

func endOfTurn(_ js.Value, args []js.Value) any {
	if len(args) != 4 {
		return answer("error", "endOfTurn takes 4 arguments")
	}
	t, err := template(args[0].String())
	if err != nil {
		return answer("error", err.Error())
	}
	token, err := t.EndOfTurn(strings(args[1]), args[2].String(), args[3].String())
	if err != nil {
		return answer("error", err.Error())
	}
	return answer("token", token)
}

// strings reads a JavaScript array of strings.
func strings(a js.Value) []string {
	out := make([]string, a.Length())
	for i := range out {
		out[i] = a.Index(i).String()
	}
	return out
}

// answer is the object {key: value}.
func answer(key, value string) js.Value {
	o := js.Global().Get("Object").New()
	o.Set(key, value)
	return o
}
