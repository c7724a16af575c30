package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
)

// Model reads the model of a file of one of the architectures below
// (llama, qwen2, qwen3, gemma, gemma2, gemma3, phi3, gpt2) into the engine's checkpoint: the
// hyper-parameters from the ARCH.* metadata and the weights from tensors
// of type F32, F16 or BF16 (converted to float32) or Q8_0, Q4_0, Q5_0, Q5_1,
// Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL or IQ4_XS (kept as they are: package quant multiplies them), with what the
// architecture adds to llama's (its entry in architectures). It refuses
// other architectures, other tensor types, tensors it does not know and
// RoPE variants the transformer does not compute (scaling, partial
// rotation).
//
// A file whose matrices are all F32, F16 or BF16 gives float32 Weights, as
// a llama2.c checkpoint does. A file with a quantized matrix gives
// Weights.Quantized, every matrix in its file's format (the float ones as
// float32): the weights take about the file's size in memory.
//
// # Tensors
//
// llama.cpp's names and llama2.c's:
//
//	token_embd.weight         [dim, vocab]    token_embedding
//	blk.N.attn_norm.weight    [dim]           rms_att
//	blk.N.attn_q.weight       [dim, dim]      wq
//	blk.N.attn_k.weight       [dim, kv_dim]   wk
//	blk.N.attn_v.weight       [dim, kv_dim]   wv
//	blk.N.attn_output.weight  [dim, dim]      wo
//	blk.N.ffn_norm.weight     [dim]           rms_ffn
//	blk.N.ffn_gate.weight     [dim, hidden]   w1
//	blk.N.ffn_down.weight     [hidden, dim]   w2
//	blk.N.ffn_up.weight       [dim, hidden]   w3
//	output_norm.weight        [dim]           rms_final
//	output.weight             [dim, vocab]    classifier (absent: token_embd)
//
// GGUF dims are fastest-varying first, so [in, out] is llama2.c's (out, in)
// row-major matrix, byte for byte, and a quantized row of in weights is
// in/block_size blocks.
//
// # The rotary layout of attn_q and attn_k
//
// RoPE rotates pairs of a head's query and key numbers. Meta's Llama code and
// llama2.c's run.c rotate adjacent pairs (2i, 2i+1); Hugging Face's Llama
// rotates (i, i+hs/2). A checkpoint's Wq and Wk rows are laid out for its
// own convention, so converters permute them. llama.cpp runs the llama
// architecture with LLAMA_ROPE_TYPE_NORM, "a normal RoPE, operating on
// pairs of consecutive head values" (llama_model_rope_type in
// src/llama-model.cpp), and its converters store attn_q and attn_k for it:
// convert_hf_to_gguf.py's LlamaModel.permute reshapes each head's rows
// (2, hs/2) → (hs/2, 2), turning Hugging Face's halves back into Meta's
// adjacent pairs, and examples/convert-llama2c-to-ggml copies llama2.c's
// wq and wk unchanged (convert_weights_ak_to_gg), since they are already in
// that layout. So a GGUF llama file holds Wq and Wk in llama2.c's layout,
// and Model uses them as they are: undoing a permutation here would break
// every file. (TestStories260K checks the converter's layout gives the
// llama2.c checkpoint's logits bit for bit, and TestRotaryLayout that the
// other layout would not.)
func (f *File) Model() (*checkpoint.Model, error) {
	c, err := f.LlamaConfig()
	if err != nil {
		return nil, err
	}
	m := &checkpoint.Model{Config: c}
	w := &m.Weights
	q := &checkpoint.Matrices{Layers: make([]checkpoint.LayerMatrices, c.Layers)}
	d, h, qd, kv, v := c.Dim, c.HiddenDim, c.QDim(), c.KVDim(), c.VocabSize
	// A slot is where a tensor goes: a gain into dst at offset off; a
	// matrix into dst at off as float32, or into mat when quantized.
	type slot struct {
		name string
		dims []int64
		dst  *[]float32
		off  int
		mat  *quant.Matrix
	}
	slots := []slot{
		{"token_embd.weight", dims(d, v), &w.TokenEmbedding, 0, &q.TokenEmbedding},
		{"output_norm.weight", dims(d), &w.RMSFinal, 0, nil},
	}
	type layerTensors struct {
		name     string
		dims     []int64
		dst      *[]float32
		mat      func(layer int) *quant.Matrix
		optional bool // a bias llama.cpp reads when the file has it
	}
	a, _ := architectureNamed(c.Arch)
	// GPT-2's query, key and value rows come fused, one matrix and one
	// bias a layer: read whole, then split (quantized, sharing the bytes).
	// Phi-3's gate and up rows come fused too, in ffn_up, gate first.
	var qkv, gateUp []float32
	var fused, fusedUp []quant.Matrix
	var biasQKV []float32
	var positions quant.Matrix
	layered := []layerTensors{
		{"attn_norm", dims(d), &w.RMSAtt, nil, false},
		{"attn_output", dims(qd, d), &w.WO, func(l int) *quant.Matrix { return &q.Layers[l].WO }, false},
		{"ffn_norm", dims(d), &w.RMSFFN, nil, false},
		{"ffn_down", dims(h, d), &w.W2, func(l int) *quant.Matrix { return &q.Layers[l].W2 }, false},
	}
	if a.fusedUp {
		fusedUp = make([]quant.Matrix, c.Layers)
		layered = append(layered, layerTensors{"ffn_up", dims(d, 2*h), &gateUp, func(l int) *quant.Matrix { return &fusedUp[l] }, false})
	} else {
		layered = append(layered, layerTensors{"ffn_up", dims(d, h), &w.W3, func(l int) *quant.Matrix { return &q.Layers[l].W3 }, false})
	}
	if a.fusedQKV {
		fused = make([]quant.Matrix, c.Layers)
		layered = append(layered, layerTensors{"attn_qkv", dims(d, qd+2*kv), &qkv, func(l int) *quant.Matrix { return &fused[l] }, false})
		if a.allBiases {
			layered = append(layered, layerTensors{"attn_qkv.bias", dims(qd + 2*kv), &biasQKV, nil, false})
		}
	} else {
		layered = append(layered,
			layerTensors{"attn_q", dims(d, qd), &w.WQ, func(l int) *quant.Matrix { return &q.Layers[l].WQ }, false},
			layerTensors{"attn_k", dims(d, kv), &w.WK, func(l int) *quant.Matrix { return &q.Layers[l].WK }, false},
			layerTensors{"attn_v", dims(d, kv), &w.WV, func(l int) *quant.Matrix { return &q.Layers[l].WV }, false})
	}
	if !a.ungated && !a.fusedUp {
		layered = append(layered, layerTensors{"ffn_gate", dims(d, h), &w.W1, func(l int) *quant.Matrix { return &q.Layers[l].W1 }, false})
	}
	if a.postNorms {
		layered = append(layered,
			layerTensors{"post_attention_norm", dims(d), &w.RMSAttPost, nil, false},
			layerTensors{"post_ffw_norm", dims(d), &w.RMSFFNPost, nil, false})
	}
	if a.qkNorm {
		hs := c.HeadSize()
		layered = append(layered,
			layerTensors{"attn_q_norm", dims(hs), &w.QNorm, nil, false},
			layerTensors{"attn_k_norm", dims(hs), &w.KNorm, nil, false})
	}
	if a.layerNorm {
		layered = append(layered,
			layerTensors{"attn_norm.bias", dims(d), &w.NormAttBias, nil, false},
			layerTensors{"ffn_norm.bias", dims(d), &w.NormFFNBias, nil, false})
		slots = append(slots, slot{"output_norm.bias", dims(d), &w.NormFinalBias, 0, nil})
	}
	if a.allBiases {
		layered = append(layered,
			layerTensors{"attn_output.bias", dims(d), &w.BO, nil, false},
			layerTensors{"ffn_up.bias", dims(h), &w.BUp, nil, false},
			layerTensors{"ffn_down.bias", dims(d), &w.BDown, nil, false})
	}
	if a.positions {
		slots = append(slots, slot{"position_embd.weight", dims(d, c.SeqLen), &w.PosEmbedding, 0, &positions})
	}
	if a.biases || a.optionalBiases {
		layered = append(layered,
			layerTensors{"attn_q.bias", dims(qd), &w.BQ, nil, !a.biases},
			layerTensors{"attn_k.bias", dims(kv), &w.BK, nil, !a.biases},
			layerTensors{"attn_v.bias", dims(kv), &w.BV, nil, !a.biases})
	}
	// An optional bias the file leaves out (in its first layer) is none.
	layered = slices.DeleteFunc(layered, func(s layerTensors) bool {
		_, ok := f.Tensor(layerTensor(0, s.name))
		return s.optional && !ok
	})
	for _, s := range layered {
		for l := range c.Layers {
			var mat *quant.Matrix
			if s.mat != nil {
				mat = s.mat(l)
			}
			slots = append(slots, slot{layerTensor(l, s.name), s.dims, s.dst, l * elements(s.dims), mat})
		}
	}
	if _, ok := f.Tensor("output.weight"); ok {
		slots = append(slots, slot{"output.weight", dims(d, v), &w.Classifier, 0, &q.Classifier})
	}
	if _, ok := f.Tensor("rope_freqs.weight"); ok && a.ropeFactors {
		slots = append(slots, slot{"rope_freqs.weight", dims(c.HeadSize() / 2), &w.RoPEFactors, 0, nil})
	}
	byName := make(map[string]bool, len(slots))
	for _, s := range slots {
		byName[s.name] = true
	}
	for _, t := range f.Tensors {
		if strings.HasPrefix(t.Name, "rope_factors_") || strings.Contains(t.Name, ".rope_factors_") {
			return nil, fmt.Errorf("gguf: tensor %s holds LongRoPE factors (Phi-3's 128k-context models), which are not supported; the 4k-context models have none", t.Name)
		}
		if !byName[t.Name] {
			return nil, fmt.Errorf("gguf: tensor %s is not one of the %s tensors this reader supports (%s)", t.Name, c.Arch, a.tensors)
		}
	}
	// Check every tensor before allocating: the metadata may claim a model
	// of gigabytes, but tensors that Read found inside the file cannot.
	infos := make([]*TensorInfo, len(slots))
	quantized := false
	for i, s := range slots {
		t, ok := f.Tensor(s.name)
		if !ok {
			return nil, fmt.Errorf("gguf: tensor %s is missing", s.name)
		}
		if !slices.Equal(t.Dims, s.dims) {
			return nil, fmt.Errorf("gguf: tensor %s has dims %v, want %v for %s", s.name, t.Dims, s.dims, c)
		}
		if err := t.CheckType(); err != nil {
			return nil, err
		}
		if t.quantized() {
			if s.mat == nil {
				return nil, fmt.Errorf("gguf: tensor %s is %s; a gain, bias or RoPE factor must be F32, F16 or BF16", t.Name, t.Type)
			}
			quantized = true
		}
		infos[i] = t
	}
	if quantized {
		w.Quantized = q
		var matrices []*TensorInfo
		for i, s := range slots {
			if s.mat != nil && infos[i].quantized() {
				matrices = append(matrices, infos[i])
			}
		}
		f.reserve(matrices)
		defer f.release()
	}
	for _, s := range layered {
		if s.mat == nil || !quantized {
			*s.dst = make([]float32, c.Layers*elements(s.dims))
			hugePages(*s.dst)
		}
	}
	for i, s := range slots {
		t := infos[i]
		if quantized && s.mat != nil {
			if *s.mat, err = f.matrix(t); err != nil {
				return nil, err
			}
			continue
		}
		if *s.dst == nil { // a whole-model tensor
			*s.dst = make([]float32, t.Elements)
			hugePages(*s.dst)
		}
		if err := f.decode(t, (*s.dst)[s.off:][:t.Elements]); err != nil {
			return nil, err
		}
	}
	if c.SharedHead {
		w.Classifier, q.Classifier = w.TokenEmbedding, q.TokenEmbedding
	}
	if a.fusedQKV {
		splitQKV(m, qkv, fused, biasQKV, quantized)
	}
	if a.fusedUp {
		splitGateUp(m, gateUp, fusedUp, quantized)
	}
	if quantized && f.data == nil { // bytes of the model's own, not a caller's
		interleaveRows(q, c.SharedHead)
	}
	if quantized && a.positions { // looked up, not multiplied: float32
		w.PosEmbedding = make([]float32, c.SeqLen*d)
		for p := range c.SeqLen {
			positions.Row(p, w.PosEmbedding[p*d:])
		}
	}
	for i, x := range w.RoPEFactors {
		// NaN fails the comparison too.
		if !(x > 0 && x <= math.MaxFloat32) {
			return nil, fmt.Errorf("gguf: rope_freqs.weight[%d] is %v; a RoPE frequency factor must be a positive number", i, x)
		}
	}
	return m, nil
}

