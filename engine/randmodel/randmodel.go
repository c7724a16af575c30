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
//
// Random logits are nearly flat, so two programs' float rounding can choose
// different greedy tokens; Peak makes a model's head peaked instead. Each
// token's embedding becomes a code, the cosine and sine of its place n in a
// random cycle through the vocabulary at up to 48 frequencies, large enough
// to outweigh what the random layers add 8 to 1; with the classifier tied
// to the embedding each token would win after itself, so the last layer's
// feed-forward turns each frequency's pair by its angle, making the code
// place n+1's. The classifier then scores that token Σ cos 0 = 48 against
// Σ cos(k·angle) for the one k places away: 7.1 standard deviations of the
// logits ahead of the next on 354 tokens (Head.Margin), above 6.2 with the
// random layers, which still move every logit (TestPeak); the text walks
// the cycle from the prompt's last token.
package randmodel

import (
	"bufio"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
	"nexttoken/engine/tokenizer"
)

// Stories15M is the shape of llama2.c's stories15M model.
var Stories15M = checkpoint.Config{
	Dim: 288, HiddenDim: 768, Layers: 6, Heads: 6, KVHeads: 6,
	VocabSize: 32000, SeqLen: 256, SharedHead: true,
}

// Stories15MK is stories15M's shape narrowed from 288 to 256, so that the
// K formats fit it: Q4_K and Q6_K cut every row into blocks of 256 weights
// (quant.QK_K), and a row of 288 is not a whole number of them (for such
// rows llama-quantize falls back to Q5_0 and Q8_0 instead, so a Q4_K_M
// file of stories15M holds no Q4_K at all). The rest is stories15M's: 768
// hidden (three blocks), 6 layers, the 32,000-piece vocabulary, 256
// positions. Its 4 heads are 64 wide, llama's usual head size, as 48 does
// not divide 256; attention costs the same multiply-adds for any number of
// heads. It is for measuring the K formats beside its own F32 baseline
// (TestDecodeTiming in cmd/nexttoken).
var Stories15MK = checkpoint.Config{
	Dim: 256, HiddenDim: 768, Layers: 6, Heads: 4, KVHeads: 4,
	VocabSize: 32000, SeqLen: 256, SharedHead: true,
}

// Shapes are the shapes above by the names a measurement gives them
// (TestDecodeTiming); BuildShape builds them.
var Shapes = map[string]checkpoint.Config{
	"stories15m": Stories15M, "stories15mk": Stories15MK, "smollm2": SmolLM2, "qwen2.5-0.5b": Qwen25_05B,
}

// shapeArchitectures are the architectures, beside llama2.c's, of the
// Shapes of models of another one: what Extend adds to them.
var shapeArchitectures = map[string]string{"qwen2.5-0.5b": "qwen2"}

// BuildShape returns the model of the shape called shape (Shapes) in
// format: BuildNamed's for F32, Q4_K_M and Q5_K_M, and for a quantized
// type every matrix of it where its rows are whole blocks, llama-quantize's
// fallback where they are not (EveryOrFallback); with its architecture's
// additions (Extend, seed too) where it is not llama2.c's.
func BuildShape(shape string, seed uint64, format string) (*checkpoint.Model, *tokenizer.Vocab, error) {
	c, ok := Shapes[shape]
	if !ok {
		return nil, nil, fmt.Errorf("randmodel: shape %s is not one of %s", shape, shapeNames())
	}
	var m *checkpoint.Model
	var v *tokenizer.Vocab
	var err error
	if t, ok := quant.TypeNamed(format); ok && t != quant.F32 {
		m, v, err = BuildQuantized(c, seed, EveryOrFallback(c, t))
	} else {
		m, v, err = BuildNamed(c, seed, format)
	}
	if err != nil {
		return nil, nil, err
	}
	if arch, ok := shapeArchitectures[shape]; ok {
		if err := Extend(m, arch, seed); err != nil {
			return nil, nil, err
		}
	}
	return m, v, nil
}

