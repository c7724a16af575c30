package tokenizer

import (
	"encoding/json"
	"fmt"
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

func BenchmarkEncode(b *testing.B) {
	tok := tok512(b)
	text := strings.Repeat(story+"\n", 4)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tok.Encode(text)
	}
}