// splitGateUp sets m's gate and up matrices from Phi-3's fused ffn_up:
// float32 rows in gateUp (layers × 2·hidden × dim), or quantized matrices
// in fused, whose rows are shared; the gate's rows first, as llama.cpp's
// LLM_FFN_SWIGLU splits them.
func splitGateUp(m *checkpoint.Model, gateUp []float32, fused []quant.Matrix, quantized bool) {
	c, w := m.Config, &m.Weights
	d, h := c.Dim, c.HiddenDim
	if quantized {
		for l, f := range fused {
			lm := &w.Quantized.Layers[l]
			lm.W1, lm.W3 = f.Slice(0, h), f.Slice(h, 2*h)
		}
		return
	}
	w.W1, w.W3 = make([]float32, c.Layers*h*d), make([]float32, c.Layers*h*d)
	for l := range c.Layers {
		rows := gateUp[l*2*h*d:]
		copy(w.W1[l*h*d:], rows[:h*d])
		copy(w.W3[l*h*d:], rows[h*d:2*h*d])
	}
}

// splitQKV sets m's query, key and value matrices and biases from a fused
// model's: float32 rows in qkv (layers × (q_dim + 2·kv_dim) × dim), or
// quantized matrices in fused, whose rows are shared; biases in bias
// (nil: none, Phi-3's).
func splitQKV(m *checkpoint.Model, qkv []float32, fused []quant.Matrix, bias []float32, quantized bool) {
	c, w := m.Config, &m.Weights
	d, qd, kv := c.Dim, c.QDim(), c.KVDim()
	if quantized {
		for l, f := range fused {
			lm := &w.Quantized.Layers[l]
			lm.WQ, lm.WK, lm.WV = f.Slice(0, qd), f.Slice(qd, qd+kv), f.Slice(qd+kv, qd+2*kv)
		}
	} else {
		w.WQ, w.WK, w.WV = make([]float32, c.Layers*qd*d), make([]float32, c.Layers*kv*d), make([]float32, c.Layers*kv*d)
		for l := range c.Layers {
			rows := qkv[l*(qd+2*kv)*d:]
			copy(w.WQ[l*qd*d:], rows[:qd*d])
			copy(w.WK[l*kv*d:], rows[qd*d:(qd+kv)*d])
			copy(w.WV[l*kv*d:], rows[(qd+kv)*d:(qd+2*kv)*d])
		}
	}
	if bias == nil {
		return
	}
	w.BQ, w.BK, w.BV = make([]float32, c.Layers*qd), make([]float32, c.Layers*kv), make([]float32, c.Layers*kv)
	for l := range c.Layers {
		b := bias[l*(qd+2*kv):]
		copy(w.BQ[l*qd:], b[:qd])
		copy(w.BK[l*kv:], b[qd:qd+kv])
		copy(w.BV[l*kv:], b[qd+kv:qd+2*kv])
	}
}

