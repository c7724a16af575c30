package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/tokenizer"
)

// Llama2cOptions are the choices of WriteLlama2c.
type Llama2cOptions struct {
	// Type is the type of the matrices: F32 (as llama.cpp's converter
	// writes), F16 or BF16. The 1-D RMSNorm gains stay F32, as llama.cpp's
	// converters keep them.
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
			return appendWords(x, 2, func(f float32) uint64 { return uint64(FloatToHalf(f)) })
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
		text, typ := Llama2cToken(id, p)
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

	wt := &m.Weights
	d, h, kv, voc := c.Dim, c.HiddenDim, c.KVDim(), c.VocabSize
	var ts []NewTensor
	matrix := func(name string, x []float32, in, out int) {
		ts = append(ts, NewTensor{name, dims(in, out), o.Type, encode(x[:in*out])})
	}
	gain := func(name string, x []float32) {
		ts = append(ts, NewTensor{name, dims(len(x)), F32, appendWords(x, 4, func(f float32) uint64 { return uint64(math.Float32bits(f)) })})
	}
	matrix("token_embd.weight", wt.TokenEmbedding, d, voc)
	gain("output_norm.weight", wt.RMSFinal)
	if !c.SharedHead || !o.TiedOutput {
		matrix("output.weight", wt.Classifier, d, voc)
	}
	for l := range c.Layers {
		name := func(s string) string { return fmt.Sprintf("blk.%d.%s.weight", l, s) }
		matrix(name("attn_q"), wt.WQ[l*d*d:], d, d)
		matrix(name("attn_k"), wt.WK[l*kv*d:], d, kv)
		matrix(name("attn_v"), wt.WV[l*kv*d:], d, kv)
		matrix(name("attn_output"), wt.WO[l*d*d:], d, d)
		gain(name("attn_norm"), wt.RMSAtt[l*d:(l+1)*d])
		matrix(name("ffn_gate"), wt.W1[l*h*d:], d, h)
		matrix(name("ffn_down"), wt.W2[l*d*h:], h, d)
		matrix(name("ffn_up"), wt.W3[l*h*d:], d, h)
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

// Llama2cToken is the text and type that llama.cpp's
// examples/convert-llama2c-to-ggml (load_vocab, for a llama2.c
// vocabulary) gives token id, whose piece in tokenizer.bin is piece:
// tokens 0, 1 and 2 are "<unk>" (unknown), "<s>" and "</s>" (control)
// whatever their piece, an empty piece is a control token, "<0xHH>" a
// byte, any other piece a normal one; spaces are written "▁".
func Llama2cToken(id int, piece string) (text string, typ tokenizer.TokenType) {
	typ = tokenizer.TokenNormal
	switch {
	case id == 0:
		piece, typ = "<unk>", tokenizer.TokenUnknown
	case id == 1:
		piece, typ = "<s>", tokenizer.TokenControl
	case id == 2:
		piece, typ = "</s>", tokenizer.TokenControl
	case piece == "":
		typ = tokenizer.TokenControl
	case len(piece) == 6 && strings.HasPrefix(piece, "<0x") && piece[5] == '>':
		typ = tokenizer.TokenByte
	}
	return strings.ReplaceAll(piece, " ", spaceMark), typ
}

// Piece is what llama.cpp's llama_vocab::detokenize({id}, true) returns
// for a token of a SentencePiece ("llama") vocabulary with
// add_space_prefix, given the token's text and type (src/llama-vocab.cpp
// at 34af94cd: token_to_piece with special = true and lstrip = 1, the
// leading space detokenize removes, and no clean-up of spaces): a normal
// token's text with "▁" read as a space, a byte token's byte, nothing for
// an unused token, and any other token's text as it is; then one leading
// space, if any, goes.
func Piece(text string, typ tokenizer.TokenType) string {
	switch typ {
	case tokenizer.TokenUnused:
		return ""
	case tokenizer.TokenNormal:
		text = unescapeSpaces(text)
	case tokenizer.TokenByte:
		if b, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(text, "<0x"), ">"), 16, 8); err == nil {
			text = string([]byte{byte(b)})
		}
	}
	return strings.TrimPrefix(text, " ")
}
