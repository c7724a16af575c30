package chatprompt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"nexttoken/engine/chat"
	"nexttoken/engine/conversation"
	"nexttoken/engine/tokenizer"
)

// compileFile compiles package chat's testdata/name.jinja, a real template.
func compileFile(t *testing.T, name string) *chat.Template {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "chat", "testdata", name+".jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := chat.Compile(string(src))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tmpl
}

// chatML returns a byte-level vocabulary of the 256 bytes and the
// special tokens of Qwen's: <|endoftext|> (BOS and EOS, as Qwen2.5's GGUF
// has them), <|im_start|> and <|im_end|>, all control tokens.
func chatML(t *testing.T) *tokenizer.GPT2 {
	t.Helper()
	v := tokenizer.GPT2Vocab{BOS: 256, EOS: 256, UNK: -1}
	for b := range 256 {
		v.Tokens = append(v.Tokens, tokenizer.ByteLevel(string([]byte{byte(b)})))
		v.Types = append(v.Types, tokenizer.TokenNormal)
	}
	for _, s := range []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"} {
		v.Tokens = append(v.Tokens, s)
		v.Types = append(v.Types, tokenizer.TokenControl)
	}
	var err error
	if v.Pre, err = tokenizer.LookupPre("qwen2"); err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.NewGPT2(v)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestTokenizer reads Qwen2.5's prompt with its special tokens parsed,
// spelt back, marked, and its end of turn as EOS.
func TestTokenizer(t *testing.T) {
	const imStart, imEnd = 257, 258
	tok, err := NewTokenizer(compileFile(t, "qwen2.5-instruct"), chatML(t))
	if err != nil {
		t.Fatal(err)
	}
	if tok.EOS() != imEnd {
		t.Errorf("EOS %d, want <|im_end|> %d", tok.EOS(), imEnd)
	}
	prompt, err := tok.Render([]conversation.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"; prompt != want {
		t.Fatalf("prompt %q, want %q", prompt, want)
	}
	ids, _ := tok.Encode(prompt)
	want := []int{imStart}
	for _, b := range []byte("system\nBe brief.") {
		want = append(want, int(b))
	}
	want = append(want, imEnd, '\n', imStart)
	for _, b := range []byte("user\nHi") {
		want = append(want, int(b))
	}
	want = append(want, imEnd, '\n', imStart)
	for _, b := range []byte("assistant\n") {
		want = append(want, int(b))
	}
	if !slices.Equal(ids, want) {
		t.Errorf("Encode = %v\nwant %v", ids, want)
	}
	if got := tok.Decode(ids); got != prompt {
		t.Errorf("Decode = %q, want the prompt", got)
	}
	spans := tok.Spans(tok.EncodeSpecial("<|im_start|>user\nHi<|im_end|>"))
	wantSpans := []Span{{"<|im_start|>", true}, {"user\nHi", false}, {"<|im_end|>", true}}
	if !slices.Equal(spans, wantSpans) {
		t.Errorf("Spans = %v, want %v", spans, wantSpans)
	}
}

