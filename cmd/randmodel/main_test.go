package main

import (
	"path/filepath"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/transformer"
)

// TestWriteGGUF writes a small model of SmolLM2-135M's kind (grouped
// keys and values, the classifier tied to the embedding) in each -type and
// reads it back: the shape, the formats, one embedding for both ends; an
// unknown -type is refused, naming the ones there are.
func TestWriteGGUF(t *testing.T) {
	c := checkpoint.Config{Dim: 64, HiddenDim: 96, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 16, SharedHead: true}
	for _, tc := range []struct {
		format    string
		wq, embed quant.Type
	}{
		{"F32", quant.F32, quant.F32},
		{"q8_0", quant.Q8_0, quant.Q8_0},
		{"Q4_0", quant.Q4_0, quant.Q4_0},
	} {
		t.Run(tc.format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "model.gguf")
			if err := writeGGUF(path, c, 3, tc.format, "", false, false); err != nil {
				t.Fatal(err)
			}
			f, closer, err := gguf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer closer.Close()
			if _, ok := f.Tensor("output.weight"); ok {
				t.Errorf("output.weight is written: the classifier should be tied to token_embd")
			}
			m, err := f.Model()
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Config; got.Dim != c.Dim || got.HiddenDim != c.HiddenDim || got.Layers != c.Layers ||
				got.Heads != c.Heads || got.KVHeads != c.KVHeads || got.VocabSize != c.VocabSize || got.SeqLen != c.SeqLen || !got.SharedHead {
				t.Errorf("read back %+v, wrote %+v", got, c)
			}
			q := m.Matrices()
			if q.Layers[1].WQ.Type != tc.wq || q.TokenEmbedding.Type != tc.embed || q.Layers[0].WK.Rows != c.KVDim() {
				t.Errorf("wq %s, token embedding %s, wk %d rows; want %s, %s, %d", q.Layers[1].WQ.Type, q.TokenEmbedding.Type, q.Layers[0].WK.Rows, tc.wq, tc.embed, c.KVDim())
			}
		})
	}
	err := writeGGUF(filepath.Join(t.TempDir(), "model.gguf"), c, 3, "IQ2_XXS", "", false, false)
	if err == nil || !strings.Contains(err.Error(), "-type IQ2_XXS: ") || !strings.Contains(err.Error(), "is not F32, Q4_K_M, Q5_K_M or a quantized type") {
		t.Errorf("-type IQ2_XXS: %v", err)
	}
}

// TestWriteGGUFPeak writes a peaked Q8_0 model (-peak): its embedding is
// float32, the rest Q8_0, and each token read back is followed by the
// successor randmodel.Peak names.
func TestWriteGGUFPeak(t *testing.T) {
	c := checkpoint.Config{Dim: 64, HiddenDim: 96, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 16, SharedHead: true}
	path := filepath.Join(t.TempDir(), "model.gguf")
	if err := writeGGUF(path, c, 3, "q8_0", "qwen2", true, true); err != nil {
		t.Fatal(err)
	}
	f, closer, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	m, err := f.Model()
	if err != nil {
		t.Fatal(err)
	}
	if q := m.Matrices(); q.TokenEmbedding.Type != quant.F32 || q.Layers[0].WQ.Type != quant.Q8_0 {
		t.Errorf("token embedding %s, wq %s; want F32 and Q8_0", q.TokenEmbedding.Type, q.Layers[0].WQ.Type)
	}
	want, _, err := randmodel.BuildNamed(c, 3, "q8_0")
	if err != nil {
		t.Fatal(err)
	}
	randmodel.RandomGains(want, 3)
	if err := randmodel.Extend(want, "qwen2", 3); err != nil {
		t.Fatal(err)
	}
	head, err := randmodel.Peak(want, 3)
	if err != nil {
		t.Fatal(err)
	}
	tr := transformer.New(m)
	tok := 5
	for pos := range c.SeqLen {
		logits, err := tr.Forward(tok, pos)
		if err != nil {
			t.Fatal(err)
		}
		next := sampler.Argmax(logits)
		if next != head.Next[tok] {
			t.Fatalf("position %d: %d follows %d, not its successor %d", pos, next, tok, head.Next[tok])
		}
		tok = next
	}
}
