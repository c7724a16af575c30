//go:build !js

package ui

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// shownPiece is one piece of the tokenizer's view as its HTML shows it.
type shownPiece struct {
	text  string
	id    int
	bytes string // "" for a piece that is text
}

var pieceHTML = regexp.MustCompile(`<li class="piece[^"]*" data-token="\d+">\s*<span class="piece-text">([^<]*)</span>\s*<span class="piece-id">(\d+)</span>(?:\s*<span class="piece-bytes">([^<]*)</span>)?`)

// shownPieces reads the pieces out of the view's HTML.
func shownPieces(html string) []shownPiece {
	var pieces []shownPiece
	for _, m := range pieceHTML.FindAllStringSubmatch(canonical(html), -1) {
		id, _ := strconv.Atoi(m[2])
		pieces = append(pieces, shownPiece{htmlText(m[1]), id, m[3]})
	}
	return pieces
}

// TestPromptTokens draws the tokenizer's view of sessions' prompts: the
// pieces are the engine's split, in order, each with its id, and the
// bytes of a character the vocabulary lacks are byte pieces shown in hex,
// whose ids are those of the vocabulary's <0xHH> entries. Hand-typed
// logits have no tokenizer and no view.
func TestPromptTokens(t *testing.T) {
	emoji := []string{"F0", "9F", "98", "80"} // 😀, U+1F600, in UTF-8
	tests := []struct {
		name   string
		spec   session.Spec
		count  string
		bytes  []string // the byte pieces' hex, in order
		noView bool
	}{
		{name: "a plain word", spec: session.Spec{Model: "stories260K", Prompt: "Once"}, count: "2 tokens"}, // BOS and the word,
		{name: "an emoji, in byte pieces", spec: session.Spec{Model: "stories260K", Prompt: "a 😀"}, bytes: emoji},
		{name: "an empty prompt", spec: session.Spec{Model: "stories260K", Prompt: ""}, count: "1 token"},
		{name: "hand-typed logits", spec: workedSpec, noView: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Sampler = sampler.DefaultSettings()
			s := page(t, tc.spec, -1).s()
			html, text := render(promptTokens(s))
			if whole, _ := drawPage(playgroundOf(t, tc.spec)); strings.Contains(whole, `id="prompt-tokens"`) == tc.noView {
				t.Errorf("the page shows the view: %v, want %v", !tc.noView, !tc.noView)
			}
			if tc.noView {
				if html != "" {
					t.Errorf("a view for hand-typed logits: %s", html)
				}
				return
			}
			prompt := s.Session.Trace.Prompt
			m, err := models.Load(tc.spec.Model)
			if err != nil {
				t.Fatal(err)
			}
			vocab := m.Tokenizer
			count := strconv.Itoa(len(prompt)) + " tokens"
			if len(prompt) == 1 {
				count = "1 token"
			}
			if tc.count != "" && tc.count != count {
				t.Fatalf("the engine split %q into %d tokens, want %s", tc.spec.Prompt, len(prompt), tc.count)
			}
			contains(t, "view", text, "The tokenizer's split: "+count)
			shown := shownPieces(html)
			if len(shown) != len(prompt) {
				t.Fatalf("%d pieces shown, the engine split %d: %s", len(shown), len(prompt), html)
			}
			var joined strings.Builder
			var bytes []string
			for i, tok := range prompt {
				if shown[i].id != tok.ID {
					t.Errorf("piece %d: id %d shown, the engine's is %d", i, shown[i].id, tok.ID)
				}
				joined.WriteString(tok.Piece)
				if shown[i].bytes == "" {
					continue
				}
				bytes = append(bytes, shown[i].bytes)
				if entry := "<0x" + shown[i].bytes + ">"; shown[i].text != entry || vocab.Token(tok.ID) != entry {
					t.Errorf("piece %d: byte %s reads %q, its id %d is the entry %q", i, shown[i].bytes, shown[i].text, tok.ID, vocab.Token(tok.ID))
				}
			}
			if !slices.Equal(bytes, tc.bytes) {
				t.Errorf("byte pieces %v, want %v", bytes, tc.bytes)
			}
			if strings.TrimSpace(joined.String()) != tc.spec.Prompt {
				t.Errorf("the pieces read %q, not the prompt %q", joined.String(), tc.spec.Prompt)
			}
		})
	}
}

// playgroundOf is the whole page on spec.
func playgroundOf(t *testing.T, spec session.Spec) *Playground {
	t.Helper()
	p := playgroundAt("", "")
	p.ctl.Open(spec)
	if s := p.ctl.Snapshot(); s.Notice != "" {
		t.Fatalf("%+v does not open: %s", spec, s.Notice)
	}
	return p
}