// shapeNames lists Shapes' names, sorted.
func shapeNames() string {
	return strings.Join(slices.Sorted(maps.Keys(Shapes)), ", ")
}

// Qwen25_05B is the shape of Qwen2.5-0.5B (its config.json, and the
// qwen2.* keys of its GGUF files): 24 layers 896 wide, 14 query heads of
// 64 with 2 key/value heads, a feed-forward layer of 4864, the classifier
// tied to the embedding of its 151,936 pieces; BuildShape gives it Qwen2's
// architecture (Extend's "qwen2": biases on Q, K and V, RoPE base 10⁶).
// Its context of 32,768 is cut to 2048, as SmolLM2's. Its 896-wide rows
// are not whole 256-weight blocks, so its Q4_K_M is Q5_0 and Q8_0 but in
// the 4864-wide w2 (Q4_K and Q6_K), as a real Qwen2.5-0.5B Q4_K_M file is.
var Qwen25_05B = checkpoint.Config{
	Dim: 896, HiddenDim: 4864, Layers: 24, Heads: 14, KVHeads: 2,
	VocabSize: 151936, SeqLen: 2048, SharedHead: true,
}

// SmolLM2 is the shape of Hugging Face's SmolLM2-135M (its config.json):
// 30 layers, grouped-query attention with 3 key/value heads for 9 query
// heads, the classifier tied to the embedding. Its context of 8192 is cut
// to 2048 here: the cache grows with the positions fed, so the length only
// bounds a session.
var SmolLM2 = checkpoint.Config{
	Dim: 576, HiddenDim: 1536, Layers: 30, Heads: 9, KVHeads: 3,
	VocabSize: 49152, SeqLen: 2048, SharedHead: true,
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

// RandomGains sets m's RMSNorm gains to pseudo-random values in
// [0.5, 1.5) drawn from seed. With gains of one, RMSNorm keeps the few
// repeated values of a quantized token embedding, and quantizing that row
// again for an integer dot product (package quant, llama.cpp) puts many
// products exactly halfway between two integers, where the last bit of the
// norm decides the rounding; trained gains, like these, break the ties.
func RandomGains(m *checkpoint.Model, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x6a1))
	for _, g := range [][]float32{m.Weights.RMSAtt, m.Weights.RMSFFN, m.Weights.RMSFinal} {
		for i := range g {
			g[i] = 0.5 + rng.Float32()
		}
	}
}

// Extensions are the architectures beside llama2.c's that Extend makes of
// a model, by the names cmd/randmodel's -arch takes.
var Extensions = []string{"gemma", "gemma2", "gemma3", "gpt2", "llama3", "phi3", "qwen2", "qwen3"}

// What Extend gives the architectures with a sliding window or
// soft-capping: a window of 4 positions, so that a sequence of a few
// tokens slides out of it, and caps below the largest attention scores
// and logits of the reference model (testdata/quantized in package gguf),
// so that they bend some: its largest attention score as gemma2 is 3.2,
// its largest logit 8.1.
const (
	ExtendWindow       = 4
	ExtendAttnSoftcap  = 2
	ExtendFinalSoftcap = 6
)

