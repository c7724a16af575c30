package tokenizer

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Words is a word-level tokenizer: each token is a word, and text is words
// separated by white space. It has no BOS or EOS.
type Words struct {
	words []string
	ids   map[string]int // word → id
}

// WordVocab returns the vocabulary of words, in id order, with scores 0.
func WordVocab(words []string) *Vocab {
	v := &Vocab{Pieces: slices.Clone(words), Scores: make([]float32, len(words))}
	for _, w := range words {
		v.MaxTokenLength = max(v.MaxTokenLength, len(w))
	}
	return v
}

// NewWords returns the tokenizer of v, whose pieces must be non-empty and
// free of white space.
func NewWords(v *Vocab) (*Words, error) {
	ids, err := v.index()
	if err != nil {
		return nil, err
	}
	for id, w := range v.Pieces {
		if w == "" || strings.IndexFunc(w, unicode.IsSpace) >= 0 {
			return nil, fmt.Errorf("tokenizer: piece %d %q is not a word", id, w)
		}
	}
	return &Words{words: slices.Clone(v.Pieces), ids: ids}, nil
}

// Encode returns the ids of the words of text, which are separated by
// white space and matched exactly ("The" and "the" are different words).
func (t *Words) Encode(text string) ([]int, error) {
	words := strings.Fields(text)
	ids := make([]int, len(words))
	for i, w := range words {
		id, ok := t.ids[w]
		if !ok {
			return nil, t.unknown(w)
		}
		ids[i] = id
	}
	return ids, nil
}

// MinTokens is the number of words of text: a token per word.
func (t *Words) MinTokens(text string) int { return len(strings.Fields(text)) }

// unknown returns the error for a word not in the vocabulary, listing
// (the start of) the vocabulary so that the user can pick another.
func (t *Words) unknown(word string) error {
	const shown = 20
	list := strings.Join(t.words[:min(len(t.words), shown)], ", ")
	if n := len(t.words) - shown; n > 0 {
		list += fmt.Sprintf(" and %d more", n)
	}
	return fmt.Errorf("tokenizer: unknown word %q: the vocabulary is %s", word, list)
}

// Piece returns the word id, after a space unless it starts the text
// (prev is -1).
func (t *Words) Piece(prev, id int) string {
	if prev == -1 {
		return t.words[id]
	}
	return " " + t.words[id]
}

// Decode returns the words of ids separated by single spaces.
func (t *Words) Decode(ids []int) string { return DecodePieces(t, ids) }

// Token returns the word id.
func (t *Words) Token(id int) string { return t.words[id] }

// VocabSize returns the number of words.
func (t *Words) VocabSize() int { return len(t.words) }

// BOS returns -1: a word vocabulary has no begin-of-sequence token.
func (t *Words) BOS() int { return -1 }

// EOS returns -1: a word vocabulary has no end-of-sequence token.
func (t *Words) EOS() int { return -1 }
