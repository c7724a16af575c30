package play

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/chat"
	"nexttoken/engine/checkpoint"
	"nexttoken/engine/conversation"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// chatLoader loads randmodel's ChatML model, "qwen-like", with Qwen2.5's
// chat template (package chat's test data) rendered by package chat, and
// the built-in models.
func chatLoader(t *testing.T) session.Loader {
	t.Helper()
	ckpt, tok, err := randmodel.ChatML(checkpoint.Config{Dim: 16, HiddenDim: 32, Layers: 1, Heads: 2, KVHeads: 2, VocabSize: 400, SeqLen: 128}, 5)
	if err != nil {
		t.Fatal(err)
	}
	m, err := session.Pair("qwen-like", ckpt, tok)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "engine", "chat", "testdata", "qwen2.5-instruct.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := chat.Compile(string(src))
	if err != nil {
		t.Fatal(err)
	}
	m.ChatTemplate = string(src)
	if err := m.SetChat(tmpl); err != nil {
		t.Fatal(err)
	}
	return func(name string) (*session.Model, error) {
		if name == m.Name {
			return m, nil
		}
		return load(name)
	}
}

// TestChatActions: the chat box's actions make the session a chat and
// edit its messages, each an undoable action that reopens the session
// from its prompt; what cannot run is said by the box, the session kept.
func TestChatActions(t *testing.T) {
	r := newRigOn(t, &Local{Load: chatLoader(t)}, session.Spec{Model: "qwen-like", Prompt: "Hi", Sampler: sampler.DefaultSettings()})
	if m := r.snap().Model(); !m.Chat || !m.Special[randmodel.ChatMLEnd] || m.Special['a'] {
		t.Fatalf("the model's view: chat %v, special tokens %v", m.Chat, m.Special[250:260])
	}
	chatOf := func() session.Chat { return *r.snap().Session.Spec.Chat }
	r.c.Step()
	r.c.UseChat(true)
	r.settle()
	s := r.snap()
	if c := s.Session.Spec.Chat; c == nil || !slices.Equal(c.Messages, []conversation.Message{{Role: "user", Content: "Hi"}}) || !c.GenerationPrompt ||
		s.Session.Spec.Prompt != "" || s.Steps() != 0 {
		t.Fatalf("UseChat: spec %+v, %d steps", s.Session.Spec, s.Steps())
	}
	if first := s.Session.Trace.Prompt[0]; first.ID != randmodel.ChatMLStart || !strings.HasSuffix(r.text(), "<|im_start|>assistant\n") {
		t.Errorf("the chat's prompt starts with %+v and reads %q", first, r.text())
	}
	kept := s.Session.Spec.Chat

	r.c.AddMessage()
	r.c.SetMessage(1, conversation.Message{Role: "assistant", Content: "Yo"})
	r.c.AddMessage()
	r.c.SetGenerationPrompt(false)
	r.settle()
	want := session.Chat{Messages: []conversation.Message{{Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Yo"}, {Role: "user"}}}
	if got := chatOf(); !slices.Equal(got.Messages, want.Messages) || got.GenerationPrompt {
		t.Errorf("after the edits: %+v, want %+v", got, want)
	}
	if len(kept.Messages) != 1 {
		t.Errorf("the edits changed the chat of an earlier session: %+v", kept)
	}
	r.c.RemoveMessage(2)
	r.settle()
	if got := chatOf(); len(got.Messages) != 2 || !strings.HasSuffix(r.text(), "Yo<|im_end|>\n") {
		t.Errorf("after the removal: %+v, text %q", got, r.text())
	}

	// A role the template cannot take, or one that is no role: said by
	// the box, the session as it was.
	r.c.SetMessage(0, conversation.Message{Role: "the user", Content: "Hi"})
	r.settle()
	if s := r.snap(); s.FieldError(FieldChat) != `Message 1: not a message: the role "the user" has white space or a control character.` || len(chatOf().Messages) != 2 {
		t.Errorf("a bad role: field %+v, chat %+v", s.Field, chatOf())
	}

	r.c.Undo()
	r.settle()
	if got := chatOf(); len(got.Messages) != 3 {
		t.Errorf("undo of the removal: %+v", got)
	}
	r.c.UseChat(false)
	r.settle()
	if s := r.snap(); s.Session.Spec.Chat != nil || s.Session.Spec.Prompt != "Yo" || s.Prompt != "Yo" {
		t.Errorf("UseChat(false): spec %+v, prompt field %q", s.Session.Spec, s.Prompt)
	}
}

// TestOpenModelAsChat: a model that has a chat template opens as a chat,
// the prompt its user's message; one without opens with the prompt.
func TestOpenModelAsChat(t *testing.T) {
	r := newRigOn(t, &Local{Load: chatLoader(t)}, stories(0))
	r.c.OpenModel("qwen-like")
	r.settle()
	if c := r.snap().Session.Spec.Chat; c == nil || !slices.Equal(c.Messages, []conversation.Message{{Role: "user", Content: "Once upon a time"}}) {
		t.Fatalf("the chat model opened with %+v", r.snap().Session.Spec)
	}
	r.c.OpenModel("stories260K")
	r.settle()
	if spec := r.snap().Session.Spec; spec.Chat != nil || spec.Prompt != "Once upon a time" {
		t.Errorf("the model without a template opened with %+v", spec)
	}
}
