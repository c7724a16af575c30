//go:build !js

package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Tests of the playground in a real browser (see browser_test.go). Every
// number checked here is computed by the test itself from the definition.

// displayed formats a probability the way the page does: four significant
// digits with a typographic minus.
func displayed(p float64) string {
	if p != 0 && math.Abs(p) < 1e-4 {
		return strings.Replace(strconv.FormatFloat(p, 'e', 3, 64), "-", "−", 1)
	}
	return strconv.FormatFloat(p, 'g', 4, 64)
}

// softmaxOf is e^ℓᵢ / Σ e^ℓⱼ.
func softmaxOf(logits []float64) []float64 {
	var z float64
	for _, l := range logits {
		z += math.Exp(l)
	}
	p := make([]float64, len(logits))
	for i, l := range logits {
		p[i] = math.Exp(l) / z
	}
	return p
}

func probCell(id int) string {
	return `#softmax tr[data-token="` + strconv.Itoa(id) + `"] td.p`
}

var workedExample = []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}

// TestDefaultPageShowsWorkedExample: the page at / is the toy model after
// "The cat", whose logits are the worked example's.
func TestDefaultPageShowsWorkedExample(t *testing.T) {
	tab := openPage(t, "/")
	for id, p := range softmaxOf(workedExample) {
		if got := text(tab, probCell(id)); got != displayed(p) {
			t.Errorf("p of token %d = %q, want %q", id, got, displayed(p))
		}
	}
	if got := text(tab, "#choice"); got != "sat" {
		t.Errorf("chosen %q, want sat", got)
	}
	if got := text(tab, "#kv-rows"); got != "2" {
		t.Errorf("KV cache rows %q, want 2", got)
	}
	if got := text(tab, "#lm-head"); !strings.Contains(got, "3.1000") {
		t.Errorf("LM head table lacks the logit 3.1000:\n%s", got)
	}
}

// TestEditLogit types a new logit and expects the probabilities the test
// computes for the edited vector; a bad number leaves them alone.
func TestEditLogit(t *testing.T) {
	tab := openPage(t, "/")
	setInput(tab, `#logits tr[data-token="0"] input.logit`, "4")
	edited := append([]float64(nil), workedExample...)
	edited[0] = 4
	want := softmaxOf(edited)
	waitFor(tab, `document.querySelector('`+probCell(0)+`').textContent === `+jsString(displayed(want[0])))
	for id, p := range want {
		if got := text(tab, probCell(id)); got != displayed(p) {
			t.Errorf("after the edit, p of token %d = %q, want %q", id, got, displayed(p))
		}
	}
	if got := text(tab, "#choice"); got != "The" {
		t.Errorf("after the edit the choice is %q, want The", got)
	}
	if n := evaluate[int](tab, `document.querySelectorAll('#logits tr.edited').length`); n != 1 {
		t.Errorf("%d rows marked edited, want 1", n)
	}

	// A bad number gets a message by its field, and the field gets its
	// last good value back.
	for _, bad := range []string{"abc", "NaN", "1e999", "inf"} {
		field := `#logits tr[data-token="1"] input.logit`
		setInput(tab, field, bad)
		waitFor(tab, `document.querySelector('#logits tr[data-token="1"] .field-error') !== null`)
		if got := evaluate[string](tab, `document.querySelector('`+field+`').value`); got != "0.3000" {
			t.Errorf("typing %q left %q in the field, want the last good value 0.3000", bad, got)
		}
		if n := evaluate[int](tab, `document.querySelectorAll('#notice').length`); n != 0 {
			t.Errorf("typing %q: a notice at the top of the page, not by the field", bad)
		}
		if got := text(tab, probCell(0)); got != displayed(want[0]) {
			t.Errorf("typing %q changed p of token 0 to %q", bad, got)
		}
	}
}

// TestStepAndUndo presses Step: "sat" joins the context and the cache grows
// from 2 to 3 rows; Undo goes back.
func TestStepAndUndo(t *testing.T) {
	tab := openPage(t, "/")
	click(tab, "#step")
	// The KV card writes its rows itself, go-app's diff the rest a moment
	// later: the wait is for both.
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '3' && document.querySelector('#tokens .tok.gen')?.textContent === 'sat'`)
	if n := evaluate[int](tab, `document.querySelectorAll('#kv-table tr.kv-row').length`); n != 3 {
		t.Errorf("KV table has %d rows, want 3", n)
	}
	if got := evaluate[string](tab, `document.querySelector('#text').textContent`); got != "The cat sat" {
		t.Errorf("text %q", got)
	}
	if got := text(tab, "#choice"); got != "on" {
		t.Errorf("next choice %q, want on", got)
	}

	click(tab, "#undo")
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '2' && document.querySelectorAll('#tokens .tok.gen').length === 0`)
	if got := text(tab, "#choice"); got != "sat" {
		t.Errorf("after undo the choice is %q, want sat", got)
	}
}

