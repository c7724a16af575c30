package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"nexttoken/engine/chat"
	"nexttoken/engine/chatprompt"
	"nexttoken/engine/conversation"
	"nexttoken/engine/gguf"
	"nexttoken/engine/regularfile"
	"nexttoken/engine/session"
)

// messageFlag is --message, one role:text message of a chat each time it
// is given.
type messageFlag struct{ messages *[]conversation.Message }

func (f messageFlag) String() string { return "" }

func (f messageFlag) Set(v string) error {
	role, text, ok := strings.Cut(v, ":")
	if !ok || conversation.CheckRole(role) != nil {
		return errors.New("want role:text, such as user:Hello")
	}
	*f.messages = append(*f.messages, conversation.Message{Role: role, Content: text})
	return nil
}

// readMessages reads a JSON file of messages, [{"role": …, "content": …}].
func readMessages(path string) ([]conversation.Message, error) {
	data, err := regularfile.ReadAll(path, maxPromptFile)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var messages []conversation.Message
	if err := d.Decode(&messages); err != nil {
		return nil, fmt.Errorf(`%s: want a JSON list of messages, [{"role": "user", "content": "Hello"}]: %w`, path, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%s: more after the list of messages", path)
	}
	if err := conversation.Check(messages); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return messages, nil
}

// chatMessages checks the chat flags and returns the conversation: the
// messages given, or --prompt as the user's one message.
func (f *traceFlags) chatMessages() error {
	if f.messagesFile != "" {
		if len(f.messages) > 0 {
			return errors.New("--message and --messages: give one")
		}
		var err error
		if f.messages, err = readMessages(f.messagesFile); err != nil {
			return fmt.Errorf("--messages: %w", err)
		}
	}
	f.chat = f.chat || f.set["message"] || f.set["messages"]
	switch {
	case !f.chat:
		return nil
	case f.logits != "":
		return errors.New("--chat needs a model, not --logits")
	case len(f.messages) > 0 && f.promptSet:
		return errors.New("--prompt and --message or --messages: give one (with --chat alone, --prompt is the user's message)")
	case len(f.messages) == 0 && !f.promptSet:
		return errors.New("--chat needs messages: --message=user:TEXT (once per message), --messages=FILE.json, or --prompt=TEXT for one user message")
	case len(f.messages) == 0:
		f.messages = []conversation.Message{{Role: "user", Content: f.prompt}}
	}
	return nil
}

// loadChatUntil runs loadChat until ctx ends (Ctrl-C): the engine cannot
// stop a template that loops for hours, so its rendering is left behind,
// to end with the command. So is each rendering of the model's sessions.
func loadChatUntil(ctx context.Context, path string) (*session.Model, error) {
	type loaded struct {
		m   *session.Model
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		m, err := loadChat(ctx, path)
		done <- loaded{m, err}
	}()
	select {
	case l := <-done:
		return l.m, l.err
	case <-ctx.Done():
		return nil, errChatInterrupted
	}
}

var errChatInterrupted = fmt.Errorf("--chat: %w while the chat template was rendered", errInterrupted)

// loadChat reads the model of a GGUF file with its chat template, whose
// renderings end with ctx.
func loadChat(ctx context.Context, path string) (*session.Model, error) {
	f, closer, err := gguf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	defer closer.Close()
	src, err := f.ChatTemplate()
	if err != nil {
		return nil, fmt.Errorf("--chat: model %s: %w", path, err)
	}
	tmpl, err := chat.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("--chat: model %s: %w", path, err)
	}
	tok, err := f.Tokenizer()
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	m, err := f.Model()
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	sm, err := session.Pair(path, m, tok)
	if err != nil {
		return nil, err
	}
	sm.ChatTemplate = src
	if err := sm.SetChat(renderUntil{tmpl, ctx}); err != nil {
		return nil, fmt.Errorf("--chat: %w", err)
	}
	return sm, nil
}

// renderUntil is a chat template whose renderings give up when ctx ends.
type renderUntil struct {
	*chat.Template
	ctx context.Context
}

func (t renderUntil) Render(messages []conversation.Message, bos, eos string, addGenerationPrompt bool) (string, error) {
	type rendered struct {
		prompt string
		err    error
	}
	done := make(chan rendered, 1)
	go func() {
		prompt, err := t.Template.Render(messages, bos, eos, addGenerationPrompt)
		done <- rendered{prompt, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return "", fmt.Errorf("--chat: %w", r.err)
		}
		return r.prompt, nil
	case <-t.ctx.Done():
		return "", errChatInterrupted
	}
}

// printChat prints the prompt a chat template rendered, special tokens
// between ⟨ and ⟩, as the model reads it (BOS first if its vocabulary
// adds it).
func printChat(w io.Writer, ct *chatprompt.Tokenizer, prompt []session.Token, messages int) {
	noun := "messages"
	if messages == 1 {
		noun = "message"
	}
	fmt.Fprintf(w, "chat: %d %s in the model's template; special tokens between ⟨ and ⟩; the reply ends at ⟨%s⟩\n", messages, noun, ct.Token(ct.EOS()))
	var b strings.Builder
	ids := make([]int, len(prompt))
	for i, t := range prompt {
		ids[i] = t.ID
	}
	for _, s := range ct.Spans(ids) {
		if s.Special {
			fmt.Fprintf(&b, "⟨%s⟩", s.Text)
		} else {
			b.WriteString(s.Text)
		}
	}
	for line := range strings.Lines(b.String()) {
		fmt.Fprintf(w, "  %s", line)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}
