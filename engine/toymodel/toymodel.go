// Package toymodel builds the worked example's toy language model: a real
// Llama-2 style transformer with hidden size 4 over the six-word vocabulary
// The, cat, sat, on, the, mat, stored in the llama2.c checkpoint format and
// run by the same code as any other checkpoint.
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
package toymodel

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/transformer"
)

// Words is the toy vocabulary, in id order.
var Words = []string{"The", "cat", "sat", "on", "the", "mat"}

// Config is the toy model's shape: two layers of two heads of size 2.
var Config = checkpoint.Config{
	Dim: 4, HiddenDim: 8, Layers: 2, Heads: 2, KVHeads: 2,
	VocabSize: len(Words), SeqLen: 16, SharedHead: false,
}

// Sentence is what the toy model says when decoded greedily from its first
// two words.
const Sentence = "The cat sat on the mat"

// WorkedLogits are the logits after "The cat", from the textbook example.
var WorkedLogits = []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}

// targetLogits are the designed logits after each position 1..4 of Sentence:
// each row's largest entry is the next word. Rows 2–4 are our own choice,
// with plausible runners-up (after "the", "cat" is the second guess).
var targetLogits = [][]float64{
	WorkedLogits,                       // after "The cat": sat
	{-1.2, -0.8, -0.3, 2.9, 0.7, -0.4}, // after "sat": on
	{-0.6, 0.2, -1.1, -1.4, 3.2, 0.5},  // after "on": the
	{-1.5, 1.1, -0.9, -0.7, -1.3, 2.6}, // after "the": mat
}

// maxCondition bounds the condition number of H accepted by the seed search.
const maxCondition = 6

// Build returns the toy model and its vocabulary.
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
		return m, tokenizer.WordVocab(Words), nil
	}
	return nil, nil, fmt.Errorf("toymodel: no seed up to 1000 gives hidden states with condition number ≤ %d", maxCondition)
}

// sentenceTokens is "The cat sat on the" as token ids.
func sentenceTokens() ([]int, error) {
	words, err := tokenizer.NewWords(tokenizer.WordVocab(Words))
	if err != nil {
		return nil, err
	}
	return words.Encode(strings.TrimSuffix(Sentence, " mat"))
}

// randomBody fills every tensor but the classifier from seed: embeddings and
// matrices uniform in [-1, 1), RMSNorm gains in [0.5, 1.5).
func randomBody(seed uint64) (*checkpoint.Model, error) {
	m, err := checkpoint.New(Config)
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

// solveClassifier sets m's classifier to the W solving H·Wᵀ = targetLogits.
func solveClassifier(m *checkpoint.Model, H *mat.Dense) error {
	rows := len(targetLogits)
	L := mat.NewDense(rows, Config.VocabSize, nil)
	for i, row := range targetLogits {
		L.SetRow(i, row)
	}
	var Wt mat.Dense // dim × vocab
	if err := Wt.Solve(H, L); err != nil {
		return fmt.Errorf("toymodel: solving for the classifier: %w", err)
	}
	for v := range Config.VocabSize {
		for j := range Config.Dim {
			m.Weights.Classifier[v*Config.Dim+j] = float32(Wt.At(j, v))
		}
	}
	return nil
}
