package gguf

import (
	"fmt"
	"math"

	"nexttoken/engine/tokenizer"
)

// Token types of tokenizer.ggml.token_type (llama.cpp's llama_token_type).
const (
	TokenNormal      = 1
	TokenUnknown     = 2
	TokenControl     = 3
	TokenUserDefined = 4
	TokenUnused      = 5
	TokenByte        = 6
)

// Vocab returns the tokenizer.ggml.* metadata of a file whose
// tokenizer.ggml.model is llama (SentencePiece BPE) as a llama2.c vocabulary
// with the options its metadata states:
//
//	tokenizer.ggml.tokens            pieces, "▁" standing for a space
//	tokenizer.ggml.scores            merge scores (absent: all 0, as in llama.cpp)
//	tokenizer.ggml.bos_token_id      BOS (absent: 1, llama.cpp's default)
//	tokenizer.ggml.eos_token_id      EOS (absent: 2)
//	tokenizer.ggml.add_bos_token     whether Encode starts with BOS (absent: true)
//	tokenizer.ggml.add_space_prefix  whether it puts " " before the text (absent: true)
//
// An id of -1 (or 2^32-1, -1 written as a uint32) means none. Token types,
// the unknown token and the rest play no part in run.c's algorithm; "gpt2"
// and the other tokenizer models are refused.
func (f *File) Vocab() (*tokenizer.Vocab, tokenizer.BPEOptions, error) {
	var o tokenizer.BPEOptions
	model, err := f.text("tokenizer.ggml.model")
	if err != nil {
		return nil, o, err
	}
	if model != "llama" {
		return nil, o, unsupportedTokenizer(model)
	}
	tokens, err := f.array("tokenizer.ggml.tokens")
	if err != nil {
		return nil, o, err
	}
	pieces, ok := tokens.Strings()
	if !ok || len(pieces) == 0 {
		return nil, o, fmt.Errorf("gguf: tokenizer.ggml.tokens is %d × %s, want strings", tokens.Len(), tokens.Elem)
	}
	v := &tokenizer.Vocab{MaxTokenLength: 1, Pieces: make([]string, len(pieces)), Scores: make([]float32, len(pieces))}
	for i, p := range pieces {
		v.Pieces[i] = unescapeSpaces(p)
		v.MaxTokenLength = max(v.MaxTokenLength, len(v.Pieces[i]))
	}
	if _, ok := f.Metadata.Lookup("tokenizer.ggml.scores"); ok {
		a, err := f.array("tokenizer.ggml.scores")
		if err != nil {
			return nil, o, err
		}
		scores, ok := a.Float32s()
		if !ok || len(scores) != len(pieces) {
			return nil, o, fmt.Errorf("gguf: tokenizer.ggml.scores is %d × %s, want %d float32", a.Len(), a.Elem, len(pieces))
		}
		copy(v.Scores, scores)
	}
	if o.BOS, err = f.tokenID("tokenizer.ggml.bos_token_id", 1, len(pieces)); err != nil {
		return nil, o, err
	}
	if o.EOS, err = f.tokenID("tokenizer.ggml.eos_token_id", 2, len(pieces)); err != nil {
		return nil, o, err
	}
	addBOS, err := f.flag("tokenizer.ggml.add_bos_token", true)
	if err != nil {
		return nil, o, err
	}
	prefix, err := f.flag("tokenizer.ggml.add_space_prefix", true)
	if err != nil {
		return nil, o, err
	}
	o.NoBOS, o.NoDummyPrefix = !addBOS, !prefix
	return v, o, nil
}

// Tokenizer returns the run.c BPE tokenizer of the file's vocabulary (see
// Vocab).
func (f *File) Tokenizer() (*tokenizer.BPE, error) {
	v, o, err := f.Vocab()
	if err != nil {
		return nil, err
	}
	t, err := tokenizer.NewBPEWith(v, o)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	return t, nil
}

// array returns the array value of key.
func (f *File) array(key string) (Array, error) {
	v, ok := f.Metadata.Lookup(key)
	if !ok {
		return Array{}, fmt.Errorf("gguf: %s is missing", key)
	}
	a, ok := v.Array()
	if !ok {
		return Array{}, fmt.Errorf("gguf: %s is %s, want an array", key, v.Type)
	}
	return a, nil
}

// tokenID returns the token id of key, def when it is absent, or -1 for
// none.
func (f *File) tokenID(key string, def, vocab int) (int, error) {
	v, ok := f.Metadata.Lookup(key)
	if !ok {
		if def >= vocab {
			return -1, nil
		}
		return def, nil
	}
	id, ok := v.Int()
	switch {
	case !ok:
		return 0, fmt.Errorf("gguf: %s is %s %s, want an integer", key, v.Type, v)
	case id == -1 || id == math.MaxUint32:
		return -1, nil
	case id < 0 || id >= int64(vocab):
		return 0, fmt.Errorf("gguf: %s is %d, outside the vocabulary of %d tokens", key, id, vocab)
	}
	return int(id), nil
}

// flag returns the bool value of key, or def when it is absent.
func (f *File) flag(key string, def bool) (bool, error) {
	v, ok := f.Metadata.Lookup(key)
	if !ok {
		return def, nil
	}
	b, ok := v.Bool()
	if !ok {
		return false, fmt.Errorf("gguf: %s is %s %s, want a bool", key, v.Type, v)
	}
	return b, nil
}
