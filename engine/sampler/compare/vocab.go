package compare

import (
	"nexttoken/engine/sampler/llamacpp"
	"nexttoken/engine/tokenizer"
)

// Vocab is tok's vocabulary as llama.cpp's DRY reads it (llamacpp.Vocab).
// A SentencePiece vocabulary (*tokenizer.BPE) is the one llama.cpp would
// load from the model converted to GGUF (tokenizer.Llama2cToken): each
// token's text is what llama_vocab::detokenize({id}, true) gives
// (tokenizer.LlamaCppPiece: "▁" a space, a byte token its byte, "<s>" and
// "</s>" their names, less one leading space), and text is tokenized by
// Encode, without BOS, where llama.cpp runs its own SentencePiece
// tokenizer (which agrees with run.c's merges on ordinary text; DRY
// tokenizes only the rest of a breaker of two bytes or more, and
// llama.cpp's default breakers are one byte each). A word vocabulary is
// its words.
func Vocab(tok tokenizer.Tokenizer) llamacpp.Vocab { return vocab{tok} }

type vocab struct{ tok tokenizer.Tokenizer }

func (v vocab) Len() int { return v.tok.VocabSize() }

func (v vocab) Piece(id int32) string {
	if _, spm := v.tok.(*tokenizer.BPE); spm {
		return tokenizer.LlamaCppPiece(tokenizer.Llama2cToken(int(id), v.tok.Token(int(id))))
	}
	return v.tok.Token(int(id))
}

func (v vocab) Tokenize(text string) []int32 {
	ids, err := v.tok.Encode(text)
	if err != nil {
		return nil // a word the vocabulary does not have: no sequence
	}
	if len(ids) > 0 && ids[0] == v.tok.BOS() {
		ids = ids[1:]
	}
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = int32(id)
	}
	return out
}
