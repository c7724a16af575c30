package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// toyGPT2 returns a vocabulary of the 256 byte tokens (token b is byte b)
// and a token per merge, the merges given as "a b" in plain text with "Ġ"
// for a space (spelt in the byte-level alphabet here), with pre-tokenizer
// pre.
func toyGPT2(tb testing.TB, pre string, merges ...string) *GPT2 {
	tb.Helper()
	v := GPT2Vocab{BOS: -1, EOS: -1, UNK: -1}
	toRune, _ := byteAlphabet()
	for b := range 256 {
		v.Tokens = append(v.Tokens, string(toRune[b]))
	}
	for _, m := range merges {
		a, b, _ := strings.Cut(m, " ")
		plain := strings.NewReplacer("Ġ", " ")
		pair := [2]string{ByteLevel(plain.Replace(a)), ByteLevel(plain.Replace(b))}
		v.Merges = append(v.Merges, pair)
		if !slices.Contains(v.Tokens, pair[0]+pair[1]) {
			v.Tokens = append(v.Tokens, pair[0]+pair[1])
		}
	}
	var err error
	if v.Pre, err = LookupPre(pre); err != nil {
		tb.Fatal(err)
	}
	t, err := NewGPT2(v)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// spell returns the tokens of ids as plain text, "|" between them.
func spellGPT2(t *GPT2, ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = t.Piece(-1, id)
	}
	return strings.Join(parts, "|")
}

func TestByteLevelAlphabet(t *testing.T) {
	toRune, toByte := byteAlphabet()
	seen := map[rune]bool{}
	for b, r := range toRune {
		if seen[r] || toByte[r] != byte(b) {
			t.Fatalf("byte %#x ↔ %U is not one to one", b, r)
		}
		seen[r] = true
	}
	for _, tc := range []struct {
		b byte
		r rune
	}{{' ', 'Ġ'}, {'\n', 'Ċ'}, {'\t', 'ĉ'}, {0, 'Ā'}, {'!', '!'}, {'~', '~'}, {0x7F, 'ġ'}, {0xAD, 'Ń'}, {0xFF, 'ÿ'}} {
		if toRune[tc.b] != tc.r {
			t.Errorf("byte %#x is %U, want %U", tc.b, toRune[tc.b], tc.r)
		}
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	if got := byteDecode(ByteLevel(string(all))); got != string(all) {
		t.Errorf("byteDecode(byteEncode(every byte)) = %q", got)
	}
}

// TestGPT2Merges checks the order of merges on a toy vocabulary: the
// lowest rank first, the leftmost on ties, within words only.
func TestGPT2Merges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		merges []string
		text   string
		want   string
	}{
		{"no merges", nil, "abc", "a|b|c"},
		{"lowest rank first", []string{"b c", "a b"}, "abc", "a|bc"},
		{"then the next", []string{"a b", "ab c", "b c"}, "abc", "abc"},
		{"leftmost on ties", []string{"a a"}, "aaa", "aa|a"},
		{"a merged pair merges again", []string{"a a", "aa aa"}, "aaaaa", "aaaa|a"},
		{"within a word", []string{"a Ġ", "Ġ b"}, "a b", "a| b"},
		{"space starts the word", []string{"Ġ w", "Ġw o"}, "a wo", "a| wo"},
		{"characters are merged bytes", []string{"\xc3 \xa9", "é é"}, "éé", "éé"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := toyGPT2(t, "gpt-2", tc.merges...)
			ids, _ := tok.Encode(tc.text)
			if got := spellGPT2(tok, ids); got != tc.want {
				t.Errorf("Encode(%q) = %s, want %s", tc.text, got, tc.want)
			}
			if got := tok.Decode(ids); got != tc.text {
				t.Errorf("Decode(Encode(%q)) = %q", tc.text, got)
			}
		})
	}
}

// mergeWordQuadratic is llama.cpp's merge as a scan: the pair of the lowest
// rank, the leftmost on ties, until none is a merge. It is the oracle for
// the heap.
func mergeWordQuadratic(t *GPT2, word string) []string {
	var syms []string
	for _, r := range word {
		syms = append(syms, string(r))
	}
	for {
		best, bestRank := -1, int32(-1)
		for i := 0; i+1 < len(syms); i++ {
			if r, ok := t.ranks[[2]string{syms[i], syms[i+1]}]; ok && (best < 0 || r < bestRank) {
				best, bestRank = i, r
			}
		}
		if best < 0 {
			return syms
		}
		syms[best] += syms[best+1]
		syms = slices.Delete(syms, best+1, best+2)
	}
}

