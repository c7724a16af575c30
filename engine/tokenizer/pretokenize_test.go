package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

// TestPreSplit checks each pre-tokenizer's words against its expressions
// as llama.cpp runs them (llama-vocab.cpp, unicode.cpp); "|" separates
// the words wanted.
func TestPreSplit(t *testing.T) {
	for _, tc := range []struct {
		pre, text, want string
	}{
		{"gpt-2", "Hello world", "Hello| world"},
		{"gpt-2", "  Hello", " | Hello"},
		{"gpt-2", "Hello  ", "Hello|  "},
		{"gpt-2", "x  y", "x| | y"},
		{"gpt-2", "a\n\nb", "a|\n|\n|b"},
		{"gpt-2", "I'm 'RE", "I|'m| '|RE"}, // contractions in lower case only
		{"gpt-2", "3.14 ¡hola", "3|.|14| ¡|hola"},
		{"gpt-2", "a\xffb", "a|\uFFFD|b"},         // a byte that is not UTF-8 is U+FFFD, a symbol
		{"gpt-2", "\xed\xa0\x80", "\xed\xa0\x80"}, // a surrogate's bytes stay as they are
		{"mpt", "don't", "don|'t"},
		{"llama-bpe", "Hello world", "Hello| world"},
		{"llama-bpe", "I'M 'Ll", "I|'M| '|Ll"}, // any case, then ' ?[^\s\p{L}\p{N}]+'
		{"llama-bpe", "12345", "123|45"},
		{"llama-bpe", "a\n\n b", "a|\n\n| b"},
		{"llama-bpe", "...\n\nx", "...\n\n|x"},
		{"llama-bpe", "$x  ", "$x|  "},
		{"llama-bpe", "x   y", "x|  | y"},
		{"qwen2", "12345 ab", "1|2|3|4|5| ab"},
		{"smollm", "abc123 4", "abc|1|2|3| |4"},
		{"starcoder", "it's 42", "it|'s| |4|2"},
		{"default", "Hello, world! 1234", "Hello|,| world|!| |123|4"},
		{"default", "a+=b", "a|+=|b"},
		{"falcon", "a`b 12345", "a|`|b| |123|45"},
		{"deepseek-coder", "Hello world 123\n", "Hello| world| |1|2|3|\n"},
		{"deepseek-coder", "中\u3000文", "中|\u3000|文"}, // U+3000 is white space, not in 一-龥ࠀ-一가-퟿
		{"deepseek-coder", "a, b!!", "a|,| b|!!"},
		{"deepseek-llm", "Hello world  ", "Hello| world|  "},
		{"deepseek-llm", "a 12 b", "a| |12| b"},
		{"deepseek-llm", "µ1,\r\n", "µ|1|,|\r|\n"},
	} {
		p, err := LookupPre(tc.pre)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(p.split(tc.text), "|"); got != tc.want {
			t.Errorf("%s: split(%q) = %q, want %q", tc.pre, tc.text, got, tc.want)
		}
	}
}

// TestPreSplitCovers checks that the words of every pre-tokenizer spell
// the text again, with no empty word.
func TestPreSplitCovers(t *testing.T) {
	for _, name := range PreNames() {
		p, _ := LookupPre(name)
		for _, text := range texts {
			words := p.split(text)
			if slices.Contains(words, "") {
				t.Errorf("%s: split(%q) has an empty word: %q", name, text, words)
			}
			if got, want := strings.Join(words, ""), string(appendLaxString(text)); got != want {
				t.Errorf("%s: split(%q) spells %q", name, text, got)
			}
		}
	}
}

// appendLaxString is text as llama.cpp rebuilds it from its code points.
func appendLaxString(text string) []byte {
	var b []byte
	for _, r := range decodeLax(nil, text) {
		b = appendLax(b, r)
	}
	return b
}

func TestClassOf(t *testing.T) {
	for _, tc := range []struct {
		r    rune
		want class
	}{
		{'a', letter}, {'中', letter}, {0x2EBF0, letter}, // CJK Extension I, Unicode 15.1
		{'7', number}, {'½', number}, {'٣', number},
		{0x301, mark}, {'!', punctuation}, {'¡', punctuation}, {'$', symbol}, {0x2FFC, symbol}, {0x31EF, symbol},
		{' ', separator}, {0xA0, separator}, {'\n', other}, {0xE000, other}, {0x378, other}, {0x110000, other},
	} {
		if got := classOf(tc.r); got != tc.want {
			t.Errorf("classOf(%U) = %d, want %d", tc.r, got, tc.want)
		}
	}
	for _, r := range []rune{' ', '\t', '\n', '\v', '\f', '\r', 0x85, 0xA0, 0x1680, 0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000} {
		if !isSpace(r) {
			t.Errorf("isSpace(%U) = false", r)
		}
	}
	for _, r := range []rune{'a', 0x200B, 0x180E, 0xFEFF, -1} {
		if isSpace(r) {
			t.Errorf("isSpace(%U) = true", r)
		}
	}
}

func TestDecodeLax(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []rune
	}{
		{"aé中🙂", []rune("aé中🙂")},
		{"\xed\xa0\x80", []rune{0xD800}},                                         // a surrogate, as encoded
		{"\xc0\x80", []rune{0}},                                                  // an overlong NUL
		{"\xf7\xbf\xbf\xbf", []rune{0x1FFFFF}},                                   // beyond Unicode
		{"\x80a", []rune{0xFFFD, 'a'}},                                           // a continuation byte alone
		{"\xe4\xb8", []rune{0xFFFD, 0xFFFD}},                                     // cut short
		{"\xe4a\xb8", []rune{0xFFFD, 'a', 0xFFFD}},                               // interrupted
		{"\xf8\x88\x80\x80\x80", []rune{0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD}}, // five bytes
	} {
		if got := decodeLax(nil, tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("decodeLax(%q) = %U, want %U", tc.text, got, tc.want)
		}
	}
	if got := string(appendLax(nil, 0x1FFFFF)); got != "\uFFFD" {
		t.Errorf("appendLax(U+1FFFFF) = %q, want U+FFFD", got)
	}
}

func TestRuneClass(t *testing.T) {
	c := newRuneClass("一-龥ࠀ-一a")
	for _, tc := range []struct {
		r    rune
		want bool
	}{{'a', true}, {'b', false}, {0x7FF, false}, {0x800, true}, {0x4E00, true}, {0x9FA5, true}, {0x9FA6, false}} {
		if c.has(tc.r) != tc.want {
			t.Errorf("has(%U) = %v", tc.r, !tc.want)
		}
	}
	if len(c) != 2 {
		t.Errorf("%U: overlapping ranges not merged", c)
	}
}
