package tokenizer

import (
	"cmp"
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

	noBOS, noPrefix bool         // from BPEOptions
	specials        []int        // BPEOptions.Special, longest first
	special         map[int]bool // the same, as a set
}

// BPEOptions say what a vocabulary's metadata says where run.c assumes:
// which ids are BOS and EOS, and whether Encode starts with BOS and the
// dummy prefix. A GGUF file states them (tokenizer.ggml.bos_token_id,
// add_bos_token, add_space_prefix); a llama2.c tokenizer.bin does not.
type BPEOptions struct {
	BOS, EOS      int  // ids, -1 for none
	NoBOS         bool // Encode does not start with BOS
	NoDummyPrefix bool // Encode does not put the piece " " before the text
	// Special are the ids of the control, user-defined and unknown tokens
	// (tokenizer.ggml.token_type), which EncodeSpecial reads where a text
	// spells them.
	Special []int
}

// NewBPE returns the tokenizer of v, which must have the 256 byte pieces.
func NewBPE(v *Vocab) (*BPE, error) {
	t, err := newBPE(v)
	if err != nil {
		return nil, err
	}
	t.bos = lookup(t.ids, "\n<s>\n", "<s>")
	t.eos = lookup(t.ids, "\n</s>\n", "</s>")
	return t, nil
}

// NewBPEWith returns the tokenizer of v, which must have the 256 byte
// pieces, with BOS, EOS and Encode's start as o says.
func NewBPEWith(v *Vocab, o BPEOptions) (*BPE, error) {
	t, err := newBPE(v)
	if err != nil {
		return nil, err
	}
	for _, id := range []int{o.BOS, o.EOS} {
		if id < -1 || id >= len(v.Pieces) {
			return nil, fmt.Errorf("tokenizer: special token id %d is outside the vocabulary of %d", id, len(v.Pieces))
		}
	}
	for _, id := range o.Special {
		if id < 0 || id >= len(v.Pieces) {
			return nil, fmt.Errorf("tokenizer: special token id %d is outside the vocabulary of %d", id, len(v.Pieces))
		}
	}
	t.bos, t.eos, t.noBOS, t.noPrefix = o.BOS, o.EOS, o.NoBOS, o.NoDummyPrefix
	t.specials = slices.Clone(o.Special)
	t.special = make(map[int]bool, len(o.Special))
	for _, id := range o.Special {
		t.special[id] = true
	}
	// Longest first, as llama.cpp cuts them out (by id among equals, as GPT2).
	slices.SortStableFunc(t.specials, func(a, b int) int { return cmp.Compare(len(t.pieces[b]), len(t.pieces[a])) })
	return t, nil
}

func newBPE(v *Vocab) (*BPE, error) {
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
	}, nil
}

// Encode returns BOS (if the vocabulary has one and the options do not say
// otherwise) followed by the tokens of text. Any bytes can be encoded, so the error is always nil.
func (t *BPE) Encode(text string) ([]int, error) {
	return t.merge(t.spell(text, t.addsBOS(), !t.noPrefix)), nil
}

// EncodeSpecial returns the tokens of a text that spells special tokens,
// such as a chat template's prompt, as llama.cpp's llama_tokenize does
// with add_special and parse_special true: BOS if Encode adds it, then
// each special token (BPEOptions.Special) where the text spells it, the
// longest first, and the tokens of the text between them, each stretch
// after BOS or a special token with the dummy prefix unless the options
// say none.
func (t *BPE) EncodeSpecial(text string) []int {
	var ids []int
	if t.addsBOS() {
		ids = append(ids, t.bos)
	}
	afterSpecial := true
	for _, f := range partition(text, t.pieces, t.specials) {
		if f.id >= 0 {
			ids = append(ids, f.id)
			afterSpecial = true
			continue
		}
		ids = append(ids, t.merge(t.spell(f.text, false, afterSpecial && !t.noPrefix))...)
		afterSpecial = false
	}
	return ids
}