// epsKey is the name of the norms' epsilon under ARCH.attention.
func epsKey(a architecture) string {
	if a.layerNorm {
		return "layer_norm_epsilon"
	}
	return "layer_norm_rms_epsilon"
}

// layerTensor is the name of layer l's tensor of kind ("attn_q",
// "attn_q.bias"): a kind without a suffix is a weight.
func layerTensor(l int, kind string) string {
	if !strings.Contains(kind, ".") {
		kind += ".weight"
	}
	return fmt.Sprintf("blk.%d.%s", l, kind)
}

// architecture is what Model reads of a general.architecture: llama.cpp's
// graph for it (src/llama.cpp's build_llama, build_gemma, build_gemma2,
// build_gpt2, build_phi3 and build_qwen2 at the commit the tests
// reference; src/models/qwen3.cpp and gemma3.cpp of later llama.cpp) in
// the transformer's terms.
type architecture struct {
	name           string
	ropeHalves     bool // LLAMA_ROPE_TYPE_NEOX: pairs (i, i+hs/2)
	scaleEmbedding bool // the embedding × √dim
	gelu           bool // a GELU feed-forward (LLM_FFN_GELU)
	biases         bool // Q, K and V biases, required
	optionalBiases bool // Q, K and V biases when the file has them
	ropeFactors    bool // rope_freqs.weight when the file has it (Llama 3)
	// GPT-2's: LayerNorm with biases, learned positions (position_embd),
	// no gate, Q, K and V fused in attn_qkv (Phi-3's too), and a bias on
	// every projection.
	layerNorm, positions, ungated, fusedQKV, allBiases bool
	fusedUp                                            bool // Phi-3's: gate and up rows fused in ffn_up
	requiresOutput                                     bool // llama.cpp requires output.weight (GPT-2, Phi-3)
	postNorms                                          bool // Gemma 2's and 3's post_attention_norm, post_ffw_norm
	qkNorm                                             bool // Qwen3's and Gemma 3's attn_q_norm, attn_k_norm
	softcaps                                           bool // Gemma 2's attention and final soft-caps
	// A sliding window (attention.sliding_window) on every layer but
	// every globalEvery-th (0: on every layer), those layers' RoPE base
	// (0: the others').
	sliding       bool
	globalEvery   int
	localRoPEBase float32
	// The layer count by which llama.cpp knows Gemma's 27B models, whose
	// query it scales by 1/√(dim/heads) instead of 1/√head_size.
	widthScaledLayers int
	tensors           string // for messages
	models            string // for messages: the models that have it
}

