package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/gguf"
	"nexttoken/engine/tokenizer"
)

// chatTestdata is package chat's test data: real templates, conversations
// and what llama.cpp renders for them.
var chatTestdata = filepath.Join("..", "..", "engine", "chat", "testdata")

// chatEnd is the id chatGGUF gives <|im_end|>: one the random model
// chooses, after the prompt of conversations/system-user.json, at step 8.
const chatEnd = 405

// withTemplate adds a chat template to a file's metadata.
func withTemplate(src string) func(*gguf.File) {
	return func(f *gguf.File) {
		v, _ := gguf.NewValue(src)
		f.Metadata = append(f.Metadata, gguf.KV{Key: "tokenizer.chat_template", Value: v})
	}
}

// chatGGUF writes stories260K's weights with gpt2Vocab's byte-level
// vocabulary, whose tokens 509 and chatEnd become the control tokens
// <|im_start|> and <|im_end|>, and the chat template src (none if "").
func chatGGUF(t *testing.T, src string) string {
	t.Helper()
	return writeGGUF(t, gguf.F32, func(f *gguf.File) {
		gpt2Vocab(f)
		for i := range f.Metadata {
			kv := &f.Metadata[i]
			a, _ := kv.Value.Array()
			switch kv.Key {
			case "tokenizer.ggml.tokens":
				tokens, _ := a.Strings()
				tokens[509], tokens[chatEnd] = "<|im_start|>", "<|im_end|>"
				kv.Value, _ = gguf.NewValue(tokens)
			case "tokenizer.ggml.token_type":
				types := make([]int32, a.Len())
				for i := range types {
					types[i] = int32(tokenizer.TokenNormal)
				}
				types[509], types[chatEnd], types[511] = int32(tokenizer.TokenControl), int32(tokenizer.TokenControl), int32(tokenizer.TokenControl)
				kv.Value, _ = gguf.NewValue(types)
			}
		}
		if src != "" {
			withTemplate(src)(f)
		}
	})
}

// readChatTestdata returns a file of package chat's test data.
func readChatTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chatTestdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestTraceChat traces a random model with Qwen2.5's template: the
// prompt is what llama.cpp renders for the messages, byte for byte, its
// special tokens are read as such and marked, and the reply stops at
// <|im_end|>. The messages may come from a file or from flags alike.
func TestTraceChat(t *testing.T) {
	path := chatGGUF(t, readChatTestdata(t, "qwen2.5-instruct.jinja"))
	rendered := readChatTestdata(t, "expected/qwen2.5-instruct/system-user.gen.txt")
	fromFile := []string{"trace", "--model=" + path, "--messages=" + filepath.Join(chatTestdata, "conversations", "system-user.json"), "--steps=40", "--top=1"}
	code, out, errs := runCmd(fromFile...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"chat: 2 messages in the model's template; special tokens between ⟨ and ⟩; the reply ends at ⟨<|im_end|>⟩\n" +
			"  ⟨<|im_start|>⟩system\n  You are a helpful assistant.⟨<|im_end|>⟩\n  ⟨<|im_start|>⟩user\n  Hello⟨<|im_end|>⟩\n  ⟨<|im_start|>⟩assistant\n\n",
		"prompt " + strconv.Quote(rendered) + ": 50 tokens\n",
		"    0    509  \"<|im_start|>\"\n",
		"   28    405  \"<|im_end|>\"\n",
		"greedy: argmax p = \"<|im_end|>\" (id 405, p = 0.421005)",
		"stopped: the model ended the assistant's turn with <|im_end|>\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "step 9 ") {
		t.Errorf("trace goes on past <|im_end|> at step 8:\n%s", out)
	}
	fromFlags := []string{"trace", "--model=" + path, "--message=system:You are a helpful assistant.", "--message=user:Hello", "--steps=40", "--top=1"}
	if code, again, errs := runCmd(fromFlags...); code != 0 || again != out {
		t.Errorf("--message flags: exit %d, %s\n%s\nwant the trace of --messages:\n%s", code, errs, again, out)
	}
	// --chat with --prompt: one user message, and Qwen's own system prompt.
	code, out, errs = runCmd("trace", "--model="+path, "--chat", "--prompt=Hello", "--steps=0")
	if want := readChatTestdata(t, "expected/qwen2.5-instruct/user.gen.txt"); code != 0 || !strings.HasPrefix(out, "chat: 1 message in the model's template;") ||
		!strings.Contains(out, "prompt "+strconv.Quote(strings.Replace(want, "What is the capital of France?", "Hello", 1))) {
		t.Errorf("--chat --prompt: exit %d, %s\n%s", code, errs, out)
	}
}

