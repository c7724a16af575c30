// Package checkpoint reads and writes model checkpoints in the format of
// Andrej Karpathy's llama2.c (run.c's "legacy" version-0 files).
//
// A checkpoint is a header of seven little-endian int32 values
//
//	dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len
//
// followed by float32 tensors, back to back, each matrix row-major with shape
// (out, in) so that y[i] = Σ_j W[i][j]·x[j]:
//
//	token_embedding  vocab × dim
//	rms_att          layers × dim
//	wq               layers × dim × dim
//	wk, wv           layers × kv_dim × dim      (kv_dim = dim·n_kv_heads/n_heads)
//	wo               layers × dim × dim
//	rms_ffn          layers × dim
//	w1, w2, w3       layers × hidden × dim, layers × dim × hidden, layers × hidden × dim
//	rms_final        dim
//	freq_cis         2 × seq_len × head_size/2  (unused: RoPE is computed on the fly)
//	classifier       vocab × dim                (only when vocab_size < 0)
//
// A negative vocab_size means the classifier is stored after everything else;
// a positive one means the classifier shares the token embedding.
//
// Read, ReadFrom and ReadFile check the header against the file size before
// allocating anything, so a malformed or hostile file costs at most its own
// size. ReadFile and ReadFrom decode the weights straight into their tensors,
// a chunk at a time: reading a file holds one copy of the weights, not the
// file's bytes as well.
package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"nexttoken/engine/quant"
	"nexttoken/engine/regularfile"
)

// Config holds the hyper-parameters of a Llama-2 style transformer.
type Config struct {
	Dim        int // width of the residual stream
	HiddenDim  int // width of the feed-forward layer
	Layers     int
	Heads      int // query heads
	KVHeads    int // key/value heads; each serves Heads/KVHeads query heads
	HeadDim    int // the width of a head when it is not Dim/Heads (Gemma 2 and 3, Qwen3); 0 for Dim/Heads
	VocabSize  int
	SeqLen     int  // maximum context length
	SharedHead bool // the classifier is the token-embedding matrix

	// RoPEBase and NormEps are the rotary embedding's base and RMSNorm's
	// epsilon. llama2.c's format stores neither (run.c hard-codes 10000 and
	// 1e-5); zero means those values, so that a checkpoint read from it keeps
	// run.c's arithmetic. Other formats (GGUF) set them.
	RoPEBase float32
	NormEps  float32

	// RoPEHalves rotates the pairs (i, i+hs/2) of each head, as GPT-NeoX
	// and Hugging Face do (llama.cpp's LLAMA_ROPE_TYPE_NEOX, which it runs
	// Qwen2 with); false rotates adjacent pairs (2i, 2i+1), as run.c and
	// llama.cpp's llama architecture do. llama2.c's format has no such flag.
	RoPEHalves bool

	// ScaleEmbedding multiplies a token's embedding by √dim before the
	// first layer, and GELU gates the feed-forward layer with GELU's tanh
	// approximation instead of SiLU (both Gemma's). llama2.c's format has
	// neither.
	ScaleEmbedding, GELU bool

	// GPT-2's: the norms are LayerNorm (the mean subtracted, a bias
	// added: Weights.NormAttBias…) rather than RMSNorm; a learned position
	// embedding (Weights.PosEmbedding) is added to the token's, and RoPE
	// is not applied; and the feed-forward layer has no gate: W2·act(W3·x).
	LayerNorm, Positions, Ungated bool

	// Sliding-window attention (Phi-3's, Gemma 2's and 3's): a windowed
	// layer's query attends only to the Window latest positions, its own
	// and the Window−1 before it. With GlobalEvery n > 0 every n-th layer
	// (l+1 a multiple of n) attends to every position and the others are
	// windowed; with GlobalEvery 0 every layer is. Window 0: no window.
	Window, GlobalEvery int

	// Soft-capping (Gemma 2's): attention scores and the final logits
	// become cap·tanh(x/cap), so that none exceeds ±cap; 0 is none.
	AttnSoftcap, FinalSoftcap float32

	// PostNorms (Gemma 2's and 3's) RMS-normalises the outputs of attention
	// and of the feed-forward layer (gains Weights.RMSAttPost, RMSFFNPost)
	// before they are added to the residual stream.
	PostNorms bool

	// LocalRoPEBase (Gemma 3's) is the RoPE base of the windowed layers;
	// 0 means Base(), as for the others.
	LocalRoPEBase float32

	// Arch is the GGUF architecture the model was read as (general.architecture),
	// "" for a llama2.c checkpoint.
	Arch string
}