// Extend gives m what architecture arch has beyond llama2.c's, drawn from
// seed, as llama.cpp reads it: "llama3" Llama 3's RoPE base, 500,000, and
// frequency factors, computed as convert_hf_to_gguf.py computes them for
// Llama 3.1 and 3.2 (factor 32, low and high frequency factors 1 and 4, an
// original context of 8,192), which span 1 to 32 over a head of 64;
// "qwen2" Qwen2's RoPE on halves of a head, its base, 1,000,000, and query,
// key and value biases drawn from [−0.5, 0.5), larger than the weights, as
// Qwen2's are; "gemma" Gemma's embedding scaled by √dim, GELU
// feed-forward and RoPE on halves of a head; "gpt2" GPT-2's LayerNorm,
// learned positions, GELU feed-forward without a gate (W1 goes) and a bias
// on every projection and norm, all drawn from [−0.1, 0.1); "phi3"
// Phi-3's RoPE on halves of a head and a sliding window on every layer
// (its fused matrices are how a file stores them, not what a model
// computes); "qwen3" Qwen3's RoPE on halves, base 1,000,000, and RMSNorm
// gains of the query's and key's heads; "gemma2" Gemma's additions, the
// post-norms, a sliding window on every other layer (0, 2, …) and
// soft-capped attention scores and logits; "gemma3" Gemma's additions,
// the post-norms, query and key norms, a sliding window on five layers of
// six, with RoPE base 10,000 there and 1,000,000 on the sixth. New gains
// are drawn from [0.5, 1.5), as RandomGains draws them; windows and caps
// are the constants above.
func Extend(m *checkpoint.Model, arch string, seed uint64) error {
	c, w := &m.Config, &m.Weights
	rng := rand.New(rand.NewPCG(seed, 0xb1a5))
	random := func(n int, scale float32) []float32 {
		b := make([]float32, n)
		for i := range b {
			b[i] = (rng.Float32()*2 - 1) * scale
		}
		return b
	}
	gains := func(n int) []float32 {
		g := make([]float32, n)
		for i := range g {
			g[i] = 0.5 + rng.Float32()
		}
		return g
	}
	gemma := func(name string) {
		c.Arch, c.RoPEHalves, c.ScaleEmbedding, c.GELU = name, true, true, true
	}
	postNorms := func() {
		c.PostNorms = true
		w.RMSAttPost, w.RMSFFNPost = gains(c.Layers*c.Dim), gains(c.Layers*c.Dim)
	}
	qkNorms := func() {
		w.QNorm, w.KNorm = gains(c.Layers*c.HeadSize()), gains(c.Layers*c.HeadSize())
	}
	switch arch {
	case "gpt2":
		c.Arch, c.GELU, c.LayerNorm, c.Positions, c.Ungated = "gpt2", true, true, true, true
		d, h, qd, kv, l := c.Dim, c.HiddenDim, c.QDim(), c.KVDim(), c.Layers
		w.W1 = nil
		if w.Quantized != nil {
			for i := range w.Quantized.Layers {
				w.Quantized.Layers[i].W1 = quant.Matrix{}
			}
		}
		w.PosEmbedding = random(c.SeqLen*d, 0.1)
		w.BQ, w.BK, w.BV, w.BO = random(l*qd, 0.1), random(l*kv, 0.1), random(l*kv, 0.1), random(l*d, 0.1)
		w.BUp, w.BDown = random(l*h, 0.1), random(l*d, 0.1)
		w.NormAttBias, w.NormFFNBias, w.NormFinalBias = random(l*d, 0.1), random(l*d, 0.1), random(d, 0.1)
	case "gemma":
		gemma("gemma")
	case "gemma2":
		gemma("gemma2")
		postNorms()
		c.Window, c.GlobalEvery = ExtendWindow, 2
		c.AttnSoftcap, c.FinalSoftcap = ExtendAttnSoftcap, ExtendFinalSoftcap
	case "gemma3":
		gemma("gemma3")
		postNorms()
		qkNorms()
		c.Window, c.GlobalEvery, c.RoPEBase, c.LocalRoPEBase = ExtendWindow, 6, 1000000, 10000
	case "phi3":
		c.Arch, c.RoPEHalves, c.Window = "phi3", true, ExtendWindow
	case "qwen3":
		c.Arch, c.RoPEBase, c.RoPEHalves = "qwen3", 1000000, true
		qkNorms()
	case "llama3":
		c.Arch, c.RoPEBase = "llama", 500000
		const factor, low, high, context = 32, 1, 4, 8192
		hs := c.HeadSize()
		w.RoPEFactors = make([]float32, hs/2)
		for i := range w.RoPEFactors {
			freq := 1 / math.Pow(float64(c.RoPEBase), float64(2*i)/float64(hs))
			wavelen := 2 * math.Pi / freq
			switch smooth := (context/wavelen - low) / (high - low); {
			case wavelen < context/high:
				w.RoPEFactors[i] = 1
			case wavelen > context/low:
				w.RoPEFactors[i] = factor
			default:
				w.RoPEFactors[i] = float32(1 / ((1-smooth)/factor + smooth))
			}
		}
	case "qwen2":
		c.Arch, c.RoPEBase, c.RoPEHalves = "qwen2", 1000000, true
		w.BQ, w.BK, w.BV = random(c.Layers*c.QDim(), 0.5), random(c.Layers*c.KVDim(), 0.5), random(c.Layers*c.KVDim(), 0.5)
	default:
		return fmt.Errorf("randmodel: architecture %q is not one of %s", arch, strings.Join(Extensions, ", "))
	}
	return c.Validate()
}

