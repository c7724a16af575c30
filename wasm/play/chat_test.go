package play

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"nexttoken/engine/chat"
	"nexttoken/engine/checkpoint"
	"nexttoken/engine/conversation"
	"nexttoken/engine/link"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// chatName names chatModel in the tests' loader (load).
const chatName = "file:0123456789abcdef:9:chat.gguf"

// chatModel is randmodel's ChatML model with Qwen2.5's chat template
// (package chat's test data) rendered by package chat, made once.
var chatModel = sync.OnceValues(func() (*session.Model, error) {
	ckpt, tok, err := randmodel.ChatML(checkpoint.Config{Dim: 16, HiddenDim: 32, Layers: 1, Heads: 2, KVHeads: 2, VocabSize: 400, SeqLen: 128}, 5)
	if err != nil {
		return nil, err
	}
	m, err := session.Pair(chatName, ckpt, tok)
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "engine", "chat", "testdata", "qwen2.5-instruct.jinja"))
	if err != nil {
		return nil, err
	}
	tmpl, err := chat.Compile(string(src))
	if err != nil {
		return nil, err
	}
	m.ChatTemplate = string(src)
	return m, m.SetChat(tmpl)
})

// chatAction runs one of the chat box's actions the bytes say on r, and
// says which.
func chatAction(r *rig, s *script) string {
	n := len(r.c.sum.Spec.Chat.Messages)
	switch s.n(5) {
	case 0:
		on := s.n(2) == 0
		r.c.UseChat(on)
		return "use chat " + strconv.FormatBool(on)
	case 1:
		i, role, text := s.n(n+1), []string{"system", "user", "assistant", "tool", ""}[s.n(5)], prompts[s.n(len(prompts))]
		r.c.SetMessage(i, conversation.Message{Role: role, Content: text})
		return "message " + strconv.Itoa(i) + " " + role + " " + text
	case 2:
		r.c.AddMessage()
		return "add a message"
	case 3:
		i := s.n(n + 1)
		r.c.RemoveMessage(i)
		return "remove message " + strconv.Itoa(i)
	}
	on := s.n(2) == 0
	r.c.SetGenerationPrompt(on)
	return "generation prompt " + strconv.FormatBool(on)
}

// TestChatActions: the chat box's actions make the session a chat and
// edit its messages, each an undoable action that reopens the session
// from its prompt; what cannot run is said by the box, the session kept.
func TestChatActions(t *testing.T) {
	r := newRig(t, session.Spec{Model: chatName, Prompt: "Hi", Sampler: sampler.DefaultSettings()})
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

	// A chat longer than a link can carry.
	r.c.SetMessage(0, conversation.Message{Role: "user", Content: strings.Repeat("x", link.MaxPrompt)})
	r.settle()
	if s := r.snap(); s.FieldError(FieldChat) != "The messages' texts have 4098 bytes together, more than 4096." || chatOf().Messages[0].Content != "Hi" {
		t.Errorf("a chat too long for a link: field %+v, chat %+v", s.Field, chatOf())
	}

	r.c.Undo()
	r.settle()
	if got := chatOf(); len(got.Messages) != 3 {
		t.Errorf("undo of the removal: %+v", got)
	}

	// The share link and the readable link reopen the chat.
	r.c.Step()
	r.settle()
	_, frag, _ := strings.Cut(r.c.ShareLink(), "#")
	q, _ := link.Query(r.c.sum.Spec)
	for _, address := range [][2]string{{"", frag}, {q.Encode(), ""}} {
		again := newRig(t, toy())
		again.c.OpenAddress(address[0], address[1])
		again.settle()
		if !sameSession(again.c.sum.Spec, r.c.sum.Spec) || again.text() != r.text() {
			t.Errorf("the link %q #%q opened %+v, %q; want %+v, %q", address[0], address[1], again.c.sum.Spec, again.text(), r.c.sum.Spec, r.text())
		}
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
	r := newRig(t, stories(0))
	r.c.OpenModel(chatName)
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

// chatSpec is a chat on chatModel: one user's message.
func chatSpec() session.Spec {
	return session.Spec{Model: chatName, Chat: &session.Chat{Messages: []conversation.Message{{Role: "user", Content: "Hi"}}, GenerationPrompt: true},
		Sampler: sampler.Settings{Temperature: 0.9, Seed: 3}}
}