// architectures are the architectures Model reads, by name.
var architectures = []architecture{
	{name: "gemma", ropeHalves: true, scaleEmbedding: true, gelu: true, models: "Gemma",
		tensors: "token_embd, blk.N.attn_norm/attn_q/attn_k/attn_v/attn_output/ffn_norm/ffn_gate/ffn_up/ffn_down, output_norm"},
	{name: "gemma2", ropeHalves: true, scaleEmbedding: true, gelu: true, postNorms: true, softcaps: true, sliding: true, globalEvery: 2, widthScaledLayers: 46, models: "Gemma 2",
		tensors: "token_embd, blk.N.attn_norm/attn_q/attn_k/attn_v/attn_output/post_attention_norm/ffn_norm/ffn_gate/ffn_up/ffn_down/post_ffw_norm, output_norm"},
	{name: "gemma3", ropeHalves: true, scaleEmbedding: true, gelu: true, postNorms: true, qkNorm: true, sliding: true, globalEvery: 6, localRoPEBase: 10000, widthScaledLayers: 62, models: "Gemma 3",
		tensors: "token_embd, blk.N.attn_norm/attn_q/attn_k/attn_v/attn_q_norm/attn_k_norm/attn_output/post_attention_norm/ffn_norm/ffn_gate/ffn_up/ffn_down/post_ffw_norm, output_norm"},
	{name: "gpt2", requiresOutput: true, gelu: true, layerNorm: true, positions: true, ungated: true, fusedQKV: true, allBiases: true, models: "GPT-2",
		tensors: "token_embd, position_embd, blk.N.attn_norm/attn_qkv/attn_output/ffn_norm/ffn_up/ffn_down and their biases, output_norm and its bias, output"},
	{name: "llama", optionalBiases: true, ropeFactors: true, models: "Llama 1 to 3, SmolLM, TinyLlama",
		tensors: "token_embd, rope_freqs, blk.N.attn_norm/attn_q/attn_k/attn_v/attn_output/ffn_norm/ffn_gate/ffn_up/ffn_down, the attn_q/attn_k/attn_v biases, output_norm, output"},
	{name: "phi3", requiresOutput: true, ropeHalves: true, fusedQKV: true, fusedUp: true, sliding: true, models: "Phi-3 with a 4k context",
		tensors: "token_embd, blk.N.attn_norm/attn_qkv/attn_output/ffn_norm/ffn_up/ffn_down, output_norm, output"},
	{name: "qwen2", ropeHalves: true, biases: true, models: "Qwen2, Qwen2.5",
		tensors: "token_embd, blk.N.attn_norm/attn_q/attn_k/attn_v/attn_output/ffn_norm/ffn_gate/ffn_up/ffn_down, the attn_q/attn_k/attn_v biases, output_norm, output"},
	{name: "qwen3", ropeHalves: true, qkNorm: true, models: "Qwen3",
		tensors: "token_embd, blk.N.attn_norm/attn_q/attn_k/attn_v/attn_q_norm/attn_k_norm/attn_output/ffn_norm/ffn_gate/ffn_up/ffn_down, output_norm, output"},
}