// The values run.c hard-codes, and what a zero RoPEBase or NormEps means.
const (
	DefaultRoPEBase = 10000
	DefaultNormEps  = 1e-5
)

// Base returns the RoPE base: RoPEBase, or run.c's 10000 when it is zero.
func (c Config) Base() float32 {
	if c.RoPEBase == 0 {
		return DefaultRoPEBase
	}
	return c.RoPEBase
}

// Eps returns the RMSNorm epsilon: NormEps, or run.c's 1e-5 when it is zero.
func (c Config) Eps() float32 {
	if c.NormEps == 0 {
		return DefaultNormEps
	}
	return c.NormEps
}

// Windowed reports whether layer l attends only to the Window latest
// positions.
func (c Config) Windowed(l int) bool {
	return c.Window > 0 && (c.GlobalEvery == 0 || (l+1)%c.GlobalEvery != 0)
}

// HeadSize is the width of one attention head: HeadDim, or Dim/Heads.
func (c Config) HeadSize() int {
	if c.HeadDim != 0 {
		return c.HeadDim
	}
	return c.Dim / c.Heads
}

// QDim is the width of the queries of one layer, and of its attention's
// output: Dim unless HeadDim says otherwise.
func (c Config) QDim() int { return c.Heads * c.HeadSize() }

// KVDim is the width of the keys and values of one layer.
func (c Config) KVDim() int { return c.KVHeads * c.HeadSize() }

// Limits on header values. They are generous for the models a browser can run
// and small enough that every size computation fits comfortably in an int.
const (
	maxDim    = 1 << 16
	maxLayers = 1 << 10
	maxVocab  = 1 << 20
	maxSeqLen = 1 << 20
	// maxFloats bounds the whole weight file: 2^31 floats are 8 GiB.
	maxFloats = 1 << 31
)

// Validate reports the first inconsistency in c, in words a person can act on.
func (c Config) Validate() error {
	fields := []struct {
		name       string
		value, max int
	}{
		{"dim", c.Dim, maxDim},
		{"hidden_dim", c.HiddenDim, maxDim * 4},
		{"n_layers", c.Layers, maxLayers},
		{"n_heads", c.Heads, maxDim},
		{"n_kv_heads", c.KVHeads, maxDim},
		{"vocab_size", c.VocabSize, maxVocab},
		{"seq_len", c.SeqLen, maxSeqLen},
	}
	for _, f := range fields {
		if f.value <= 0 || f.value > f.max {
			return fmt.Errorf("checkpoint: %s = %d, want 1 to %d", f.name, f.value, f.max)
		}
	}
	if c.HeadDim < 0 || c.HeadDim > maxDim || c.QDim() > maxDim*4 {
		return fmt.Errorf("checkpoint: head size %d × %d heads, want at most %d in all", c.HeadDim, c.Heads, maxDim*4)
	}
	if c.HeadDim == 0 && c.Dim%c.Heads != 0 {
		return fmt.Errorf("checkpoint: n_heads = %d does not divide dim = %d", c.Heads, c.Dim)
	}
	if c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("checkpoint: n_kv_heads = %d does not divide n_heads = %d", c.KVHeads, c.Heads)
	}
	// RoPE rotates pairs of numbers within a head.
	if c.HeadSize()%2 != 0 {
		return fmt.Errorf("checkpoint: head size %d is odd; rotary embedding needs pairs", c.HeadSize())
	}
	// NaN fails both comparisons, so it is refused too.
	if !(c.RoPEBase == 0 || c.RoPEBase > 1 && c.RoPEBase <= math.MaxFloat32) {
		return fmt.Errorf("checkpoint: RoPE base %v, want a finite number above 1 (or 0 for run.c's 10000)", c.RoPEBase)
	}
	if !(c.LocalRoPEBase == 0 || c.LocalRoPEBase > 1 && c.LocalRoPEBase <= math.MaxFloat32) {
		return fmt.Errorf("checkpoint: local RoPE base %v, want a finite number above 1 (or 0 for the RoPE base)", c.LocalRoPEBase)
	}
	if c.Window < 0 || c.Window > maxSeqLen || c.GlobalEvery < 0 || c.GlobalEvery > maxLayers {
		return fmt.Errorf("checkpoint: sliding window %d, global every %d layers; want 0 to %d and 0 to %d", c.Window, c.GlobalEvery, maxSeqLen, maxLayers)
	}
	for _, limit := range []float32{c.AttnSoftcap, c.FinalSoftcap} {
		if !(limit >= 0 && limit <= math.MaxFloat32) {
			return fmt.Errorf("checkpoint: soft-cap %v, want a finite positive number (or 0 for none)", limit)
		}
	}
	if !(c.NormEps >= 0 && c.NormEps < 1) {
		return fmt.Errorf("checkpoint: RMSNorm epsilon %v, want 0 to 1 (0 for run.c's 1e-5)", c.NormEps)
	}
	if n := c.weightFloats(); n > maxFloats {
		return fmt.Errorf("checkpoint: the header describes %d weights, more than the %d this reader accepts", n, maxFloats)
	}
	return nil
}