// TestKeyboard drives the page with its shortcuts only: ← and → move
// through the steps (→ on the next step takes it), Ctrl+Z and
// Shift+Ctrl+Z undo and redo.
func TestKeyboard(t *testing.T) {
	tab := openPage(t, "/")
	press := func(key string, mods ...string) {
		init := `{key: ` + jsString(key) + `, bubbles: true, cancelable: true`
		for _, m := range mods {
			init += `, ` + m + `: true`
		}
		evaluate[bool](tab, `document.getElementById('playground').dispatchEvent(new KeyboardEvent('keydown', `+init+`}))`)
	}
	status := func(want string) {
		t.Helper()
		waitFor(tab, `document.querySelector('#status').textContent.startsWith(`+jsString(want)+`)`)
	}
	press("ArrowRight") // on the next step: takes it
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '3'`)
	press("s")
	status("2 steps")
	press("ArrowLeft") // moves to the step before, taking nothing back
	waitFor(tab, `document.querySelector('#step-title').textContent.startsWith('Step 2')`)
	press("ArrowLeft")
	waitFor(tab, `document.querySelector('#step-title').textContent.startsWith('Step 1')`)
	press("ArrowRight") // on a past step: moves to the next, takes no step
	waitFor(tab, `document.querySelector('#step-title').textContent.startsWith('Step 2')`)
	status("2 steps")
	press("z", "ctrlKey")
	status("1 step")
	press("Z", "ctrlKey", "shiftKey")
	status("2 steps")
	press("r")
	status("0 steps")
}

// TestQueryLinks opens readable links and checks the sessions they describe.
func TestQueryLinks(t *testing.T) {
	tab := openPage(t, "/?model=toy&prompt=The%20cat&steps=3")
	if got := evaluate[string](tab, `document.querySelector('#text').textContent`); got != "The cat sat on the" {
		t.Errorf("text %q, want %q", got, "The cat sat on the")
	}
	if got := text(tab, "#kv-rows"); got != "5" {
		t.Errorf("KV rows %q, want 5", got)
	}

	tab = openPage(t, "/?logits=1,2,3,-inf&vocab=a,b,c,d&temperature=0.5&top_k=2&seed=7")
	want := softmaxOf([]float64{2, 4, 6, math.Inf(-1)}) // ℓ/T
	for id, p := range want {
		if got := text(tab, probCell(id)); got != displayed(p) {
			t.Errorf("p of token %d = %q, want %q", id, got, displayed(p))
		}
	}
	if got := text(tab, "#stages"); !strings.Contains(got, "top-k kept 2 of 3 tokens") {
		t.Errorf("stages %q", got)
	}
	if got := text(tab, "#draw-u"); !strings.HasPrefix(got, "u = ") {
		t.Errorf("draw %q", got)
	}
}

// TestDamagedLinks opens links with a bad part: the page keeps every part
// it can read, says in words what it left out, and never shows internal
// error text.
func TestDamagedLinks(t *testing.T) {
	share := shareFragment(t, "/?model=toy&steps=2")
	for _, tc := range []struct {
		path string
		want string // in the notice; "" for none
		kept string // a page expression that is true when the rest of the link was kept
	}{
		{"/?top_p=abc&temperature=0.5", "The link's top-p, “abc”, is not a number", `document.querySelector('#set-temperature').value === '0.5'`},
		{"/?Top_P=2", "The link's top-p, “2”, is not a number from 0 to 1", `document.querySelector('#choice') !== null`},
		{"/?model=gpt", "“gpt”", `document.querySelector('#choice').textContent === 'sat'`},
		{"/?steps=-4&model=stories260K", "steps", `document.querySelector('#model').value === 'stories260K'`},
		{"/?model=stories260K&prompt=100%", "%25", `document.querySelector('#prompt').value === 'Once upon a time'`},
		{"/?model=toy&prompt=The%20dog", "dog", `document.querySelector('#choice').textContent === 'sat'`},
		{"/?model=stories260K&steps=3&at=9", "The link shows step 9", `document.querySelector('#step-title').textContent.startsWith('Step 3')`},
		{"/#" + share + "&fbclid=IwAR0", "", `document.querySelector('#status').textContent.startsWith('2 steps')`},
		{"/#" + share + "?utm_source=x", "", `document.querySelector('#status').textContent.startsWith('2 steps')`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			tab := openPage(t, tc.path)
			notice := evaluate[string](tab, `document.querySelector('#notice')?.textContent ?? ''`)
			switch {
			case tc.want == "" && notice != "":
				t.Errorf("notice %q, want none", notice)
			case !strings.Contains(notice, tc.want):
				t.Errorf("notice %q, want it to contain %q", notice, tc.want)
			}
			for _, internal := range []string{"sampler:", "share link:", "step -1", "does not exist", "Top_p"} {
				if strings.Contains(notice, internal) {
					t.Errorf("notice %q shows internal text %q", notice, internal)
				}
			}
			waitFor(tab, tc.kept)
		})
	}
}

// shareFragment is the share link's fragment of the page at path, as the
// address bar shows it once it follows the session.
func shareFragment(t *testing.T, path string) string {
	t.Helper()
	tab := openPage(t, path)
	// The address follows the page: wait until it has the step taken, then
	// until it has left it.
	opened := evaluate[string](tab, `location.hash`)
	click(tab, "#step")
	waitFor(tab, `location.hash.startsWith('#s1.') && location.hash !== `+strconv.Quote(opened))
	stepped := evaluate[string](tab, `location.hash`)
	click(tab, "#undo")
	waitFor(tab, `location.hash.startsWith('#s1.') && location.hash !== `+strconv.Quote(stepped))
	return strings.TrimPrefix(evaluate[string](tab, `location.hash`), "#")
}

// opensDefaultSaying opens path and expects the default session, with a
// notice containing want.
func opensDefaultSaying(t *testing.T, path, want string) {
	t.Helper()
	tab := openPage(t, path)
	if got := text(tab, "#notice"); !strings.Contains(got, want) {
		t.Errorf("notice %q, want it to contain %q", got, want)
	}
	if got := text(tab, "#choice"); got != "sat" {
		t.Errorf("choice %q: the default session should be open", got)
	}
}

// TestStories260KGenerates runs the 260K model for eight steps in the page.
func TestStories260KGenerates(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=0.8&top_p=0.9&seed=5")
	setInput(tab, "#run-n", "8")
	click(tab, "#run")
	waitFor(tab, `document.querySelector('#status').textContent === '8 steps'`)
	got := evaluate[string](tab, `document.querySelector('#text').textContent`)
	if !strings.HasPrefix(got, "Once upon a time") || len(got) <= len("Once upon a time") {
		t.Errorf("text %q", got)
	}
	if n := evaluate[int](tab, `document.querySelectorAll('#tokens .tok.gen').length`); n != 8 {
		t.Errorf("%d generated tokens, want 8", n)
	}
	if got := text(tab, "#kv-rows"); got != "13" {
		t.Errorf("KV rows %q, want 5 prompt + 8 generated", got)
	}
	if n := evaluate[int](tab, `document.querySelectorAll('#kv canvas.heat').length`); n < 2 {
		t.Errorf("%d heat maps, want keys and values at least", n)
	}
	// Row 12, the newest, is drawn: not every pixel is the background.
	drawn := evaluate[bool](tab, `(() => {
		const c = document.querySelector('#canvas-keys');
		const px = c.getContext('2d').getImageData(0, 12, c.width, 1).data;
		for (let i = 0; i < px.length; i += 4) if (px[i+3] && (px[i] !== px[0] || px[i+1] !== px[1] || px[i+2] !== px[2])) return true;
		return false;
	})()`)
	if !drawn {
		t.Error("the newest row of the key heat map is not drawn")
	}
}

// TestForceFork clicks another token in the distribution: the session forks.
func TestForceFork(t *testing.T) {
	tab := openPage(t, "/")
	click(tab, `#bars .bar[data-token="5"]`) // "mat" instead of "sat"
	// The KV card writes its rows itself; go-app's diff writes the text a
	// moment later, so both are waited for.
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '3' && document.querySelector('#text').textContent === 'The cat mat'`)
	if n := evaluate[int](tab, `document.querySelectorAll('#tokens .tok.forced').length`); n != 1 {
		t.Errorf("%d forced tokens marked, want 1", n)
	}
}

// TestPhoneAndDark checks the page at 375 px in dark mode: nothing wider
// than the screen, and dark colours in use.
func TestPhoneAndDark(t *testing.T) {
	tab := openPageAs(t, "/", screen{width: 375, height: 800, dark: true})
	if w := evaluate[int](tab, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("page is %d px wide at a 375 px screen", w)
	}
	bg := evaluate[string](tab, `getComputedStyle(document.body).backgroundColor`)
	if bg == "rgb(247, 247, 245)" || bg == "rgb(255, 255, 255)" {
		t.Errorf("dark mode background is %s", bg)
	}
	saveScreenshot(t, tab, "phone-dark.png")
}

// saveScreenshot keeps a full-page picture of a view for people to review.
func saveScreenshot(t *testing.T, tab context.Context, name string) {
	png := must(tab, "screenshot", chromedp.FullScreenshot(100)) // quality 100 gives a PNG
	if err := os.MkdirAll(artifactsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(artifactsDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestPromptAndModels edits the prompt (prefill runs again), types a word
// the toy vocabulary lacks (a message, the last good state stays), and
// switches models.
func TestPromptAndModels(t *testing.T) {
	tab := openPage(t, "/")
	setInput(tab, "#prompt", "The cat sat")
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '3' && document.querySelectorAll('#tokens .tok.prompt').length === 3`)
	if got := text(tab, "#choice"); got != "on" {
		t.Errorf("after \"The cat sat\" the choice is %q, want on", got)
	}
	setInput(tab, "#prompt", "The dog")
	waitFor(tab, `document.querySelector('#prompt-error') !== null`)
	if got := text(tab, "#prompt-error"); !strings.Contains(got, `"dog"`) {
		t.Errorf("prompt error %q", got)
	}
	if got := text(tab, "#kv-rows"); got != "3" {
		t.Errorf("a bad prompt changed the session: %s KV rows", got)
	}

	setInput(tab, "#model", "stories260K")
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '5'`) // BOS + "Once upon a time"
	setInput(tab, "#model", "logits")
	waitFor(tab, `document.querySelector('#add-token') !== null`)
	setInput(tab, `#logits tr[data-token="2"] input.name`, "rested")
	waitFor(tab, `document.querySelector('#bars .bar.chosen .bar-label')?.textContent === 'rested'`)
	click(tab, "#add-token")
	waitFor(tab, `document.querySelectorAll('#softmax tr[data-token]').length === 7`)
	click(tab, `#logits tr[data-token="0"] button.remove`)
	waitFor(tab, `document.querySelectorAll('#softmax tr[data-token]').length === 6`)
	logits := append([]float64(nil), workedExample[1:]...)
	logits = append(logits, 0)
	for id, p := range softmaxOf(logits) {
		if got := text(tab, probCell(id)); got != displayed(p) {
			t.Errorf("after removing The and adding a token, p of %d = %q, want %q", id, got, displayed(p))
		}
	}
}

