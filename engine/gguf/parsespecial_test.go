package gguf

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestParseSpecialMatchesLlamaCpp tokenizes texts that spell the special
// tokens of llama.cpp's byte-level and SentencePiece vocabularies, as a
// chat prompt does, and expects the ids llama.cpp's llama_tokenize gives
// with add_special and parse_special (testdata/parsespecial).
func TestParseSpecialMatchesLlamaCpp(t *testing.T) {
	fd, err := os.Open("testdata/parsespecial/llamacpp.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	type specialEncoder interface{ EncodeSpecial(string) []int }
	toks := map[string]specialEncoder{}
	lines := bufio.NewScanner(fd)
	n := 0
	for lines.Scan() {
		var c struct {
			Vocab, Text string
			IDs         []int
		}
		if err := json.Unmarshal(lines.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		tok, ok := toks[c.Vocab]
		if !ok {
			f, closer, err := Open(filepath.Join("testdata", "llamacpp", c.Vocab))
			if err != nil {
				t.Fatal(err)
			}
			any, err := f.Tokenizer()
			closer.Close()
			if err != nil {
				t.Fatal(err)
			}
			if tok, ok = any.(specialEncoder); !ok {
				t.Fatalf("%s: %T reads no special tokens", c.Vocab, any)
			}
			toks[c.Vocab] = tok
		}
		if got := tok.EncodeSpecial(c.Text); !slices.Equal(got, c.IDs) && (len(got) > 0 || len(c.IDs) > 0) {
			t.Errorf("%s: EncodeSpecial(%q) = %v, want %v", c.Vocab, c.Text, got, c.IDs)
		}
		n++
	}
	if err := lines.Err(); err != nil || n == 0 {
		t.Fatalf("%d cases read: %v", n, err)
	}
}