// Weights holds every tensor of a checkpoint, each a flat row-major slice
// laid out as the package documentation describes.
type Weights struct {
	TokenEmbedding []float32 // vocab × dim
	RMSAtt         []float32 // layers × dim
	WQ             []float32 // layers × q_dim × dim (q_dim = heads × head_size: dim but with Config.HeadDim)
	WK             []float32 // layers × kv_dim × dim
	WV             []float32 // layers × kv_dim × dim
	WO             []float32 // layers × dim × q_dim
	RMSFFN         []float32 // layers × dim
	W1             []float32 // layers × hidden × dim (gate)
	W2             []float32 // layers × dim × hidden (down)
	W3             []float32 // layers × hidden × dim (up)
	RMSFinal       []float32 // dim
	FreqCIS        []float32 // 2 × seq_len × head_size/2, kept only to write files back unchanged
	Classifier     []float32 // vocab × dim; aliases TokenEmbedding when shared

	// Beyond llama2.c's format (GGUF files only), nil when the model has
	// none: the biases added to the query, key and value projections
	// (Qwen2), and RoPE's frequency factors (Llama 3: pair i turns
	// RoPEFactors[i] times slower).
	BQ, BK, BV  []float32 // layers × q_dim, layers × kv_dim, layers × kv_dim
	RoPEFactors []float32 // head_size/2
	// GPT-2's: the output and feed-forward biases, LayerNorm's biases and
	// the learned position embedding.
	BO, BUp, BDown                          []float32 // layers × dim, layers × hidden, layers × dim
	NormAttBias, NormFFNBias, NormFinalBias []float32 // layers × dim, layers × dim, dim
	PosEmbedding                            []float32 // seq_len × dim
	// Gemma 2's and 3's post-norm gains (Config.PostNorms), and Qwen3's
	// and Gemma 3's RMSNorm gains of each head of the query and key,
	// applied before RoPE.
	RMSAttPost, RMSFFNPost []float32 // layers × dim
	QNorm, KNorm           []float32 // layers × head_size

	// Quantized, when set, holds every weight matrix as its file stores
	// it (a GGUF file with quantized tensors), and the float32 matrices
	// above are nil: only the RMSNorm gains are read from them. llama2.c
	// checkpoints never set it.
	Quantized *Matrices
}

// Matrices are a model's weight matrices as quant.Matrix values, each of
// shape (out, in), as the transformer multiplies them.
type Matrices struct {
	TokenEmbedding quant.Matrix // vocab × dim; a row is a token's embedding
	Classifier     quant.Matrix // vocab × dim; TokenEmbedding when shared
	Layers         []LayerMatrices
}

// LayerMatrices are the weight matrices of one layer.
type LayerMatrices struct {
	WQ, WK, WV, WO quant.Matrix // q_dim × dim, kv_dim × dim, kv_dim × dim, dim × q_dim
	W1, W2, W3     quant.Matrix // hidden × dim, dim × hidden, hidden × dim
}

// Matrices returns m's weight matrices: Weights.Quantized, or float32
// views of the Weights tensors, sharing their memory.
func (m *Model) Matrices() *Matrices {
	if m.Weights.Quantized != nil {
		return m.Weights.Quantized
	}
	c, w := m.Config, &m.Weights
	d, h, qd, kv := c.Dim, c.HiddenDim, c.QDim(), c.KVDim()
	// view is matrix number l of rows × cols in a tensor of layers; none
	// for a tensor the model has not (W1 without a gate).
	view := func(t []float32, l, rows, cols int) quant.Matrix {
		if t == nil {
			return quant.Matrix{}
		}
		return quant.Matrix{Type: quant.F32, Rows: rows, Cols: cols, F32: t[l*rows*cols : (l+1)*rows*cols]}
	}
	ms := &Matrices{
		TokenEmbedding: view(w.TokenEmbedding, 0, c.VocabSize, d),
		Classifier:     view(w.Classifier, 0, c.VocabSize, d),
		Layers:         make([]LayerMatrices, c.Layers),
	}
	for l := range ms.Layers {
		ms.Layers[l] = LayerMatrices{
			WQ: view(w.WQ, l, qd, d), WK: view(w.WK, l, kv, d), WV: view(w.WV, l, kv, d), WO: view(w.WO, l, d, qd),
			W1: view(w.W1, l, h, d), W2: view(w.W2, l, d, h), W3: view(w.W3, l, h, d),
		}
	}
	return ms
}

