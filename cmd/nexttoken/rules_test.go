//go:build !js

package main

import (
	"bytes"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"nexttoken/engine/gguf"
)

// Browser tests of the page's interaction rules (package play's doc), one
// for each defect a new user hit: each failed on the page before the rule
// was kept.

// TestSettingSurvivesAFork sets the temperature at the end of a session,
// edits a logit at an earlier step and steps on: the new branch goes on
// with the temperature set, and the page says the branch's own differed.
func TestSettingSurvivesAFork(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=0.8&seed=3&steps=6")
	setInput(tab, "#set-temperature", "1.2")
	click(tab, `#tokens .tok.gen[data-step="2"]`)
	waitFor(tab, `document.querySelector('#step-title').textContent.startsWith('Step 3')`)
	setInput(tab, `#logits tr[data-token] input.logit`, "5")
	waitFor(tab, `document.querySelector('#status').textContent.startsWith('3 steps')`)
	click(tab, "#step")
	waitFor(tab, `document.querySelector('#status').textContent.startsWith('4 steps')`)
	drawn(tab)
	if got := evaluate[string](tab, `document.querySelector('#set-temperature').value`); got != "1.2" {
		t.Errorf("after the fork and a step the temperature is %s, want the 1.2 set", got)
	}
	click(tab, `#tokens .tok.gen[data-step="3"]`)
	waitFor(tab, `document.querySelector('#step-title').textContent.startsWith('Step 4')`)
	if got := evaluate[string](tab, `document.querySelector('#used-settings')?.textContent ?? ''`); strings.Contains(got, "0.8") {
		t.Errorf("the step after the fork was taken with %q, want the 1.2 set", got)
	}
}

// TestPromptTypingIsOneGesture types a prompt a keystroke at a time: the
// steps stay until the typing pauses, and one Undo gives back the old
// prompt and every step.
func TestPromptTypingIsOneGesture(t *testing.T) {
	tab := openPage(t, "/?model=toy&steps=3")
	typeKeys := `async (text) => {
		const el = document.getElementById('prompt');
		el.focus();
		for (let i = 1; i <= text.length; i++) {
			el.value = text.slice(0, i);
			el.dispatchEvent(new Event('input', {bubbles: true}));
			await new Promise(r => setTimeout(r, 30));
		}
		return document.getElementById('status').textContent;
	}`
	if got := evaluate[string](tab, "("+typeKeys+")('The mat')"); !strings.HasPrefix(got, "3 steps") {
		t.Errorf("while typing the status is %q: a keystroke threw the steps away", got)
	}
	waitFor(tab, `document.querySelector('#text').textContent === 'The mat' && document.querySelector('#status').textContent.startsWith('0 steps')`)
	evaluate[bool](tab, `(el => { el.dispatchEvent(new Event('change', {bubbles: true})); el.blur(); return true })(document.getElementById('prompt'))`)
	click(tab, "#undo")
	waitFor(tab, `document.querySelector('#status').textContent.startsWith('3 steps')`)
	drawn(tab)
	if got := evaluate[string](tab, `document.getElementById('prompt').value`); got != "The cat" {
		t.Errorf("one Undo left the prompt %q, want The cat", got)
	}
}

// TestPastStepContext opens an earlier step: the sampler card says what
// that step continued, not the end of the session.
func TestPastStepContext(t *testing.T) {
	tab := openPage(t, "/?model=toy&steps=3")
	click(tab, `#tokens .tok.gen[data-step="1"]`)
	waitFor(tab, `document.querySelector('#step-title').textContent.startsWith('Step 2')`)
	if got := text(tab, "#sampler-context"); !strings.HasSuffix(got, "The cat sat”") && !strings.HasSuffix(got, "The cat sat") {
		t.Errorf("step 2's context reads %q, want The cat sat", got)
	}
}

// TestFieldErrorsGo types a bad value, then a good one into another field:
// the first field's error goes.
func TestFieldErrorsGo(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&temperature=1")
	setInput(tab, "#set-top_p", "2")
	waitFor(tab, `document.querySelector('#sampler .field-error') !== null`)
	setInput(tab, "#set-temperature", "0.9")
	waitFor(tab, `document.querySelector('#sampler .field-error') === null`)
	setInput(tab, "#set-top_p", "2")
	waitFor(tab, `document.querySelector('#sampler .field-error') !== null`)
	setInput(tab, "#set-top_p", "0.9")
	waitFor(tab, `document.querySelector('#sampler .field-error') === null`)
}