// TestSamplerSettings switches to sampling and types settings, good and bad.
func TestSamplerSettings(t *testing.T) {
	tab := openPage(t, "/")
	setInput(tab, "#decoding", "sample")
	waitFor(tab, `document.querySelector('#set-temperature') !== null`)
	setInput(tab, "#set-temperature", "2")
	waitFor(tab, `document.querySelector('#draw-u') !== null && document.querySelector('#softmax').textContent.includes('T = 2')`)
	scaled := make([]float64, len(workedExample))
	for i, l := range workedExample {
		scaled[i] = l / 2
	}
	for id, p := range softmaxOf(scaled) {
		if got := text(tab, probCell(id)); got != displayed(p) {
			t.Errorf("at T = 2, p of token %d = %q, want %q", id, got, displayed(p))
		}
	}
	// A bad value gets a message by its field, which gets its last good
	// value back.
	for _, tc := range []struct{ field, value, want, good string }{
		{"#set-top_p", "1.5", "from 0 to 1", "0"},
		{"#set-top_k", "2.5", "whole number", "0"},
		{"#set-seed", "0", "from 1", "42"},
		{"#set-temperature", "NaN", "not a number", "2"},
	} {
		setInput(tab, tc.field, tc.value)
		msg := `document.querySelector('` + tc.field + `').closest('.field').querySelector('.field-error')`
		waitFor(tab, msg+`?.textContent.includes(`+jsString(tc.want)+`)`)
		if got := evaluate[string](tab, `document.querySelector('`+tc.field+`').value`); got != tc.good {
			t.Errorf("%s = %q: the field holds %q, want the last good value %q", tc.field, tc.value, got, tc.good)
		}
	}
	setInput(tab, "#set-top_k", "2")
	waitFor(tab, `document.querySelector('#stages')?.textContent.includes('top-k kept 2 of 6 tokens')`)
}

