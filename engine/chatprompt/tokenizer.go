// Package chatprompt reads the prompt a model's chat template renders as
// llama.cpp reads a chat: its special tokens parsed as such, and the
// reply ending at the template's end of turn. It holds no template
// engine: a Template renders (package chat's, natively; in the page, the
// same engine in a WebAssembly program of its own, loaded with a model
// that has a chat template), so that the page's first program stays
// without one.
package chatprompt

import (
	"errors"
	"fmt"
	"strings"

	"nexttoken/engine/conversation"
	"nexttoken/engine/tokenizer"
)

// Template is a compiled chat template (package chat's *Template).
type Template interface {
	// Render returns the prompt for messages, with BOS and EOS spelt bos
	// and eos, ending where the assistant's reply starts if
	// addGenerationPrompt.
	Render(messages []conversation.Message, bos, eos string, addGenerationPrompt bool) (string, error)
	// EndOfTurn returns the first of specials that the template writes
	// after an assistant's reply and that ends generation, or eos if it
	// is that; "" if none. The error is the template's, failing to render
	// a reply.
	EndOfTurn(specials []string, bos, eos string) (string, error)
}

// ErrTokenizer: the model's tokenizer cannot read a chat prompt (it has no
// special tokens to parse, or none ends the template's turn).
var ErrTokenizer = errors.New("the model's tokenizer cannot read the chat template's prompt")

// specialReader is a tokenizer that reads the special tokens a text
// spells (*tokenizer.GPT2 and *tokenizer.BPE).
type specialReader interface {
	tokenizer.Tokenizer
	EncodeSpecial(text string) []int
	Special(id int) bool
	ID(token string) (int, bool)
}

// Tokenizer is a model's tokenizer reading the prompt its chat template
// renders, as llama.cpp reads a chat: Encode reads each special token the
// prompt spells as that token (llama_tokenize with parse_special), Piece
// spells a special token as it is stored (token_to_piece with special)
// and drops the space a SentencePiece vocabulary puts after one, so that
// Decode gives the prompt back, and EOS is the template's end of turn, at
// which the assistant's reply ends.
type Tokenizer struct {
	specialReader
	template  Template
	bos, eos  string // as the vocabulary spells them, "" for none
	endOfTurn int
	prefix    bool // a space is put before the text after a special token
}

// NewTokenizer returns tok reading what t renders. tok must read special
// tokens (a GGUF file's vocabulary, whose token types mark them), and
// one of its special tokens, or EOS, must end the template's assistant
// turn.
func NewTokenizer(t Template, tok tokenizer.Tokenizer) (*Tokenizer, error) {
	r, ok := tok.(specialReader)
	if !ok {
		return nil, fmt.Errorf("%w: a vocabulary of words has no special tokens", ErrTokenizer)
	}
	c := &Tokenizer{specialReader: r, template: t}
	if p, ok := tok.(interface{ SpacePrefix() bool }); ok {
		c.prefix = p.SpacePrefix()
	}
	if id := r.BOS(); id >= 0 {
		c.bos = r.Token(id)
	}
	if id := r.EOS(); id >= 0 {
		c.eos = r.Token(id)
	}
	var specials []string
	for id := range r.VocabSize() {
		if r.Special(id) {
			specials = append(specials, r.Token(id))
		}
	}
	end, err := t.EndOfTurn(specials, c.bos, c.eos)
	if err != nil {
		return nil, fmt.Errorf("the chat template cannot render a conversation: %w", err)
	}
	if end == "" {
		return nil, fmt.Errorf("%w: no special token of the vocabulary follows an assistant's reply in the template", ErrTokenizer)
	}
	c.endOfTurn, _ = r.ID(end)
	return c, nil
}

// Render returns the prompt for messages, ending where the assistant's
// reply starts if addGenerationPrompt.
func (c *Tokenizer) Render(messages []conversation.Message, addGenerationPrompt bool) (string, error) {
	return c.template.Render(messages, c.bos, c.eos, addGenerationPrompt)
}

// Encode returns the tokens of a rendered prompt, special tokens parsed.
func (c *Tokenizer) Encode(prompt string) ([]int, error) { return c.EncodeSpecial(prompt), nil }

// Piece returns the text of token id, a special token's spelling for one.
func (c *Tokenizer) Piece(prev, id int) string {
	if c.Special(id) {
		return c.Token(id)
	}
	piece := c.specialReader.Piece(prev, id)
	if c.prefix && prev >= 0 && prev != c.BOS() && c.Special(prev) { // the tokenizer drops it after BOS
		piece = strings.TrimPrefix(piece, " ")
	}
	return piece
}

// Decode returns the text of ids, special tokens spelt.
func (c *Tokenizer) Decode(ids []int) string { return tokenizer.DecodePieces(c, ids) }

// EOS returns the template's end-of-turn token, at which a reply stops.
func (c *Tokenizer) EOS() int { return c.endOfTurn }

// Spans splits the tokens of a prompt (Encode's) at its special tokens:
// the text between them and each special token, in order, for showing
// the prompt as the model reads it.
func (c *Tokenizer) Spans(ids []int) []Span {
	var spans []Span
	var text []byte
	flush := func() {
		if len(text) > 0 {
			spans = append(spans, Span{Text: string(text)})
			text = text[:0]
		}
	}
	prev := -1
	for _, id := range ids {
		if c.Special(id) {
			flush()
			spans = append(spans, Span{Text: c.Token(id), Special: true})
		} else {
			text = append(text, c.Piece(prev, id)...)
		}
		prev = id
	}
	flush()
	return spans
}

// Span is a piece of a prompt: text, or one special token.
type Span struct {
	Text    string
	Special bool
}
