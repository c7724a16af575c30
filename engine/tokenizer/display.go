package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Readable returns a token's text as the playground and the terminal show
// it: a space as ␣, a new line as ↵, a tab as ⇥, any other control
// character, and each byte that is not part of a UTF-8 character, as
// <0xHH> (the spelling of SentencePiece's byte tokens), and nothing as ∅.
// A byte-level token that ends inside a character, such as GPT-2's "âĢ"
// (the bytes E2 80), reads <0xE2><0x80> rather than two �.
func Readable(text string) string {
	if text == "" {
		return "∅"
	}
	return spell(text, true)
}

// showBytes writes the bytes of text that are not part of a UTF-8
// character as <0xHH> and leaves the rest.
func showBytes(text string) string { return spell(text, false) }

// spell writes bytes that are not UTF-8 as <0xHH>, and, if visible, white
// space and control characters as Readable does.
func spell(text string, visible bool) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "<0x%02X>", text[i])
		case !visible:
			b.WriteString(text[i : i+n])
		case r == ' ':
			b.WriteRune('␣')
		case r == '\n':
			b.WriteRune('↵')
		case r == '\t':
			b.WriteRune('⇥')
		case r < 0x20 || r == 0x7F:
			fmt.Fprintf(&b, "<0x%02X>", r)
		default:
			b.WriteString(text[i : i+n])
		}
		i += n
	}
	return b.String()
}
