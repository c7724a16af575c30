package tokenizer

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// TokenType is a token's type in a GGUF vocabulary (llama.cpp's
// llama_token_type, tokenizer.ggml.token_type).
type TokenType int32

const (
	TokenUndefined   TokenType = 0
	TokenNormal      TokenType = 1
	TokenUnknown     TokenType = 2
	TokenControl     TokenType = 3 // BOS, EOS, chat markers: never spelt by text
	TokenUserDefined TokenType = 4 // added tokens: matched in the text whole, before BPE
	TokenUnused      TokenType = 5
	TokenByte        TokenType = 6 // "<0xHH>"
)

// GPT2Vocab is a byte-level BPE vocabulary with its merges, as a GGUF file
// whose tokenizer.ggml.model is "gpt2" states it.
type GPT2Vocab struct {
	Tokens []string    // in GPT-2's byte-level alphabet ("Ġthe" is " the")
	Types  []TokenType // per token; nil for all normal
	// Merges are the pairs of tokens learnt by merging, in the order they
	// were learnt: the merge of rank i is Merges[i].
	Merges        [][2]string
	Pre           Pre // how text is split into words
	BOS, EOS, UNK int // ids, -1 for none
	AddBOS        bool
}

// GPT2 is the byte-level BPE tokenizer of GPT-2 and of the models that
// followed it (Llama 3, Qwen, SmolLM, DeepSeek, Falcon, StarCoder, …), as
// llama.cpp runs it (src/llama-vocab.cpp, llm_tokenizer_bpe_session and
// llama_vocab::impl::tokenize with parse_special false):
//
//  1. Added tokens (type user-defined) are cut out of the text first,
//     wherever they occur, the longest first (tokenizer_st_partition).
//  2. The pre-tokenizer splits the rest into words.
//  3. Each word is spelt in the byte-level alphabet, one symbol per
//     character (" the" is "Ġ", "t", "h", "e").
//  4. While some adjacent pair of symbols is a merge, the pair of the
//     lowest rank (the leftmost on ties) becomes one symbol.
//  5. Each symbol is its token; a symbol that is not a token (a vocabulary
//     without some merge's result) is spelt byte by byte, each byte that is
//     a token on its own, the others dropped.
//
// Unlike SentencePiece, there is no dummy prefix and no byte fallback: the
// alphabet itself spells every byte. No Unicode normalisation is applied
// either: llama.cpp normalises (NFD) only for WordPiece vocabularies.
type GPT2 struct {
	tokens []string // as stored
	pieces []string // the text each token adds (Piece)
	types  []TokenType
	ids    map[string]int
	ranks  map[[2]string]int32
	added  []int // user-defined tokens, longest first
	// specials are the control, user-defined and unknown tokens, longest
	// first: what llama.cpp cuts out of a text with parse_special.
	specials []int
	pre      Pre

	bos, eos, unk int
	addBOS        bool
	longest       int  // bytes of the longest token's text
	covered       bool // every symbol a word can merge to is a token
}

// NewGPT2 checks v and returns its tokenizer.
func NewGPT2(v GPT2Vocab) (*GPT2, error) {
	n := len(v.Tokens)
	switch {
	case n == 0:
		return nil, fmt.Errorf("tokenizer: no tokens")
	case n > maxPieces:
		return nil, fmt.Errorf("tokenizer: %d tokens, more than %d", n, maxPieces)
	case v.Types != nil && len(v.Types) != n:
		return nil, fmt.Errorf("tokenizer: %d tokens but %d token types", n, len(v.Types))
	case len(v.Merges) > maxPieces:
		return nil, fmt.Errorf("tokenizer: %d merges, more than %d", len(v.Merges), maxPieces)
	case len(v.Pre.splitters) == 0:
		return nil, fmt.Errorf("tokenizer: no pre-tokenizer")
	}
	for _, id := range []int{v.BOS, v.EOS, v.UNK} {
		if id < -1 || id >= n {
			return nil, fmt.Errorf("tokenizer: special token id %d is outside the vocabulary of %d", id, n)
		}
	}
	if v.AddBOS && v.BOS < 0 {
		return nil, fmt.Errorf("tokenizer: add_bos_token is set but there is no BOS token")
	}
	t := &GPT2{
		tokens: slices.Clone(v.Tokens),
		pieces: make([]string, n),
		types:  make([]TokenType, n),
		ids:    make(map[string]int, n),
		ranks:  make(map[[2]string]int32, len(v.Merges)),
		pre:    v.Pre,
		bos:    v.BOS, eos: v.EOS, unk: v.UNK,
		addBOS: v.AddBOS,
	}
	for id, tok := range t.tokens {
		if tok == "" {
			return nil, fmt.Errorf("tokenizer: token %d is empty", id)
		}
		if first, dup := t.ids[tok]; dup {
			return nil, fmt.Errorf("tokenizer: tokens %d and %d are both %q", first, id, tok)
		}
		t.ids[tok] = id
		t.types[id] = TokenNormal
		if v.Types != nil {
			t.types[id] = v.Types[id]
		}
		t.pieces[id] = t.piece(id)
		t.longest = max(t.longest, len(t.pieces[id]), len(tok))
		switch t.types[id] {
		case TokenUserDefined:
			t.added = append(t.added, id)
			t.specials = append(t.specials, id)
		case TokenControl, TokenUnknown:
			t.specials = append(t.specials, id)
		}
	}
	// llama.cpp sorts by length with std::sort, which leaves the order of
	// tokens of equal length to the implementation; here it is by id.
	longestFirst := func(a, b int) int { return cmp.Compare(len(t.tokens[b]), len(t.tokens[a])) }
	slices.SortStableFunc(t.added, longestFirst)
	slices.SortStableFunc(t.specials, longestFirst)
	t.covered = true
	toRune, _ := byteAlphabet()
	for _, r := range toRune {
		_, ok := t.ids[string(r)]
		t.covered = t.covered && ok
	}
	for rank, m := range v.Merges {
		if _, dup := t.ranks[m]; !dup { // the first rank counts, as in llama.cpp
			t.ranks[m] = int32(rank)
		}
		_, ok := t.ids[m[0]+m[1]]
		t.covered = t.covered && ok
	}
	return t, nil
}

