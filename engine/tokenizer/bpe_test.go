package tokenizer

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// story is TinyStories-like text, as the playground's prompts will be.
const story = `Once upon a time, there was a little girl named Lily. She loved to play outside in the sunshine. One day, she saw a big, red ball in the park. "Can I play with it?" she asked her mom. Her mom smiled and said, "Yes, Lily, but be careful!"
Lily ran to the ball and kicked it. The ball flew high into the sky and landed in a tree. Lily was sad. She could not reach the ball. Then, a friendly bird named Timmy came and pushed the ball down with his beak. Lily was so happy! She said, "Thank you, Timmy!" They played together all day, and they became best friends.`

func tok512(tb testing.TB) *BPE {
	tb.Helper()
	v, err := Read(tok512File(tb))
	if err != nil {
		tb.Fatal(err)
	}
	t, err := NewBPE(v)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// encodeRunC is run.c's encode(t, text, 1, 0, ...) transcribed literally,
// with its fixed ids: BOS 1, byte b 3+b. It is the oracle for Encode.
func encodeRunC(t *BPE, text string) []int {
	tokens := []int{1}
	if text != "" {
		tokens = append(tokens, t.ids[" "])
	}
	var buf []byte
	for c := 0; c < len(text); c++ {
		if text[c]&0xC0 != 0x80 {
			buf = buf[:0]
		}
		buf = append(buf, text[c])
		if c+1 < len(text) && text[c+1]&0xC0 == 0x80 && len(buf) < 4 {
			continue
		}
		if id, ok := t.ids[string(buf)]; ok {
			tokens = append(tokens, id)
		} else {
			for _, b := range buf {
				tokens = append(tokens, int(b)+3)
			}
		}
		buf = buf[:0]
	}
	for {
		bestScore, bestID, bestIdx := float32(-1e10), -1, -1
		for i := 0; i < len(tokens)-1; i++ {
			id, ok := t.ids[t.pieces[tokens[i]]+t.pieces[tokens[i+1]]]
			if ok && t.scores[id] > bestScore {
				bestScore, bestID, bestIdx = t.scores[id], id, i
			}
		}
		if bestIdx == -1 {
			return tokens
		}
		tokens[bestIdx] = bestID
		tokens = append(tokens[:bestIdx+1], tokens[bestIdx+2:]...)
	}
}

// mergeQuadratic is BPE.merge as it was before the heap, run.c's scan over
// every pair for each merge, remembering what each pair merges to. It is
// the oracle for merge on any vocabulary.
func mergeQuadratic(t *BPE, tokens []int) []int {
	if len(tokens) < 2 {
		return tokens
	}
	merges := make([]candidate, len(tokens)-1) // merges[i] is for tokens i and i+1
	for i := range merges {
		merges[i] = t.pair(tokens[i], tokens[i+1])
	}
	for {
		best, bestScore := -1, float32(-1e10) // run.c's starting score
		for i, m := range merges {
			if m.id >= 0 && m.score > bestScore {
				best, bestScore = i, m.score
			}
		}
		if best < 0 {
			return tokens
		}
		tokens[best] = merges[best].id
		tokens = slices.Delete(tokens, best+1, best+2)
		merges = slices.Delete(merges, best, best+1)
		if best > 0 {
			merges[best-1] = t.pair(tokens[best-1], tokens[best])
		}
		if best < len(merges) {
			merges[best] = t.pair(tokens[best], tokens[best+1])
		}
	}
}

// texts exercise Encode on ASCII, Unicode with and without pieces of its
// own, white space and invalid UTF-8.
var texts = []string{
	"",
	"a",
	" ",
	"Once upon a time",
	" leading and trailing spaces  ",
	"tabs\tand\nnew\nlines\n",
	"repeated    spaces",
	"café, naïve, “quotes” — and… 日本語 🙂",
	"\x00NUL\x00",
	"\xff\xfe invalid \x80\x80\x80\x80\x80 continuation \xe6\x97 truncated \xf0\x9f\x99\x82\x82 long",
	"<0x41> <s> </s> <unk>",
	story,
}

func TestEncode(t *testing.T) {
	tok := tok512(t)
	for _, tc := range []struct {
		text string
		want []int
	}{
		{"", []int{1}},
		{"a", []int{1, 261}},       // " " + "a" = " a"
		{"aa", []int{1, 261, 412}}, // " a" + "a" is not a piece
		{"\n", []int{1, 410, 13}},  // no piece "\n": byte 0x0A is id 13
		{" hi ", []int{1, 410, 270, 417, 410}},
		{"Once upon a time", []int{1, 403, 407, 261, 378}},
		{"é🙂", []int{1, 410, 485, 3 + 0xF0, 3 + 0x9F, 3 + 0x99, 3 + 0x82}}, // "é" is a piece, 🙂 is not
		{"\xe6\x97", []int{1, 410, 3 + 0xE6, 3 + 0x97}},
	} {
		got, err := tok.Encode(tc.text)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Encode(%q) = %v, %v; want %v", tc.text, got, err, tc.want)
		}
	}
}

