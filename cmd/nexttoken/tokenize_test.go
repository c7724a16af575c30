package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/gguf"
)

// llamaCppVocab is a vocabulary of llama.cpp's tokenizer tests.
func llamaCppVocab(name string) string {
	return filepath.Join("..", "..", "engine", "gguf", "testdata", "llamacpp", "ggml-vocab-"+name+".gguf")
}

// TestTokenizeLlamaCpp checks that tokenize prints, byte for byte, the
// lines of llama.cpp's .out files for the texts of its .inp files, for a
// gpt2 and a llama (SentencePiece) vocabulary.
func TestTokenizeLlamaCpp(t *testing.T) {
	for _, name := range []string{"gpt-2", "llama-spm"} {
		path := llamaCppVocab(name)
		inp, err := os.ReadFile(path + ".inp")
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.ReadFile(path + ".out")
		if err != nil {
			t.Fatal(err)
		}
		const sep = "\n__ggml_vocab_test__\n"
		texts := strings.Split(strings.TrimSuffix(string(inp), sep), sep)
		lines := strings.SplitAfter(string(out), "\n")
		for i, text := range texts[:10] { // TestLlamaCppVocabs checks every case
			code, got, errs := runInput(text, "tokenize", "--tokenizer="+path)
			if code != 0 || got != lines[i] {
				t.Errorf("%s case %d %q: exit %d, %q, %s; want %q", name, i, text, code, got, errs, lines[i])
			}
		}
	}
}

func TestTokenizeLlama2c(t *testing.T) {
	tok, err := loadTokenizer(tok512File)
	if err != nil {
		t.Fatal(err)
	}
	const text = "Once upon a time\nthere was a cat."
	ids, _ := tok.Encode(text)
	var want strings.Builder
	for _, id := range ids[1:] { // without BOS
		want.WriteString(" " + strconv.Itoa(id))
	}
	want.WriteString("\n")
	if code, got, errs := runInput(text, "tokenize", "--tokenizer="+tok512File); code != 0 || got != want.String() {
		t.Errorf("exit %d, %q, %s; want %q", code, got, errs, want.String())
	}
}

func TestTokenizeErrors(t *testing.T) {
	bert := writeGGUF(t, gguf.F32, setText("tokenizer.ggml.model", "bert"))
	weights := writeGGUF(t, gguf.F32, nil)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no tokenizer", nil, "tokenize: --tokenizer=FILE is required"},
		{"argument", []string{"--tokenizer=" + tok512File, "hello"}, `tokenize: unexpected argument "hello" (the text comes from standard input)`},
		{"flag", []string{"--vocab=x"}, "tokenize: flag provided but not defined: -vocab"},
		{"missing file", []string{"--tokenizer=nonexistent.bin"}, "tokenize: stat nonexistent.bin: no such file or directory"},
		{"not a regular file", []string{"--tokenizer=/dev/zero"}, "tokenize: /dev/zero is a device, not a regular file"},
		{"not a tokenizer", []string{"--tokenizer=" + stories260KFile}, "tokenize: " + stories260KFile + ": tokenizer:"},
		{"unsupported model", []string{"--tokenizer=" + bert}, `tokenizer.ggml.model "bert" (WordPiece) is not supported yet`},
		{"a GGUF with weights works", []string{"--tokenizer=" + weights}, ""},
	} {
		code, _, errs := runInput("hi", append([]string{"tokenize"}, tc.args...)...)
		if tc.want == "" {
			if code != 0 {
				t.Errorf("%s: exit %d, %s", tc.name, code, errs)
			}
			continue
		}
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, %q; want 1 and %q", tc.name, code, errs, tc.want)
		}
	}
	// Standard input is bounded before it is held.
	var stdout, stderr bytes.Buffer
	huge := io.LimitReader(zeros{}, maxPromptFile+1)
	if code := run([]string{"tokenize", "--tokenizer=" + tok512File}, huge, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "standard input is more than the 16777216 bytes it may have") {
		t.Errorf("a text too long: exit %d, %q", code, stderr.String())
	}
}

// zeros is an endless input of "0".
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}
