package tokenizer

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func catWords(t *testing.T) *Words {
	t.Helper()
	tok, err := NewWords(WordVocab([]string{"The", "cat", "sat", "on", "the", "mat"}))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestWordsEncode(t *testing.T) {
	tok := catWords(t)
	for _, tc := range []struct {
		text string
		want []int
		err  string
	}{
		{"The cat sat on the mat", []int{0, 1, 2, 3, 4, 5}, ""},
		{"", []int{}, ""},
		{" \t\n", []int{}, ""},
		{"  The\tcat\n", []int{0, 1}, ""},
		{"the The", []int{4, 0}, ""},
		{"The dog", nil, `tokenizer: unknown word "dog": the vocabulary is The, cat, sat, on, the, mat`},
		{"Cat", nil, `unknown word "Cat"`},
		{"cat.", nil, `unknown word "cat."`},
	} {
		got, err := tok.Encode(tc.text)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Encode(%q) error %v, want one containing %q", tc.text, err, tc.err)
		case tc.err == "" && (err != nil || got == nil || !slices.Equal(got, tc.want)):
			t.Errorf("Encode(%q) = %#v, %v; want %v", tc.text, got, err, tc.want)
		}
	}
}

func TestWordsDecode(t *testing.T) {
	tok := catWords(t)
	for _, tc := range []struct {
		ids  []int
		want string
	}{
		{nil, ""},
		{[]int{0}, "The"},
		{[]int{0, 1}, "The cat"},
		{[]int{1, 1, 1}, "cat cat cat"},
	} {
		if got := tok.Decode(tc.ids); got != tc.want {
			t.Errorf("Decode(%v) = %q, want %q", tc.ids, got, tc.want)
		}
	}
	ids, _ := tok.Encode(" The  cat ")
	if got := tok.Decode(ids); got != "The cat" {
		t.Errorf("Decode(Encode(%q)) = %q", " The  cat ", got)
	}
	if tok.Piece(-1, 1) != "cat" || tok.Piece(0, 1) != " cat" || tok.Token(1) != "cat" {
		t.Errorf("Piece(-1, 1), Piece(0, 1), Token(1) = %q, %q, %q", tok.Piece(-1, 1), tok.Piece(0, 1), tok.Token(1))
	}
	if tok.VocabSize() != 6 || tok.BOS() != -1 || tok.EOS() != -1 {
		t.Errorf("VocabSize, BOS, EOS = %d, %d, %d; want 6, -1, -1", tok.VocabSize(), tok.BOS(), tok.EOS())
	}
}

func TestNewWordsErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words []string
		want  string
	}{
		{"none", nil, "max_token_length 0"},
		{"empty word", []string{"a", ""}, `piece 1 "" is not a word`},
		{"space", []string{"a b"}, `piece 0 "a b" is not a word`},
		{"no-break space", []string{"a\u00a0b"}, "is not a word"},
		{"duplicate", []string{"a", "b", "a"}, `pieces 0 and 2 are both "a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewWords(WordVocab(tc.words)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestWordsUnknownLongVocabulary(t *testing.T) {
	words := make([]string, 25)
	for i := range words {
		words[i] = fmt.Sprint("w", i)
	}
	tok, err := NewWords(WordVocab(words))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tok.Encode("x")
	if want := "w18, w19 and 5 more"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want one ending %q", err, want)
	}
}

func TestNew(t *testing.T) {
	v, err := Read(tok512File(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		v    *Vocab
		want string // type, or error
	}{
		{"tok512", v, "*tokenizer.BPE"},
		{"words", WordVocab([]string{"The", "cat"}), "*tokenizer.Words"},
		{"bad BPE", bpeVocab("a", "a"), `pieces 0 and 1 are both "a"`},
		{"neither", WordVocab([]string{"The", " cat"}), `piece 1 " cat" is not a word`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := New(tc.v)
			got := fmt.Sprintf("%T", tok)
			if err != nil {
				got = err.Error()
				if tok != nil {
					t.Errorf("New returned %#v with its error", tok)
				}
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("New = %s, want %s", got, tc.want)
			}
		})
	}
}