// TestEncodeGolden compares Encode with the ids a build of run.c printed.
func TestEncodeGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/runc-encodings.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []struct {
			Text string
			IDs  []int
		}
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) == 0 {
		t.Fatal("no cases")
	}
	tok := tok512(t)
	for _, c := range golden.Cases {
		if got, _ := tok.Encode(c.Text); !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%q) = %v, run.c gives %v", c.Text, got, c.IDs)
		}
	}
}

func TestEncodeMatchesRunC(t *testing.T) {
	tok := tok512(t)
	for _, text := range texts {
		got, _ := tok.Encode(text)
		if want := encodeRunC(tok, text); !slices.Equal(got, want) {
			t.Errorf("Encode(%q) = %v, run.c gives %v", text, got, want)
		}
	}
}

func TestDecodeEncode(t *testing.T) {
	tok := tok512(t)
	for _, text := range texts {
		ids, _ := tok.Encode(text)
		if got := tok.Decode(ids); got != text {
			t.Errorf("Decode(Encode(%q)) = %q", text, got)
		}
	}
}

func TestBPEPiece(t *testing.T) {
	tok := tok512(t)
	for _, tc := range []struct {
		prev, id int
		want     string
	}{
		{-1, 403, " Once"},
		{1, 403, "Once"}, // after BOS, the dummy prefix's space goes
		{403, 407, " upon"},
		{1, 410, ""},
		{1, 13, "\n"},
		{1, 3 + ' ', " "}, // a byte piece keeps its space
		{-1, 3 + 0xF0, "\xf0"},
		{-1, 1, ""},  // BOS
		{403, 2, ""}, // EOS
		{-1, 0, "<unk>"},
	} {
		if got := tok.Piece(tc.prev, tc.id); got != tc.want {
			t.Errorf("Piece(%d, %d) = %q, want %q", tc.prev, tc.id, got, tc.want)
		}
	}
	if got := tok.Decode([]int{1, 403, 407, 261, 378, 2}); got != "Once upon a time" {
		t.Errorf("Decode = %q", got)
	}
	if tok.VocabSize() != 512 {
		t.Errorf("VocabSize = %d, want 512", tok.VocabSize())
	}
}

// bpeVocab returns a vocabulary of pieces followed by the 256 byte pieces,
// with scores 0, -1, -2, ….
func bpeVocab(pieces ...string) *Vocab {
	for b := range 256 {
		pieces = append(pieces, fmt.Sprintf("<0x%02X>", b))
	}
	v := WordVocab(pieces)
	for i := range v.Scores {
		v.Scores[i] = float32(-i)
	}
	return v
}

func TestBPESpecialTokens(t *testing.T) {
	for _, tc := range []struct {
		name     string
		v        *Vocab
		bos, eos int
	}{
		{"llama2.c", bpeVocab("<unk>", "\n<s>\n", "\n</s>\n"), 1, 2},
		{"plain", bpeVocab("</s>", "<s>"), 1, 0},
		{"none", bpeVocab("a", "b"), -1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := NewBPE(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if tok.BOS() != tc.bos || tok.EOS() != tc.eos {
				t.Errorf("BOS, EOS = %d, %d; want %d, %d", tok.BOS(), tok.EOS(), tc.bos, tc.eos)
			}
		})
	}
}

