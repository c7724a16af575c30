package main

import (
	"bytes"
	"math"
	"os"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/toymodel"
	"nexttoken/engine/transformer"
)

// TestCommittedFilesMatchGenerator guards the committed model files: they are
// exactly what Build produces, so anyone can regenerate and audit them.
func TestCommittedFilesMatchGenerator(t *testing.T) {
	m, vocab, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	var model bytes.Buffer
	if err := checkpoint.Write(&model, m); err != nil {
		t.Fatal(err)
	}
	tok, err := vocab.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		want []byte
	}{
		{"../../web/models/toy.bin", model.Bytes()},
		{"../../web/models/toy-tokenizer.bin", tok},
	} {
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s differs from Build's output; run `go run ./cmd/toymodel web/models`", f.path)
		}
	}
}

// TestDesignedLogits runs the built model with the engine and checks every
// designed row of logits, the worked example's first.
func TestDesignedLogits(t *testing.T) {
	m, _, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := sentenceTokens()
	if err != nil {
		t.Fatal(err)
	}
	tr := transformer.New(m)
	for pos, tok := range tokens {
		logits, err := tr.Forward(tok, pos)
		if err != nil {
			t.Fatal(err)
		}
		if pos == 0 {
			continue
		}
		for i, want := range toymodel.TargetLogits[pos-1] {
			if d := math.Abs(float64(logits[i]) - want); d > 1e-4 {
				t.Errorf("after %s, logit of %s = %.6f, want %v", toymodel.Words[tok], toymodel.Words[i], logits[i], want)
			}
		}
	}
	var largest float32
	for _, w := range m.Weights.Classifier {
		largest = max(largest, float32(math.Abs(float64(w))))
	}
	t.Logf("largest classifier weight %.3f", largest)
}
