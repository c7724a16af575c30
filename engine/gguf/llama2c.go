package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
	"nexttoken/engine/tokenizer"
)

// Llama2cOptions are the choices of WriteLlama2c.
type Llama2cOptions struct {
	// Type is the type of the float32 matrices: F32 (as llama.cpp's
	// converter writes), F16 or BF16. Quantized matrices (a model with
	// Weights.Quantized) are written in their own formats, as they are. The
	// 1-D RMSNorm gains stay F32, as llama.cpp's converters keep them.
	Type Type
	// TiedOutput leaves out output.weight when the checkpoint's classifier is
	// its token embedding, as convert_hf_to_gguf.py does for tied models; the
	// llama2.c converter always writes it, a copy.
	TiedOutput bool
}

// WriteLlama2c writes a llama2.c checkpoint and its vocabulary as a GGUF
// file laid out as llama.cpp's examples/convert-llama2c-to-ggml writes one:
// its metadata keys in its order, token 0, 1 and 2 renamed "<unk>", "<s>"
// and "</s>" with the token types it gives, spaces in pieces written "▁",
// and the tensors in its order and shapes, with the data unchanged (no
// permutation of attn_q and attn_k, see Model). It differs in one value:
// llama.context_length is the checkpoint's seq_len, where the converter
// writes its own n_ctx (128 unless changed).
//
// A model of another architecture Model reads (Config.Arch, such as the
// random ones of package randmodel) is written the same way under its own
// metadata keys, with the tensors beyond llama2.c's that it has: the
// attn_q, attn_k and attn_v biases and rope_freqs, the post-norms and the
// query and key norms, as llama.cpp's converters name them (fusing Q, K
// and V, and gate and up, where the architecture does), and its RoPE base
// when it is not 10000, its sliding window and soft-caps.
func WriteLlama2c(w io.Writer, m *checkpoint.Model, v *tokenizer.Vocab, o Llama2cOptions) error {
	c := m.Config
	if err := c.Validate(); err != nil {
		return err
	}
	arch := c.Arch
	if arch == "" {
		arch = "llama"
	}
	a, ok := architectureNamed(arch)
	wt := &m.Weights
	all, some := wt.BQ != nil && wt.BK != nil && wt.BV != nil, wt.BQ != nil || wt.BK != nil || wt.BV != nil
	switch {
	case !ok:
		return fmt.Errorf("gguf: architecture %q is not supported; %s are", arch, supportedArchitectures())
	case c.RoPEHalves != a.ropeHalves:
		return fmt.Errorf("gguf: a %s model rotates RoPE pairs on halves of a head: %v, not %v", arch, a.ropeHalves, c.RoPEHalves)
	case c.ScaleEmbedding != a.scaleEmbedding || c.GELU != a.gelu:
		return fmt.Errorf("gguf: a %s model scales its embedding: %v, and gates with GELU: %v; not %v and %v", arch, a.scaleEmbedding, a.gelu, c.ScaleEmbedding, c.GELU)
	case a.biases && !all:
		return fmt.Errorf("gguf: a %s model has query, key and value biases", arch)
	case some && !(all && (a.biases || a.optionalBiases || a.allBiases)):
		return fmt.Errorf("gguf: a %s model has all three of the query, key and value biases or none", arch)
	case wt.RoPEFactors != nil && !a.ropeFactors:
		return fmt.Errorf("gguf: a %s model has no RoPE frequency factors", arch)
	case c.LayerNorm != a.layerNorm || c.Positions != a.positions || c.Ungated != a.ungated:
		return fmt.Errorf("gguf: a %s model has LayerNorm, learned positions and no gate: %v, %v, %v; not %v, %v, %v",
			arch, a.layerNorm, a.positions, a.ungated, c.LayerNorm, c.Positions, c.Ungated)
	case c.PostNorms != a.postNorms || c.PostNorms && (wt.RMSAttPost == nil || wt.RMSFFNPost == nil):
		return fmt.Errorf("gguf: a %s model has post-norms: %v, not %v", arch, a.postNorms, c.PostNorms)
	case a.qkNorm != (wt.QNorm != nil && wt.KNorm != nil) || wt.QNorm == nil != (wt.KNorm == nil):
		return fmt.Errorf("gguf: a %s model RMS-normalises its query and key heads: %v", arch, a.qkNorm)
	case a.sliding != (c.Window > 0) || c.GlobalEvery != a.globalEvery || c.LocalRoPEBase != a.localRoPEBase:
		return fmt.Errorf("gguf: a %s model has a sliding window: %v, global every %d layers, local RoPE base %v; not window %d, %d, %v",
			arch, a.sliding, a.globalEvery, a.localRoPEBase, c.Window, c.GlobalEvery, c.LocalRoPEBase)
	case !a.softcaps && (c.AttnSoftcap != 0 || c.FinalSoftcap != 0), a.softcaps && (c.AttnSoftcap == 0 || c.FinalSoftcap == 0):
		return fmt.Errorf("gguf: a %s model soft-caps attention and logits: %v", arch, a.softcaps)
	case a.allBiases && (wt.BO == nil || wt.BUp == nil || wt.BDown == nil || wt.NormAttBias == nil || wt.NormFFNBias == nil || wt.NormFinalBias == nil || wt.PosEmbedding == nil):
		return fmt.Errorf("gguf: a %s model has every projection's and norm's bias and a position embedding", arch)
	}
	if len(v.Pieces) != c.VocabSize || len(v.Scores) != c.VocabSize {
		return fmt.Errorf("gguf: the vocabulary has %d pieces, the checkpoint %d", len(v.Pieces), c.VocabSize)
	}
	var encode func([]float32) []byte
	switch o.Type {
	case F32:
		encode = func(x []float32) []byte {
			return appendWords(x, 4, func(f float32) uint64 { return uint64(math.Float32bits(f)) })
		}
	case F16:
		encode = func(x []float32) []byte {
			return appendWords(x, 2, func(f float32) uint64 { return uint64(quant.FloatToHalf(f)) })
		}
	case BF16:
		encode = func(x []float32) []byte {
			return appendWords(x, 2, func(f float32) uint64 { return uint64(FloatToBF16(f)) })
		}
	default:
		return fmt.Errorf("gguf: WriteLlama2c writes F32, F16 or BF16, not %s", o.Type)
	}
	tokens := make([]string, len(v.Pieces))
	types := make([]int32, len(v.Pieces))
	for id, p := range v.Pieces {
		text, typ := tokenizer.Llama2cToken(id, p)
		tokens[id], types[id] = text, int32(typ)
	}
	hs := uint32(c.HeadSize())
	md := Metadata{}
	add := func(key string, x any) {
		val, err := NewValue(x)
		if err != nil {
			panic(err) // every x below has a metadata type
		}
		md = append(md, KV{key, val})
	}
	add("tokenizer.ggml.tokens", tokens)
	add("tokenizer.ggml.scores", v.Scores)
	add("tokenizer.ggml.token_type", types)
	add("tokenizer.ggml.model", "llama")
	add("general.architecture", arch)
	// The converter's name, whatever the architecture: llama.cpp looks
	// for Phi-3's special tokens in a model named like phi3.
	add("general.name", "llama")
	add("tokenizer.ggml.unknown_token_id", uint32(0))
	add("tokenizer.ggml.bos_token_id", uint32(1))
	add("tokenizer.ggml.eos_token_id", uint32(2))
	add("tokenizer.ggml.seperator_token_id", uint32(math.MaxUint32)) // sic, and LLAMA_TOKEN_NULL
	add("tokenizer.ggml.padding_token_id", uint32(math.MaxUint32))
	add(arch+".context_length", uint32(c.SeqLen))
	add(arch+".embedding_length", uint32(c.Dim))
	add(arch+".feed_forward_length", uint32(c.HiddenDim))
	add(arch+".attention.head_count", uint32(c.Heads))
	add(arch+".attention.head_count_kv", uint32(c.KVHeads))
	add(arch+".block_count", uint32(c.Layers))
	if c.HeadDim != 0 {
		add(arch+".attention.key_length", hs)
		add(arch+".attention.value_length", hs)
		add(arch+".rope.dimension_count", hs)
	} else {
		add(arch+".rope.dimension_count", min(64, hs))
	}
	add(arch+".attention."+epsKey(a), c.Eps())
	if c.Base() != checkpoint.DefaultRoPEBase {
		add(arch+".rope.freq_base", c.Base())
	}
	if c.Window > 0 {
		add(arch+".attention.sliding_window", uint32(c.Window))
	}
	if a.softcaps {
		add(arch+".attn_logit_softcapping", c.AttnSoftcap)
		add(arch+".final_logit_softcapping", c.FinalSoftcap)
	}

	ms := m.Matrices()
	var ts []NewTensor
	matrix := func(name string, x *quant.Matrix) {
		t := NewTensor{name, dims(x.Cols, x.Rows), Type(x.Type), x.RowMajor()}
		if x.Type == quant.F32 {
			t.Type, t.Data = o.Type, encode(x.F32)
		}
		ts = append(ts, t)
	}
	gain := func(name string, x []float32) {
		ts = append(ts, NewTensor{name, dims(len(x)), F32, appendWords(x, 4, func(f float32) uint64 { return uint64(math.Float32bits(f)) })})
	}
	matrix("token_embd.weight", &ms.TokenEmbedding)
	if a.positions {
		matrix("position_embd.weight", &quant.Matrix{Type: quant.F32, Rows: c.SeqLen, Cols: c.Dim, F32: wt.PosEmbedding})
	}
	gain("output_norm.weight", wt.RMSFinal)
	if a.layerNorm {
		gain("output_norm.bias", wt.NormFinalBias)
	}
	if !c.SharedHead || !o.TiedOutput || a.requiresOutput {
		matrix("output.weight", &ms.Classifier)
	}
	if wt.RoPEFactors != nil {
		gain("rope_freqs.weight", wt.RoPEFactors)
	}
	d, qd, kv := c.Dim, c.QDim(), c.KVDim()
	for l := range c.Layers {
		name := func(s string) string { return layerTensor(l, s) }
		lm := &ms.Layers[l]
		h := c.HiddenDim
		switch {
		case a.fusedQKV:
			matrix(name("attn_qkv"), fuse(&lm.WQ, &lm.WK, &lm.WV))
			if a.allBiases {
				gain(name("attn_qkv.bias"), slices.Concat(wt.BQ[l*qd:(l+1)*qd], wt.BK[l*kv:(l+1)*kv], wt.BV[l*kv:(l+1)*kv]))
			}
		default:
			matrix(name("attn_q"), &lm.WQ)
			matrix(name("attn_k"), &lm.WK)
			matrix(name("attn_v"), &lm.WV)
			if wt.BQ != nil {
				gain(name("attn_q.bias"), wt.BQ[l*qd:(l+1)*qd])
				gain(name("attn_k.bias"), wt.BK[l*kv:(l+1)*kv])
				gain(name("attn_v.bias"), wt.BV[l*kv:(l+1)*kv])
			}
		}
		if a.qkNorm {
			gain(name("attn_q_norm"), wt.QNorm[l*int(hs):(l+1)*int(hs)])
			gain(name("attn_k_norm"), wt.KNorm[l*int(hs):(l+1)*int(hs)])
		}
		matrix(name("attn_output"), &lm.WO)
		gain(name("attn_norm"), wt.RMSAtt[l*d:(l+1)*d])
		if !a.ungated && !a.fusedUp {
			matrix(name("ffn_gate"), &lm.W1)
		}
		matrix(name("ffn_down"), &lm.W2)
		if a.fusedUp {
			matrix(name("ffn_up"), fuse(&lm.W1, &lm.W3))
		} else {
			matrix(name("ffn_up"), &lm.W3)
		}
		gain(name("ffn_norm"), wt.RMSFFN[l*d:(l+1)*d])
		if a.postNorms {
			gain(name("post_attention_norm"), wt.RMSAttPost[l*d:(l+1)*d])
			gain(name("post_ffw_norm"), wt.RMSFFNPost[l*d:(l+1)*d])
		}
		if a.layerNorm {
			gain(name("attn_norm.bias"), wt.NormAttBias[l*d:(l+1)*d])
			gain(name("ffn_norm.bias"), wt.NormFFNBias[l*d:(l+1)*d])
		}
		if a.allBiases {
			gain(name("attn_output.bias"), wt.BO[l*d:(l+1)*d])
			gain(name("ffn_up.bias"), wt.BUp[l*h:(l+1)*h])
			gain(name("ffn_down.bias"), wt.BDown[l*d:(l+1)*d])
		}
	}
	return Write(w, md, ts)
}

// fuse is the matrix of the rows of ms one after another (a GGUF file's
// attn_qkv), all of one type.
func fuse(ms ...*quant.Matrix) *quant.Matrix {
	f := &quant.Matrix{Type: ms[0].Type, Cols: ms[0].Cols}
	for _, m := range ms {
		f.Rows += m.Rows
		f.F32, f.Q = append(f.F32, m.F32...), append(f.Q, m.RowMajor()...)
	}
	return f
}

// appendWords encodes each of x as a little-endian word of size bytes.
func appendWords(x []float32, size int, word func(float32) uint64) []byte {
	b := make([]byte, 0, len(x)*size)
	for _, f := range x {
		b = binary.LittleEndian.AppendUint64(b, word(f))[:len(b)+size]
	}
	return b
}

// WriteLlama2cFile writes m and v as WriteLlama2c does into a new file at
// path.
func WriteLlama2cFile(path string, m *checkpoint.Model, v *tokenizer.Vocab, o Llama2cOptions) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := WriteLlama2c(w, m, v, o); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