// TestNewBPEWith checks the options a GGUF vocabulary states: ids for BOS
// and EOS whatever their spelling, no BOS, no dummy prefix.
func TestNewBPEWith(t *testing.T) {
	v := bpeVocab("<unk>", "BEGIN", "END", " ", "a", " a")
	a := 4 // the id of "a"; " a" is next
	for _, tc := range []struct {
		name string
		o    BPEOptions
		ids  []int
		text string // Decode(ids)
		min  int    // MinTokens
	}{
		{"defaults", BPEOptions{BOS: 1, EOS: 2}, []int{1, a + 1}, "a", 2},
		{"no BOS", BPEOptions{BOS: 1, EOS: 2, NoBOS: true}, []int{a + 1}, " a", 1},
		{"no prefix", BPEOptions{BOS: 1, EOS: 2, NoDummyPrefix: true}, []int{1, a}, "a", 2},
		{"no BOS id", BPEOptions{BOS: -1, EOS: -1}, []int{a + 1}, " a", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := NewBPEWith(v, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			ids, _ := tok.Encode("a")
			if !slices.Equal(ids, tc.ids) || tok.Decode(ids) != tc.text || tok.MinTokens("a") != tc.min {
				t.Errorf("Encode = %v, Decode %q, MinTokens %d; want %v, %q, %d", ids, tok.Decode(ids), tok.MinTokens("a"), tc.ids, tc.text, tc.min)
			}
			if tok.BOS() != tc.o.BOS || tok.EOS() != tc.o.EOS {
				t.Errorf("BOS, EOS = %d, %d; want %d, %d", tok.BOS(), tok.EOS(), tc.o.BOS, tc.o.EOS)
			}
		})
	}
	if _, err := NewBPEWith(v, BPEOptions{BOS: 1000, EOS: 2}); err == nil || !strings.Contains(err.Error(), "special token id 1000 is outside the vocabulary of 262") {
		t.Errorf("error %v for BOS 1000", err)
	}
}

// TestBPENoDummyPiece checks the documented fallback for a vocabulary
// without the piece " ", on which run.c would fail.
func TestBPENoDummyPiece(t *testing.T) {
	tok, err := NewBPE(bpeVocab("<s>", "a"))
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("a")
	if want := []int{0, 2 + ' ', 1}; !slices.Equal(ids, want) {
		t.Errorf("Encode(%q) = %v, want %v", "a", ids, want)
	}
	if got := tok.Decode(ids); got != " a" {
		t.Errorf("Decode(%v) = %q, want %q", ids, got, " a")
	}
}

func TestNewBPEErrors(t *testing.T) {
	short := bpeVocab()
	short.Pieces, short.Scores = short.Pieces[:255], short.Scores[:255]
	for _, tc := range []struct {
		name string
		v    *Vocab
		want string
	}{
		{"words", WordVocab([]string{"The", "cat"}), "no byte piece <0x00>"},
		{"a byte missing", short, "no byte piece <0xFF>"},
		{"invalid", &Vocab{}, "max_token_length 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewBPE(tc.v); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestByteValue(t *testing.T) {
	for _, tc := range []struct {
		piece string
		b     byte
		ok    bool
	}{
		{"<0x00>", 0, true},
		{"<0x0A>", '\n', true},
		{"<0xff>", 0xff, true},
		{"<0x4>", 0, false},
		{"<0x+1>", 0, false},
		{"<0xGG>", 0, false},
		{"<0x0A", 0, false},
		{"<0x0A>>", 0, false},
		{"[0x0A]", 0, false},
	} {
		if b, ok := byteValue(tc.piece); b != tc.b || ok != tc.ok {
			t.Errorf("byteValue(%q) = %d, %t; want %d, %t", tc.piece, b, ok, tc.b, tc.ok)
		}
	}
}

// scored is a piece and its score.
type scored struct {
	piece string
	score float32
}

// scoredBPE returns the tokenizer of pieces, but for repeats, followed by
// the byte pieces not among them.
func scoredBPE(tb testing.TB, pieces []scored) *BPE {
	tb.Helper()
	v := &Vocab{MaxTokenLength: 6}
	seen := map[string]bool{}
	add := func(p string, score float32) {
		if !seen[p] {
			seen[p] = true
			v.Pieces, v.Scores = append(v.Pieces, p), append(v.Scores, score)
			v.MaxTokenLength = max(v.MaxTokenLength, len(p))
		}
	}
	for _, p := range pieces {
		add(p.piece, p.score)
	}
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), -1e6)
	}
	tok, err := NewBPE(v)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// encodeQuadratic is Encode with the oracle's merges.
func encodeQuadratic(t *BPE, text string) []int {
	return mergeQuadratic(t, t.spell(text, t.addsBOS(), !t.noPrefix))
}

// spelling returns the pieces of ids joined by "|".
func spelling(t *BPE, ids []int) string {
	pieces := make([]string, len(ids))
	for i, id := range ids {
		pieces[i] = t.Token(id)
	}
	return strings.Join(pieces, "|")
}