// BuildQuantized returns a model of configuration c whose weight matrices
// are random blocks of the formats format picks (package quant; their rows
// must be whole blocks), with weights up to about ±0.1 like Build's, RMSNorm
// gains of one, and Build's vocabulary. format is given each matrix's
// llama2.c name (token_embedding, classifier, wq, wk, wv, wo, w1, w2, w3)
// and layer (−1 for the first two); a shared classifier is the token
// embedding.
func BuildQuantized(c checkpoint.Config, seed uint64, format func(name string, layer int) quant.Type) (*checkpoint.Model, *tokenizer.Vocab, error) {
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x9))
	var err error
	matrix := func(name string, layer, rows, cols int) quant.Matrix {
		t := format(name, layer)
		if t.BlockSize() == 0 || cols%t.BlockSize() != 0 {
			if err != nil {
				return quant.Matrix{}
			}
			err = fmt.Errorf("randmodel: %s of layer %d is %d wide, not a whole number of %s blocks", name, layer, cols, t)
			return quant.Matrix{}
		}
		return quant.Random(t, rows, cols, 0.1, rng)
	}
	d, h, qd, kv, v := c.Dim, c.HiddenDim, c.QDim(), c.KVDim(), c.VocabSize
	q := &checkpoint.Matrices{TokenEmbedding: matrix("token_embedding", -1, v, d), Layers: make([]checkpoint.LayerMatrices, c.Layers)}
	q.Classifier = q.TokenEmbedding
	if !c.SharedHead {
		q.Classifier = matrix("classifier", -1, v, d)
	}
	for l := range q.Layers {
		q.Layers[l] = checkpoint.LayerMatrices{
			WQ: matrix("wq", l, qd, d), WK: matrix("wk", l, kv, d), WV: matrix("wv", l, kv, d), WO: matrix("wo", l, d, qd),
			W1: matrix("w1", l, h, d), W2: matrix("w2", l, d, h), W3: matrix("w3", l, h, d),
		}
	}
	if err != nil {
		return nil, nil, err
	}
	m := &checkpoint.Model{Config: c, Weights: checkpoint.Weights{
		RMSAtt: ones(c.Layers * d), RMSFFN: ones(c.Layers * d), RMSFinal: ones(d), Quantized: q,
	}}
	voc, err := Vocab(v, seed)
	if err != nil {
		return nil, nil, err
	}
	return m, voc, nil
}

func ones(n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = 1
	}
	return x
}

// Every is the format that gives every matrix type t, for BuildQuantized.
func Every(t quant.Type) func(name string, layer int) quant.Type {
	return func(string, int) quant.Type { return t }
}

// BuildAs returns Build's model for F32, and otherwise BuildQuantized's
// with every matrix of type t.
func BuildAs(c checkpoint.Config, seed uint64, t quant.Type) (*checkpoint.Model, *tokenizer.Vocab, error) {
	if t == quant.F32 {
		return Build(c, seed)
	}
	return BuildQuantized(c, seed, Every(t))
}

