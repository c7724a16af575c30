package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/tokenizer"
)

// TestFromGGUF checks that a GGUF file written by the timing test's writer
// loads with its architecture, its matrices' types and the tokenizer of its
// vocabulary, and that a file cut short and a query without a model are
// refused, saying what is wrong.
func TestFromGGUF(t *testing.T) {
	c := checkpoint.Config{Dim: 256, HiddenDim: 256, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 64, SharedHead: true}
	for _, tc := range []struct {
		arch, want string // randmodel.Extend's, the file's
		t          quant.Type
	}{
		{"", "llama", quant.F32},
		{"gemma3", "gemma3", quant.Q8_0},
		{"qwen3", "qwen3", quant.Q3_K},
	} {
		m, v, err := randmodel.BuildNamed(c, 15, tc.t.String())
		if err == nil && tc.arch != "" {
			err = randmodel.Extend(m, tc.arch, 15)
		}
		var file bytes.Buffer
		if err == nil {
			err = gguf.WriteLlama2c(&file, m, v, gguf.Llama2cOptions{Type: gguf.F32, TiedOutput: true})
		}
		if err != nil {
			t.Fatalf("%s %s: %v", tc.arch, tc.t, err)
		}
		got, tok, err := fromGGUF(file.Bytes())
		if err != nil {
			t.Errorf("%s %s: %v", tc.arch, tc.t, err)
			continue
		}
		if got.Config.Arch != tc.want || got.Matrices().Layers[1].W2.Type != tc.t {
			t.Errorf("%s %s: architecture %q, w2 %s", tc.arch, tc.t, got.Config.Arch, got.Matrices().Layers[1].W2.Type)
		}
		bpe, err := tokenizer.NewBPE(v)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := bpe.Encode("Once upon a time")
		if ids, err := tok.Encode("Once upon a time"); err != nil || !slices.Equal(ids, want) {
			t.Errorf("%s %s: the prompt is %v (%v), want %v", tc.arch, tc.t, ids, err, want)
		}
		if _, _, err := fromGGUF(file.Bytes()[:file.Len()/2]); err == nil {
			t.Errorf("%s %s: half the file loads", tc.arch, tc.t)
		}
	}
	if _, _, err := load("", ""); err == nil || !strings.Contains(err.Error(), "names no model") {
		t.Errorf("no model: %v", err)
	}
}