// piece is the text token id adds: nothing for control, unknown and unused
// tokens, an added token as written, a byte token's byte, and otherwise the
// bytes the token spells in the byte-level alphabet (llama.cpp's
// token_to_piece with special false).
func (t *GPT2) piece(id int) string {
	tok := t.tokens[id]
	switch t.types[id] {
	case TokenNormal:
		return byteDecode(tok)
	case TokenUserDefined:
		return tok
	case TokenByte:
		if b, ok := byteValue(tok); ok {
			return string([]byte{b})
		}
	}
	return ""
}

// Encode returns BOS if the vocabulary adds it, then the tokens of text.
// Any bytes can be encoded (a byte that is not UTF-8 as U+FFFD, as in
// llama.cpp), so the error is always nil.
func (t *GPT2) Encode(text string) ([]int, error) {
	var ids []int
	if t.addBOS {
		ids = append(ids, t.bos)
	}
	return t.appendText(ids, text, t.added), nil
}

// EncodeText returns the tokens of text without BOS: llama.cpp's
// llama_tokenize with add_special and parse_special false.
func (t *GPT2) EncodeText(text string) []int { return t.appendText(nil, text, t.added) }

// EncodeSpecial returns the tokens of a text that spells special tokens,
// such as a chat template's prompt: BOS if the vocabulary adds it, then
// the tokens of text with every special token (control, user-defined or
// unknown) read as that token wherever it is spelt, the longest first.
// It is llama.cpp's llama_tokenize with add_special and parse_special
// true, as llama.cpp tokenizes a chat prompt.
func (t *GPT2) EncodeSpecial(text string) []int {
	var ids []int
	if t.addBOS {
		ids = append(ids, t.bos)
	}
	return t.appendText(ids, text, t.specials)
}

// appendText appends the tokens of text to ids: the tokens of specials
// where they are spelt, and the words of the rest.
func (t *GPT2) appendText(ids []int, text string, specials []int) []int {
	for _, f := range partition(text, t.tokens, specials) {
		if f.id >= 0 {
			ids = append(ids, f.id)
			continue
		}
		var buf []byte
		for _, word := range t.pre.split(f.text) {
			buf = byteEncode(buf[:0], word)
			ids = t.appendWord(ids, string(buf))
		}
	}
	return ids
}