// architectureNamed is the architecture called name.
func architectureNamed(name string) (architecture, bool) {
	i := slices.IndexFunc(architectures, func(a architecture) bool { return a.name == name })
	if i < 0 {
		return architecture{}, false
	}
	return architectures[i], true
}

// supportedArchitectures lists the architectures for messages.
func supportedArchitectures() string {
	var out []string
	for _, a := range architectures {
		out = append(out, a.name+" ("+a.models+")")
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1]
}

// elements is the number of values of a tensor of dims d.
func elements(d []int64) int {
	n := 1
	for _, x := range d {
		n *= int(x)
	}
	return n
}

// matrix reads tensor t, a matrix of dims [cols, rows], as a quant.Matrix:
// a quantized tensor's bytes as they are, a float one as float32.
func (f *File) matrix(t *TensorInfo) (quant.Matrix, error) {
	m := quant.Matrix{Type: quant.F32, Rows: int(t.Dims[1]), Cols: int(t.Dims[0])}
	if !t.quantized() {
		m.F32 = make([]float32, t.Elements)
		hugePages(m.F32)
		return m, f.decode(t, m.F32)
	}
	m.Type = quant.Type(t.Type)
	var err error
	if m.Q, err = f.tensorBytes(t); err != nil {
		return m, err
	}
	if err := m.Check(); err != nil {
		return m, fmt.Errorf("gguf: tensor %s: %w", t.Name, err)
	}
	return m, nil
}

