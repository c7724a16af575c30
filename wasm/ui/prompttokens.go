package ui

import (
	"html"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
)

// PromptTokens is the tokenizer's view of the prompt, under the prompt
// field: each piece as it reads, its id under it and, for a piece of
// bytes that are not whole characters (a byte-fallback piece such as
// <0xE2>, or a GPT-2 byte-level one), those bytes in hex; and how many
// tokens there are. The pieces are the engine's split of the session's
// prompt (session.Trace.Prompt), never split again here; while the
// reader types, the session, and so this view, follows when the typing
// pauses.
type PromptTokens struct {
	app.Compo

	Tokens []session.Token
}

func (v *PromptTokens) Render() app.UI {
	// One piece of HTML mounts the pieces at once, where elements of their
	// own cost a prompt of 300 tokens a long task.
	var pieces strings.Builder
	pieces.WriteString(`<ol class="pieces">`)
	for _, tok := range v.Tokens {
		class := "piece"
		text := visible(tok.Piece)
		if tok.Piece == "" {
			text = visible(tok.Text) // BOS and other pieces that add no text read as their entry
		}
		body := `<span class="piece-text">` + html.EscapeString(text) + `</span><span class="piece-id">` + strconv.Itoa(tok.ID) + `</span>`
		if hex := pieceBytes(tok.Piece); hex != "" {
			class += " bytes"
			body += `<span class="piece-bytes">` + hex + `</span>`
		}
		pieces.WriteString(`<li class="` + class + `" data-token="` + strconv.Itoa(tok.ID) + `">` + body + `</li>`)
	}
	pieces.WriteString(`</ol>`)
	count := strconv.Itoa(len(v.Tokens)) + " tokens"
	if len(v.Tokens) == 1 {
		count = "1 token"
	}
	return app.Section().ID("prompt-tokens").Class("prompt-tokens").Attr("aria-label", "the prompt as the tokenizer split it").Body(
		app.P().Class("label").Body(
			app.Text("The tokenizer's split: "), app.Span().ID("prompt-count").Text(count),
			app.Text(" · each piece, its id under it, bytes in hex"),
		),
		app.Raw(pieces.String()),
	)
}

const hexDigits = "0123456789ABCDEF"

// pieceBytes is a piece's bytes in hex ("E2 80") when some of them are
// not part of a whole UTF-8 character, and "" when the piece is text.
func pieceBytes(piece string) string {
	if utf8.ValidString(piece) {
		return ""
	}
	var b strings.Builder
	for i := range len(piece) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(hexDigits[piece[i]>>4])
		b.WriteByte(hexDigits[piece[i]&15])
	}
	return b.String()
}