// TestCompareChains opens the compare card on the runtimes' best-known
// disagreement, min-p before or after the temperature, switches chain B to
// Hugging Face and back, and opens the compare embed.
func TestCompareChains(t *testing.T) {
	const link = "model=logits&logits=2,1,0&vocab=a,b,c&temperature=2&min_p=0.3"
	tab := openPage(t, "/?"+link)
	if n := evaluate[int](tab, `document.querySelectorAll('#compare .chain').length`); n != 0 {
		t.Errorf("the closed compare card shows %d chains", n)
	}
	click(tab, "#compare summary")
	waitFor(tab, `document.querySelector('#compare-tv') !== null`)
	chain := func(name string) string {
		return evaluate[string](tab, `document.querySelector('#compare .chain[data-chain="`+name+`"]').textContent`)
	}
	if got := chain("chain"); !strings.Contains(got, "min-p: 3 kept") {
		t.Errorf("nexttoken's chain: %q", got)
	}
	if got := chain("llama.cpp"); !strings.Contains(got, "min-p: 2 kept, removed 1") {
		t.Errorf("llama.cpp's chain: %q", got)
	}
	if got := text(tab, "#compare-tv"); got != "0.1863" {
		t.Errorf("total variation %q, want 0.1863", got)
	}
	setInput(tab, "#compare-b", "hf")
	waitFor(tab, `document.querySelector('#compare .chain[data-chain="hf"]') !== null`)
	if got := chain("hf"); !strings.Contains(got, "MinPLogitsWarper: 3 kept") {
		t.Errorf("Hugging Face's chain: %q", got)
	}
	// A histogram of a thousand draws from each chain.
	click(tab, "#compare-draws")
	waitFor(tab, `document.querySelector('#compare table')?.textContent.includes('drawn in B')`)
	// llama.cpp with the reader's own stages: top-k (off, as the session's
	// is), then the temperature, and no min-p: all three tokens stay.
	setInput(tab, "#compare-b", "edskypmxt")
	waitFor(tab, `document.querySelector('#compare-b-seq') !== null`)
	setInput(tab, "#compare-b-seq", "kt")
	waitFor(tab, `document.querySelector('#compare .chain[data-chain="kt"]')?.textContent.includes('temp-ext: 3 kept')`)
	// A new temperature applies to the step on display, the next one: the
	// card follows.
	setInput(tab, "#set-temperature", "1")
	waitFor(tab, `document.querySelector('#compare-tv')?.textContent !== '0.1863'`)

	embed := openPage(t, "/?embed=1&view=compare&"+link)
	waitFor(embed, `document.querySelector('#compare-tv')?.textContent === '0.1863'`)

	// The share link and the address bar carry the chains: the link opens
	// the card on nexttoken's chain and kt.
	drawn(tab)
	shared := evaluate[string](tab, `(u => u.pathname + u.search + u.hash)(new URL(document.querySelector('#share-url').value))`)
	waitFor(tab, `location.pathname + location.search + location.hash === `+strconv.Quote(shared))
	again := openPage(t, shared)
	waitFor(again, `document.querySelector('#compare .chain[data-chain="chain"]') !== null && `+
		`document.querySelector('#compare .chain[data-chain="kt"]')?.textContent.includes('3 kept')`)

	// So does the readable form, in the page and in an embed.
	for _, path := range []string{"/?" + link + "&view=compare&compare=chain,hf", "/?embed=1&view=compare&" + link + "&compare=chain,hf"} {
		page := openPage(t, path)
		waitFor(page, `document.querySelector('#compare .chain[data-chain="hf"]')?.textContent.includes('MinPLogitsWarper: 3 kept')`)
	}
}

