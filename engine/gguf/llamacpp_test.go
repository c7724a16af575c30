package gguf

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/tokenizer"
)

// llamaCppVocabs are the vocabulary-only GGUF files of llama.cpp's
// repository (models/ggml-vocab-*.gguf at commit 34af94cd) whose tokenizer
// is llama or gpt2 with a supported pre-tokenizer and whose file the
// mirror held; testdata/llamacpp/README.md says which were left out.
var llamaCppVocabs = []string{
	"deepseek-coder", "deepseek-llm", "falcon", "gpt-2", "llama-spm", "mpt", "phi-3", "refact", "starcoder",
}

// vocabCases reads llama.cpp's tokenizer test cases of vocab name: the
// texts of its .inp file, separated by lines "__ggml_vocab_test__", and the
// lines of its .out file, the ids of each (test-tokenizer-0.cpp,
// read_tests).
func vocabCases(t testing.TB, name string) (texts, ids []string) {
	base := filepath.Join("testdata", "llamacpp", "ggml-vocab-"+name+".gguf")
	inp, err := os.ReadFile(base + ".inp")
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(base + ".out")
	if err != nil {
		t.Fatal(err)
	}
	const sep = "\n__ggml_vocab_test__\n"
	texts = strings.Split(strings.TrimSuffix(string(inp), sep), sep)
	ids = strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(texts) != len(ids) || len(texts) < 40 {
		t.Fatalf("%s: %d texts and %d lines of ids", name, len(texts), len(ids))
	}
	return texts, ids
}

// TestLlamaCppVocabs requires every case of llama.cpp's tokenizer tests
// (test-tokenizer-0: common_tokenize with add_special and parse_special
// false) on every copied vocabulary to give exactly llama.cpp's ids.
func TestLlamaCppVocabs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "llamacpp", "*.gguf"))
	var found []string
	for _, f := range files {
		found = append(found, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "ggml-vocab-"), ".gguf"))
	}
	if !slices.Equal(found, llamaCppVocabs) {
		t.Fatalf("testdata holds %v, want %v", found, llamaCppVocabs)
	}
	for _, name := range llamaCppVocabs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, closer, err := Open(filepath.Join("testdata", "llamacpp", "ggml-vocab-"+name+".gguf"))
			if err != nil {
				t.Fatal(err)
			}
			defer closer.Close()
			tok, err := f.Tokenizer()
			if err != nil {
				t.Fatal(err)
			}
			texts, want := vocabCases(t, name)
			for i, text := range texts {
				ids, err := tokenizer.EncodeText(tok, text)
				if err != nil {
					t.Fatal(err)
				}
				var got strings.Builder
				for _, id := range ids {
					fmt.Fprintf(&got, " %d", id)
				}
				if got.String() != want[i] {
					t.Errorf("case %d %q:\n got %s\nwant %s", i, text, got.String(), want[i])
				}
				if all, _ := tok.Encode(text); tok.MinTokens(text) > len(all) {
					t.Errorf("case %d %q: MinTokens %d, more than Encode's %d tokens", i, text, tok.MinTokens(text), len(all))
				}
			}
		})
	}
}

// BenchmarkGPT2Encode encodes with GPT-2's vocabulary a text of English
// words, and one word of 8 and of 64 KiB, whose merges are the heap's
// work: O(n log n), so 8 times the length takes about 10 times as long
// (quadratic merging would take 64).
func BenchmarkGPT2Encode(b *testing.B) {
	f, closer, err := Open(filepath.Join("testdata", "llamacpp", "ggml-vocab-gpt-2.gguf"))
	if err != nil {
		b.Fatal(err)
	}
	defer closer.Close()
	tok, err := f.Tokenizer()
	if err != nil {
		b.Fatal(err)
	}
	texts, _ := vocabCases(b, "gpt-2")
	for _, bc := range []struct{ name, text string }{
		{"cases", strings.Repeat(strings.Join(texts, " "), 32)},
		{"word8K", strings.Repeat("abcdefgh", 1024)},
		{"word64K", strings.Repeat("abcdefgh", 8192)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				tok.Encode(bc.text)
			}
		})
	}
}
