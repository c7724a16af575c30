//go:build !js

package main

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// tipShown is a page script: whether the token popover shows.
const tipShown = `!document.getElementById('token-tip').hidden`

// chipCentre is where a pointer on step i's chip would be.
func chipCentre(tab context.Context, i int) (x, y float64) {
	c := evaluate[[]float64](tab, `(r => [r.left + r.width / 2, r.top + r.height / 2])(document.querySelector('#tokens .tok[data-step="`+strconv.Itoa(i)+`"]').getBoundingClientRect())`)
	return c[0], c[1]
}

// tipPs are the popover's tokens and their p, as "id p" pairs.
const tipPs = `[...document.querySelectorAll('#token-tip tr')].slice(1).map(tr => tr.children[2].textContent + ' ' + tr.querySelector('td.p').textContent)`

// TestTokenPopover rests the pointer on a chip of the strip: a popover
// shows the step's ten most probable tokens, whose p are those of the
// Probabilities card once that step is on display, with the stage that
// removed each as that card marks it; the pointer leaving hides it. Focus
// from the keyboard shows it, Escape hides it; the text shows the popover
// of the token under the pointer.
func TestTokenPopover(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=12&temperature=1&top_k=4&seed=3")
	x, y := chipCentre(tab, 3)
	must(tab, "rest on step 4", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
	waitFor(tab, tipShown)
	if head := text(tab, "#token-tip .tip-head"); !strings.Contains(head, "step 4 ") {
		t.Errorf("popover of step 4 says %q", head)
	}
	tip := evaluate[[]string](tab, tipPs)
	removed := evaluate[[]string](tab, `[...document.querySelectorAll('#token-tip tr')].slice(1).map(tr => tr.lastChild.textContent)`)
	if len(tip) != 10 {
		t.Fatalf("%d tokens in the popover, want 10: %v", len(tip), tip)
	}
	if html := evaluate[string](tab, `document.getElementById('tokens').outerHTML`); !strings.Contains(html, `aria-describedby="token-tip"`) {
		t.Error("no chip is described by the popover")
	}

	must(tab, "leave", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1, 1))
	waitFor(tab, `!(`+tipShown+`)`)

	click(tab, `#tokens .tok[data-step="3"]`)
	waitFor(tab, `document.getElementById('step-title')?.textContent.startsWith('Step 4:')`)
	drawn(tab)
	for i, pair := range tip {
		id, p, _ := strings.Cut(pair, " ")
		bar := `#bars-list .bar[data-token="` + id + `"]`
		if got := evaluate[string](tab, `document.querySelector('`+bar+` .bar-value')?.textContent ?? ''`); got != p {
			t.Errorf("token %s: p %s in the popover, %q on the Probabilities card", id, p, got)
		}
		after := evaluate[string](tab, `document.querySelector('`+bar+` .bar-after')?.textContent ?? ''`)
		if by, ok := strings.CutPrefix(after, "✕ "); ok != (removed[i] != "—") || ok && by != removed[i] {
			t.Errorf("token %s: removed by %q in the popover, the Probabilities card says %q", id, removed[i], after)
		}
	}
	if !slices.Contains(removed, "top-k") {
		t.Errorf("top-k 4 removed none of the ten: %v", removed)
	}

	// The keyboard: Tab from the chip clicked to the next, then Escape.
	if shown := evaluate[bool](tab, tipShown); shown {
		t.Error("a click on a chip shows its popover")
	}
	must(tab, "Tab", chromedp.KeyEvent(kb.Tab))
	waitFor(tab, tipShown+` && document.querySelector('#token-tip .tip-head').textContent.includes('step 5 ')`)
	must(tab, "Escape", chromedp.KeyEvent(kb.Escape))
	waitFor(tab, `!(`+tipShown+`)`)

	// The text: the last token's popover over its end.
	end := evaluate[[]float64](tab, `(() => { const r = document.createRange(), n = document.querySelector('#text span').firstChild;
		r.setStart(n, n.length - 1); r.setEnd(n, n.length); const b = r.getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; })()`)
	must(tab, "rest on the text", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, end[0], end[1]))
	waitFor(tab, tipShown+` && document.querySelector('#token-tip .tip-head').textContent.includes('step 12 ')`)
}

// TestTokenPopoverNarrow opens the popover of the last chip on a
// 375-pixel screen in dark mode: it stays on the screen.
func TestTokenPopoverNarrow(t *testing.T) {
	tab := openPageAs(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=30&temperature=1&seed=3", screen{width: 375, height: 740, dark: true})
	evaluate[bool](tab, `(document.querySelector('#tokens .tok[data-step="29"]').focus(), true)`)
	waitFor(tab, tipShown)
	box := evaluate[[]float64](tab, `(r => [r.left, r.right, r.top, r.bottom])(document.getElementById('token-tip').getBoundingClientRect())`)
	if box[0] < 0 || box[1] > 375 || box[2] < 0 || box[3] > 740 {
		t.Errorf("the popover at %v leaves the 375 × 740 screen", box)
	}
}

// tipTime is a page script: it rests the pointer on step i's chip (a
// pointerover, which starts the popover's rest) and resolves with the
// milliseconds from the end of the rest (data-rest after it) to the
// popover in the DOM. It hides the popover first.
const tipTime = `(i) => new Promise(resolve => {
	dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}));
	const tip = document.getElementById('token-tip'), rest = Number(tip.dataset.rest);
	const chip = document.querySelector('#tokens .tok[data-step="' + i + '"]'), r = chip.getBoundingClientRect();
	let start = 0;
	const observer = new MutationObserver(() => {
		if (!tip.hidden) {
			observer.disconnect();
			resolve(performance.now() - start - rest);
		}
	});
	observer.observe(tip, {attributes: true});
	start = performance.now();
	chip.dispatchEvent(new PointerEvent('pointerover', {bubbles: true, pointerType: 'mouse', clientX: r.left + 2, clientY: r.top + 2}));
})`

// TestPopoverTiming measures how long the token popover takes to show
// once the pointer has rested on a chip, on stories260K after 200 steps,
// on a chip after another (NEXTTOKEN_TIMING_ROUNDS, default 20). A
// measurement: make timing runs it.
func TestPopoverTiming(t *testing.T) {
	const name = "stories260K, 200 steps: popover, pointer rests → shown"
	needTiming(t, name)
	rounds := timingRounds(20)
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	for _, b := range builds {
		tab, closeTab := openBuildPage(t, b, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=200&temperature=1&seed=3", screen{})
		for r := range rounds {
			f.add(name, "ms", b, evaluate[float64](tab, "("+tipTime+")("+strconv.Itoa(r*37%200)+")"))
		}
		closeTab()
	}
	f.report()
}
