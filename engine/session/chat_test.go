package session_test

import (
	"errors"
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

const imStart, imEnd = randmodel.ChatMLStart, randmodel.ChatMLEnd

// chatModel is randmodel's ChatML model with Qwen2.5's chat template
// (package chat's test data) if withTemplate, loaded if loaded.
func chatModel(t *testing.T, withTemplate, loaded bool) *session.Model {
	t.Helper()
	ckpt, tok, err := randmodel.ChatML(checkpoint.Config{Dim: 16, HiddenDim: 32, Layers: 1, Heads: 2, KVHeads: 2, VocabSize: 400, SeqLen: 128}, 5)
	if err != nil {
		t.Fatal(err)
	}
	m, err := session.Pair("qwen-like", ckpt, tok)
	if err != nil {
		t.Fatal(err)
	}
	if !withTemplate {
		return m
	}
	src, err := os.ReadFile(filepath.Join("..", "chat", "testdata", "qwen2.5-instruct.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	m.ChatTemplate = string(src)
	if loaded {
		tmpl, err := chat.Compile(m.ChatTemplate)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SetChat(tmpl); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func loaderOf(m *session.Model) session.Loader {
	return func(string) (*session.Model, error) { return m, nil }
}

var systemUser = []conversation.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}}

// TestChat: a session's messages become the template's prompt, read with
// its special tokens parsed, and a reply stops at the template's end of
// turn, <|im_end|>, which a bare prompt on the same model does not stop
// at.
func TestChat(t *testing.T) {
	m := chatModel(t, true, true)
	spec := session.Spec{Model: "qwen-like", Chat: &session.Chat{Messages: systemUser, GenerationPrompt: true}, Sampler: sampler.DefaultSettings(),
		Forced: []session.Force{{Step: 1, Token: imEnd}}, Steps: 5}
	s, err := session.New(spec, loaderOf(m))
	if err != nil {
		t.Fatal(err)
	}
	const want = "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
	if s.Prompt() != want {
		t.Errorf("prompt %q, want %q", s.Prompt(), want)
	}
	var ids []int
	for _, tok := range s.Trace().Prompt {
		ids = append(ids, tok.ID)
	}
	if got := []int{ids[0], ids[len("system\nBe brief.")+1]}; !slices.Equal(got, []int{imStart, imEnd}) {
		t.Errorf("the prompt's special tokens read as %v, want <|im_start|> and <|im_end|> %v", got, []int{imStart, imEnd})
	}
	tr := s.Trace()
	if wantStop := (session.Stop{Kind: session.EndOfTurn, Token: imEnd, Text: "<|im_end|>", Forced: true}); len(tr.Steps) != 2 || tr.Stop != wantStop {
		t.Errorf("%d steps, stopped %+v; want 2, stopped at <|im_end|>", len(tr.Steps), tr.Stop)
	}
	if s.Model().Chat == nil || s.Model().Tokenizer != s.Model().Chat {
		t.Error("the session's model does not read with its chat template's tokenizer")
	}

	bare := session.Spec{Model: "qwen-like", Prompt: want, Sampler: sampler.DefaultSettings(), Forced: spec.Forced, Steps: 5}
	b, err := session.New(bare, loaderOf(m))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b.Trace().Steps); n != 5 {
		t.Errorf("a bare prompt stopped after %d steps, at %+v; want 5, through <|im_end|>", n, b.Trace().Stop)
	}
	if len(b.Trace().Prompt) != len(want) {
		t.Errorf("a bare prompt is %d tokens, want its %d bytes: special tokens read as text", len(b.Trace().Prompt), len(want))
	}

	// Without the generation prompt, the rendering stops after the user's turn.
	spec.Chat = &session.Chat{Messages: systemUser}
	spec.Forced = nil
	if s, err := session.New(spec, loaderOf(m)); err != nil || !strings.HasSuffix(s.Prompt(), "Hi<|im_end|>\n") {
		t.Errorf("without the generation prompt: %v, %q", err, s.Prompt())
	}
}

// TestChatErrors: what a session with messages cannot do, in words.
func TestChatErrors(t *testing.T) {
	c := &session.Chat{Messages: systemUser, GenerationPrompt: true}
	for _, tc := range []struct {
		name   string
		m      *session.Model
		spec   session.Spec
		want   string
		noChat bool
	}{
		{"no template", chatModel(t, false, false), session.Spec{Chat: c}, "no chat template: the model qwen-like has none, so it takes a prompt, not messages", true},
		{"not loaded", chatModel(t, true, false), session.Spec{Chat: c}, "no chat template: the chat template of the model qwen-like is not loaded", true},
		{"prompt too", chatModel(t, true, true), session.Spec{Chat: c, Prompt: "Hi"}, "a session has a prompt or a chat's messages, not both", false},
		{"role", chatModel(t, true, true), session.Spec{Chat: &session.Chat{Messages: []conversation.Message{{Role: "the user", Content: "Hi"}}}}, `message 1: not a message: the role "the user" has white space or a control character`, false},
		{"template", chatModel(t, true, true), session.Spec{Chat: &session.Chat{Messages: []conversation.Message{{Role: "user", Content: strings.Repeat("x", chat.MaxPrompt)}}}}, "the chat template is too large", false},
	} {
		tc.spec.Model, tc.spec.Sampler = "qwen-like", sampler.DefaultSettings()
		_, err := session.New(tc.spec, loaderOf(tc.m))
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, session.ErrNoChat) != tc.noChat {
			t.Errorf("%s: %v; want an error with %q (ErrNoChat %v)", tc.name, err, tc.want, tc.noChat)
		}
	}
}