func dims(d ...int) []int64 {
	out := make([]int64, len(d))
	for i, n := range d {
		out[i] = int64(n)
	}
	return out
}

// LlamaConfig reads and checks the hyper-parameters of a llama file, as
// Model does, without reading any weights.
func (f *File) LlamaConfig() (checkpoint.Config, error) {
	var c checkpoint.Config
	arch, err := f.text("general.architecture")
	if err != nil {
		return c, err
	}
	a, ok := architectureNamed(arch)
	if !ok {
		return c, fmt.Errorf("gguf: architecture %q is not supported; %s are", arch, supportedArchitectures())
	}
	c.Arch, c.RoPEHalves, c.ScaleEmbedding, c.GELU = arch, a.ropeHalves, a.scaleEmbedding, a.gelu
	c.LayerNorm, c.Positions, c.Ungated = a.layerNorm, a.positions, a.ungated
	c.PostNorms, c.LocalRoPEBase = a.postNorms, a.localRoPEBase
	ints := []struct {
		key      string
		dst      *int
		required bool
	}{
		{"embedding_length", &c.Dim, true},
		{"feed_forward_length", &c.HiddenDim, true},
		{"block_count", &c.Layers, true},
		{"attention.head_count", &c.Heads, true},
		{"context_length", &c.SeqLen, true},
		{"attention.head_count_kv", &c.KVHeads, false},
		{"vocab_size", &c.VocabSize, false},
	}
	for _, k := range ints {
		if *k.dst, err = f.count(arch+"."+k.key, k.required); err != nil {
			return c, err
		}
	}
	if c.KVHeads == 0 {
		c.KVHeads = c.Heads
	}
	if c.VocabSize == 0 {
		if c.VocabSize, err = f.vocabSize(); err != nil {
			return c, err
		}
	}
	_, c.SharedHead = f.Tensor("output.weight")
	c.SharedHead = !c.SharedHead
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("gguf: %w", err)
	}
	// A head may be other than embedding_length/head_count wide
	// (attention.key_length: Gemma 2 and 3, Qwen3), its values as wide as
	// its keys, and RoPE rotates all of it.
	keyLength, err := f.count(arch+".attention.key_length", false)
	if err != nil {
		return c, err
	}
	if keyLength != 0 && (c.Dim%c.Heads != 0 || keyLength != c.Dim/c.Heads) {
		c.HeadDim = keyLength
		if err := c.Validate(); err != nil {
			return c, fmt.Errorf("gguf: %w", err)
		}
	}
	hs := c.HeadSize()
	if c.Layers == a.widthScaledLayers && hs*c.Heads != c.Dim {
		return c, fmt.Errorf("gguf: a %s model of %d layers is Gemma's 27B, whose query llama.cpp scales by 1/√(dim/heads) rather than 1/√head_size; that is not supported", arch, c.Layers)
	}
	for _, key := range []string{"rope.dimension_count", "attention.value_length"} {
		n, err := f.count(arch+"."+key, false)
		if err != nil {
			return c, err
		}
		if n != 0 && n != hs {
			return c, fmt.Errorf("gguf: %s.%s is %d, but the transformer uses the whole head, %d (attention.key_length, or embedding_length/head_count)", arch, key, n, hs)
		}
	}
	if n, err := f.count(arch+".expert_count", false); err != nil {
		return c, err
	} else if n > 0 {
		return c, fmt.Errorf("gguf: %s.expert_count is %d: mixture-of-experts models are not supported", arch, n)
	}
	if s, ok := f.Metadata.Lookup(arch + ".rope.scaling.type"); ok {
		if t, _ := s.Text(); t != "none" {
			return c, fmt.Errorf("gguf: %s.rope.scaling.type is %s: RoPE scaling is not supported", arch, s)
		}
	}
	for _, key := range []string{arch + ".rope.scaling.factor", arch + ".rope.scale_linear"} {
		// llama.cpp reads 0 as no scaling, like 1.
		if x, err := f.float(key, 1); err != nil {
			return c, err
		} else if x != 1 && x != 0 {
			return c, fmt.Errorf("gguf: %s is %v: RoPE scaling is not supported", key, x)
		}
	}
	base, err := f.float(arch+".rope.freq_base", checkpoint.DefaultRoPEBase)
	if err != nil {
		return c, err
	}
	// llama.cpp requires the epsilon; the base defaults to 10000 there too.
	epsKey := arch + ".attention." + epsKey(a)
	if _, ok := f.Metadata.Lookup(epsKey); !ok {
		return c, fmt.Errorf("gguf: %s is missing", epsKey)
	}
	eps, err := f.float(epsKey, 0)
	if err != nil {
		return c, err
	}
	c.RoPEBase, c.NormEps = float32(base), float32(eps)
	if err := f.slidingWindow(&c, a); err != nil {
		return c, err
	}
	if a.softcaps {
		// llama.cpp's defaults, Gemma 2's values.
		for _, k := range []struct {
			key string
			dst *float32
			def float64
		}{{"attn_logit_softcapping", &c.AttnSoftcap, 50}, {"final_logit_softcapping", &c.FinalSoftcap, 30}} {
			x, err := f.float(arch+"."+k.key, k.def)
			if err != nil {
				return c, err
			}
			if !(x > 0 && x <= math.MaxFloat32) {
				return c, fmt.Errorf("gguf: %s.%s is %v; a soft-cap must be a positive number", arch, k.key, x)
			}
			*k.dst = float32(x)
		}
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("gguf: %w", err)
	}
	return c, nil
}