// appendWord appends the tokens of one word, spelt in the byte-level
// alphabet.
func (t *GPT2) appendWord(ids []int, word string) []int {
	if t.pre.ignoreMerges {
		if id, ok := t.ids[word]; ok {
			return append(ids, id)
		}
	}
	w := newGPT2Word(t, word)
	for _, i := range mergeAll(len(w.start), w) {
		sym := word[w.start[i]:w.end[i]]
		if id, ok := t.ids[sym]; ok {
			ids = append(ids, id)
			continue
		}
		for k := range len(sym) { // llama.cpp looks each byte up alone
			if id, ok := t.ids[sym[k:k+1]]; ok {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// gpt2Word is a word being merged: symbol i is word[start[i]:end[i]]. A
// symbol merged into its left neighbour has end -1; the start of a symbol
// never changes, so its end says whether it is the one a pair was queued
// for.
type gpt2Word struct {
	t          *GPT2
	word       string
	start, end []int
}

func newGPT2Word(t *GPT2, word string) *gpt2Word {
	w := &gpt2Word{t: t, word: word}
	for i := 0; i < len(word); {
		// One symbol per UTF-8 character, by its lead byte as
		// unicode_len_utf8 reads it.
		n := min(len(word)-i, utf8LenOfLead(word[i]))
		w.start = append(w.start, i)
		w.end = append(w.end, i+n)
		i += n
	}
	return w
}

// utf8LenOfLead is llama.cpp's unicode_len_utf8: the length a sequence
// starting with byte c has, 1 for a continuation byte.
func utf8LenOfLead(c byte) int {
	switch {
	case c >= 0xF0:
		return 4
	case c >= 0xE0:
		return 3
	case c >= 0xC0:
		return 2
	}
	return 1
}

func (w *gpt2Word) pair(i, j int) (queued, bool) {
	rank, ok := w.t.ranks[[2]string{w.word[w.start[i]:w.end[i]], w.word[w.start[j]:w.end[j]]}]
	// The lowest rank merges first: the heap pops the highest score.
	// Ranks are below 1<<21, exact in a float32.
	return queued{score: -float32(rank), a: int32(w.end[i]), b: int32(w.end[j])}, ok
}

func (w *gpt2Word) current(q queued, i, j int) bool {
	return w.end[i] == int(q.a) && w.end[j] == int(q.b)
}

func (w *gpt2Word) join(q queued, i, j int) { w.end[i], w.end[j] = w.end[j], -1 }

// fragment is a piece of a text: an added token's id, or text (id -1).
type fragment struct {
	id   int
	text string
}

// partition cuts the added tokens out of text as llama.cpp's
// tokenizer_st_partition does: for each added token in turn, the longest
// first, every occurrence in every text fragment left becomes that token.
// (llama.cpp's lstrip and rstrip attributes, which it sets for a few named
// models, are not applied.) It takes time proportional to the text's
// length times the number of added tokens, as llama.cpp's does.
func partition(text string, tokens []string, added []int) []fragment {
	if text == "" {
		return nil
	}
	frags := []fragment{{id: -1, text: text}}
	for _, id := range added {
		tok := tokens[id]
		var out []fragment
		for _, f := range frags {
			if f.id >= 0 || !strings.Contains(f.text, tok) {
				out = append(out, f)
				continue
			}
			rest := f.text
			for {
				i := strings.Index(rest, tok)
				if i < 0 {
					break
				}
				if i > 0 {
					out = append(out, fragment{id: -1, text: rest[:i]})
				}
				out = append(out, fragment{id: id})
				rest = rest[i+len(tok):]
			}
			if rest != "" {
				out = append(out, fragment{id: -1, text: rest})
			}
		}
		frags = out
	}
	return frags
}

// MinTokens: when every symbol a word can merge to is a token, each token
// after BOS covers at most the longest token's bytes, of text made from up
// to 4 times as many bytes (an overlong UTF-8 form such as F0 80 80 80 is
// read as the one byte 00). Otherwise symbols that are not tokens can drop
// any part of the text, and the bound is BOS alone.
func (t *GPT2) MinTokens(text string) int {
	n := 0
	if t.addBOS {
		n++
	}
	if t.covered {
		n += (len(text) + 4*t.longest - 1) / (4 * t.longest)
	}
	return n
}

// Piece returns the text token id adds (prev plays no part): nothing for
// control tokens such as BOS and EOS, the bytes the token spells otherwise.
func (t *GPT2) Piece(prev, id int) string { return t.pieces[id] }

// Decode returns the text of ids.
func (t *GPT2) Decode(ids []int) string { return DecodePieces(t, ids) }

// Token returns the token for display: the text it spells when that is
// UTF-8 (" the" for "Ġthe"), else the bytes it spells with those that are
// not UTF-8 written <0xHH>; a control token as stored ("<|endoftext|>").
func (t *GPT2) Token(id int) string {
	p := t.pieces[id]
	if p == "" || t.types[id] == TokenByte {
		return t.tokens[id]
	}
	if utf8.ValidString(p) {
		return p
	}
	return showBytes(p)
}

// VocabSize returns the number of tokens.
func (t *GPT2) VocabSize() int { return len(t.tokens) }

// BOS returns the id of the begin-of-sequence token, or -1.
func (t *GPT2) BOS() int { return t.bos }

// EOS returns the id of the end-of-sequence token, or -1.
func (t *GPT2) EOS() int { return t.eos }

// UNK returns the id of the unknown token, or -1.
func (t *GPT2) UNK() int { return t.unk }

// Type returns the type of token id.
func (t *GPT2) Type(id int) TokenType { return t.types[id] }

// Special reports whether token id is one EncodeSpecial reads where it
// is spelt: a control, user-defined or unknown token.
func (t *GPT2) Special(id int) bool {
	switch t.types[id] {
	case TokenControl, TokenUserDefined, TokenUnknown:
		return true
	}
	return false
}

// ID returns the id of the token stored as token.
func (t *GPT2) ID(token string) (int, bool) {
	id, ok := t.ids[token]
	return id, ok
}
