package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/toymodel"
	"nexttoken/engine/transformer"
)

// maxCondition bounds the condition number of H accepted by the seed search.
const maxCondition = 6

// Build returns the toy model and its vocabulary.
//
// The construction has two parts.
//
//  1. Every weight except the classifier is drawn from a fixed pseudo-random
//     sequence (PCG with fixed seeds), so the file is the same on every run.
//  2. The engine itself runs the sentence "The cat sat on the" through those
//     weights. Because the classifier is stored separately (not shared with
//     the embedding), it does not affect the hidden states: the final hidden
//     state h_p after each of the positions p = 1..4 is fixed by step 1. Stack
//     them as the rows of a 4×4 matrix H. The classifier W (6×4) must give
//     the designed logits L (4×6), one row per position:  H·Wᵀ = L.
//     H is square, so gonum's LU solver gives W exactly (up to float32
//     rounding of the stored weights).
//
// Row 1 of L is the worked example ℓ = [-2.1, 0.3, 3.1, 0.8, 0.1, -0.5], the
// logits after the prompt "The cat"; rows 2–4 make greedy decoding continue
// "sat on the mat". Step 1 retries seeds, in order, until H is well
// conditioned, so that W has modest entries.
func Build() (*checkpoint.Model, *tokenizer.Vocab, error) {
	tokens, err := sentenceTokens()
	if err != nil {
		return nil, nil, err
	}
	for seed := uint64(1); seed <= 1000; seed++ {
		m, err := randomBody(seed)
		if err != nil {
			return nil, nil, err
		}
		H, err := hiddenStates(m, tokens)
		if err != nil {
			return nil, nil, err
		}
		if mat.Cond(H, 2) > maxCondition {
			continue
		}
		if err := solveClassifier(m, H); err != nil {
			return nil, nil, err
		}
		return m, tokenizer.WordVocab(toymodel.Words), nil
	}
	return nil, nil, fmt.Errorf("no seed up to 1000 gives hidden states with condition number ≤ %d", maxCondition)
}

// sentenceTokens is "The cat sat on the" as token ids.
func sentenceTokens() ([]int, error) {
	words, err := tokenizer.NewWords(tokenizer.WordVocab(toymodel.Words))
	if err != nil {
		return nil, err
	}
	return words.Encode(strings.TrimSuffix(toymodel.Sentence, " mat"))
}

// randomBody fills every tensor but the classifier from seed: embeddings and
// matrices uniform in [-1, 1), RMSNorm gains in [0.5, 1.5).
func randomBody(seed uint64) (*checkpoint.Model, error) {
	m, err := checkpoint.New(toymodel.Config)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x70e))
	m.Tensors(func(name string, values []float32) {
		if name == "classifier" {
			return
		}
		lo, width := float32(-1), float32(2)
		if strings.HasPrefix(name, "rms") {
			lo, width = 0.5, 1
		}
		for i := range values {
			values[i] = lo + width*rng.Float32()
		}
	})
	return m, nil
}

// hiddenStates runs tokens through m and returns H, whose row p-1 is the final
// hidden state after position p, for p = 1..len(tokens)-1.
func hiddenStates(m *checkpoint.Model, tokens []int) (*mat.Dense, error) {
	tr := transformer.New(m)
	H := mat.NewDense(len(tokens)-1, m.Config.Dim, nil)
	for pos, tok := range tokens {
		if _, err := tr.Forward(tok, pos); err != nil {
			return nil, err
		}
		if pos == 0 {
			continue
		}
		for j, v := range tr.Latest().Hidden() {
			H.Set(pos-1, j, float64(v))
		}
	}
	return H, nil
}

// solveClassifier sets m's classifier to the W solving H·Wᵀ = toymodel.TargetLogits.
func solveClassifier(m *checkpoint.Model, H *mat.Dense) error {
	rows := len(toymodel.TargetLogits)
	L := mat.NewDense(rows, toymodel.Config.VocabSize, nil)
	for i, row := range toymodel.TargetLogits {
		L.SetRow(i, row)
	}
	var Wt mat.Dense // dim × vocab
	if err := Wt.Solve(H, L); err != nil {
		return fmt.Errorf("solving for the classifier: %w", err)
	}
	for v := range toymodel.Config.VocabSize {
		for j := range toymodel.Config.Dim {
			m.Weights.Classifier[v*toymodel.Config.Dim+j] = float32(Wt.At(j, v))
		}
	}
	return nil
}