// slidingWindow sets c's sliding window from ARCH.attention.sliding_window,
// with llama.cpp's defaults when the key is absent: 4096 for Gemma 2, 2047
// for Phi-3 mini and medium with a 4k context; Gemma 3 and other Phi-3
// shapes require it.
func (f *File) slidingWindow(c *checkpoint.Config, a architecture) error {
	if !a.sliding {
		return nil
	}
	key := a.name + ".attention.sliding_window"
	n, err := f.count(key, false)
	if err != nil {
		return err
	}
	switch {
	case n > 0:
	case a.name == "gemma2":
		n = 4096
	case a.name == "phi3" && (c.Layers == 32 || c.Layers == 40) && c.SeqLen == 4096:
		n = 2047
	default:
		return fmt.Errorf("gguf: %s is missing", key)
	}
	c.Window, c.GlobalEvery = n, a.globalEvery
	return nil
}

// vocabSize is the length of tokenizer.ggml.tokens, which llama.cpp falls
// back on when llama.vocab_size is absent.
func (f *File) vocabSize() (int, error) {
	v, ok := f.Metadata.Lookup("tokenizer.ggml.tokens")
	if !ok {
		return 0, errors.New("gguf: neither llama.vocab_size nor tokenizer.ggml.tokens gives the vocabulary size")
	}
	a, ok := v.Array()
	if !ok {
		return 0, fmt.Errorf("gguf: tokenizer.ggml.tokens is %s, want an array of strings", v.Type)
	}
	return a.Len(), nil
}

// text returns the required string value of key.
func (f *File) text(key string) (string, error) {
	v, ok := f.Metadata.Lookup(key)
	if !ok {
		return "", fmt.Errorf("gguf: %s is missing", key)
	}
	s, ok := v.Text()
	if !ok {
		return "", fmt.Errorf("gguf: %s is %s, want a string", key, v.Type)
	}
	return s, nil
}

// count returns the integer value of key, of any width; 0 when an optional
// key is absent. It is at most 2^31 (more than Config.Validate allows).
func (f *File) count(key string, required bool) (int, error) {
	v, ok := f.Metadata.Lookup(key)
	if !ok {
		if required {
			return 0, fmt.Errorf("gguf: %s is missing", key)
		}
		return 0, nil
	}
	n, ok := v.Int()
	if !ok {
		return 0, fmt.Errorf("gguf: %s is %s %s, want an integer", key, v.Type, v)
	}
	if n < 1 || n > 1<<31 {
		return 0, fmt.Errorf("gguf: %s is %d, want 1 to %d", key, n, 1<<31)
	}
	return int(n), nil
}

// float returns the float value of key, or def when it is absent.
func (f *File) float(key string, def float64) (float64, error) {
	v, ok := f.Metadata.Lookup(key)
	if !ok {
		return def, nil
	}
	x, ok := v.Float()
	if !ok {
		return 0, fmt.Errorf("gguf: %s is %s %s, want a float", key, v.Type, v)
	}
	return x, nil
}

// CheckType reports why Model cannot use t's type, if it cannot.
func (t *TensorInfo) CheckType() error {
	if t.Type == F32 || t.Type == F16 || t.Type == BF16 || t.quantized() {
		return nil
	}
	return fmt.Errorf("gguf: tensor %s is %s, which is not supported for weights (%s are)", t.Name, t.Type, SupportedTypes)
}

