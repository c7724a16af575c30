package tokenizer

import (
	"strconv"
	"strings"
)

// A llama2.c vocabulary as llama.cpp sees it once the model is converted
// to GGUF: what its llama_vocab reads and gives back token by token, for
// code that reproduces llama.cpp on a llama2.c model (package gguf writes
// the conversion; package compare's DRY reads the pieces).

// spaceMark is SentencePiece's "▁" (U+2581), which stands for a space in
// a GGUF vocabulary's pieces; llama2.c's tokenizer.bin and this package
// write the space itself.
const spaceMark = "\u2581"

// Llama2cToken is the text and type that llama.cpp's
// examples/convert-llama2c-to-ggml (load_vocab, for a llama2.c
// vocabulary) gives token id, whose piece in tokenizer.bin is piece:
// tokens 0, 1 and 2 are "<unk>" (unknown), "<s>" and "</s>" (control)
// whatever their piece, an empty piece is a control token, "<0xHH>" a
// byte, any other piece a normal one; spaces are written "▁".
func Llama2cToken(id int, piece string) (text string, typ TokenType) {
	typ = TokenNormal
	switch {
	case id == 0:
		piece, typ = "<unk>", TokenUnknown
	case id == 1:
		piece, typ = "<s>", TokenControl
	case id == 2:
		piece, typ = "</s>", TokenControl
	case piece == "":
		typ = TokenControl
	case len(piece) == 6 && strings.HasPrefix(piece, "<0x") && piece[5] == '>':
		typ = TokenByte
	}
	return strings.ReplaceAll(piece, " ", spaceMark), typ
}

// LlamaCppPiece is what llama.cpp's llama_vocab::detokenize({id}, true)
// returns for a token of a SentencePiece ("llama") vocabulary with
// add_space_prefix, given the token's text and type (src/llama-vocab.cpp
// at 34af94cd: token_to_piece with special = true and lstrip = 1, the
// leading space detokenize removes, and no clean-up of spaces): a normal
// token's text with "▁" read as a space, a byte token's byte, nothing for
// an unused token, and any other token's text as it is; then one leading
// space, if any, goes.
func LlamaCppPiece(text string, typ TokenType) string {
	switch typ {
	case TokenUnused:
		return ""
	case TokenNormal:
		text = strings.ReplaceAll(text, spaceMark, " ")
	case TokenByte:
		if b, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(text, "<0x"), ">"), 16, 8); err == nil {
			text = string([]byte{byte(b)})
		}
	}
	return strings.TrimPrefix(text, " ")
}
