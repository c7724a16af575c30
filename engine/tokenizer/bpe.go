package tokenizer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// BPE is the byte-pair encoding tokenizer of llama2.c's run.c.
//
// It differs from run.c only where run.c cannot go: a NUL byte is encoded
// like any other byte instead of ending the text; BOS, EOS, the byte pieces
// and the dummy prefix are found by their spelling instead of being assumed
// to be ids 1, 2, 3+b and present; if the vocabulary has no piece " ", the
// dummy prefix is the byte piece "<0x20>", which Decode keeps, so that
// Decode(Encode(text)) is then " "+text for non-empty text.
type BPE struct {
	pieces   []string
	scores   []float32
	ids      map[string]int // piece → id
	bytes    [256]int       // byte → id of its byte piece
	space    int            // id of the dummy prefix
	bos, eos int
	longest  int // bytes of the longest piece: no token covers more of a text
}

// NewBPE returns the tokenizer of v, which must have the 256 byte pieces.
func NewBPE(v *Vocab) (*BPE, error) {
	ids, err := v.index()
	if err != nil {
		return nil, err
	}
	bytes, err := bytePieces(v.Pieces)
	if err != nil {
		return nil, err
	}
	space, ok := ids[" "]
	if !ok {
		space = bytes[' ']
	}
	longest := 1
	for _, p := range v.Pieces {
		longest = max(longest, len(p))
	}
	return &BPE{
		longest: longest,
		pieces:  slices.Clone(v.Pieces),
		scores:  slices.Clone(v.Scores),
		ids:     ids,
		bytes:   bytes,
		space:   space,
		bos:     lookup(ids, "\n<s>\n", "<s>"),
		eos:     lookup(ids, "\n</s>\n", "</s>"),
	}, nil
}

// Encode returns BOS (if the vocabulary has one) followed by the tokens of
// text. Any bytes can be encoded, so the error is always nil.
func (t *BPE) Encode(text string) ([]int, error) {
	tokens := make([]int, 0, 2+len(text))
	if t.bos >= 0 {
		tokens = append(tokens, t.bos)
	}
	if text != "" {
		tokens = append(tokens, t.space)
	}
	for i := 0; i < len(text); {
		// Like run.c, take a byte and up to 3 continuation bytes (10xxxxxx)
		// as a code point, valid UTF-8 or not.
		j := i + 1
		for j < len(text) && j-i < 4 && text[j]&0xC0 == 0x80 {
			j++
		}
		if id, ok := t.ids[text[i:j]]; ok {
			tokens = append(tokens, id)
		} else {
			for k := i; k < j; k++ {
				tokens = append(tokens, t.bytes[text[k]])
			}
		}
		i = j
	}
	return t.merge(tokens), nil
}

// MinTokens: the tokens after BOS spell the dummy prefix and text, each
// at most the longest piece's length.
func (t *BPE) MinTokens(text string) int {
	n := 0
	if t.bos >= 0 {
		n++
	}
	if text != "" {
		n += (1 + len(text) + t.longest - 1) / t.longest
	}
	return n
}

// candidate is the token a pair of adjacent tokens merges to, and its
// score; id is -1 if the pair's concatenation is not a piece.
type candidate struct {
	id    int
	score float32
}

// pair returns what tokens a and b merge to.
func (t *BPE) pair(a, b int) candidate {
	// A concatenation used only as a map key is built in a stack buffer
	// (up to 32 bytes), so this does not allocate.
	if id, ok := t.ids[t.pieces[a]+t.pieces[b]]; ok {
		return candidate{id, t.scores[id]}
	}
	return candidate{id: -1}
}

// merge applies the best merge until none is left. Like run.c it scans
// every pair for each merge, but it remembers what each pair merges to, so
// that a merge costs two piece lookups rather than one per pair.
func (t *BPE) merge(tokens []int) []int {
	if len(tokens) < 2 {
		return tokens
	}
	merges := make([]candidate, len(tokens)-1) // merges[i] is for tokens i and i+1
	for i := range merges {
		merges[i] = t.pair(tokens[i], tokens[i+1])
	}
	for {
		best, bestScore := -1, float32(-1e10) // run.c's starting score
		for i, m := range merges {
			if m.id >= 0 && m.score > bestScore {
				best, bestScore = i, m.score
			}
		}
		if best < 0 {
			return tokens
		}
		tokens[best] = merges[best].id
		tokens = slices.Delete(tokens, best+1, best+2)
		merges = slices.Delete(merges, best, best+1)
		// Only the pairs either side of the new token have changed.
		if best > 0 {
			merges[best-1] = t.pair(tokens[best-1], tokens[best])
		}
		if best < len(merges) {
			merges[best] = t.pair(tokens[best], tokens[best+1])
		}
	}
}

// Piece returns the text of token id after token prev: "" for BOS and EOS,
// the byte b for the byte piece "<0xHH>", otherwise the piece itself, less
// its leading space after BOS (llama2.c strips it like SentencePiece, since
// it is the dummy prefix's).
func (t *BPE) Piece(prev, id int) string {
	if id == t.bos || id == t.eos {
		return ""
	}
	piece := t.pieces[id]
	if prev == t.bos && prev >= 0 {
		piece = strings.TrimPrefix(piece, " ")
	}
	if b, ok := byteValue(piece); ok {
		return string([]byte{b})
	}
	return piece
}

// Decode returns the text of ids; BOS and EOS add nothing.
func (t *BPE) Decode(ids []int) string { return decode(t, ids) }

// Token returns the piece of id as stored.
func (t *BPE) Token(id int) string { return t.pieces[id] }

// VocabSize returns the number of pieces.
func (t *BPE) VocabSize() int { return len(t.pieces) }

// BOS returns the id of the piece "\n<s>\n" or else "<s>", or -1.
func (t *BPE) BOS() int { return t.bos }

// EOS returns the id of the piece "\n</s>\n" or else "</s>", or -1.
func (t *BPE) EOS() int { return t.eos }

// bytePieces returns the id of each byte's byte piece.
func bytePieces(pieces []string) ([256]int, error) {
	var ids [256]int
	for b := range ids {
		ids[b] = -1
	}
	for id, p := range pieces {
		if b, ok := byteValue(p); ok && ids[b] < 0 {
			ids[b] = id
		}
	}
	for b, id := range ids {
		if id < 0 {
			return ids, fmt.Errorf("tokenizer: not a BPE vocabulary: no byte piece <0x%02X>", b)
		}
	}
	return ids, nil
}

// byteValue returns b if piece is the byte piece "<0xHH>" of b.
func byteValue(piece string) (b byte, ok bool) {
	if len(piece) != 6 || piece[:3] != "<0x" || piece[5] != '>' {
		return 0, false
	}
	n, err := strconv.ParseUint(piece[3:5], 16, 8)
	return byte(n), err == nil
}

// lookup returns the id of the first of pieces in the vocabulary, or -1.
func lookup(ids map[string]int, pieces ...string) int {
	for _, p := range pieces {
		if id, ok := ids[p]; ok {
			return id
		}
	}
	return -1
}
