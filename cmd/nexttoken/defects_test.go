//go:build !js

package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Browser tests of what a new user ran into: each failed before the page
// was rebuilt from components.

// rowOrder is the tokens of the logits table, top to bottom.
const rowOrder = `[...document.querySelectorAll('#logits tr[data-token]')].map(r => r.dataset.token).join(',')`

// TestSliderDragKeepsRows drags the third row's slider: the rows stay put
// while the pointer is down, and only that token is edited.
func TestSliderDragKeepsRows(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time")
	before := evaluate[string](tab, rowOrder)
	third := strings.Split(before, ",")[2]
	// The cards around it draw as they come into view: the slider is
	// measured once its place has held for a few frames.
	box := evaluate[[]float64](tab, `new Promise(resolve => {
		const el = document.querySelectorAll('#logits tr[data-token] input[type=range]')[2];
		el.scrollIntoView({block: 'center'});
		let last = '', held = 0;
		const check = () => {
			const r = el.getBoundingClientRect(), now = [r.left, r.top, r.width, r.height];
			held = JSON.stringify(now) === last ? held + 1 : 0;
			last = JSON.stringify(now);
			held >= 3 ? resolve(now) : requestAnimationFrame(check);
		};
		requestAnimationFrame(check);
	})`)
	x, y := box[0]+box[2]/2, box[1]+box[3]/2
	must(tab, "press", chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x, y, chromedp.ButtonLeft))
	for dx := 5.0; dx <= 40; dx += 5 {
		must(tab, "drag", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x+dx, y, chromedp.ButtonLeft))
		waitFor(tab, `document.querySelector('#logits tr.edited') !== null`)
		if got := evaluate[string](tab, rowOrder); got != before {
			t.Fatalf("rows moved during the drag at +%v px:\n%s\nwas\n%s", dx, got, before)
		}
	}
	must(tab, "release", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x+40, y, chromedp.ButtonLeft))
	waitFor(tab, `document.querySelectorAll('#logits tr.edited').length === 1`)
	if got := evaluate[string](tab, `document.querySelector('#logits tr.edited').dataset.token`); got != third {
		t.Errorf("edited token %s, want the dragged row's %s", got, third)
	}
	if n := evaluate[int](tab, `document.querySelectorAll('#logits tr.edited').length`); n != 1 {
		t.Errorf("%d tokens edited by one drag, want 1", n)
	}
	// One drag is one action to undo.
	click(tab, "#undo")
	waitFor(tab, `document.querySelectorAll('#logits tr.edited').length === 0`)
}

// TestUndoForce forks at a step, then undoes the fork: the step that was
// there comes back, and Redo forks again.
func TestUndoForce(t *testing.T) {
	tab := openPage(t, "/")
	click(tab, `#bars .bar[data-token="1"]`) // "cat" instead of "sat"
	waitFor(tab, `document.querySelector('#text').textContent === 'The cat cat'`)
	click(tab, "#undo")
	waitFor(tab, `document.querySelector('#status').textContent.startsWith('0 steps')`)
	if got := text(tab, "#tokens .tok.next"); got != "sat?" {
		t.Errorf("after undoing the force the next token is %q, want ␣sat?", got)
	}
	click(tab, "#redo")
	waitFor(tab, `document.querySelector('#text').textContent === 'The cat cat'`)
	click(tab, "#undo")
	waitFor(tab, `document.querySelector('#status').textContent.startsWith('0 steps')`)
	click(tab, "#step")
	waitFor(tab, `document.querySelector('#text').textContent === 'The cat sat'`)
}

// TestResetIsUndoable resets a session of three steps and takes it back.
func TestResetIsUndoable(t *testing.T) {
	tab := openPage(t, "/?steps=3")
	click(tab, "#reset")
	waitFor(tab, `document.querySelector('#status').textContent.startsWith('0 steps')`)
	click(tab, "#undo")
	waitFor(tab, `document.querySelector('#text').textContent === 'The cat sat on the'`)
}