func TestGPT2MergesMatchQuadratic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		// Random merges over a small alphabet make long chains and ties.
		tok := toyGPT2(t, "gpt-2")
		var grown []string
		for _, c := range "abc" {
			grown = append(grown, string(c))
		}
		for range 30 {
			a, b := grown[r.IntN(len(grown))], grown[r.IntN(len(grown))]
			m := [2]string{a, b}
			if _, dup := tok.ranks[m]; dup {
				continue
			}
			tok.ranks[m] = int32(len(tok.ranks))
			if _, ok := tok.ids[a+b]; !ok {
				tok.ids[a+b] = len(tok.tokens)
				tok.tokens = append(tok.tokens, a+b)
			}
			grown = append(grown, a+b)
		}
		word := make([]byte, r.IntN(40))
		for i := range word {
			word[i] = "abc"[r.IntN(3)]
		}
		var got []string
		for _, id := range tok.appendWord(nil, string(word)) {
			got = append(got, tok.tokens[id])
		}
		if want := mergeWordQuadratic(tok, string(word)); !slices.Equal(got, want) {
			t.Fatalf("%q with ranks %v: %q, want %q", word, tok.ranks, got, want)
		}
	}
}

// TestGPT2Symbols checks what llama.cpp does with symbols that are not
// tokens: spelt byte by byte, bytes that are not tokens dropped.
func TestGPT2Symbols(t *testing.T) {
	tok := toyGPT2(t, "gpt-2", "x y")
	xy := tok.ids["xy"]
	delete(tok.ids, "xy") // the merge's result is no token
	delete(tok.ids, "é")  // nor is é's second byte's character (U+00A9 "©")
	if got := tok.appendWord(nil, "xy"); !slices.Equal(got, []int{'x', 'y'}) {
		t.Errorf("xy without its token: %v, want the tokens of x and y", got)
	}
	if got := tok.appendWord(nil, "é"); len(got) != 0 {
		t.Errorf("a character that is no token, of bytes that are none either: %v, want nothing", got)
	}
	tok.ids["xy"] = xy
	tok.pre.ignoreMerges = true
	tok.ids["xyz"] = tok.ids["xy"] // a whole word that is a token is taken whole
	if got := tok.appendWord(nil, "xyz"); !slices.Equal(got, []int{xy}) {
		t.Errorf("ignore_merges: %v, want [%d]", got, xy)
	}
}