// sentencePiece returns a SentencePiece vocabulary of <unk>, <s> and </s>
// (unknown and control tokens, as a GGUF file's types mark them), the 256
// byte pieces and " ", with the dummy prefix.
func sentencePiece(t *testing.T) *tokenizer.BPE {
	t.Helper()
	v := &tokenizer.Vocab{MaxTokenLength: 6, Pieces: []string{"<unk>", "<s>", "</s>", " "}}
	for b := range 256 {
		v.Pieces = append(v.Pieces, fmt.Sprintf("<0x%02X>", b))
	}
	v.Scores = make([]float32, len(v.Pieces))
	tok, err := tokenizer.NewBPEWith(v, tokenizer.BPEOptions{BOS: 1, EOS: 2, Special: []int{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestTokenizerSentencePiece reads Mistral's prompt with a SentencePiece
// vocabulary: BOS, the dummy prefix before the text after BOS and after
// each special token (as llama.cpp puts it), </s> read as EOS, the end of
// turn; Decode drops the prefixes and gives the prompt back.
func TestTokenizerSentencePiece(t *testing.T) {
	mistral, err := chat.Compile("{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := NewTokenizer(mistral, sentencePiece(t))
	if err != nil {
		t.Fatal(err)
	}
	if tok.EOS() != 2 {
		t.Errorf("EOS %d, want </s> 2", tok.EOS())
	}
	prompt, err := tok.Render([]conversation.Message{{Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Yo"}, {Role: "user", Content: "Bye"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[INST] Hi [/INST]Yo</s>[INST] Bye [/INST]"; prompt != want {
		t.Fatalf("prompt %q, want %q", prompt, want)
	}
	ids, _ := tok.Encode(prompt)
	spell := func(text string) []int {
		var ids []int
		for _, b := range []byte(text) {
			if b == ' ' {
				ids = append(ids, 3)
			} else {
				ids = append(ids, 4+int(b))
			}
		}
		return ids
	}
	want := slices.Concat([]int{1}, spell(" [INST] Hi [/INST]Yo"), []int{2}, spell(" [INST] Bye [/INST]"))
	if !slices.Equal(ids, want) {
		t.Errorf("Encode = %v\nwant %v", ids, want)
	}
	if got := tok.Decode(ids); got != "<s>"+prompt {
		t.Errorf("Decode = %q, want BOS and the prompt", got)
	}
	wantSpans := []Span{{"<s>", true}, {"[INST] Hi [/INST]Yo", false}, {"</s>", true}, {"[INST] Bye [/INST]", false}}
	if spans := tok.Spans(ids); !slices.Equal(spans, wantSpans) {
		t.Errorf("Spans = %v, want %v", spans, wantSpans)
	}
}

// TestTokenizerErrors: a vocabulary that marks no special tokens, and one
// without the template's end of turn.
func TestTokenizerErrors(t *testing.T) {
	qwen := compileFile(t, "qwen2.5-instruct")
	words, err := tokenizer.NewWords(&tokenizer.Vocab{MaxTokenLength: 3, Pieces: []string{"a", "b"}, Scores: []float32{0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewTokenizer(qwen, words); !errors.Is(err, ErrTokenizer) {
		t.Errorf("words: %v, want ErrTokenizer", err)
	}
	if _, err := NewTokenizer(compileFile(t, "gemma-3-it"), chatML(t)); !errors.Is(err, ErrTokenizer) {
		t.Errorf("Gemma's template on ChatML tokens: %v, want ErrTokenizer", err)
	}
}

// FuzzTokenizer: any UTF-8 prompt, special tokens spelt in it or not,
// reads back as itself (after BOS, if the vocabulary adds it), through
// Decode and through Spans, with a byte-level vocabulary and a
// SentencePiece one.
func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{"<|im_start|>user\nHi<|im_end|>\n", "<|im_end", "<|endoftext|><|endoftext|>", "Grüße 🙂", "<s> x</s>  y", " <unk>"} {
		f.Add(s)
	}
	tmpl, err := chat.Compile(`{% for m in messages %}<|im_start|>{{ m.content }}<|im_end|>{% endfor %}`)
	if err != nil {
		f.Fatal(err)
	}
	mistral, err := chat.Compile(`{% for m in messages %}[INST]{{ m.content }}{{ eos_token }}{% endfor %}`)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		if !utf8.ValidString(prompt) {
			return
		}
		byteLevel, err := NewTokenizer(tmpl, chatML(t))
		if err != nil {
			t.Fatal(err)
		}
		spm, err := NewTokenizer(mistral, sentencePiece(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range []*Tokenizer{byteLevel, spm} {
			want := prompt
			if bos, _ := tok.specialReader.Encode(""); len(bos) > 0 {
				want = tok.Token(bos[0]) + prompt
			}
			ids, _ := tok.Encode(prompt)
			if got := tok.Decode(ids); got != want {
				t.Errorf("%T: Decode(Encode(%q)) = %q", tok.specialReader, prompt, got)
			}
			var spelt strings.Builder
			for _, s := range tok.Spans(ids) {
				spelt.WriteString(s.Text)
			}
			if spelt.String() != want {
				t.Errorf("%T: Spans(%q) spell %q", tok.specialReader, prompt, spelt.String())
			}
		}
	})
}