// WeightBytes is what the engine holds of the weights of f's tensors, once
// Model has read them: a quantized tensor's bytes as stored, when there is
// one, and every other as float32; and how many are quantized.
func (f *File) WeightBytes() (bytes int64, quantized int) {
	for _, t := range f.Tensors {
		if t.quantized() {
			quantized++
		}
	}
	for _, t := range f.Tensors {
		// A position embedding is looked up, not multiplied: Model keeps it
		// as float32 whatever its type.
		if quantized > 0 && t.quantized() && t.Name != "position_embd.weight" {
			bytes += t.Bytes
		} else {
			bytes += 4 * t.Elements
		}
	}
	return bytes, quantized
}

// SupportedTypes are the tensor types Model reads, for messages and help.
const SupportedTypes = "F32, F16, BF16, " + quant.Types

// quantized reports whether t is of a quantized type that Model keeps as
// it is.
func (t *TensorInfo) quantized() bool {
	return t.Type != F32 && quant.Type(t.Type).Supported()
}

// decodeChunk is how many bytes decode reads at a time.
const decodeChunk = 64 << 10

// decode reads tensor t, of type F32, F16 or BF16, into dst as float32, a
// chunk at a time: reading a model holds its float32 weights and a small
// buffer, not also the file's bytes.
func (f *File) decode(t *TensorInfo, dst []float32) error {
	var conv func([]byte) float32
	switch t.Type {
	case F32:
		conv = func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }
	case F16:
		conv = func(b []byte) float32 { return quant.HalfToFloat(binary.LittleEndian.Uint16(b)) }
	case BF16:
		conv = func(b []byte) float32 { return math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16) }
	default:
		return t.CheckType()
	}
	size := t.Type.BlockBytes()
	buf := make([]byte, min(decodeChunk, t.Bytes))
	off := f.DataOffset + t.Offset
	for len(dst) > 0 {
		n := min(len(dst), len(buf)/size)
		if _, err := f.r.ReadAt(buf[:n*size], off); err != nil {
			return fmt.Errorf("gguf: reading tensor %s: %w", t.Name, err)
		}
		for i := range dst[:n] {
			dst[i] = conv(buf[i*size:])
		}
		dst, off = dst[n:], off+int64(n*size)
	}
	return nil
}

// FloatToBF16 rounds x to bfloat16, ties to even, as ggml's
// ggml_compute_fp32_to_bf16 does (a NaN stays a quiet NaN).
func FloatToBF16(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 64
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// knownTokenizers says what this package makes of each tokenizer.ggml.model.
var knownTokenizers = map[string]string{
	"bert": "WordPiece",
	"t5":   "Unigram",
	"rwkv": "RWKV's",
	"none": "no tokenizer",
}

// unsupportedTokenizer explains why tokenizer model name is refused.
func unsupportedTokenizer(name string) error {
	what := knownTokenizers[name]
	if what == "" {
		what = "unknown"
	}
	return fmt.Errorf("gguf: tokenizer.ggml.model %q (%s) is not supported yet; only llama (SentencePiece BPE with byte fallback) and gpt2 (byte-level BPE with merges) are", name, what)
}

// spaceMark is SentencePiece's "▁" (U+2581), which stands for a space in its
// pieces; llama2.c's tokenizer.bin and this engine write the space itself.
const spaceMark = "\u2581"

func unescapeSpaces(s string) string { return strings.ReplaceAll(s, spaceMark, " ") }

// interleaveRows lays out q's matrices for the fastest kernels the CPU
// runs (quant.Interleave), those whose slices start at multiples of 16
// rows: a matrix whose rows are such a multiple, and the query, key and
// value matrices only when all three are, since threads split their rows
// as one run (package transformer). The classifier is the embedding
// again when shared.
func interleaveRows(q *checkpoint.Matrices, shared bool) {
	whole := func(ms ...*quant.Matrix) bool {
		for _, m := range ms {
			if m.Rows%16 != 0 {
				return false
			}
		}
		return true
	}
	for i := range q.Layers {
		l := &q.Layers[i]
		if whole(&l.WQ, &l.WK, &l.WV) {
			quant.Interleave(&l.WQ)
			quant.Interleave(&l.WK)
			quant.Interleave(&l.WV)
		}
		for _, m := range []*quant.Matrix{&l.WO, &l.W1, &l.W2, &l.W3} {
			if whole(m) {
				quant.Interleave(m)
			}
		}
	}
	if whole(&q.TokenEmbedding) {
		quant.Interleave(&q.TokenEmbedding)
	}
	if shared {
		q.Classifier = q.TokenEmbedding
	} else if whole(&q.Classifier) {
		quant.Interleave(&q.Classifier)
	}
}