// Model is a checkpoint in memory.
type Model struct {
	Config  Config
	Weights Weights
}

// tensor names a slot of Weights with its size, in file order.
type tensor struct {
	name string
	dst  *[]float32
	size int
}

// tensors lists the tensors of w in file order, sized for c.
func (c Config) tensors(w *Weights) []tensor {
	l, d, h, qd, kv, v := c.Layers, c.Dim, c.HiddenDim, c.QDim(), c.KVDim(), c.VocabSize
	ts := []tensor{
		{"token_embedding", &w.TokenEmbedding, v * d},
		{"rms_att", &w.RMSAtt, l * d},
		{"wq", &w.WQ, l * qd * d},
		{"wk", &w.WK, l * kv * d},
		{"wv", &w.WV, l * kv * d},
		{"wo", &w.WO, l * d * qd},
		{"rms_ffn", &w.RMSFFN, l * d},
		{"w1", &w.W1, l * h * d},
		{"w2", &w.W2, l * d * h},
		{"w3", &w.W3, l * h * d},
		{"rms_final", &w.RMSFinal, d},
		{"freq_cis", &w.FreqCIS, c.SeqLen * c.HeadSize()},
	}
	if !c.SharedHead {
		ts = append(ts, tensor{"classifier", &w.Classifier, v * d})
	}
	return ts
}

// weightFloats is the number of float32 values after the header. The caller
// has checked each field's range, so the products cannot overflow an int64.
func (c Config) weightFloats() int {
	n := 0
	for _, t := range c.tensors(&Weights{}) {
		n += t.size
	}
	return n
}

const headerBytes = 7 * 4

// Read parses a checkpoint held in data.
func Read(data []byte) (*Model, error) {
	return ReadFrom(bytes.NewReader(data), int64(len(data)))
}

// ReadFile reads the checkpoint file at path. It holds one copy of the
// weights, as float32 values, and never the file's bytes: at its peak it
// uses the size of the file and a small buffer.
func ReadFile(path string) (*Model, error) {
	f, info, err := regularfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFrom(f, info.Size())
}

// chunkBytes is how much ReadFrom reads at a time.
const chunkBytes = 64 << 10