// TestTextFollowsThePrompt clears the prompt and switches models: the text
// is always the session's.
func TestTextFollowsThePrompt(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=3")
	setInput(tab, "#prompt", "")
	// The KV card writes its rows itself, go-app's diff the text a moment
	// later: the text must follow, not be there in the same instant.
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '1' && document.querySelector('#text').textContent === ''`) // BOS alone, no text
	setInput(tab, "#model", "toy")
	waitFor(tab, `document.querySelector('#text').textContent === 'The cat'`)
	setInput(tab, "#model", "logits")
	waitFor(tab, `document.querySelector('#text').textContent === ''`)
}

// TestKeyboardAfterTheModelPicker chooses a model, then presses →: a step,
// not another model. Tab from a logit field goes to the next field, not to
// a slider that → would nudge.
func TestKeyboardAfterTheModelPicker(t *testing.T) {
	tab := openPage(t, "/")
	must(tab, "focus the picker", chromedp.Focus(chromedp.CSS("#model")))
	setInput(tab, "#model", "stories260K")
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '5'`)
	must(tab, "→", chromedp.KeyEvent(kb.ArrowRight))
	waitFor(tab, `document.querySelector('#status').textContent.startsWith('1 step')`)
	drawn(tab)
	if got := evaluate[string](tab, `document.querySelector('#model').value`); got != "stories260K" {
		t.Errorf("→ after the picker changed the model to %q", got)
	}

	tab = openPage(t, "/")
	must(tab, "focus a logit", chromedp.Focus(chromedp.CSS(`#logits tr[data-token="0"] input.logit`)))
	must(tab, "Tab", chromedp.KeyEvent(kb.Tab))
	if got := evaluate[string](tab, `document.activeElement.type + ' ' + document.activeElement.closest('tr')?.dataset.token`); got != "text 1" {
		t.Errorf("Tab from the first logit went to %q, want the next logit field (text 1)", got)
	}
}

// TestStripFollowsTheNewestToken runs 150 steps: the token strip and the
// text show their ends.
func TestStripFollowsTheNewestToken(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=1&seed=11")
	setInput(tab, "#run-n", "150")
	click(tab, "#run")
	waitFor(tab, `document.querySelector('#status').textContent.startsWith('150 steps')`)
	// The newest token's chip, the next slot and the end of the text are
	// inside their boxes' visible part.
	for _, tc := range []struct{ box, last string }{
		{"#tokens", "#tokens .tok.next"},
		{"#text", "#text span"},
	} {
		waitFor(tab, `(() => { const box = document.querySelector('`+tc.box+`').getBoundingClientRect();
			const last = document.querySelector('`+tc.last+`').getBoundingClientRect();
			return last.bottom <= box.bottom + 1 && last.bottom > box.top; })()`)
	}
	if n := evaluate[int](tab, `document.getElementById('tokens').scrollHeight - document.getElementById('tokens').clientHeight`); n <= 0 {
		t.Errorf("150 tokens fit the strip without scrolling: the test shows nothing")
	}
}

// TestAddTokenKeepsAMask masks a token of the worked example, then adds a
// token: the mask stays.
func TestAddTokenKeepsAMask(t *testing.T) {
	tab := openPage(t, "/?model=logits&logits=-2.1,0.3,3.1,0.8,0.1,-0.5&vocab=The,cat,sat,on,the,mat")
	setInput(tab, `#logits tr[data-token="0"] input.logit`, "-inf")
	waitFor(tab, `document.querySelector('`+probCell(0)+`').textContent === '0'`)
	click(tab, "#add-token")
	waitFor(tab, `document.querySelectorAll('#softmax tr[data-token]').length === 7`)
	if got := evaluate[string](tab, `document.querySelector('#logits tr[data-token="0"] input.logit').value`); got != "−∞" {
		t.Errorf("after adding a token the masked logit is %q, want −∞", got)
	}
	if got := text(tab, probCell(0)); got != "0" {
		t.Errorf("after adding a token the masked token's p is %q, want 0", got)
	}
}