// TestBarsAreOneTabStop: the probability bars are one stop for Tab, a
// list the arrow keys move through; Enter chooses the token it is on. (The
// card's own controls, the sort button and a narrow card's rows switch,
// are stops of their own.)
func TestBarsAreOneTabStop(t *testing.T) {
	tab := openPage(t, "/?model=stories260K")
	stops := evaluate[int](tab, `[...document.querySelectorAll('#bars *')].filter(e => e.tabIndex >= 0 && !e.disabled && e.id !== 'sort-bars' && !e.closest('.fold-switch')).length`)
	if stops != 1 {
		t.Errorf("%d Tab stops among the bars, want 1", stops)
	}
	second := evaluate[string](tab, `document.querySelectorAll('#bars .bar')[1].dataset.token`)
	evaluate[bool](tab, `(list => {
		list.focus();
		for (const key of ['ArrowDown', 'Enter'])
			list.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true}));
		return true;
	})(document.getElementById('bars-list'))`)
	waitFor(tab, `document.querySelector('#status').textContent.startsWith('1 step')`)
	drawn(tab) // the status and the tokens are drawn in frames of their own
	if got := evaluate[string](tab, `document.querySelector('#tokens .tok.gen').className`); !strings.Contains(got, "forced") {
		t.Errorf("Enter on the second bar took a token of class %q, want a forced one", got)
	}
	click(tab, `#tokens .tok.gen[data-step="0"]`)
	waitFor(tab, `document.querySelector('#choice') !== null`)
	if got := evaluate[string](tab, `String(document.querySelector('#bars .bar.chosen')?.dataset.token)`); got != second {
		t.Errorf("the forced token is %s, want the second bar's %s", got, second)
	}
}

// TestRuntimeLinks opens links that name a runtime: each opens with that
// runtime's defaults for what it does not give, as the decoding select
// and the command line do.
func TestRuntimeLinks(t *testing.T) {
	field := func(name string) string { return `document.querySelector('#set-` + name + `')?.value` }
	for _, tc := range []struct{ path, want string }{
		{"/?model=stories260K&sampler=llama.cpp", field("temperature") + ` === '0.8' && ` + field("top_k") + ` === '40' && ` +
			field("top_p") + ` === '0.95' && ` + field("min_p") + ` === '0.05' && ` + field("mirostat_tau") + ` === '5' && ` + field("dry_base") + ` === '1.75'`},
		{"/?model=stories260K&sampler=mirostat2", field("temperature") + ` === '0.8' && ` + field("mirostat") + ` === '2' && ` + field("mirostat_eta") + ` === '0.1'`},
		{"/?model=stories260K&sampler=hf", field("temperature") + ` === '1' && ` + field("top_k") + ` === '50' && ` + field("top_p") + ` === '1'`},
		{"/?model=stories260K&sampler=hf&temperature=0.7", field("temperature") + ` === '0.7' && ` + field("top_k") + ` === '50'`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			tab := openPage(t, tc.path)
			waitFor(tab, tc.want)
			if notice := evaluate[string](tab, `document.querySelector('#notice')?.textContent ?? ''`); notice != "" {
				t.Errorf("notice %q", notice)
			}
		})
	}
}

// TestLlamaCppGreedyDraw: llama.cpp's greedy decoding draws the chosen
// token's segment on the cumulative bar.
func TestLlamaCppGreedyDraw(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&sampler=llama.cpp&temperature=0")
	waitFor(tab, `document.querySelector('#sampler #choice') !== null`)
	if w := evaluate[float64](tab, `document.querySelector('#sampler .seg.hit')?.getBoundingClientRect().width ?? 0`); w < 1 {
		t.Errorf("the chosen token's segment is %.1f px wide, want it drawn", w)
	}
}

// TestEndOfTextInWords runs stories260K until it ends a text: the status
// says so in words, not with the token's raw text.
func TestEndOfTextInWords(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=1&seed=3&steps=512") // ends at <s>
	status := text(tab, "#status")
	if !strings.Contains(status, "the model chose <s>, which starts a new text") {
		t.Errorf("status %q does not say in words why the session ended", status)
	}
	if strings.ContainsAny(status, "\n\\") || strings.Contains(status, `"`) {
		t.Errorf("status %q shows a token's raw text", status)
	}
}

