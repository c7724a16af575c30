package gguf

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"nexttoken/engine/tokenizer"
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
// the unknown token and the rest play no part in run.c's algorithm. The
// other tokenizer models are refused (gpt2's vocabulary is GPT2Vocab's).
func (f *File) Vocab() (*tokenizer.Vocab, tokenizer.BPEOptions, error) {
	var o tokenizer.BPEOptions
	model, err := f.text("tokenizer.ggml.model")
	if err != nil {
		return nil, o, err
	}
	switch model {
	case "llama":
	case "gpt2":
		return nil, o, fmt.Errorf("gguf: tokenizer.ggml.model is gpt2, not llama: see GPT2Vocab")
	default:
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
	if o.Special, err = f.specialTokens(len(pieces)); err != nil {
		return nil, o, err
	}
	return v, o, nil
}

// specialTokens returns the ids whose tokenizer.ggml.token_type is
// control, user-defined or unknown: the tokens llama.cpp reads where a
// text spells them when it parses special tokens.
func (f *File) specialTokens(n int) ([]int, error) {
	types, err := f.tokenTypes(n)
	var ids []int
	for id, t := range types {
		switch t {
		case tokenizer.TokenControl, tokenizer.TokenUserDefined, tokenizer.TokenUnknown:
			ids = append(ids, id)
		}
	}
	return ids, err
}

// tokenTypes returns tokenizer.ggml.token_type for n tokens, nil if it is
// absent.
func (f *File) tokenTypes(n int) ([]tokenizer.TokenType, error) {
	if _, ok := f.Metadata.Lookup("tokenizer.ggml.token_type"); !ok {
		return nil, nil
	}
	a, err := f.array("tokenizer.ggml.token_type")
	if err != nil {
		return nil, err
	}
	raw, ok := a.raw.([]int32)
	if !ok || len(raw) != n {
		return nil, fmt.Errorf("gguf: tokenizer.ggml.token_type is %d × %s, want %d int32", a.Len(), a.Elem, n)
	}
	types := make([]tokenizer.TokenType, n)
	for i, t := range raw {
		types[i] = tokenizer.TokenType(t)
	}
	return types, nil
}

// Tokenizer returns the tokenizer of the file's metadata: for
// tokenizer.ggml.model llama, run.c's BPE tokenizer of Vocab; for gpt2, the
// byte-level BPE tokenizer of GPT2Vocab.
func (f *File) Tokenizer() (tokenizer.Tokenizer, error) {
	model, err := f.text("tokenizer.ggml.model")
	if err != nil {
		return nil, err
	}
	if model == "gpt2" {
		v, err := f.GPT2Vocab()
		if err != nil {
			return nil, err
		}
		t, err := tokenizer.NewGPT2(v)
		if err != nil {
			return nil, fmt.Errorf("gguf: %w", err)
		}
		return t, nil
	}
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

// GPT2Vocab returns the tokenizer.ggml.* metadata of a file whose
// tokenizer.ggml.model is gpt2 (byte-level BPE), read as llama.cpp's
// llama_vocab::impl::load reads it:
//
//	tokenizer.ggml.tokens         tokens in GPT-2's byte-level alphabet
//	tokenizer.ggml.token_type     int32 per token (absent: all normal)
//	tokenizer.ggml.merges         "a b" per merge, rank = index
//	tokenizer.ggml.pre            pre-tokenizer (absent: default)
//	tokenizer.ggml.bos_token_id   BOS (absent: 11, llama.cpp's default for gpt2, if the vocabulary has it)
//	tokenizer.ggml.eos_token_id   EOS (absent: 11 likewise)
//	tokenizer.ggml.unknown_token_id  (absent: none)
//	tokenizer.ggml.add_bos_token  whether Encode starts with BOS (absent: the pre-tokenizer's default)
func (f *File) GPT2Vocab() (tokenizer.GPT2Vocab, error) {
	var v tokenizer.GPT2Vocab
	model, err := f.text("tokenizer.ggml.model")
	if err != nil {
		return v, err
	}
	if model != "gpt2" {
		return v, fmt.Errorf("gguf: tokenizer.ggml.model is %q, not gpt2", model)
	}
	tokens, err := f.array("tokenizer.ggml.tokens")
	if err != nil {
		return v, err
	}
	if v.Tokens, _ = tokens.Strings(); len(v.Tokens) == 0 {
		return v, fmt.Errorf("gguf: tokenizer.ggml.tokens is %d × %s, want strings", tokens.Len(), tokens.Elem)
	}
	n := len(v.Tokens)
	if v.Types, err = f.tokenTypes(n); err != nil {
		return v, err
	}
	merges, err := f.array("tokenizer.ggml.merges")
	if err != nil {
		return v, err
	}
	list, ok := merges.Strings()
	if !ok {
		return v, fmt.Errorf("gguf: tokenizer.ggml.merges is %d × %s, want strings", merges.Len(), merges.Elem)
	}
	if v.Merges, err = SplitMerges(list); err != nil {
		return v, err
	}
	pre := ""
	if _, ok := f.Metadata.Lookup("tokenizer.ggml.pre"); ok {
		if pre, err = f.text("tokenizer.ggml.pre"); err != nil {
			return v, err
		}
	}
	if v.Pre, err = tokenizer.LookupPre(pre); err != nil {
		return v, fmt.Errorf("gguf: tokenizer.ggml.pre: %w", err)
	}
	if v.BOS, err = f.tokenID("tokenizer.ggml.bos_token_id", 11, n); err != nil {
		return v, err
	}
	if v.EOS, err = f.tokenID("tokenizer.ggml.eos_token_id", 11, n); err != nil {
		return v, err
	}
	if v.UNK, err = f.tokenID("tokenizer.ggml.unknown_token_id", -1, n); err != nil {
		return v, err
	}
	if v.AddBOS, err = f.flag("tokenizer.ggml.add_bos_token", v.Pre.AddBOS); err != nil {
		return v, err
	}
	return v, nil
}

// ErrNoChatTemplate is ChatTemplate's error for a file without one.
var ErrNoChatTemplate = errors.New("gguf: the model has no chat template (tokenizer.chat_template)")

// ChatTemplate returns the Jinja source of the model's chat template,
// tokenizer.chat_template.
func (f *File) ChatTemplate() (string, error) {
	if _, ok := f.Metadata.Lookup("tokenizer.chat_template"); !ok {
		return "", ErrNoChatTemplate
	}
	return f.text("tokenizer.chat_template")
}

// SplitMerges reads merges written "a b": the two tokens a merge joins,
// split at the first space after the first byte (llama.cpp's
// word.find(' ', 1)), so that the first token may be a lone space.
func SplitMerges(merges []string) ([][2]string, error) {
	pairs := make([][2]string, len(merges))
	for i, m := range merges {
		k := strings.IndexByte(m[min(1, len(m)):], ' ') + 1
		if k <= 0 || k == len(m)-1 {
			return nil, fmt.Errorf("gguf: tokenizer.ggml.merges[%d] is %q, want two tokens separated by a space", i, m)
		}
		pairs[i] = [2]string{m[:k], m[k+1:]}
	}
	return pairs, nil
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