// TestEncodeMerges checks the order of merges on hand-made vocabularies,
// above all that equal scores go to the leftmost pair, however recently
// it was formed.
func TestEncodeMerges(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	abcde := func(merges ...scored) []scored {
		return append([]scored{{" ", -9}, {"a", -9}, {"b", -9}, {"c", -9}, {"d", -9}, {"e", -9}}, merges...)
	}
	for _, tc := range []struct {
		name   string
		pieces []scored
		text   string
		want   string
	}{
		{"empty", []scored{{" ", -9}}, "", ""},
		{"no merge", []scored{{" ", -9}, {"a", -9}}, "a a", " |a| |a"},
		{"equal scores: leftmost", abcde(scored{"ab", 0}, scored{"bc", 0}), "abc", " |ab|c"},
		{"higher score before leftmost", abcde(scored{"ab", -1}, scored{"bc", 0}), "abc", " |a|bc"},
		{"-0 ties 0", abcde(scored{"bc", 0}, scored{"ab", negZero}), "abc", " |ab|c"},
		// After "ab", the new pair "abc" ties "cd", which was there first.
		{"new pair left of an equal one", abcde(scored{"ab", 0}, scored{"abc", -1}, scored{"cd", -1}), "abcd", " |abc|d"},
		// After "cd", the new pair "bcd" ties "ab", which was there first.
		{"new pair right of an equal one", abcde(scored{"cd", 0}, scored{"bcd", -1}, scored{"ab", -1}), "abcd", " |ab|cd"},
		// "bc" loses to "ab", then must not merge the "b" already merged,
		// nor keep "cde" from forming.
		{"pair of a merged token", abcde(scored{"ab", 0}, scored{"bc", -1}, scored{"de", -2}, scored{"cde", -3}), "abcde", " |ab|cde"},
		{"repeated letters", []scored{{" ", -9}, {"a", -9}, {"aa", 0}, {"aaaa", -1}}, "aaaaaaa", " |aaaa|aa|a"},
		{"repeated letters after the dummy prefix", []scored{{" ", -9}, {"a", -9}, {"aa", 0}, {" a", 0}}, "aaa", " a|aa"},
		{"run.c's floor", abcde(scored{"ab", -1e10}), "ab", " |a|b"},
		{"just above run.c's floor", abcde(scored{"ab", -9.99e9}), "ab", " |ab"},
		{"byte pieces merge", []scored{{" ", -9}, {"<0xC3><0xA9>", 0}}, "é", " |<0xC3><0xA9>"},
		{"a byte piece and a piece merge", []scored{{" ", -9}, {"a", -9}, {"a<0xFF>", 0}}, "a\xff", " |a<0xFF>"},
		{"unicode", []scored{{" ", -9}, {"日", -9}, {"本", -9}, {"日本", -1}, {" 日", 0}}, "日本", " 日|本"},
		{"spaces", []scored{{" ", -9}, {"a", -9}, {"  ", -1}, {" a", 0}}, "  a", "  | a"},
		{"no dummy piece", []scored{{"a", -9}, {"<0x20>a", 0}}, "a", "<0x20>a"},
		// run.c merges BOS like any token.
		{"BOS merges", []scored{{"\n<s>\n", 0}, {" ", -9}, {"a", -9}, {"\n<s>\n ", 0}}, "a", "\n<s>\n |a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := scoredBPE(t, tc.pieces)
			got, _ := tok.Encode(tc.text)
			if s := spelling(tok, got); s != tc.want {
				t.Errorf("Encode(%q) = %q, want %q", tc.text, s, tc.want)
			}
			if want := encodeQuadratic(tok, tc.text); !slices.Equal(got, want) {
				t.Errorf("Encode(%q) = %v, the quadratic merge gives %v", tc.text, got, want)
			}
		})
	}
}

// atoms are what random vocabularies and texts are made of: code points,
// and the bytes of "é" (C3 A9) and the invalid byte FF, spelt as byte
// pieces in a vocabulary.
var atoms = []struct{ piece, text string }{
	{"a", "a"}, {"b", "b"}, {" ", " "}, {"é", "é"}, {"日", "日"},
	{"<0xC3>", "\xc3"}, {"<0xA9>", "\xa9"}, {"<0xFF>", "\xff"},
}

