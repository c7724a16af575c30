package randmodel

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
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

// TestBuildQuantized checks the formats reach the matrices they are picked
// for, as well-formed matrices, that a format whose blocks do not fit the
// rows is refused, and that RandomGains changes every gain.
func TestBuildQuantized(t *testing.T) {
	c := checkpoint.Config{Dim: 256, HiddenDim: 256, Layers: 8, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 8, SharedHead: true}
	m, _, err := BuildQuantized(c, 1, Q4_K_M(c))
	if err != nil {
		t.Fatal(err)
	}
	q := m.Weights.Quantized
	// use_more_bits(l, 8): l < 1, l ≥ 7, or (l−1)%3 = 2.
	for l, want := range []quant.Type{quant.Q6_K, quant.Q4_K, quant.Q4_K, quant.Q6_K, quant.Q4_K, quant.Q4_K, quant.Q6_K, quant.Q6_K} {
		lm := q.Layers[l]
		if lm.WV.Type != want || lm.W2.Type != want || lm.WQ.Type != quant.Q4_K || lm.W1.Type != quant.Q4_K {
			t.Errorf("layer %d: wv %s, w2 %s, wq %s, w1 %s; want %s, %s, Q4_K, Q4_K", l, lm.WV.Type, lm.W2.Type, lm.WQ.Type, lm.W1.Type, want, want)
		}
		for _, x := range []quant.Matrix{lm.WQ, lm.WK, lm.WV, lm.WO, lm.W1, lm.W2, lm.W3} {
			if err := x.Check(); err != nil {
				t.Errorf("layer %d: %v", l, err)
			}
		}
	}
	if q.TokenEmbedding.Type != quant.Q6_K || q.Classifier.Q == nil || &q.Classifier.Q[0] != &q.TokenEmbedding.Q[0] {
		t.Errorf("the shared classifier: %s, not the Q6_K token embedding", q.Classifier.Type)
	}
	c.Dim = 288
	if _, _, err := BuildQuantized(c, 1, Q4_K_M(c)); err == nil || !strings.Contains(err.Error(), "token_embedding of layer -1 is 288 wide, not a whole number of Q6_K blocks") {
		t.Errorf("dim 288 in Q4_K_M: %v", err)
	}
	RandomGains(m, 2)
	for _, g := range [][]float32{m.Weights.RMSAtt, m.Weights.RMSFFN, m.Weights.RMSFinal} {
		for _, x := range g {
			if x < 0.5 || x >= 1.5 || x == 1 {
				t.Fatalf("gain %v, want one of [0.5, 1.5) other than 1", x)
			}
		}
	}
}