// ReadFrom reads a checkpoint of size bytes from r. It reads and checks the
// header, and checks it against size, before allocating anything; then it
// decodes the weights a chunk at a time straight into their tensors. r must
// hold exactly size bytes.
func ReadFrom(r io.Reader, size int64) (*Model, error) {
	if size < headerBytes {
		return nil, fmt.Errorf("checkpoint: file is %d bytes, shorter than the %d-byte header", size, headerBytes)
	}
	var header [headerBytes]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return nil, fmt.Errorf("checkpoint: reading the header: %w", err)
	}
	var h [7]int32
	for i := range h {
		h[i] = int32(binary.LittleEndian.Uint32(header[4*i:]))
	}
	c := Config{
		Dim: int(h[0]), HiddenDim: int(h[1]), Layers: int(h[2]), Heads: int(h[3]),
		KVHeads: int(h[4]), VocabSize: int(h[5]), SeqLen: int(h[6]),
		SharedHead: h[5] > 0,
	}
	if h[5] < 0 {
		c.VocabSize = -int(h[5]) // int, so -math.MinInt32 does not overflow
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	body := size - headerBytes
	if want := int64(c.weightFloats()) * 4; body != want {
		return nil, fmt.Errorf("checkpoint: header %s needs %d bytes of weights, the file has %d", c, want, body)
	}
	m := &Model{Config: c}
	buf := make([]byte, min(chunkBytes, body))
	for _, t := range c.tensors(&m.Weights) {
		*t.dst = make([]float32, t.size)
		for rest := *t.dst; len(rest) > 0; {
			n := min(len(rest), len(buf)/4)
			if _, err := io.ReadFull(r, buf[:4*n]); err != nil {
				return nil, fmt.Errorf("checkpoint: reading tensor %s: %w", t.name, err)
			}
			for i := range rest[:n] {
				rest[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
			}
			rest = rest[n:]
		}
	}
	if n, _ := r.Read(buf[:1]); n > 0 {
		return nil, fmt.Errorf("checkpoint: the file is longer than its %d bytes", size)
	}
	if c.SharedHead {
		m.Weights.Classifier = m.Weights.TokenEmbedding
	}
	return m, nil
}

// Write stores m in the checkpoint format; Read of the result gives back m.
func Write(w io.Writer, m *Model) error {
	c := m.Config
	if err := c.Validate(); err != nil {
		return err
	}
	if m.Weights.Quantized != nil {
		return errors.New("checkpoint: the llama2.c format holds float32 weights, not quantized ones")
	}
	if c.Base() != DefaultRoPEBase || c.Eps() != DefaultNormEps {
		return fmt.Errorf("checkpoint: the llama2.c format cannot store RoPE base %v and RMSNorm epsilon %v (run.c uses %v and %v)",
			c.Base(), c.Eps(), float32(DefaultRoPEBase), float32(DefaultNormEps))
	}
	if w := &m.Weights; c.RoPEHalves || c.ScaleEmbedding || c.GELU || c.LayerNorm || c.Positions || c.Ungated ||
		c.HeadDim != 0 || c.Window != 0 || c.AttnSoftcap != 0 || c.FinalSoftcap != 0 || c.PostNorms || c.LocalRoPEBase != 0 || w.QNorm != nil || w.BQ != nil || w.BK != nil || w.BV != nil || w.RoPEFactors != nil {
		return errors.New("checkpoint: the llama2.c format cannot store query, key and value biases, RoPE frequency factors, RoPE on halves of a head, a scaled embedding, a GELU feed-forward, a head size other than dim/n_heads, a sliding window, soft-capping or extra norms")
	}
	vocab := int32(c.VocabSize)
	if !c.SharedHead {
		vocab = -vocab
	}
	header := []int32{int32(c.Dim), int32(c.HiddenDim), int32(c.Layers), int32(c.Heads), int32(c.KVHeads), vocab, int32(c.SeqLen)}
	if err := binary.Write(w, binary.LittleEndian, header); err != nil {
		return err
	}
	for _, t := range c.tensors(&m.Weights) {
		if len(*t.dst) != t.size {
			return fmt.Errorf("checkpoint: tensor %s has %d values, the config needs %d", t.name, len(*t.dst), t.size)
		}
		if err := binary.Write(w, binary.LittleEndian, *t.dst); err != nil {
			return err
		}
	}
	return nil
}

// New returns a model of configuration c with every tensor allocated and zero,
// except the RMSNorm gains, which are one (the identity).
func New(c Config) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m := &Model{Config: c}
	for _, t := range c.tensors(&m.Weights) {
		*t.dst = make([]float32, t.size)
	}
	for _, gain := range [][]float32{m.Weights.RMSAtt, m.Weights.RMSFFN, m.Weights.RMSFinal} {
		for i := range gain {
			gain[i] = 1
		}
	}
	if c.SharedHead {
		m.Weights.Classifier = m.Weights.TokenEmbedding
	}
	return m, nil
}

// Tensors calls f for each tensor of m that holds parameters, in file order,
// skipping the unused freq_cis table and a shared classifier. Tools that fill a
// model (random benchmarks, the toy generator) use it to visit every weight.
func (m *Model) Tensors(f func(name string, values []float32)) {
	for _, t := range m.Config.tensors(&m.Weights) {
		if t.name != "freq_cis" {
			f(t.name, *t.dst)
		}
	}
}

