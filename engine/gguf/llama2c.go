package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

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
func WriteLlama2c(w io.Writer, m *checkpoint.Model, v *tokenizer.Vocab, o Llama2cOptions) error {
	c := m.Config
	if err := c.Validate(); err != nil {
		return err
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
	add("general.architecture", "llama")
	add("general.name", "llama")
	add("tokenizer.ggml.unknown_token_id", uint32(0))
	add("tokenizer.ggml.bos_token_id", uint32(1))
	add("tokenizer.ggml.eos_token_id", uint32(2))
	add("tokenizer.ggml.seperator_token_id", uint32(math.MaxUint32)) // sic, and LLAMA_TOKEN_NULL
	add("tokenizer.ggml.padding_token_id", uint32(math.MaxUint32))
	add("llama.context_length", uint32(c.SeqLen))
	add("llama.embedding_length", uint32(c.Dim))
	add("llama.feed_forward_length", uint32(c.HiddenDim))
	add("llama.attention.head_count", uint32(c.Heads))
	add("llama.attention.head_count_kv", uint32(c.KVHeads))
	add("llama.block_count", uint32(c.Layers))
	add("llama.rope.dimension_count", min(64, hs))
	add("llama.attention.layer_norm_rms_epsilon", c.Eps())

	wt, ms := &m.Weights, m.Matrices()
	var ts []NewTensor
	matrix := func(name string, x *quant.Matrix) {
		t := NewTensor{name, dims(x.Cols, x.Rows), Type(x.Type), x.Q}
		if x.Type == quant.F32 {
			t.Type, t.Data = o.Type, encode(x.F32)
		}
		ts = append(ts, t)
	}
	gain := func(name string, x []float32) {
		ts = append(ts, NewTensor{name, dims(len(x)), F32, appendWords(x, 4, func(f float32) uint64 { return uint64(math.Float32bits(f)) })})
	}
	matrix("token_embd.weight", &ms.TokenEmbedding)
	gain("output_norm.weight", wt.RMSFinal)
	if !c.SharedHead || !o.TiedOutput {
		matrix("output.weight", &ms.Classifier)
	}
	d := c.Dim
	for l := range c.Layers {
		name := func(s string) string { return fmt.Sprintf("blk.%d.%s.weight", l, s) }
		lm := &ms.Layers[l]
		matrix(name("attn_q"), &lm.WQ)
		matrix(name("attn_k"), &lm.WK)
		matrix(name("attn_v"), &lm.WV)
		matrix(name("attn_output"), &lm.WO)
		gain(name("attn_norm"), wt.RMSAtt[l*d:(l+1)*d])
		matrix(name("ffn_gate"), &lm.W1)
		matrix(name("ffn_down"), &lm.W2)
		matrix(name("ffn_up"), &lm.W3)
		gain(name("ffn_norm"), wt.RMSFFN[l*d:(l+1)*d])
	}
	return Write(w, md, ts)
}

// appendWords encodes each of x as a little-endian word of size bytes.
func appendWords(x []float32, size int, word func(float32) uint64) []byte {
	b := make([]byte, 0, len(x)*size)
	for _, f := range x {
		b = binary.LittleEndian.AppendUint64(b, word(f))[:len(b)+size]
	}
	return b
}