// BuildNamed returns the model of configuration c in the format called
// name, in any case: "F32" (Build's), a quantized type of package quant
// such as "Q4_K" (BuildAs's, every matrix of it), or "Q4_K_M" or "Q5_K_M"
// (BuildQuantized's with that llama-quantize mixture). A format whose
// blocks do not fit c's rows is refused with BuildQuantized's error.
func BuildNamed(c checkpoint.Config, seed uint64, name string) (*checkpoint.Model, *tokenizer.Vocab, error) {
	switch strings.ToUpper(name) {
	case "Q4_K_M":
		return BuildQuantized(c, seed, Q4_K_M(c))
	case "Q5_K_M":
		return BuildQuantized(c, seed, Q5_K_M(c))
	}
	t, ok := quant.TypeNamed(name)
	if !ok {
		return nil, nil, fmt.Errorf("randmodel: format %q is not F32, Q4_K_M, Q5_K_M or a quantized type (%s)", name, quant.Types)
	}
	return BuildAs(c, seed, t)
}

// Q4_K_M picks the formats llama.cpp's llama-quantize gives a llama model
// of configuration c for its Q4_K_M mixture (llama_tensor_get_type_impl in
// src/llama-quant.cpp, without experts): Q6_K for the classifier (the
// token embedding when shared) and for wv and w2 in the layers its
// use_more_bits picks, Q4_K for everything else; then, for rows that are
// not whole 256-weight blocks (SmolLM2-135M's 576, say), its
// tensor_type_fallback: Q5_0 for Q4_K, Q8_0 for Q6_K.
func Q4_K_M(c checkpoint.Config) func(name string, layer int) quant.Type {
	return mediumK(c, quant.Q4_K)
}

// Q5_K_M is Q4_K_M's mixture with Q5_K in Q4_K's place, and Q5_1 for it
// where rows are not whole 256-weight blocks, as llama-quantize makes its
// Q5_K_M (LLAMA_FTYPE_MOSTLY_Q5_K_M): SmolLM2-135M's is then mostly Q5_1,
// with Q5_K and Q6_K only in its 1536-wide w2.
func Q5_K_M(c checkpoint.Config) func(name string, layer int) quant.Type {
	return mediumK(c, quant.Q5_K)
}

// mediumK is the mixture of Q4_K_M, base Q4_K, or of Q5_K_M, base Q5_K.
func mediumK(c checkpoint.Config, base quant.Type) func(name string, layer int) quant.Type {
	n := c.Layers
	moreBits := func(i int) bool { return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2 }
	return withFallbacks(c, func(name string, layer int) quant.Type {
		switch {
		case name == "classifier", name == "token_embedding" && c.SharedHead:
			return quant.Q6_K
		case (name == "wv" || name == "w2") && moreBits(layer):
			return quant.Q6_K
		}
		return base
	})
}

// EveryOrFallback is the format that gives every matrix type t where its
// rows are whole blocks of t, and llama-quantize's fallback where they are
// not (withFallbacks): Q6_K on SmolLM2-135M's shape, whose rows are whole
// 256-weight blocks only in its 1536-wide w2, is Q8_0 elsewhere.
func EveryOrFallback(c checkpoint.Config, t quant.Type) func(name string, layer int) quant.Type {
	return withFallbacks(c, Every(t))
}

// fallbacks are the types llama-quantize writes in place of the key's
// where a row is not a whole number of its blocks (tensor_type_fallback
// in src/llama-quant.cpp's llama_tensor_get_type).
var fallbacks = map[quant.Type]quant.Type{
	quant.Q2_K: quant.IQ4_NL, quant.Q3_K: quant.IQ4_NL, quant.IQ4_XS: quant.IQ4_NL,
	quant.Q4_K: quant.Q5_0, quant.Q5_K: quant.Q5_1, quant.Q6_K: quant.Q8_0,
}

// withFallbacks is pick with fallbacks' type where a matrix's rows (of
// configuration c) are not whole blocks of pick's.
func withFallbacks(c checkpoint.Config, pick func(name string, layer int) quant.Type) func(name string, layer int) quant.Type {
	return func(name string, layer int) quant.Type {
		t, cols := pick(name, layer), c.Dim
		switch name {
		case "w2":
			cols = c.HiddenDim
		case "wo":
			cols = c.QDim()
		}
		if fallback, ok := fallbacks[t]; ok && cols%t.BlockSize() != 0 {
			t = fallback
		}
		return t
	}
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
