package gguf

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"nexttoken/engine/tokenizer"
)

// gpt2File writes a vocabulary-only GGUF file of the 256 byte-level tokens
// and a token per merge ("a b" in the byte-level alphabet), with <|end|>
// last as a control token for BOS and EOS.
func gpt2File(tb testing.TB, pre string, merges []string) []byte {
	tb.Helper()
	var tokens []string
	for b := range 256 {
		tokens = append(tokens, tokenizer.ByteLevel(string([]byte{byte(b)})))
	}
	for _, m := range merges {
		if joined := strings.Replace(m, " ", "", 1); !slices.Contains(tokens, joined) {
			tokens = append(tokens, joined)
		}
	}
	tokens = append(tokens, "<|end|>")
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = int32(tokenizer.TokenNormal)
	}
	types[len(types)-1] = int32(tokenizer.TokenControl)
	md := Metadata{
		{"tokenizer.ggml.model", mustValue(tb, "gpt2")},
		{"tokenizer.ggml.pre", mustValue(tb, pre)},
		{"tokenizer.ggml.tokens", mustValue(tb, tokens)},
		{"tokenizer.ggml.token_type", mustValue(tb, types)},
		{"tokenizer.ggml.merges", mustValue(tb, merges)},
		{"tokenizer.ggml.bos_token_id", mustValue(tb, uint32(len(tokens)-1))},
		{"tokenizer.ggml.eos_token_id", mustValue(tb, uint32(len(tokens)-1))},
	}
	var buf bytes.Buffer
	if err := Write(&buf, md, nil); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func readGPT2(tb testing.TB, data []byte) (tokenizer.Tokenizer, error) {
	tb.Helper()
	f, err := Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatal(err)
	}
	return f.Tokenizer()
}

func TestGPT2Vocab(t *testing.T) {
	data := gpt2File(t, "llama-bpe", []string{"Ġ t", "h e", "Ġt he"})
	tok, err := readGPT2(t, data)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("the the")
	// llama-bpe adds BOS unless the file says otherwise.
	if got := []string{tok.Token(ids[0]), tok.Token(ids[1]), tok.Token(ids[2]), tok.Token(ids[3])}; len(ids) != 4 ||
		!slices.Equal(got, []string{"<|end|>", "t", "he", " the"}) {
		t.Errorf("Encode(\"the the\") = %v %q", ids, got)
	}
	if tok.BOS() != tok.VocabSize()-1 || tok.EOS() != tok.BOS() {
		t.Errorf("BOS %d, EOS %d, want %d", tok.BOS(), tok.EOS(), tok.VocabSize()-1)
	}
}

func TestGPT2VocabRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"pre-tokenizer", gpt2File(t, "tekken", nil), `tokenizer.ggml.pre: tokenizer: pre-tokenizer "tekken" is not supported; the supported ones are`},
		{"merge without a space", gpt2File(t, "gpt-2", []string{"ab"}), `tokenizer.ggml.merges[0] is "ab", want two tokens separated by a space`},
		{"merge without a second token", gpt2File(t, "gpt-2", []string{"a "}), `tokenizer.ggml.merges[0] is "a ", want`},
	} {
		if _, err := readGPT2(t, tc.file); err == nil || !strings.HasPrefix(err.Error(), "gguf: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestSplitMerges(t *testing.T) {
	got, err := SplitMerges([]string{"a b", "Ġ t", "  x", "a b c"})
	// A space may start the first token (llama.cpp looks for the separator
	// from the second byte on); later spaces belong to the second.
	if want := [][2]string{{"a", "b"}, {"Ġ", "t"}, {" ", "x"}, {"a", "b c"}}; err != nil || !slices.Equal(got, want) {
		t.Errorf("SplitMerges = %q, %v; want %q", got, err, want)
	}
}

// FuzzMerges writes a GGUF vocabulary whose merges are the fuzzer's lines
// and checks the merges decoder: each merge splits into two non-empty
// tokens that spell it again, or the file is refused with a "gguf: "
// error; a vocabulary that reads encodes text so that it decodes back.
func FuzzMerges(f *testing.F) {
	f.Add("Ġ t\nh e\nĠt he", "the the")
	f.Add("a b\nab c\n  x", "abc  x")
	f.Add("ab", "")
	f.Add("Ã ©\nÃ© Ã©", "éé")
	f.Fuzz(func(t *testing.T, merges, text string) {
		if len(merges) > 1<<12 {
			return
		}
		list := strings.Split(merges, "\n")
		pairs, err := SplitMerges(list)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "gguf: ") {
				t.Fatalf("error without prefix: %v", err)
			}
		}
		for i, p := range pairs {
			if p[0] == "" || p[1] == "" || p[0]+" "+p[1] != list[i] {
				t.Fatalf("merge %q split into %q", list[i], p)
			}
		}
		tok, err := readGPT2(t, gpt2File(t, "gpt-2", list))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "gguf: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		ids, _ := tok.Encode(text)
		if got := tok.Decode(ids); utf8.ValidString(text) && got != text {
			t.Fatalf("merges %q: Decode(Encode(%q)) = %q", list, text, got)
		}
	})
}
