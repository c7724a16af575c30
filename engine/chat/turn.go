package chat

import (
	"slices"
	"strings"
)

// endOfGeneration are the spellings of the tokens llama.cpp's vocabulary
// loader puts in its end-of-generation set (special_eog_ids in
// src/llama-vocab.cpp at c392e50), besides EOS and the ids the metadata
// names (tokenizer.ggml.eot_token_id, eom_token_id): the ends of a turn
// and the fill-in-the-middle padding, repository and file separators.
var endOfGeneration = []string{
	"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|eom_id|>", "<EOT>",
	"<|fim_pad|>", "<fim-pad>", "<PAD>",
	"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>",
	"<|file_sep|>",
}

// EndsGeneration reports whether a token spelt token ends generation in
// llama.cpp by its spelling (EOS and the tokens the metadata names do
// too, whatever their spelling).
func EndsGeneration(token string) bool { return slices.Contains(endOfGeneration, token) }

// assistantNeedle is the reply EndOfTurn renders.
const assistantNeedle = "<Assistant Needle>"

// EndOfTurn returns the token the template writes after an assistant's
// reply: the first of specials (the vocabulary's special tokens) that
// follows the reply in a rendered conversation, past white space, or eos
// if it is that; "" if none does, or if the one that does would not end
// generation in llama.cpp (EndsGeneration). It is the token a chat's
// generation stops at. The error is the template's, rendering a user's
// message and an assistant's reply.
func (t *Template) EndOfTurn(specials []string, bos, eos string) (string, error) {
	out, err := t.render(t.polyfill([]Message{{Role: "user", Content: userNeedle}, {Role: "assistant", Content: assistantNeedle}}), bos, eos, false)
	if err != nil {
		return "", err
	}
	i := strings.Index(out, assistantNeedle)
	if i < 0 {
		return "", nil
	}
	after := strings.TrimLeft(out[i+len(assistantNeedle):], " \t\n")
	best := ""
	for _, s := range specials {
		if s != "" && len(s) > len(best) && strings.HasPrefix(after, s) {
			best = s
		}
	}
	switch {
	case eos != "" && strings.HasPrefix(after, eos) && len(eos) >= len(best):
		return eos, nil
	case EndsGeneration(best):
		return best, nil
	}
	return "", nil
}
