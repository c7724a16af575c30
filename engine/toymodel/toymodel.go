// Package toymodel is the worked example's toy language model: a real
// Llama-2 style transformer with hidden size 4 over the six-word vocabulary
// The, cat, sat, on, the, mat, stored in the llama2.c checkpoint format and
// run by the same code as any other checkpoint. This package holds what it
// was designed to say; command toymodel builds it (its doc says how) into
// web/models, and the browser program needs only this package's data.
package toymodel

import "nexttoken/engine/checkpoint"

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

// TargetLogits are the designed logits after each position 1..4 of Sentence:
// each row's largest entry is the next word. Rows 2–4 are our own choice,
// with plausible runners-up (after "the", "cat" is the second guess).
var TargetLogits = [][]float64{
	WorkedLogits,                       // after "The cat": sat
	{-1.2, -0.8, -0.3, 2.9, 0.7, -0.4}, // after "sat": on
	{-0.6, 0.2, -1.1, -1.4, 3.2, 0.5},  // after "on": the
	{-1.5, 1.1, -0.9, -0.7, -1.3, 2.6}, // after "the": mat
}
