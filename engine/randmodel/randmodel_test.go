package randmodel

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/tokenizer"
)

// TestVocab checks that the 32,000-piece vocabulary is a BPE vocabulary
// laid out as run.c assumes, and that a story prompt encodes to words.
func TestVocab(t *testing.T) {
	v, err := Vocab(Stories15M.VocabSize, 15)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Pieces) != 32000 {
		t.Fatalf("%d pieces, want 32000", len(v.Pieces))
	}
	tok, err := tokenizer.NewBPE(v)
	if err != nil {
		t.Fatal(err)
	}
	if tok.BOS() != 1 || tok.EOS() != 2 || v.Pieces[3] != "<0x00>" || v.Pieces[258] != "<0xFF>" {
		t.Errorf("BOS %d, EOS %d, pieces 3 and 258 %q and %q: not run.c's layout", tok.BOS(), tok.EOS(), v.Pieces[3], v.Pieces[258])
	}
	ids, err := tok.Encode("Once upon a time")
	if err != nil {
		t.Fatal(err)
	}
	var pieces []string
	for _, id := range ids {
		pieces = append(pieces, tok.Token(id))
	}
	if want := []string{"\n<s>\n", " Once", " upon", " a", " time"}; !slices.Equal(pieces, want) {
		t.Errorf("Once upon a time encodes to %q, want %q", pieces, want)
	}
	if got := tok.Decode(ids); got != "Once upon a time" {
		t.Errorf("decoded %q", got)
	}
	again, err := Vocab(Stories15M.VocabSize, 15)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Pieces, v.Pieces) {
		t.Error("two vocabularies from the same seed differ")
	}
	if _, err := Vocab(minPieces-1, 15); err == nil {
		t.Error("a vocabulary too small for the byte pieces was made")
	}
}

// TestWrite writes a small random model and reads it back.
func TestWrite(t *testing.T) {
	c := Stories15M
	c.Dim, c.HiddenDim, c.Layers, c.Heads, c.KVHeads, c.VocabSize, c.SeqLen = 16, 32, 2, 2, 1, 400, 32
	dir := t.TempDir()
	if err := Write(dir, c, 3); err != nil {
		t.Fatal(err)
	}
	m, err := checkpoint.ReadFile(filepath.Join(dir, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := Build(c, 3)
	if err != nil {
		t.Fatal(err)
	}
	if m.Config != c || !slices.Equal(m.Weights.W2, want.Weights.W2) || !slices.Equal(m.Weights.RMSFinal, want.Weights.RMSFinal) {
		t.Errorf("the written model differs from the built one")
	}
	data, err := os.ReadFile(filepath.Join(dir, TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	v, err := tokenizer.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Pieces) != c.VocabSize {
		t.Errorf("%d pieces, want %d", len(v.Pieces), c.VocabSize)
	}
}
