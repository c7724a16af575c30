// Package tokenizer turns text into the token ids a language model reads,
// and token ids back into text: SentencePiece BPE the way llama2.c's run.c
// does it, GPT-2's byte-level BPE the way llama.cpp does it, and words.
//
// # File format
//
// A llama2.c tokenizer.bin is little-endian:
//
//	int32 max_token_length
//	for each token, in id order, until the end of the file:
//	    float32 score
//	    int32   len
//	    [len]byte piece (not NUL-terminated)
//
// The number of tokens is not stored (run.c takes it from the model's
// header); [Read] reads until the end of the file.
//
// # Byte-pair encoding
//
// A SentencePiece BPE vocabulary, such as llama2's, holds 256 byte-fallback
// pieces "<0x00>"…"<0xFF>", one per byte, and pieces learnt by merging: in
// training, the most frequent adjacent pair of pieces is merged into a new
// piece, again and again, and the export gives the i-th merge the score -i.
// [BPE.Encode] replays those merges on new text:
//
//  1. Start with BOS and, unless the text is empty, the piece " " (the
//     "dummy prefix" SentencePiece puts before the text, so that the first
//     word is spelt like every other word, with a leading space).
//  2. Append each UTF-8 code point's piece; a code point that has none is
//     spelt with the byte pieces of its bytes.
//  3. While some adjacent pair of tokens concatenates to a piece, replace the
//     pair whose piece has the highest score (the leftmost one on ties) by
//     that piece.
//
// Decoding concatenates the pieces, reading a byte piece as its byte and
// dropping the dummy prefix's space after BOS.
//
// # Byte-level BPE
//
// GPT-2 and most models since (Llama 3, Qwen, SmolLM, DeepSeek, …) spell
// every byte as a printable character and learn merges of those: [GPT2]
// splits the text into words with the pre-tokenizer its vocabulary names
// ([Pre]), then replays the merges within each word, lowest rank first.
//
// # Words
//
// A vocabulary without the byte pieces, such as the six words of a toy
// model, is read as a list of words: [Words] splits text on white space and
// looks each word up exactly.
package tokenizer

import "strings"

// Tokenizer converts between text and token ids. Piece, Decode and Token
// panic on an id outside [0, VocabSize()).
type Tokenizer interface {
	// Encode returns the token ids the model reads for text.
	Encode(text string) ([]int, error)
	// Piece returns the text token id adds after token prev (-1 at the
	// start). It is raw bytes and may end inside a UTF-8 sequence that a
	// following token completes.
	Piece(prev, id int) string
	// Decode returns the concatenation of Piece over ids, the first id
	// following -1.
	Decode(ids []int) string
	// Token returns the vocabulary entry of id as stored, for display,
	// such as "<0x0A>" or " the".
	Token(id int) string
	// VocabSize returns the number of tokens.
	VocabSize() int
	// BOS returns the id of the begin-of-sequence token, or -1 if the
	// vocabulary has none.
	BOS() int
	// EOS returns the id of the end-of-sequence token, or -1 if the
	// vocabulary has none.
	EOS() int
	// MinTokens returns a lower bound on the number of tokens Encode
	// returns for text, in one pass over it and without encoding: a text
	// that cannot fit a context is refused at once, however long.
	MinTokens(text string) int
}

// New returns a *BPE if v has all 256 byte pieces "<0x00>"…"<0xFF>",
// as every SentencePiece BPE vocabulary exported by llama2.c does, and a
// *Words otherwise.
func New(v *Vocab) (Tokenizer, error) {
	if _, err := bytePieces(v.Pieces); err == nil {
		t, err := NewBPE(v)
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	t, err := NewWords(v)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// EncodeText returns the tokens of text without BOS, as llama.cpp's
// llama_tokenize with add_special false (and parse_special false): the
// ids of its tokenizer tests' .out files.
func EncodeText(t Tokenizer, text string) ([]int, error) {
	if e, ok := t.(interface{ EncodeText(string) []int }); ok {
		return e.EncodeText(text), nil
	}
	return t.Encode(text) // Words has no BOS
}

// DecodePieces concatenates t.Piece over ids, the first following -1:
// the Decode of every tokenizer here, and of one that changes Piece.
func DecodePieces(t Tokenizer, ids []int) string {
	var b strings.Builder
	prev := -1
	for _, id := range ids {
		b.WriteString(t.Piece(prev, id))
		prev = id
	}
	return b.String()
}