// TestCompareStageEditor reorders and switches llama.cpp's stages on the
// compare card: a stage switched on, one dragged onto another, one
// switched off, each running the chain its letters now spell.
func TestCompareStageEditor(t *testing.T) {
	tab := openPage(t, "/?model=logits&logits=2,1,0&vocab=a,b,c&temperature=2&min_p=0.3&compare=chain,kt")
	chain := func(seq string) string { return `document.querySelector('#compare .chain[data-chain="` + seq + `"]')` }
	waitFor(tab, chain("kt")+` !== null`)
	click(tab, `#compare-b-stages button[title="switch min-p on"]`)
	// min-p at temperature 1, before the temperature, as llama.cpp does.
	waitFor(tab, chain("kmt")+`?.textContent.includes('min-p: 2 kept')`)
	// Drag temperature (the third) onto top-k (the first): the DragEvents
	// a reader's mouse makes, dispatched with one DataTransfer.
	evaluate[bool](tab, `(() => {
		const chips = document.querySelectorAll('#compare-b-stages li[draggable="true"]');
		const dt = new DataTransfer();
		const fire = (type, el) => el.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: dt}));
		fire('dragstart', chips[2]); fire('dragover', chips[0]); fire('drop', chips[0]); fire('dragend', chips[2]);
		return true;
	})()`)
	// Temperature first: min-p sees T = 2's flatter distribution and keeps all three.
	waitFor(tab, chain("tkm")+`?.textContent.includes('min-p: 3 kept')`)
	if got := evaluate[string](tab, `document.querySelector('#compare-b-seq').value`); got != "tkm" {
		t.Errorf("the letters field says %q after the drag, want tkm", got)
	}
	click(tab, `#compare-b-stages button[title="switch top-k off"]`)
	waitFor(tab, chain("tm")+` !== null`)
	click(tab, `#compare-b-stages li[data-stage="m"] button[title="earlier"]`)
	waitFor(tab, chain("mt")+`?.textContent.includes('min-p: 2 kept')`)
}

