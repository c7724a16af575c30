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

// TestMediumKFallback checks Q4_K_M's and Q5_K_M's formats where rows are
// not whole 256-weight blocks against what llama-quantize wrote (llama.cpp
// 34af94cd, harness quantize … 15 and … 17 on go run ./cmd/randmodel -gguf
// -dim 64 -hidden 256 -layers 8 -heads 4 -kvheads 4 -vocab 354, listed by
// harness dequant; engine/gguf/testdata/quantized): Q5_0 (Q4_K_M) or Q5_1
// (Q5_K_M) for the base format and Q8_0 for Q6_K in the 64-wide rows, the
// 256-wide w2 as it was.
func TestMediumKFallback(t *testing.T) {
	c := checkpoint.Config{Dim: 64, HiddenDim: 256, Layers: 8, Heads: 4, KVHeads: 4, VocabSize: 354, SeqLen: 16, SharedHead: true}
	for _, mix := range []struct {
		name               string
		format             func(string, int) quant.Type
		fallback, baseType quant.Type
	}{
		{"Q4_K_M", Q4_K_M(c), quant.Q5_0, quant.Q4_K},
		{"Q5_K_M", Q5_K_M(c), quant.Q5_1, quant.Q5_K},
	} {
		if got := mix.format("token_embedding", -1); got != quant.Q8_0 {
			t.Errorf("%s token_embedding: %s, llama-quantize wrote Q8_0", mix.name, got)
		}
		for l := range c.Layers {
			wv, w2 := mix.fallback, mix.baseType
			if l == 0 || l == 3 || l == 6 || l == 7 {
				wv, w2 = quant.Q8_0, quant.Q6_K
			}
			want := map[string]quant.Type{"wq": mix.fallback, "wk": mix.fallback, "wv": wv, "wo": mix.fallback, "w1": mix.fallback, "w2": w2, "w3": mix.fallback}
			for name, w := range want {
				if got := mix.format(name, l); got != w {
					t.Errorf("%s layer %d %s: %s, llama-quantize wrote %s", mix.name, l, name, got, w)
				}
			}
		}
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
	if _, _, err := BuildQuantized(c, 1, Every(quant.Q4_K)); err == nil || !strings.Contains(err.Error(), "token_embedding of layer -1 is 288 wide, not a whole number of Q4_K blocks") {
		t.Errorf("dim 288 in Q4_K: %v", err)
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

// TestShapes checks that every named shape is valid, and that the K shape
// holds every format in whole blocks where stories15M's cannot hold the K
// formats, the reason Stories15MK exists.
func TestShapes(t *testing.T) {
	for name, c := range Shapes {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	fits := func(c checkpoint.Config, q quant.Type) bool {
		return c.Dim%q.BlockSize() == 0 && c.HiddenDim%q.BlockSize() == 0
	}
	for _, q := range []quant.Type{quant.Q8_0, quant.Q4_0, quant.Q4_K, quant.Q6_K} {
		if !fits(Stories15MK, q) {
			t.Errorf("Stories15MK's rows are not whole %s blocks", q)
		}
		if k := q.BlockSize() == quant.QK_K; fits(Stories15M, q) == k {
			t.Errorf("Stories15M's rows fit %s blocks: %v", q, !k)
		}
	}
}

// TestBuildNamed checks that each name gives its formats, in any case, and
// that an unknown name and a format the rows cannot hold are refused,
// naming what is wrong.
func TestBuildNamed(t *testing.T) {
	c := checkpoint.Config{Dim: 256, HiddenDim: 512, Layers: 2, Heads: 4, KVHeads: 4, VocabSize: 400, SeqLen: 8, SharedHead: true}
	for _, tc := range []struct {
		name           string
		embedding, wq  quant.Type
		quantizedModel bool
	}{
		{"f32", quant.F32, quant.F32, false},
		{"Q8_0", quant.Q8_0, quant.Q8_0, true},
		{"q4_0", quant.Q4_0, quant.Q4_0, true},
		{"q4_k", quant.Q4_K, quant.Q4_K, true},
		{"Q6_K", quant.Q6_K, quant.Q6_K, true},
		{"q5_k", quant.Q5_K, quant.Q5_K, true},
		{"Q5_1", quant.Q5_1, quant.Q5_1, true},
		{"q4_k_m", quant.Q6_K, quant.Q4_K, true},
		{"Q5_K_M", quant.Q6_K, quant.Q5_K, true},
	} {
		m, v, err := BuildNamed(c, 1, tc.name)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(v.Pieces) != c.VocabSize {
			t.Errorf("%s: %d pieces, want %d", tc.name, len(v.Pieces), c.VocabSize)
		}
		q := m.Weights.Quantized
		if (q != nil) != tc.quantizedModel {
			t.Errorf("%s: quantized matrices %v, want %v", tc.name, q != nil, tc.quantizedModel)
			continue
		}
		if q != nil && (q.TokenEmbedding.Type != tc.embedding || q.Layers[1].WQ.Type != tc.wq) {
			t.Errorf("%s: token embedding %s, wq %s; want %s, %s", tc.name, q.TokenEmbedding.Type, q.Layers[1].WQ.Type, tc.embedding, tc.wq)
		}
	}
	if _, _, err := BuildNamed(c, 1, "iq2_xxs"); err == nil || !strings.Contains(err.Error(), `"iq2_xxs"`) {
		t.Errorf("format iq2_xxs: %v", err)
	}
	c.Dim = 288
	if _, _, err := BuildNamed(c, 1, "q4_k"); err == nil || !strings.Contains(err.Error(), "288 wide, not a whole number of Q4_K blocks") {
		t.Errorf("q4_k on dim 288: %v", err)
	}
}

// TestEveryOrFallback checks that a type takes llama-quantize's fallback
// in the matrices of SmolLM2-135M's shape whose rows are not whole blocks of
// it (all but w2, 1536 wide), and the type itself in the others.
func TestEveryOrFallback(t *testing.T) {
	for _, tc := range []struct {
		t, fallback quant.Type
	}{
		{quant.Q6_K, quant.Q8_0},
		{quant.Q3_K, quant.IQ4_NL},
		{quant.Q2_K, quant.IQ4_NL},
		{quant.IQ4_XS, quant.IQ4_NL},
		{quant.Q5_K, quant.Q5_1},
		{quant.Q4_K, quant.Q5_0},
		{quant.Q5_1, quant.Q5_1},
		{quant.IQ4_NL, quant.IQ4_NL},
	} {
		format := EveryOrFallback(SmolLM2, tc.t)
		for _, name := range []string{"token_embedding", "wq", "wk", "wv", "wo", "w1", "w2", "w3"} {
			want := tc.fallback
			if name == "w2" {
				want = tc.t
			}
			if got := format(name, 3); got != want {
				t.Errorf("%s, %s: %s, want %s", tc.t, name, got, want)
			}
		}
	}
}

// TestBuildShape checks that a shape's quantized type is EveryOrFallback's,
// that F32 is BuildNamed's, and that an unknown shape is refused, naming
// the known ones.
func TestBuildShape(t *testing.T) {
	for _, tc := range []struct {
		shape, format     string
		embedding, wq, w2 quant.Type
	}{
		{"stories15m", "q4_k", quant.Q5_0, quant.Q5_0, quant.Q4_K},
		{"stories15m", "Q8_0", quant.Q8_0, quant.Q8_0, quant.Q8_0},
		{"stories15m", "f32", quant.F32, quant.F32, quant.F32},
	} {
		m, _, err := BuildShape(tc.shape, 1, tc.format)
		if err != nil {
			t.Errorf("%s %s: %v", tc.shape, tc.format, err)
			continue
		}
		q := m.Matrices()
		if got, want := [3]quant.Type{q.TokenEmbedding.Type, q.Layers[0].WQ.Type, q.Layers[0].W2.Type}, [3]quant.Type{tc.embedding, tc.wq, tc.w2}; got != want {
			t.Errorf("%s %s: token embedding, wq, w2 %v, want %v", tc.shape, tc.format, got, want)
		}
	}
	if _, _, err := BuildShape("stories42m", 1, "f32"); err == nil || !strings.Contains(err.Error(), "not one of qwen2.5-0.5b, smollm2, stories15m, stories15mk") {
		t.Errorf("shape stories42m: %v", err)
	}
}