// Extras says, in a reader's words, what m's forward pass does beyond
// llama2.c's run.c: its architecture's additions. None for a llama2.c
// model.
func (m *Model) Extras() []string {
	c, w := m.Config, &m.Weights
	var out []string
	switch {
	case w.BO != nil:
		out = append(out, "every projection adds a learned bias")
	case w.BQ != nil:
		out = append(out, "a learned bias is added to every query, key and value before RoPE")
	}
	if c.HeadDim != 0 {
		out = append(out, fmt.Sprintf("each of the %d heads is %d wide, not dim/heads = %d/%d: queries and attention's output are %d wide", c.Heads, c.HeadDim, c.Dim, c.Heads, c.QDim()))
	}
	if hs := c.HeadSize(); c.RoPEHalves {
		out = append(out, fmt.Sprintf("RoPE rotates the pairs (i, i + %d) of each head of %d, not adjacent pairs", hs/2, hs))
	}
	if c.Base() != DefaultRoPEBase {
		out = append(out, fmt.Sprintf("RoPE's base is %v, not %v", c.Base(), float32(DefaultRoPEBase)))
	}
	if f := w.RoPEFactors; f != nil {
		out = append(out, fmt.Sprintf("RoPE turns each pair 1/f times as fast, f from %v to %v (Llama 3's frequency factors)", slices.Min(f), slices.Max(f)))
	}
	if c.ScaleEmbedding {
		out = append(out, fmt.Sprintf("the token's embedding is multiplied by √%d before the first layer", c.Dim))
	}
	switch {
	case c.GELU && c.Ungated:
		out = append(out, "the feed-forward layer is W2·gelu(W3·x), with no gate")
	case c.GELU:
		out = append(out, "the feed-forward layer gates with GELU, not SiLU")
	}
	if c.LayerNorm {
		out = append(out, "the norms are LayerNorm (the mean subtracted, a bias added), not RMSNorm")
	}
	if c.Positions {
		out = append(out, "a learned position embedding is added to the token's, and there is no RoPE")
	}
	if w.QNorm != nil {
		out = append(out, "each head's query and key are RMS-normalised before RoPE")
	}
	if c.PostNorms {
		out = append(out, "the outputs of attention and of the feed-forward layer are RMS-normalised before they join the residual stream")
	}
	switch {
	case c.Window > 0 && c.GlobalEvery == 0:
		out = append(out, fmt.Sprintf("every layer attends only to the latest %d positions (a sliding window): older ones get no weight, though the cache keeps them", c.Window))
	case c.Window > 0:
		n := c.GlobalEvery
		out = append(out, fmt.Sprintf("every layer but layers %d, %d, … (one in %d) attends only to the latest %d positions (a sliding window): older ones get no weight there, though the cache keeps them for the other layers", n-1, 2*n-1, n, c.Window))
	}
	if c.LocalRoPEBase != 0 {
		out = append(out, fmt.Sprintf("the sliding-window layers' RoPE base is %v", c.LocalRoPEBase))
	}
	if c.AttnSoftcap != 0 {
		out = append(out, fmt.Sprintf("attention scores are soft-capped, s → %[1]v·tanh(s/%[1]v), before the softmax", c.AttnSoftcap))
	}
	if c.FinalSoftcap != 0 {
		out = append(out, fmt.Sprintf("the logits are soft-capped, ℓ → %[1]v·tanh(ℓ/%[1]v): none exceeds ±%[1]v", c.FinalSoftcap))
	}
	return out
}

func (c Config) String() string {
	s := fmt.Sprintf("(dim %d, hidden %d, layers %d, heads %d, kv heads %d, vocab %d, seq_len %d",
		c.Dim, c.HiddenDim, c.Layers, c.Heads, c.KVHeads, c.VocabSize, c.SeqLen)
	if c.HeadDim != 0 {
		s += fmt.Sprintf(", head size %d", c.HeadDim)
	}
	if c.Base() != DefaultRoPEBase {
		s += fmt.Sprintf(", RoPE base %v", c.Base())
	}
	if c.Eps() != DefaultNormEps {
		s += fmt.Sprintf(", RMSNorm eps %v", c.Eps())
	}
	if c.Window > 0 {
		s += fmt.Sprintf(", window %d", c.Window)
		if c.GlobalEvery > 0 {
			s += fmt.Sprintf(" (global one layer in %d)", c.GlobalEvery)
		}
	}
	if c.LocalRoPEBase != 0 {
		s += fmt.Sprintf(", local RoPE base %v", c.LocalRoPEBase)
	}
	if c.AttnSoftcap != 0 || c.FinalSoftcap != 0 {
		s += fmt.Sprintf(", soft-caps %v and %v", c.AttnSoftcap, c.FinalSoftcap)
	}
	for _, f := range []struct {
		on   bool
		name string
	}{
		{c.RoPEHalves, "RoPE on halves"}, {c.ScaleEmbedding, "embedding × √dim"}, {c.GELU, "GELU"},
		{c.LayerNorm, "LayerNorm"}, {c.Positions, "learned positions"}, {c.Ungated, "no gate"}, {c.PostNorms, "post-norms"},
	} {
		if f.on {
			s += ", " + f.name
		}
	}
	return s + ")"
}