// TestSamplerRuntimes chooses llama.cpp's and Hugging Face's chains in the
// decoding select: each sets the settings to its runtime's defaults, shown
// in the fields, and the steps are taken with that chain.
func TestSamplerRuntimes(t *testing.T) {
	tab := openPage(t, "/?model=stories260K")
	field := func(name string) string { return `document.querySelector('#set-` + name + `')?.value` }
	setInput(tab, "#decoding", "llama.cpp")
	waitFor(tab, field("temperature")+` === '0.8' && `+field("top_k")+` === '40' && `+field("top_p")+` === '0.95' && `+field("min_p")+` === '0.05'`)
	waitFor(tab, `document.querySelector('#stages')?.textContent.includes('temp-ext')`)
	// llama.cpp's own stages: mirostat 2 takes its tau and eta defaults.
	if got := evaluate[bool](tab, `document.querySelector('#set-mirostat') !== null && document.querySelector('#set-dry_multiplier') !== null`); !got {
		t.Errorf("llama.cpp mode shows no mirostat or DRY fields")
	}
	setInput(tab, "#set-mirostat", "2")
	waitFor(tab, field("mirostat_tau")+` === '5' && `+field("mirostat_eta")+` === '0.1' && document.querySelector('#stages')?.textContent.includes('mirostat')`)
	// llama.cpp's stages in an order of the reader's: letters it has no
	// stage for are refused by the field.
	// Two changes in one go, before go-app draws the first: the second
	// handler must build on the first (it once read the card's stale copy
	// and put mirostat back).
	evaluate[bool](tab, `(() => {
		for (const [id, v] of [["#set-mirostat", "0"], ["#set-sequence", "kq"]]) {
			const el = document.querySelector(id);
			el.value = v;
			el.dispatchEvent(new Event("change", {bubbles: true}));
		}
		return true;
	})()`)
	waitFor(tab, `document.querySelector('#set-sequence')?.parentElement.textContent.includes("'q'")`)
	setInput(tab, "#set-sequence", "tk")
	waitFor(tab, `(t => t.indexOf('temp-ext') >= 0 && t.indexOf('temp-ext') < t.indexOf('top-k'))(document.querySelector('#stages')?.textContent ?? '')`)
	setInput(tab, "#decoding", "hf")
	// Hugging Face's own defaults: its top-p is off at 1.
	waitFor(tab, field("temperature")+` === '1' && `+field("top_k")+` === '50' && `+field("top_p")+` === '1'`)
	if got := evaluate[bool](tab, `document.querySelector('#set-mirostat') === null`); !got {
		t.Errorf("Hugging Face mode shows llama.cpp's mirostat field")
	}
	waitFor(tab, `document.querySelector('#stages')?.textContent.includes('TopKLogitsWarper')`)
	// The address bar follows a moment later.
	waitFor(tab, `location.search.includes('sampler=hf') || location.hash.startsWith('#s1.')`)
}