// TestTraceChatErrors: what --chat cannot do is said in the user's words.
func TestTraceChatErrors(t *testing.T) {
	dir := t.TempDir()
	badJSON := filepath.Join(dir, "bad.json")
	noRole := filepath.Join(dir, "norole.json")
	os.WriteFile(badJSON, []byte(`{"role": "user"}`), 0o644)
	os.WriteFile(noRole, []byte(`[{"content": "Hi"}]`), 0o644)
	qwen := chatGGUF(t, readChatTestdata(t, "qwen2.5-instruct.jinja"))
	const recurses = `{% macro f() %}{{ f() }}{% endmacro %}{% for m in messages %}{% if m.content == "loop" %}{{ f() }}{% endif %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}`
	const raises = `{% for m in messages %}{% if m.content == "boom" %}{{ raise_exception("no boom here") }}{% endif %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}`
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no messages", []string{"--model=" + qwen, "--chat"}, "--chat needs messages: --message=user:TEXT"},
		{"no role", []string{"--model=" + qwen, "--message=Hello"}, `invalid value "Hello" for flag -message: want role:text, such as user:Hello`},
		{"both", []string{"--model=" + qwen, "--message=user:Hi", "--messages=" + noRole}, "--message and --messages: give one"},
		{"prompt too", []string{"--model=" + qwen, "--message=user:Hi", "--prompt=Hello"}, "--prompt and --message or --messages: give one"},
		{"logits", []string{"--logits=1,2", "--chat", "--prompt=Hi"}, "--chat needs a model, not --logits"},
		{"bad file", []string{"--model=" + qwen, "--messages=" + badJSON}, `want a JSON list of messages, [{"role": "user", "content": "Hello"}]`},
		{"file without a role", []string{"--model=" + qwen, "--messages=" + noRole}, "message 1: not a message: the role is empty"},
		{"embedded model", []string{"--model=toy", "--chat", "--prompt=Hi"}, "--chat needs a GGUF model file, whose metadata holds its chat template; the embedded model toy has none"},
		{"no template", []string{"--model=" + chatGGUF(t, ""), "--chat", "--prompt=Hi"}, "the model has no chat template (tokenizer.chat_template)"},
		{"SentencePiece without the template's tokens", []string{"--model=" + writeGGUF(t, gguf.F32, withTemplate(readChatTestdata(t, "gemma-3-it.jinja"))), "--chat", "--prompt=Hi"}, "no special token of the vocabulary follows an assistant's reply in the template"},
		{"no end of turn", []string{"--model=" + chatGGUF(t, readChatTestdata(t, "gemma-3-it.jinja")), "--chat", "--prompt=Hi"}, "no special token of the vocabulary follows an assistant's reply in the template"},
		{"syntax", []string{"--model=" + chatGGUF(t, "{% if %}"), "--chat", "--prompt=Hi"}, "the chat template is not valid Jinja"},
		{"recursion", []string{"--model=" + chatGGUF(t, recurses), "--message=user:loop"}, "the chat template is too large: macros called more than 256 deep"},
		{"recursive loop", []string{"--model=" + chatGGUF(t, `{% for c in "ab" recursive %}{{ loop(c) }}{% endfor %}`), "--chat", "--prompt=Hi"}, "the chat template could run without end: a recursive for loop"},
		{"exception", []string{"--model=" + chatGGUF(t, raises), "--message=user:boom"}, "the chat template failed: no boom here"},
	} {
		code, _, errs := runCmd(append([]string{"trace"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, %q; want an error with %q", c.name, code, errs, c.want)
		}
	}
}

// TestTraceChatInterrupted: Ctrl-C stops a template that loops for long.
func TestTraceChatInterrupted(t *testing.T) {
	slow := chatGGUF(t, `{% for a in range(1000) %}{% for b in range(1000) %}{% endfor %}{% endfor %}{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr strings.Builder
	err := traceUntil(ctx, []string{"--model=" + slow, "--chat", "--prompt=Hi"}, &stdout, &stderr)
	if want := "trace: --chat: interrupted while the chat template was rendered"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestTraceChatSentencePiece traces stories260K, whose vocabulary is
// SentencePiece's, with Mistral's template (from llama.cpp's
// test-chat-template.cpp), whose turns end with EOS: BOS, the prompt with
// </s> read as EOS, and the dummy prefix after it as llama.cpp puts it.
func TestTraceChatSentencePiece(t *testing.T) {
	const mistral = "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}"
	path := writeGGUF(t, gguf.F32, withTemplate(mistral))
	code, out, errs := runCmd("trace", "--model="+path, "--message=user:Once", "--message=assistant:upon", "--message=user:a time", "--steps=1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"chat: 3 messages in the model's template; special tokens between ⟨ and ⟩; the reply ends at ⟨</s>⟩\n  ⟨<s>⟩[INST] Once [/INST]upon⟨</s>⟩[INST] a time [/INST]\n\n",
		`prompt "[INST] Once [/INST]upon</s>[INST] a time [/INST]"`,
		"    0      1  \"<s>\"\n",
		"  \"</s>\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
}