// randomBPE returns a tokenizer of a few of the atoms, up to 24 pieces of 0
// to 4 of them, and the byte pieces, with scores drawn from so few values
// that many tie, some at or below run.c's floor of -1e10. It returns the
// pieces and the atoms too, the fewer atoms the more merges.
func randomBPE(tb testing.TB, r *rand.Rand) (*BPE, []scored, []int) {
	scores := []float32{1, 0, -1, -2, -9.99e9, -1e10, -2e10}
	some := r.Perm(len(atoms))[:2+r.IntN(len(atoms)-1)]
	var pieces []scored
	for _, a := range some {
		pieces = append(pieces, scored{atoms[a].piece, scores[r.IntN(len(scores))]})
	}
	for range r.IntN(25) {
		var p strings.Builder
		for range r.IntN(5) {
			p.WriteString(atoms[some[r.IntN(len(some))]].piece)
		}
		pieces = append(pieces, scored{p.String(), scores[r.IntN(len(scores))]})
	}
	return scoredBPE(tb, pieces), pieces, some
}

// TestEncodeRandom compares Encode with the quadratic merge on random
// vocabularies and texts, and merge itself on random token sequences,
// which may hold the empty piece and tokens of many code points.
func TestEncodeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		tok, pieces, some := randomBPE(t, r)
		var text strings.Builder
		for range r.IntN(40) {
			text.WriteString(atoms[some[r.IntN(len(some))]].text)
		}
		got, _ := tok.Encode(text.String())
		if want := encodeQuadratic(tok, text.String()); !slices.Equal(got, want) {
			t.Fatalf("on %v, Encode(%q) = %q, the quadratic merge gives %q",
				pieces, text.String(), spelling(tok, got), spelling(tok, want))
		}
		// Any of the pieces may follow each other.
		tokens := make([]int, r.IntN(40))
		for i := range tokens {
			tokens[i] = tok.ids[pieces[r.IntN(len(pieces))].piece]
		}
		want := mergeQuadratic(tok, slices.Clone(tokens))
		if got := tok.merge(slices.Clone(tokens)); !slices.Equal(got, want) {
			t.Fatalf("on %v, merge(%q) = %q, the quadratic merge gives %q",
				pieces, spelling(tok, tokens), spelling(tok, got), spelling(tok, want))
		}
	}
}

func FuzzEncode(f *testing.F) {
	for _, text := range texts {
		f.Add(text)
	}
	tok := tok512(f)
	f.Fuzz(func(t *testing.T, text string) {
		ids, err := tok.Encode(text)
		if err != nil {
			t.Fatal(err)
		}
		if want := encodeRunC(tok, text); !slices.Equal(ids, want) {
			t.Fatalf("Encode(%q) = %v, run.c gives %v", text, ids, want)
		}
		if got := tok.Decode(ids); got != text {
			t.Fatalf("Decode(Encode(%q)) = %q", text, got)
		}
		if least := tok.MinTokens(text); least > len(ids) {
			t.Fatalf("MinTokens(%q) = %d, but Encode gives %d tokens", text, least, len(ids))
		}
	})
}

// BenchmarkEncode encodes prompts of 1, 10 and 100 KB of story text.
func BenchmarkEncode(b *testing.B) {
	tok := tok512(b)
	for _, size := range []int{1 << 10, 10 << 10, 100 << 10} {
		text := strings.Repeat(story+"\n", size/len(story)+1)[:size]
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				tok.Encode(text)
			}
		})
	}
}

// FuzzEncodeMatchesQuadratic compares Encode with the quadratic merge on
// tok512 and on the vocabulary of the pieces in vocab separated by "|"
// (and the byte pieces), pieces 2k and 2k+1 scoring -k so that pairs tie.
func FuzzEncodeMatchesQuadratic(f *testing.F) {
	for _, text := range texts {
		f.Add("", text)
	}
	f.Add("ab|bc|abc|cd", "abcd abcd")
	f.Add(" a|aa|aaaa|a|aaa", "aaaaaaaaa")
	f.Add("||é|<0xC3><0xA9>|<0xFF>a", "é\xff\xc3\xa9a")
	tok512 := tok512(f)
	f.Fuzz(func(t *testing.T, vocab, text string) {
		var pieces []scored
		for i, p := range strings.Split(vocab, "|") {
			pieces = append(pieces, scored{p, -float32(i / 2)})
		}
		for _, tok := range []*BPE{tok512, scoredBPE(t, pieces)} {
			got, _ := tok.Encode(text)
			if want := encodeQuadratic(tok, text); !slices.Equal(got, want) {
				t.Fatalf("%d pieces: Encode(%q) = %q, the quadratic merge gives %q", tok.VocabSize(), text, spelling(tok, got), spelling(tok, want))
			}
		}
	})
}
