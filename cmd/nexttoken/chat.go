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
	"nexttoken/engine/gguf"
	"nexttoken/engine/regularfile"
	"nexttoken/engine/session"
)

// messageFlag is --message, one role:text message of a chat each time it
// is given.
type messageFlag struct{ messages *[]chat.Message }

func (f messageFlag) String() string { return "" }

func (f messageFlag) Set(v string) error {
	role, text, ok := strings.Cut(v, ":")
	if !ok || role == "" || strings.ContainsAny(role, " \t\n") {
		return errors.New("want role:text, such as user:Hello")
	}
	*f.messages = append(*f.messages, chat.Message{Role: role, Content: text})
	return nil
}

// readMessages reads a JSON file of messages, [{"role": …, "content": …}].
func readMessages(path string) ([]chat.Message, error) {
	data, err := regularfile.ReadAll(path, maxPromptFile)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var messages []chat.Message
	if err := d.Decode(&messages); err != nil {
		return nil, fmt.Errorf(`%s: want a JSON list of messages, [{"role": "user", "content": "Hello"}]: %w`, path, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%s: more after the list of messages", path)
	}
	for i, m := range messages {
		if m.Role == "" {
			return nil, fmt.Errorf("%s: message %d has no role", path, i+1)
		}
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
		f.messages = []chat.Message{{Role: "user", Content: f.prompt}}
	}
	return nil
}

// loadChatUntil runs loadChat until ctx ends (Ctrl-C): the engine cannot
// stop a template that loops for hours, so its rendering is left behind,
// to end with the command.
func loadChatUntil(ctx context.Context, path string, messages []chat.Message) (*session.Model, string, error) {
	type loaded struct {
		m      *session.Model
		prompt string
		err    error
	}
	done := make(chan loaded, 1)
	go func() {
		m, prompt, err := loadChat(path, messages)
		done <- loaded{m, prompt, err}
	}()
	select {
	case l := <-done:
		return l.m, l.prompt, l.err
	case <-ctx.Done():
		return nil, "", fmt.Errorf("--chat: %w while the chat template was rendered", errInterrupted)
	}
}

// loadChat reads the model of a GGUF file with its tokenizer reading the
// prompt its chat template renders for messages, and returns them.
func loadChat(path string, messages []chat.Message) (*session.Model, string, error) {
	f, closer, err := gguf.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("model %s: %w", path, err)
	}
	defer closer.Close()
	src, err := f.ChatTemplate()
	if err != nil {
		return nil, "", fmt.Errorf("--chat: model %s: %w", path, err)
	}
	tmpl, err := chat.Compile(src)
	if err != nil {
		return nil, "", fmt.Errorf("--chat: model %s: %w", path, err)
	}
	tok, err := f.Tokenizer()
	if err != nil {
		return nil, "", fmt.Errorf("model %s: %w", path, err)
	}
	ct, err := chat.NewTokenizer(tmpl, tok)
	if err != nil {
		return nil, "", fmt.Errorf("--chat: model %s: %w", path, err)
	}
	prompt, err := ct.Render(messages)
	if err != nil {
		return nil, "", fmt.Errorf("--chat: %w", err)
	}
	m, err := f.Model()
	if err != nil {
		return nil, "", fmt.Errorf("model %s: %w", path, err)
	}
	sm, err := session.Pair(path, m, ct)
	return sm, prompt, err
}

// printChat prints the prompt a chat template rendered, special tokens
// between ⟨ and ⟩, as the model reads it (BOS first if its vocabulary
// adds it).
func printChat(w io.Writer, ct *chat.Tokenizer, prompt string, messages int) {
	noun := "messages"
	if messages == 1 {
		noun = "message"
	}
	fmt.Fprintf(w, "chat: %d %s in the model's template; special tokens between ⟨ and ⟩; the reply ends at ⟨%s⟩\n", messages, noun, ct.Token(ct.EOS()))
	var b strings.Builder
	for _, s := range ct.Spans(prompt) {
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
