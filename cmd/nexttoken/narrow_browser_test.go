//go:build !js

package main

import (
	"context"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// cutCells is a page script: given a document, it lists the cells that
// matter in every table and list it shows — each row's token (its header
// cell, or a bar's label) and its probability (a p cell, a bar's value, a
// lens cell's p, the LM head's W·h) — whose right edge is past the edge of
// their card, of a box between them and the card that clips what
// overflows, or of the viewport. A row folded away (not rendered) does not
// count; a cell in a visible row that is not rendered does, but for a lens
// cell, a token and its p that fold away together (a lens row must keep
// one).
const cutCells = `(doc) => {
	const win = doc.defaultView, vw = doc.documentElement.clientWidth, cut = [];
	const label = (el) => el?.querySelector('input')?.value ?? el?.textContent ?? '';
	const name = (el) => (el.closest('[id]')?.id ?? '?') + ' ' + JSON.stringify(label(el.closest('tr, .bar')?.querySelector('th, .bar-label')));
	const rows = [...doc.querySelectorAll('table tr, .bar')].filter(r => r.getClientRects().length > 0);
	for (const row of rows) {
		const cells = [row.querySelector(':scope > th, :scope > .bar-label'), ...row.querySelectorAll('.p, .result, .bar-value')].filter(c => c);
		for (const cell of cells) {
			const what = name(cell) + ' ' + (cell.classList.contains('p') || cell.classList.contains('bar-value') || cell.classList.contains('result') ? 'p' : 'token');
			if (cell.getClientRects().length === 0) {
				// A lens cell is a token and its p: the pair may fold away together.
				const pair = cell.closest('td.lens');
				if (!pair || pair.getClientRects().length > 0) cut.push(what + ' is folded away');
				continue;
			}
			const right = cell.getBoundingClientRect().right;
			if (right > vw + 0.5) cut.push(what + ' ends at ' + Math.round(right) + ' px, past the ' + vw + ' px viewport');
			for (let box = cell.parentElement; box && box !== doc.body; box = box.parentElement) {
				const clips = win.getComputedStyle(box).overflowX !== 'visible' || box.classList.contains('card');
				const edge = box.getBoundingClientRect().right;
				if (clips && right > edge + 0.5) {
					cut.push(what + ' ends at ' + Math.round(right) + ' px, past its ' + (box.id || box.className) + ' at ' + Math.round(edge) + ' px');
					break;
				}
				if (box.classList.contains('card')) break;
			}
		}
	}
	for (const row of rows.filter(r => r.querySelector('td.lens'))) {
		if (![...row.querySelectorAll('td.lens .p')].some(p => p.getClientRects().length > 0)) cut.push(name(row) + ' shows no token of the lens');
	}
	if (doc.documentElement.scrollWidth > vw) cut.push('the page is ' + doc.documentElement.scrollWidth + ' px wide in a ' + vw + ' px viewport');
	return cut;
}`

// openCards is a page script: it opens every closed card of a document
// (the compare and lens cards), as a reader would, so their tables show.
const openCards = `(doc) => (doc.querySelectorAll('details.card:not([open], #share) > summary').forEach(s => s.click()), true)`

// showDraws is a page script: it asks the compare card of a document, if
// it has one, for its draws, which add their columns to its table.
const showDraws = `(doc) => ((` + drawsShown + `)(doc) || doc.querySelector('#compare-draws').click(), true)`

// drawsShown is a page script: the compare card, if any, shows its draws.
const drawsShown = `(doc) => !doc.querySelector('#compare-draws') || [...doc.querySelectorAll('.compare-table th')].some(th => th.textContent === 'drawn in A')`

// openCounts is a page script: it unfolds the compare card's counts, if
// it shows them, beneath the draws' histograms.
const openCounts = `(doc) => (doc.querySelectorAll('details.counts:not([open]) > summary').forEach(s => s.click()), true)`

// cardsFilled is a page script: every open card of a document shows its
// table.
const cardsFilled = `(doc) => [...doc.querySelectorAll('details.card[open]:not(#share)')].every(d => d.querySelector('table'))`

// TestNarrowTablesKeepP opens the playground and each embed view, on the
// toy model, stories260K and hand-typed logits, at 720, 375 and 320 px
// (the full page in a viewport that wide, an embed in a frame that wide in
// a host page, resized from one width to the next): in every table each
// shown row's token and p are on screen, inside the card, without
// scrolling anything sideways. So are the share panel preview's.
func TestNarrowTablesKeepP(t *testing.T) {
	sessions := []struct{ name, query string }{
		{"toy", "model=toy&prompt=The%20cat&steps=3&temperature=0.8&seed=1"},
		{"stories260K", "model=stories260K&prompt=Once%20upon%20a%20time&steps=3&temperature=0.8&seed=1"},
		{"typed", "model=logits&logits=-2.1,0.3,3.1,0.8,0.1,-0.5&vocab=The,cat,sat,on,the,mat&temperature=0.8&seed=1"},
	}
	views := []string{"page", "all", "softmax", "sampler", "compare", "kv", "tokens", "tree", "timeline"}
	for _, s := range sessions {
		for _, view := range views {
			t.Run(s.name+"/"+view, func(t *testing.T) {
				var tab context.Context
				doc, resize := "document", func(width int64) {
					must(tab, "resizing the page", chromedp.EmulateViewport(width, 900))
				}
				if view == "page" {
					tab = openPageAs(t, "/?"+s.query, screen{width: 720, height: 900})
				} else {
					tab = openEmbedFrame(t, "/?embed=1&view="+view+"&"+s.query)
					doc, resize = "document.querySelector('iframe').contentDocument", func(width int64) {
						evaluate[bool](tab, `(document.querySelector('iframe').style.width = '`+strconv.FormatInt(width, 10)+`px', true)`)
					}
				}
				for _, width := range []int64{760, 720, 600, 560, 480, 375, 320} {
					resize(width)
					reportCut(t, strconv.FormatInt(width, 10)+" px: ", cutInDocument(tab, doc, width))
				}
			})
		}
	}
	t.Run("share preview", func(t *testing.T) {
		tab := openPageAs(t, "/?"+sessions[1].query, screen{width: 1280, height: 900})
		openSharePanel(tab)
		preview := "document.querySelector('#embed-preview')?.contentDocument"
		for _, view := range []string{"softmax", "all"} {
			setInput(tab, "#embed-view", view)
			waitWithin(tab, preview+`?.querySelector('#playground[data-ready="true"][data-painted][data-view=`+jsString(view)+`]') != null`, loadTimeout)
			width := int64(evaluate[int](tab, preview+".documentElement.clientWidth"))
			t.Logf("the preview of %s is %d px wide", view, width)
			reportCut(t, view+" at "+strconv.FormatInt(width, 10)+" px: ", cutInDocument(tab, preview, width))
		}
	})
}

// reportCut fails t with the cut cells, the first few of them.
func reportCut(t *testing.T, prefix string, cut []string) {
	t.Helper()
	const shown = 8
	for i, c := range cut {
		if i == shown {
			t.Errorf("%sand %d more", prefix, len(cut)-shown)
			break
		}
		t.Error(prefix + c)
	}
}

// cutInDocument opens the closed cards of the document doc (a page
// expression) and the compare card's draws with their counts, and lists
// its cut cells (cutCells).
func cutInDocument(tab context.Context, doc string, width int64) []string {
	evaluate[bool](tab, "("+openCards+")("+doc+")")
	waitFor(tab, "("+cardsFilled+")("+doc+")")
	evaluate[bool](tab, "("+showDraws+")("+doc+")")
	waitFor(tab, "("+drawsShown+")("+doc+")")
	evaluate[bool](tab, "("+openCounts+")("+doc+")")
	if got := evaluate[int](tab, doc+".documentElement.clientWidth"); int64(got) != width {
		testOf(tab).Fatalf("the document is %d px wide, want %d", got, width)
	}
	return evaluate[[]string](tab, "("+cutCells+")("+doc+")")
}

// openEmbedFrame opens a host page (the documentation page, its own frames
// removed) with one frame, 720 px wide, showing path, and waits until the
// embed is live.
func openEmbedFrame(t *testing.T, path string) context.Context {
	t.Helper()
	h := needBrowser(t)
	tab := openTab(t, h.browser)
	must(tab, "sizing the host page", chromedp.EmulateViewport(1280, 900))
	must(tab, "opening the host page", chromedp.Navigate(h.url+"/docs/"))
	evaluate[bool](tab, `(() => {
		document.querySelectorAll('iframe').forEach(f => f.remove());
		const f = document.createElement('iframe');
		f.src = `+jsString(path)+`;
		f.style.cssText = 'display: block; width: 720px; max-width: none; height: 3000px; border: 0';
		document.body.prepend(f);
		return true;
	})()`)
	waitWithin(tab, `document.querySelector('iframe').contentDocument?.querySelector('#playground[data-ready="true"][data-painted]') != null`, loadTimeout)
	return tab
}

// TestNarrowSwitches opens the softmax embed of stories260K at 375 px: its
// cards fold their secondary columns and all but the top rows, and the
// switches, reached from the keyboard, bring them back. A token chosen
// from below the top rows shows with them. On the full page at 1,200 px
// nothing folds and no switch shows.
func TestNarrowSwitches(t *testing.T) {
	const query = "/?embed=1&view=softmax&model=stories260K&prompt=Once%20upon%20a%20time&steps=3&temperature=0.8&seed=1"
	// Shown is not folded away (display: none here or above), whether or
	// not the browser has laid out its card, which content-visibility
	// skips while it is off screen.
	shown := func(tab context.Context, selector string) int {
		return evaluate[int](tab, `[...document.querySelectorAll(`+jsString(selector)+`)].filter(e => e.checkVisibility()).length`)
	}
	tab := openPageAs(t, query, screen{width: 375, height: 900})
	if n := shown(tab, "#softmax .sec"); n != 0 {
		t.Errorf("%d secondary softmax cells show at 375 px", n)
	}
	if n := shown(tab, "#softmax tr[data-token]"); n < 8 || n > 9 {
		t.Errorf("%d softmax rows show at 375 px, want the top 8 (and the chosen one)", n)
	}
	if got := text(tab, "#softmax .all-rows"); got != "show all 24 rows" {
		t.Errorf("the rows' switch says %q", got)
	}
	for _, sw := range []string{"#softmax .all-columns input", "#softmax .all-rows input"} {
		evaluate[bool](tab, `(document.querySelector(`+jsString(sw)+`).focus(), true)`)
		must(tab, "Space", chromedp.KeyEvent(" "))
	}
	if n, want := shown(tab, "#softmax tr[data-token] .sec"), 24*3; n != want {
		t.Errorf("after 'show all columns', %d secondary softmax cells show, want %d", n, want)
	}
	if n := shown(tab, "#softmax tr[data-token]"); n != 24 {
		t.Errorf("after 'show all rows', %d softmax rows show, want 24", n)
	}
	if n := shown(tab, "#logits tr[data-token]"); n >= 24 {
		t.Errorf("the logits card's %d rows show: its own switch is off", n)
	}

	// A token chosen from below the top rows stays in view with them: on
	// the full page, choose the 21st bar at the next step (the fourth),
	// and go back to that step from the strip.
	tab = openPageAs(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=3&temperature=0.8&seed=1", screen{width: 375, height: 900})
	evaluate[bool](tab, `(document.querySelector('#bars .all-rows input').click(), true)`)
	forced := evaluate[string](tab, `document.querySelectorAll('#bars .bar')[20].dataset.token`)
	click(tab, `#bars .bar[data-token="`+forced+`"]`)
	waitFor(tab, `document.querySelector('#tokens .tok.gen[data-step="3"]') != null`)
	click(tab, `#tokens .tok.gen[data-step="3"]`)
	waitFor(tab, `document.querySelector('#softmax tr.chosen')?.dataset.token === `+jsString(forced))
	evaluate[bool](tab, `(document.querySelector('#bars .all-rows input').click(), true)`)
	// The page answers the switch in its next frames: wait for the chosen
	// rows to show, each once.
	waitFor(tab, `['#softmax tr.chosen', '#bars .bar.chosen'].every(q => [...document.querySelectorAll(q)].filter(e => e.checkVisibility()).length === 1)`)
	if cut := evaluate[[]string](tab, "("+cutCells+")(document)"); len(cut) > 0 {
		t.Errorf("with a token chosen from row 21: %v", cut)
	}

	tab = openPageAs(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=3&temperature=0.8&seed=1", screen{width: 1200, height: 900})
	if n := shown(tab, ".fold-switch"); n != 0 {
		t.Errorf("%d switches show at 1,200 px", n)
	}
	if n := shown(tab, "#softmax tr[data-token]"); n != 24 {
		t.Errorf("%d softmax rows show at 1,200 px, want 24", n)
	}
}
