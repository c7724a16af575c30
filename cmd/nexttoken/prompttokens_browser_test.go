//go:build !js

package main

import (
	"slices"
	"strconv"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tokenizer"
	"nexttoken/web/models"
)

// TestPromptTokensView types a prompt with an emoji on stories260K: the
// tokenizer's view under the prompt field shows the pieces and ids of the
// engine's tokenizer run natively, the emoji's bytes as byte pieces in hex,
// and the count of tokens.
func TestPromptTokensView(t *testing.T) {
	const prompt = "Lily saw a 🐱"
	native, err := session.New(session.Spec{Model: "stories260K", Prompt: prompt, Sampler: sampler.DefaultSettings()}, models.Load)
	if err != nil {
		t.Fatal(err)
	}
	var ids, pieces []string
	for _, tok := range native.Trace().Prompt {
		ids = append(ids, strconv.Itoa(tok.ID))
		piece := tok.Piece
		if piece == "" {
			piece = tok.Text
		}
		pieces = append(pieces, tokenizer.Readable(piece))
	}

	tab := openPage(t, "/?model=stories260K&prompt=Once")
	setInput(tab, "#prompt", prompt)
	waitFor(tab, `document.querySelectorAll('#prompt-tokens .piece').length === `+strconv.Itoa(len(ids)))
	drawn(tab)
	shownIDs := evaluate[[]string](tab, `[...document.querySelectorAll('#prompt-tokens .piece-id')].map(e => e.textContent)`)
	shownPieces := evaluate[[]string](tab, `[...document.querySelectorAll('#prompt-tokens .piece-text')].map(e => e.textContent)`)
	if !slices.Equal(shownIDs, ids) || !slices.Equal(shownPieces, pieces) {
		t.Errorf("the page shows ids %v, pieces %q; the engine natively split %q into %v, %q", shownIDs, shownPieces, prompt, ids, pieces)
	}
	bytes := evaluate[[]string](tab, `[...document.querySelectorAll('#prompt-tokens .piece.bytes .piece-bytes')].map(e => e.textContent)`)
	if want := []string{"F0", "9F", "90", "B1"}; !slices.Equal(bytes, want) { // 🐱, U+1F431, in UTF-8
		t.Errorf("byte pieces %v, want %v", bytes, want)
	}
	if got, want := text(tab, "#prompt-count"), strconv.Itoa(len(ids))+" tokens"; got != want {
		t.Errorf("the count says %q, want %q", got, want)
	}
}