// TestAllMaskedKeepsLogits masks every logit of the worked example: the
// Logits card stays, so that one can be unmasked, and the page says how to
// go on.
func TestAllMaskedKeepsLogits(t *testing.T) {
	tab := openPage(t, "/?model=logits")
	for id := range 6 {
		setInput(tab, `#logits tr[data-token="`+string(rune('0'+id))+`"] input.logit`, "-inf")
	}
	waitFor(tab, `document.querySelector('#status').textContent.includes('every token is masked')`)
	if n := evaluate[int](tab, `document.querySelectorAll('#logits tr[data-token]').length`); n != 6 {
		t.Errorf("%d logit rows, want the 6 to unmask one", n)
	}
	setInput(tab, `#logits tr[data-token="2"] input.logit`, "1")
	waitFor(tab, `document.querySelector('#choice')?.textContent === 'sat'`)
}

// TestNaNModel opens a model whose weights hold a NaN: the page says so,
// naming the model, and keeps the session it had.
func TestNaNModel(t *testing.T) {
	m, v := readStories260K(t)
	m.Weights.TokenEmbedding[5*m.Config.Dim] = float32(math.NaN()) // a row of the shared classifier: token 5's logit
	var file bytes.Buffer
	if err := gguf.WriteLlama2c(&file, m, v, gguf.Llama2cOptions{Type: gguf.F32}); err != nil {
		t.Fatal(err)
	}
	models := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "Content-Length, Content-Range")
		http.ServeContent(w, r, "nan.gguf", time.Time{}, bytes.NewReader(file.Bytes()))
	}))
	defer models.Close()
	tab := openPage(t, "/")
	setInput(tab, "#model-url", models.URL+"/nan.gguf")
	waitFor(tab, `(document.querySelector('#notice')?.textContent ?? '').includes('NaN')`)
	notice := text(tab, "#notice")
	if !strings.Contains(notice, "nan.gguf") || strings.Contains(notice, "step -1") {
		t.Errorf("notice %q, want it to name the model and its NaN", notice)
	}
	if got := text(tab, "#choice"); got != "sat" {
		t.Errorf("choice %q: the session the page had should stay", got)
	}
}

// TestTreeEmbedAfterReset: a tree embed says the tree is empty after
// Reset, rather than drawing an empty path.
func TestTreeEmbedAfterReset(t *testing.T) {
	tab := openPage(t, "/?embed=1&view=tree&model=toy&steps=2")
	click(tab, "#reset")
	waitFor(tab, `document.querySelector('#tree-empty') !== null`)
}

// TestCompareIdleStages: the compare card draws llama.cpp's stages that
// its settings switch off as idle, not as stages at work.
func TestCompareIdleStages(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&temperature=1&compare=chain,llama.cpp")
	waitFor(tab, `document.querySelector('#compare-b-stages') !== null`)
	idle := evaluate[[]string](tab, `[...document.querySelectorAll('#compare-b-stages .stage-chip.idle')].map(e => e.dataset.stage)`)
	for _, s := range []string{"d", "x"} { // DRY and XTC are off in llama.cpp's defaults
		if !strings.Contains(strings.Join(idle, ""), s) {
			t.Errorf("stage %s is not drawn idle (idle: %v)", s, idle)
		}
	}
}

// TestKeyHints: the Step button's key hint reads on its blue, and touch
// screens show no key hints.
func TestKeyHints(t *testing.T) {
	tab := openPage(t, "/")
	if same := evaluate[bool](tab, `getComputedStyle(document.querySelector('#step kbd')).color === getComputedStyle(document.querySelector('#step')).color`); !same {
		t.Errorf("the Step button's key hint is not in the button's ink")
	}
	if _, err := chromedp.Call(tab, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
		t.Fatal(err)
	}
	waitFor(tab, `getComputedStyle(document.querySelector('#step kbd')).display === 'none'`)
}

