// Package randmodel makes stand-in models for measurements: a llama2.c
// checkpoint of any shape filled with pseudo-random weights, and a
// SentencePiece-style BPE vocabulary of any size to go with it. A random
// model costs exactly what a trained one of the same shape costs to run, so
// llama2.c's stories15M can be measured without its 60 MB of weights:
//
//	go run ./cmd/randmodel DIR
//
// writes DIR/model.bin and DIR/tokenizer.bin of Stories15M's shape, the
// same bytes on every run and every machine.
//
// The vocabulary is laid out like llama2's, so that run.c reads it too:
// "<unk>", BOS "\n<s>\n", EOS "\n</s>\n", the 256 byte pieces
// "<0x00>"…"<0xFF>" (ids 3…258), the printable ASCII characters, common
// story words with a leading space and every prefix of them (so that BPE
// merges reach them: "Once upon a time" is five tokens after BOS), then
// pieces made by appending a letter to an earlier piece, until the
// vocabulary is full. The piece of id i has score -i, as a later merge.
package randmodel

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/tokenizer"
)

// Stories15M is the shape of llama2.c's stories15M model.
var Stories15M = checkpoint.Config{
	Dim: 288, HiddenDim: 768, Layers: 6, Heads: 6, KVHeads: 6,
	VocabSize: 32000, SeqLen: 256, SharedHead: true,
}

// Build returns a model of configuration c whose weights are drawn
// uniformly from [-0.1, 0.1) by a PCG generator seeded with seed, with
// RMSNorm gains of one, and a BPE vocabulary of c.VocabSize pieces.
func Build(c checkpoint.Config, seed uint64) (*checkpoint.Model, *tokenizer.Vocab, error) {
	m, err := checkpoint.New(c)
	if err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x15))
	m.Tensors(func(name string, values []float32) {
		if strings.HasPrefix(name, "rms") {
			return // gains of one: rmsnorm keeps its input's scale
		}
		for i := range values {
			values[i] = rng.Float32()*0.2 - 0.1
		}
	})
	v, err := Vocab(c.VocabSize, seed)
	if err != nil {
		return nil, nil, err
	}
	return m, v, nil
}

// words are spelt out by the vocabulary, each with a leading space, so that
// a prompt such as "Once upon a time" encodes to whole words.
var words = strings.Fields(`Once upon a time there was little girl boy named Lily Tom Ben
	She He loved to play with her his friends in the park One day saw big red ball and dog cat
	It They were very happy sad said mom dad went home but not an of on at for is it be you I
	tree sun sky bird fish water run jump help toy box car house room bed food cake good nice
	The A`)

// minPieces is the smallest vocabulary Vocab makes: the special and byte
// pieces and the printable ASCII characters.
const minPieces = 3 + 256 + 95

// Vocab returns a BPE vocabulary of n ≥ 354 pieces, laid out as the package
// documentation describes; seed picks the generated pieces.
func Vocab(n int, seed uint64) (*tokenizer.Vocab, error) {
	if n < minPieces {
		return nil, fmt.Errorf("randmodel: a vocabulary needs at least %d pieces, not %d", minPieces, n)
	}
	pieces := make([]string, 0, n)
	seen := make(map[string]bool, n)
	add := func(p string) {
		if len(pieces) < n && !seen[p] {
			seen[p] = true
			pieces = append(pieces, p)
		}
	}
	add("<unk>")
	add("\n<s>\n")
	add("\n</s>\n")
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b))
	}
	for c := byte(' '); c <= '~'; c++ {
		add(string(c))
	}
	for _, w := range words {
		w = " " + w
		for i := 2; i <= len(w); i++ {
			add(w[:i])
		}
	}
	// Grow earlier pieces (not the special or byte ones) by a letter.
	const letters = "etaoinshrdlucmfwypvbgkqjxz"
	first := 3 + 256
	rng := rand.New(rand.NewPCG(seed, 0x70c))
	for len(pieces) < n {
		base := pieces[first+rng.IntN(len(pieces)-first)]
		if len(base) >= 12 {
			continue
		}
		// Frequent letters more often: the square of a uniform index.
		f := rng.Float64()
		add(base + letters[int(f*f*float64(len(letters))):][:1])
	}
	v := &tokenizer.Vocab{Pieces: pieces, Scores: make([]float32, n)}
	for i, p := range pieces {
		v.Scores[i] = -float32(i)
		v.MaxTokenLength = max(v.MaxTokenLength, len(p))
	}
	return v, nil
}

// Files are the names Write gives its files.
const (
	ModelFile     = "model.bin"
	TokenizerFile = "tokenizer.bin"
)

// Write builds a model of configuration c from seed and writes it into dir
// as ModelFile and TokenizerFile, in llama2.c's formats.
func Write(dir string, c checkpoint.Config, seed uint64) error {
	m, v, err := Build(c, seed)
	if err != nil {
		return err
	}
	tok, err := v.MarshalBinary()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, TokenizerFile), tok, 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, ModelFile))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := checkpoint.Write(w, m); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