func TestGPT2AddedTokens(t *testing.T) {
	v := GPT2Vocab{BOS: -1, EOS: -1, UNK: -1}
	toRune, _ := byteAlphabet()
	for b := range 256 {
		v.Tokens = append(v.Tokens, string(toRune[b]))
	}
	v.Tokens = append(v.Tokens, "  ", "   ", "<|x|>", "<|ctl|>")
	v.Types = make([]TokenType, len(v.Tokens))
	for i := range v.Types {
		v.Types[i] = TokenNormal
	}
	spaces2, spaces3, x, ctl := 256, 257, 258, 259
	v.Types[spaces2], v.Types[spaces3], v.Types[x], v.Types[ctl] = TokenUserDefined, TokenUserDefined, TokenUserDefined, TokenControl
	v.Pre, _ = LookupPre("gpt-2")
	tok, err := NewGPT2(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text string
		want []int
	}{
		// The longest added token is cut out first, wherever it is.
		{"a     b", []int{'a', spaces3, spaces2, 'b'}},
		{"a    b", []int{'a', spaces3, ' ', 'b'}},
		{"<|x|>a<|x|>", []int{x, 'a', x}},
		// Control tokens are text unless special tokens are parsed.
		{"<|ctl|>", []int{'<', '|', 'c', 't', 'l', '|', '>'}},
	} {
		if got := tok.EncodeText(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("EncodeText(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	if tok.Piece(-1, x) != "<|x|>" || tok.Piece(-1, ctl) != "" || tok.Piece(-1, spaces2) != "  " {
		t.Errorf("pieces %q %q %q: want added tokens as written and control tokens empty", tok.Piece(-1, x), tok.Piece(-1, ctl), tok.Piece(-1, spaces2))
	}
}

func TestGPT2BOS(t *testing.T) {
	tok := toyGPT2(t, "llama-bpe")
	tok.bos, tok.addBOS = 'B', true
	ids, _ := tok.Encode("hi")
	if want := []int{'B', 'h', 'i'}; !slices.Equal(ids, want) {
		t.Errorf("Encode with add_bos = %v, want %v", ids, want)
	}
	if got := tok.EncodeText("hi"); !slices.Equal(got, ids[1:]) {
		t.Errorf("EncodeText = %v, want no BOS", got)
	}
	if p, _ := LookupPre("llama-bpe"); !p.AddBOS {
		t.Error("llama-bpe does not add BOS by default")
	}
}

func TestGPT2Token(t *testing.T) {
	tok := toyGPT2(t, "gpt-2", "Ġ t", "Ġt h", "Ġth e", "\xe2 \x80")
	for _, tc := range []struct{ token, want string }{
		{ByteLevel(" the"), " the"},
		{ByteLevel("\n"), "\n"},
		{ByteLevel("\xe2\x80"), "<0xE2><0x80>"},
	} {
		if got := tok.Token(tok.ids[tc.token]); got != tc.want {
			t.Errorf("Token(%q) = %q, want %q", tc.token, got, tc.want)
		}
	}
}

func TestNewGPT2Errors(t *testing.T) {
	pre, _ := LookupPre("gpt-2")
	ok := GPT2Vocab{Tokens: []string{"a", "b"}, Pre: pre, BOS: -1, EOS: -1, UNK: -1}
	for _, tc := range []struct {
		name string
		edit func(*GPT2Vocab)
		want string
	}{
		{"no tokens", func(v *GPT2Vocab) { v.Tokens = nil }, "no tokens"},
		{"types", func(v *GPT2Vocab) { v.Types = []TokenType{1} }, "2 tokens but 1 token types"},
		{"empty", func(v *GPT2Vocab) { v.Tokens = []string{"a", ""} }, "token 1 is empty"},
		{"duplicate", func(v *GPT2Vocab) { v.Tokens = []string{"a", "a"} }, `tokens 0 and 1 are both "a"`},
		{"BOS", func(v *GPT2Vocab) { v.BOS = 2 }, "special token id 2 is outside the vocabulary of 2"},
		{"add BOS", func(v *GPT2Vocab) { v.AddBOS = true }, "no BOS token"},
		{"no pre", func(v *GPT2Vocab) { v.Pre = Pre{} }, "no pre-tokenizer"},
	} {
		v := ok
		tc.edit(&v)
		if _, err := NewGPT2(v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := NewGPT2(ok); err != nil {
		t.Errorf("a good vocabulary: %v", err)
	}
}

func TestLookupPre(t *testing.T) {
	for _, name := range []string{"", "default", "gpt-2", "llama-bpe", "smollm", "qwen2", "deepseek-llm", "deepseek-coder", "falcon", "mpt", "starcoder", "refact"} {
		if _, err := LookupPre(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	_, err := LookupPre("tekken")
	if err == nil || !strings.Contains(err.Error(), `"tekken" is not supported`) || !strings.Contains(err.Error(), "llama-bpe") {
		t.Errorf("an unsupported pre-tokenizer: %v, want it named with the supported ones", err)
	}
}

// TestGPT2MinTokens checks that MinTokens bounds Encode from below, on
// text with invalid and overlong UTF-8.
func TestGPT2MinTokens(t *testing.T) {
	tok := toyGPT2(t, "gpt-2", "a a", "aa aa", "aaaa aaaa", "Ġ aaaaaaaa")
	r := rand.New(rand.NewPCG(3, 4))
	for _, text := range append(slices.Clone(texts), strings.Repeat("a", 100), strings.Repeat(" aaaaaaaa", 20), strings.Repeat("\xf0\x80\x80\x80", 9)) {
		if ids, _ := tok.Encode(text); tok.MinTokens(text) > len(ids) {
			t.Errorf("MinTokens(%q) = %d, more than the %d tokens", text, tok.MinTokens(text), len(ids))
		}
	}
	for range 200 {
		b := make([]byte, r.IntN(50))
		for i := range b {
			b[i] = "a \xf0\x80\xc0"[r.IntN(5)]
		}
		if ids, _ := tok.Encode(string(b)); tok.MinTokens(string(b)) > len(ids) {
			t.Fatalf("MinTokens(%q) = %d, more than the %d tokens", b, tok.MinTokens(string(b)), len(ids))
		}
	}
	delete(tok.ids, ByteLevel("a"))
	tok.covered = false
	if got := tok.MinTokens("aaaa"); got != 0 {
		t.Errorf("MinTokens without every byte = %d, want 0", got)
	}
}

// FuzzGPT2Encode checks that Decode(Encode(text)) is text for valid UTF-8,
// with every byte a token, under every way of splitting words.
func FuzzGPT2Encode(f *testing.F) {
	merges := []string{"a a", "Ġ t", "Ġt h", "h e", "Ġth e", "' s", "1 2", "é é", "Ċ Ċ"}
	var toks []*GPT2
	// One name per way of splitting (the others are aliases).
	for _, pre := range []string{"default", "gpt-2", "llama-bpe", "qwen2", "deepseek-llm", "deepseek-coder", "falcon", "starcoder"} {
		toks = append(toks, toyGPT2(f, pre, merges...))
	}
	for _, s := range texts {
		f.Add(s)
	}
	f.Add("the cat's 1234 éé\n\n  x")
	f.Fuzz(func(t *testing.T, text string) {
		for _, tok := range toks {
			ids, err := tok.Encode(text)
			if err != nil {
				t.Fatal(err)
			}
			if tok.MinTokens(text) > len(ids) {
				t.Fatalf("%s: MinTokens(%q) = %d > %d", tok.pre.Name, text, tok.MinTokens(text), len(ids))
			}
			if got := tok.Decode(ids); utf8.ValidString(text) && got != text {
				t.Fatalf("%s: Decode(Encode(%q)) = %q", tok.pre.Name, text, got)
			}
		}
	})
}

func TestEncodeText(t *testing.T) {
	spm := tok512(t)
	ids, _ := spm.Encode("Once upon")
	if got, _ := EncodeText(spm, "Once upon"); !slices.Equal(got, ids[1:]) {
		t.Errorf("EncodeText of run.c's BPE = %v, want %v without BOS", got, ids)
	}
	words, _ := NewWords(WordVocab([]string{"a", "b"}))
	if got, _ := EncodeText(words, "b a"); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("EncodeText of words = %v", got)
	}
}
