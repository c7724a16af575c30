package randmodel

import (
	"fmt"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/tokenizer"
)

// The ids ChatML gives the special tokens of Qwen's chats.
const (
	ChatMLEndOfText = 256 // <|endoftext|>: BOS and EOS, as in Qwen2.5's GGUF
	ChatMLStart     = 257 // <|im_start|>
	ChatMLEnd       = 258 // <|im_end|>
)

// ChatML returns a model of configuration c, its weights as Build's, with
// a byte-level vocabulary (Qwen2's pre-tokenizer) of the 256 bytes, the
// control tokens above and fillers up to c.VocabSize, at least 400: a
// stand-in for a chat model, whose prompts carry special tokens.
func ChatML(c checkpoint.Config, seed uint64) (*checkpoint.Model, *tokenizer.GPT2, error) {
	m, _, err := Build(c, seed)
	if err != nil {
		return nil, nil, err
	}
	v := tokenizer.GPT2Vocab{BOS: ChatMLEndOfText, EOS: ChatMLEndOfText, UNK: -1}
	for b := range 256 {
		v.Tokens = append(v.Tokens, tokenizer.ByteLevel(string([]byte{byte(b)})))
	}
	v.Tokens = append(v.Tokens, "<|endoftext|>", "<|im_start|>", "<|im_end|>")
	for len(v.Tokens) < c.VocabSize {
		v.Tokens = append(v.Tokens, tokenizer.ByteLevel(fmt.Sprint("x", len(v.Tokens))))
	}
	v.Types = make([]tokenizer.TokenType, len(v.Tokens))
	for id := range v.Types {
		v.Types[id] = tokenizer.TokenNormal
		if id >= ChatMLEndOfText && id <= ChatMLEnd {
			v.Types[id] = tokenizer.TokenControl
		}
	}
	if v.Pre, err = tokenizer.LookupPre("qwen2"); err != nil {
		return nil, nil, err
	}
	tok, err := tokenizer.NewGPT2(v)
	if err != nil {
		return nil, nil, err
	}
	return m, tok, nil
}