// TestSequenceFieldReads: llama.cpp's stages field is wide enough to read
// its default sequence.
func TestSequenceFieldReads(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&sampler=llama.cpp")
	if w := evaluate[float64](tab, `(el => el.scrollWidth - el.clientWidth)(document.querySelector('#set-sequence'))`); w > 0 {
		t.Errorf("the stages field hides %.0f px of its text", w)
	}
	evaluate[bool](tab, `(el => { el.value = 'edskypmxt'; return true })(document.querySelector('#set-sequence'))`)
	if w := evaluate[float64](tab, `(el => el.scrollWidth - el.clientWidth)(document.querySelector('#set-sequence'))`); w > 0 {
		t.Errorf("the stages field hides %.0f px of edskypmxt", w)
	}
}

// TestKeepGoing runs stories260K to the end of its text: the page offers to
// keep going, and then steps on with the end of text ignored, a switch
// the link carries.
func TestKeepGoing(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=1&seed=3&steps=512") // ends at <s>
	status := text(tab, "#status")
	click(tab, "#keep-going")
	waitFor(tab, `document.querySelector('#step:not([disabled])') !== null && document.querySelector('#set-ignore_eos')?.checked`)
	if got := text(tab, "#status"); got == status || strings.Contains(got, "new text") {
		t.Errorf("after Keep going the status is %q (was %q)", got, status)
	}
	waitFor(tab, `location.hash.startsWith('#s1.')`)
	before := evaluate[string](tab, `location.hash`)
	setInput(tab, "#run-n", "10")
	click(tab, "#run")
	waitFor(tab, `/^\d+ steps$/.test(document.querySelector('#status').textContent) && !document.querySelector('#run-label').textContent.includes('Stop')`)
	// The address bar follows a moment later, to the share panel's link.
	waitFor(tab, `location.hash !== `+jsString(before)+` && (u => location.hash === u.hash)(new URL(document.querySelector('#share-url').value))`)
	again := openPage(t, "/"+evaluate[string](tab, `location.hash`))
	if got, want := text(again, "#status"), text(tab, "#status"); got != want {
		t.Errorf("the share link opens at %q, want %q", got, want)
	}
}

// TestWording checks the page's words and marks that disagreed: a token is
// named alike in the strip and the tables, log-probabilities take a minus
// sign, the tree names the session's path so, the timeline's labels sit
// above its lines, and the worked example's legend speaks of no prompt.
func TestWording(t *testing.T) {
	tab := openPage(t, "/?model=toy&steps=2")
	click(tab, `#tokens .tok.gen[data-step="0"]`)
	waitFor(tab, `document.querySelector('#step-title').textContent.startsWith('Step 1')`)
	if chip, bar := text(tab, `#tokens .tok.gen[data-step="0"]`), text(tab, `#bars .bar.chosen .bar-label`); chip != bar {
		t.Errorf("step 1's token is %q in the strip and %q in the bars", chip, bar)
	}
	click(tab, `#bars .bar:not(.chosen)`) // a fork: the tree shows
	waitFor(tab, `document.querySelector('#tree .branch-logp') !== null`)
	if got := text(tab, "#tree .branch-logp"); !strings.HasPrefix(got, "ln p = −") {
		t.Errorf("the tree writes %q, want a minus sign", got)
	}
	click(tab, `#tree li[data-path="0"] .branch-pick`)
	click(tab, `#tree li[data-path="1"] .branch-pick`)
	waitFor(tab, `document.querySelector('#tree-compare') !== null`)
	if got := text(tab, "#tree-compare h4"); !strings.HasPrefix(got, "The session's path") {
		t.Errorf("the compared paths are headed %q", got)
	}
	above := evaluate[bool](tab, `(() => {
		const svg = document.querySelector('#timeline svg.timeline');
		const rects = [...svg.querySelectorAll('rect.frame')].map(r => Number(r.getAttribute('y')));
		const labels = [...svg.querySelectorAll('text.axis')].map(t => Number(t.getAttribute('y')));
		return labels.length === rects.length && labels.every((y, i) => y < rects[i]);
	})()`)
	if !above {
		t.Errorf("the timeline's labels are not above its panels")
	}
	worked := openPage(t, "/?model=logits")
	if got := text(worked, ".legend"); strings.Contains(got, "prompt") {
		t.Errorf("the worked example's legend speaks of a prompt: %q", got)
	}
}
