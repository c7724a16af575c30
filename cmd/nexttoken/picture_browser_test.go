//go:build !js

package main

import (
	"context"
	"testing"
)

// pictureAndCards is a page script: what the picture shows of the step on
// display, and what the cards show of it: the chosen token, its p and the
// cache's rows.
const pictureAndCards = `(() => {
	const t = id => document.getElementById(id)?.textContent ?? '';
	const v = field => document.querySelector('#pic-values .' + field)?.textContent ?? '';
	return {
		picture: [v('pic-token'), v('pic-p'), v('pic-kv-rows')],
		cards: ['“' + t('choice') + '”', 'p = ' + (t('sampler-step').match(/\(p = ([^)]*)\)/)?.[1] ?? ''), t('kv-rows') + ' rows'],
	};
})()`

// pictureMatchesCards steps n times, and checks after each step that the
// picture shows what the cards show.
func pictureMatchesCards(t *testing.T, tab context.Context, n int) {
	t.Helper()
	for range n {
		rows := text(tab, "#kv-rows")
		click(tab, "#step")
		waitFor(tab, `(document.getElementById('kv-rows')?.textContent ?? '') !== `+jsString(rows)+` && document.getElementById('choice') !== null`)
		got := evaluate[struct{ Picture, Cards [3]string }](tab, pictureAndCards)
		if got.Picture != got.Cards || got.Picture[0] == "" {
			t.Errorf("after %s rows: the picture shows %q, the cards %q", rows, got.Picture, got.Cards)
		}
	}
}

// TestPictureFollowsSteps steps the toy model and stories260K: the
// picture's chosen token, p and cache rows are the cards', step after
// step; a part clicked, or chosen with Enter, brings its card to the top
// of the window, and opens a card that folds.
func TestPictureFollowsSteps(t *testing.T) {
	tab := openPage(t, "/")
	pictureMatchesCards(t, tab, 3)
	if got := evaluate[int](tab, `document.querySelectorAll('#pic-values .pic-hidden').length`); got != 4 {
		t.Errorf("the toy's picture shows %d numbers of h, want 4", got)
	}

	tab = openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=3&temperature=1&seed=3")
	pictureMatchesCards(t, tab, 2)
	for _, c := range []struct{ part, card string }{{"softmax", "softmax"}, {"kv", "kv"}, {"embedding", "lens"}} {
		click(tab, `#picture [data-part="`+c.part+`"] rect`)
		waitFor(tab, cardAtTop(c.card))
	}
	if !evaluate[bool](tab, `document.getElementById('lens').open`) {
		t.Errorf("the embedding's card, the logit lens, did not open")
	}
	// The keyboard: Tab reaches a part, Enter shows its card.
	evaluate[bool](tab, `(document.querySelector('#picture [data-part="sampler"]').focus(), true)`)
	evaluate[bool](tab, `(document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true})), true)`)
	waitFor(tab, cardAtTop("sampler"))
}

// cardAtTop is a page script: whether the card of the given id is at the
// top of the window.
func cardAtTop(id string) string {
	return `Math.abs(document.getElementById(` + jsString(id) + `)?.getBoundingClientRect().top ?? 1e9) < 2`
}