// TestNarrowTablesScroll opens the page at 375 px and the softmax embed at
// 1,000 px: wide tables scroll inside their cards, and no probability is
// cut short.
func TestNarrowTablesScroll(t *testing.T) {
	tab := openPageAs(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=2", screen{width: 375, height: 800})
	if w := evaluate[int](tab, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("page is %d px wide at a 375 px screen", w)
	}
	// The p column can be scrolled to: it is inside a scrolling box.
	if !evaluate[bool](tab, `[...document.querySelectorAll('#softmax td.p')].every(td => td.closest('.scroll'))`) {
		t.Error("the softmax p column is not in a scrolling box")
	}
	tab = openPageAs(t, "/?embed=1&view=softmax", screen{width: 1000, height: 900})
	cut := evaluate[[]string](tab, `[...document.querySelectorAll('td.p')].filter(td => td.scrollWidth > td.clientWidth + 1).map(td => td.textContent)`)
	if len(cut) > 0 {
		t.Errorf("probabilities cut short in the embed at 1,000 px: %v", cut)
	}
}

// TestSettingsApplyFromTheNextStep changes the temperature after three
// sampled steps: the steps stay, the link reproduces the session with its
// change, and re-running the steps is a button.
func TestSettingsApplyFromTheNextStep(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=1&seed=3&steps=3")
	before := evaluate[string](tab, `document.querySelector('#text').textContent`)
	setInput(tab, "#set-temperature", "0.5")
	waitFor(tab, `document.querySelector('#rerun') !== null`)
	if got := evaluate[string](tab, `document.querySelector('#text').textContent`); got != before {
		t.Errorf("a new temperature changed the tokens already chosen: %q, was %q", got, before)
	}
	if got := text(tab, "#status"); !strings.HasPrefix(got, "3 steps") {
		t.Errorf("status %q, want 3 steps", got)
	}
	// The second step was taken at temperature 1, which it says.
	click(tab, `#tokens .tok.gen[data-step="1"]`)
	waitFor(tab, `document.querySelector('#used-settings')?.textContent.includes('temperature 1')`)

	// The link carries the change: a new tab shows the same.
	click(tab, `#tokens .tok.next`)
	click(tab, "#step")
	waitFor(tab, `document.querySelector('#status').textContent.startsWith('4 steps')`)
	drawn(tab)
	want := evaluate[string](tab, snapshot)
	url := evaluate[string](tab, `document.querySelector('#share-url').value`)
	other := openPage(t, url[strings.Index(url, "/"+"#"):])
	if got := evaluate[string](other, snapshot); got != want {
		t.Errorf("the share link shows\n%s\nwant\n%s", got, want)
	}

	click(tab, "#rerun")
	waitFor(tab, `document.querySelector('#rerun') === null`)
	if got := text(tab, "#status"); !strings.HasPrefix(got, "4 steps") {
		t.Errorf("after the re-run, status %q, want 4 steps", got)
	}
}

// TestLinkToAPastStep opens a link that shows step 2 of 3.
func TestLinkToAPastStep(t *testing.T) {
	tab := openPage(t, "/?model=toy&prompt=The%20cat&steps=3&at=2")
	if got := text(tab, "#step-title"); !strings.HasPrefix(got, "Step 2") {
		t.Errorf("title %q, want Step 2", got)
	}
	if got := text(tab, "#choice"); got != "on" {
		t.Errorf("step 2 chose %q, want on", got)
	}
	// Selecting another step makes the link say so (the title is painted
	// at once, the share field at go-app's next frame: wait for both).
	before := evaluate[string](tab, `document.querySelector('#share-url').value`)
	click(tab, `#tokens .tok.gen[data-step="0"]`)
	waitFor(tab, `document.querySelector('#step-title').textContent.startsWith('Step 1')`)
	waitFor(tab, `document.querySelector('#share-url').value !== `+strconv.Quote(before))
	url := evaluate[string](tab, `document.querySelector('#share-url').value`)
	other := openPage(t, url[strings.Index(url, "/"+"#"):])
	if got := text(other, "#step-title"); !strings.HasPrefix(got, "Step 1") {
		t.Errorf("the link of step 1 opens %q", got)
	}
}

// TestNumbersAgree checks the numbers users found disagreeing: W·h after an
// edit, the softmax columns at T ≠ 1, and how the drawn token's p became
// its interval.
func TestNumbersAgree(t *testing.T) {
	tab := openPage(t, "/")
	setInput(tab, `#logits tr[data-token="2"] input.logit`, "-1")
	waitFor(tab, `document.querySelector('#logits tr.edited') !== null`)
	// W·h is what the model computed for "sat", 3.1, not the edit.
	if got := text(tab, "#lm-head"); !strings.Contains(got, "3.1000") {
		t.Errorf("W·h lost the model's 3.1 after an edit:\n%s", got)
	}

	tab = openPage(t, "/?logits=-2.1,0.3,3.1,0.8,0.1,-0.5&vocab=The,cat,sat,on,the,mat&temperature=2&top_p=0.9&seed=42")
	if got := text(tab, "#softmax tr:first-child"); !strings.Contains(got, "ℓ/T − max") || strings.Contains(got, "e^(ℓ − max)") {
		t.Errorf("softmax header at T = 2: %q", got)
	}
	if got := text(tab, "#draw-interval"); !strings.Contains(got, "renormalised") || !strings.Contains(got, "became") {
		t.Errorf("the draw does not say how p became its interval: %q", got)
	}
	setInput(tab, "#set-top_k", "5000000")
	waitFor(tab, `document.querySelector('#set-top_k').closest('.field').querySelector('.field-error')?.textContent.includes('1,048,576')`)
}

// TestEmbedTheme embeds a view with theme=light on a dark system, and with
// theme=dark on a light one: the embed's colours follow the parameter.
func TestEmbedTheme(t *testing.T) {
	for _, tc := range []struct {
		theme string
		dark  bool
	}{{"light", true}, {"dark", false}} {
		tab := openPageAs(t, "/?embed=1&view=tokens&theme="+tc.theme, screen{width: 800, height: 600, dark: tc.dark})
		bg := evaluate[string](tab, `getComputedStyle(document.querySelector('main')).backgroundColor`)
		light := bg == "rgb(247, 247, 245)"
		if light != (tc.theme == "light") {
			t.Errorf("theme=%s on a dark system %v: background %s", tc.theme, tc.dark, bg)
		}
	}
}

// TestLongPaste pastes 100 KB into the prompt of stories260K: the page
// answers at once with a message by the field, and the session stays.
func TestLongPaste(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time")
	evaluate[bool](tab, `(() => { const el = document.querySelector('#prompt'); el.focus(); el.select(); return true; })()`)
	paste := strings.Repeat("Once upon a time there was a little girl who loved to play. ", 100_000/60)
	start := time.Now()
	if _, err := chromedp.Call(tab, input.InsertText, input.InsertTextParams{Text: paste}); err != nil {
		t.Fatal(err)
	}
	waitFor(tab, `document.querySelector('#prompt-error') !== null`)
	t.Logf("%d bytes pasted: a message after %v", len(paste), time.Since(start))
	msg := text(tab, "#prompt-error")
	for _, want := range []string{"holds 4,096 characters", "context of 512"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message %q does not say %q", msg, want)
		}
	}
	if got := text(tab, "#kv-rows"); got != "5" {
		t.Errorf("a prompt that cannot fit changed the session: %s KV rows, want 5", got)
	}
}

// TestEventsOnTheWindow dispatches pointer events on the page's window, as
// a host page's or a test's script may: the page takes them without an
// exception (the popover's pointerdown took the window for a node).
func TestEventsOnTheWindow(t *testing.T) {
	tab := openPage(t, "/?model=toy&steps=1")
	for _, event := range []string{"pointerdown", "pointerup", "pointerout", "pointermove"} {
		evaluate[bool](tab, `dispatchEvent(new PointerEvent(`+jsString(event)+`, {bubbles: true})) || true`)
	}
	// The console is read when the test ends: one more frame for any
	// exception to reach it.
	waitFor(tab, `new Promise(r => requestAnimationFrame(() => r(true)))`)
}