// Special reports whether token id is one EncodeSpecial reads where it is
// spelt.
func (t *BPE) Special(id int) bool { return t.special[id] }

// ID returns the id of piece.
func (t *BPE) ID(piece string) (int, bool) {
	id, ok := t.ids[piece]
	return id, ok
}

// SpacePrefix reports whether EncodeSpecial puts a space before the text
// after BOS or a special token (the dummy prefix), which Decode drops
// after BOS only.
func (t *BPE) SpacePrefix() bool { return !t.noPrefix }

// addsBOS reports whether Encode starts with BOS.
func (t *BPE) addsBOS() bool { return t.bos >= 0 && !t.noBOS }

// EncodeText returns the tokens of text without BOS (the dummy prefix
// stays, as in llama.cpp's tokenize with add_special false).
func (t *BPE) EncodeText(text string) []int { return t.merge(t.spell(text, false, !t.noPrefix)) }

// spell returns the tokens the merges start from: BOS if bos, the dummy
// prefix if prefix and text is not empty, and a piece per code point of
// text, or the byte pieces of its bytes.
func (t *BPE) spell(text string, bos, prefix bool) []int {
	tokens := make([]int, 0, 2+len(text))
	if bos {
		tokens = append(tokens, t.bos)
	}
	if text != "" && prefix {
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
	return tokens
}

// MinTokens: the tokens after BOS spell the dummy prefix and text, each
// at most the longest piece's length.
func (t *BPE) MinTokens(text string) int {
	n, prefix := 0, 1
	if t.addsBOS() {
		n++
	}
	if t.noPrefix {
		prefix = 0
	}
	if text != "" {
		n += (prefix + len(text) + t.longest - 1) / t.longest
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

// merge applies the best merge until none is left, as run.c does: it
// merges the adjacent pair of tokens whose piece has the highest score, the
// leftmost on ties, and never one scoring -1e10 or less (run.c's starting
// best score). run.c scans every pair for each merge, quadratic time that
// is seconds on a 100 KB prompt; mergeAll keeps the pairs in a heap.
func (t *BPE) merge(tokens []int) []int {
	left := mergeAll(len(tokens), spmTokens{t, tokens})
	for k, i := range left {
		tokens[k] = tokens[i]
	}
	return tokens[:len(left)]
}

// spmTokens are the tokens of a text being merged by run.c's rule; a
// position merged into its left neighbour holds -1.
type spmTokens struct {
	t      *BPE
	tokens []int
}

func (s spmTokens) pair(i, j int) (queued, bool) {
	a, b := s.tokens[i], s.tokens[j]
	c := s.t.pair(a, b)
	return queued{score: c.score, a: int32(a), b: int32(b), id: int32(c.id)}, c.id >= 0 && c.score > -1e10
}

func (s spmTokens) current(q queued, i, j int) bool {
	return s.tokens[i] == int(q.a) && s.tokens[j] == int(q.b)
}

func (s spmTokens) join(q queued, i, j int) { s.tokens[i], s.tokens[j] = int(q.id), -1 }

// symbols is a sequence of symbols that merge pairwise: a text's tokens
// under run.c's rule, or a word's characters under GPT-2's merges.
type symbols interface {
	// pair returns what the adjacent symbols at positions i and j merge
	// to, with its priority, if they merge.
	pair(i, j int) (queued, bool)
	// current reports whether q, queued for positions i and j, still
	// describes the symbols there (neither has merged since).
	current(q queued, i, j int) bool
	// join merges the symbol at j into the one at i, as q says.
	join(q queued, i, j int)
}

// mergeAll merges the adjacent pair of s that comes first (the highest
// score, the leftmost on ties) until no pair merges, and returns the
// positions of the symbols left, in order. Scanning every pair for each
// merge would take quadratic time; here the symbols are a linked list and
// the pairs that merge wait in a heap, so that n symbols take O(n log n)
// time and O(n) memory (each merge queues at most two pairs).
//
// A merged symbol keeps the position of its left part, so the order of
// positions is the order of the symbols in the list, and the heap, by score
// and then position, pops the pair a scan from the left would pick. It is
// generic rather than taking the interface so that s is not boxed, one
// allocation per Encode fewer.
func mergeAll[S symbols](n int, s S) []int {
	// next and prev link the symbols left: n after the last, -1 before the first.
	links := make([]int, 2*n)
	next, prev := links[:n], links[n:]
	for i := range n {
		next[i], prev[i] = i+1, i-1
	}
	q := make(pairHeap, 0, n)
	// add queues the pair at position i if it merges.
	add := func(i int) {
		if j := next[i]; j < n {
			if p, ok := s.pair(i, j); ok {
				p.left = i
				q.push(p)
			}
		}
	}
	for i := range n - 1 {
		add(i)
	}
	for len(q) > 0 {
		p := q.pop()
		i, j := p.left, next[p.left]
		// Rather than remove a pair from the heap when a side merges, check
		// that its symbols are still the ones at its position: then it is
		// what queuing that pair anew would be.
		if j == n || !s.current(p, i, j) {
			continue
		}
		s.join(p, i, j)
		next[i] = next[j]
		if next[i] < n {
			prev[next[i]] = i
		}
		if prev[i] >= 0 {
			add(prev[i])
		}
		add(i)
	}
	left := prev[:0] // prev is no longer needed
	for i := 0; i < n; i = next[i] {
		left = append(left, i)
	}
	return left
}

// queued is a pair of adjacent symbols a and b, a at position left, that
// merge into id with score (what a, b and id hold is the symbols' own).
// Token ids fit int32, as Read allows at most 1<<21 pieces.
type queued struct {
	left     int
	score    float32
	a, b, id int32
}

// pairHeap is a binary heap of pairs with the next merge on top.
type pairHeap []queued

// before reports whether pair i merges before pair j: it scores higher,
// or as high and is further left.
func (h pairHeap) before(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score > h[j].score
	}
	return h[i].left < h[j].left
}

func (h *pairHeap) push(p queued) {
	*h = append(*h, p)
	s := *h
	for i := len(s) - 1; i > 0; {
		up := (i - 1) / 2
		if !s.before(i, up) {
			break
		}
		s[i], s[up] = s[up], s[i]
		i = up
	}
}

func (h *pairHeap) pop() queued {
	s := *h
	top := s[0]
	s[0] = s[len(s)-1]
	s = s[:len(s)-1]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(s) {
			break
		}
		if c+1 < len(s) && s.before(c+1, c) {
			c++
		}
		if !s.before(c, i) {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}

// Piece returns the text of token id after token prev: "" for BOS and EOS,
// the byte b for the byte piece "<0xHH>", otherwise the piece itself, less
// its leading space after BOS when Encode adds the dummy prefix (llama2.c
// strips it like SentencePiece, since it is the dummy prefix's).
func (t *BPE) Piece(prev, id int) string {
	if id == t.bos || id == t.eos {
		return ""
	}
	piece := t.pieces[id]
	if prev == t.bos && prev >= 0 && !t.noPrefix {
		piece = strings.TrimPrefix(piece, " ")
	}
	if b, ok := byteValue(piece); ok {
		return string([]byte{b})
	}
	return piece
}

// Decode returns the text of ids; BOS and EOS add nothing.
func (t *BPE) Decode(ids []int) string { return DecodePieces(t, ids) }

// Token returns the piece of id as stored.
func (t *BPE) Token(id int) string { return t.pieces[id] }

// VocabSize returns the number of pieces.
func (t *BPE) VocabSize() int { return len(t.pieces) }

// BOS returns the id BPEOptions gave, or else of the piece "\n<s>\n" or
// else "<s>", or -1.
func (t *BPE) BOS() int { return t.bos }

// EOS returns the id BPEOptions gave, or else of the piece "\n</s>\n" or
// else "</s>", or -1.
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
