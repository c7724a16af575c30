//go:build !js

package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Browser tests of the share panel's embed code, pasted into a page of
// another origin as a documentation writer would.

// TestEmbedCodeChoices: the panel's theme and column width change the
// snippet, and its height is the preview's at the chosen width.
func TestEmbedCodeChoices(t *testing.T) {
	tab := openPage(t, "/?model=toy&prompt=The%20cat&steps=3")
	openSharePanel(tab)
	setInput(tab, "#embed-view", "tokens")
	code := func() string { return evaluate[string](tab, `document.querySelector('#embed-code').value`) }
	waitFor(tab, `document.querySelector('#embed-code').value.includes('view=tokens')`)
	if c := code(); strings.Contains(c, "theme=") || !strings.Contains(c, `width="720"`) {
		t.Errorf("the default snippet has a theme or is not 720 px wide:\n%s", c)
	}
	setInput(tab, "#embed-theme", "dark")
	waitFor(tab, `document.querySelector('#embed-code').value.includes('theme=dark') &&
		document.querySelector('#embed-preview').src.includes('theme=dark')`)
	for _, width := range []string{"360", "960"} {
		setInput(tab, "#embed-width", width)
		// The snippet's height is the one the preview, as wide as the
		// column, reports.
		waitFor(tab, `(() => {
			const p = document.querySelector('#embed-preview'), c = document.querySelector('#embed-code')?.value ?? '';
			return p?.clientWidth === `+width+` && p.contentDocument?.querySelector('#playground[data-ready="true"][data-painted]') &&
				c.includes('width="`+width+`"') && c.includes('theme=dark') &&
				Math.abs(/height="(\d+)"/.exec(c)?.[1] - p.contentDocument.body.getBoundingClientRect().height) <= 1;
		})()`)
	}
	if c := code(); strings.Contains(c, "<script") {
		t.Errorf("the snippet has a script unasked:\n%s", c)
	}
}

// openSharePanel opens the share panel and brings its embed preview into
// view, as a reader looking at it does: an embed's frame starts its
// program when it comes near the viewport (web/boot.js).
func openSharePanel(tab context.Context) {
	click(tab, "#share summary")
	waitFor(tab, `document.querySelector('#embed-preview') !== null`)
	evaluate[bool](tab, `(document.querySelector('#embed-preview').scrollIntoView({block: "nearest"}), true)`)
}

// TestEmbedWidthTyped types a column width of the writer's own into the
// share panel: the preview is that wide, and the snippet says that width
// and the height the preview reported at it. A half-typed width moves
// nothing; a bad one is explained by the field and loses nothing.
func TestEmbedWidthTyped(t *testing.T) {
	tab := openPage(t, "/?model=toy&prompt=The%20cat&steps=3")
	openSharePanel(tab)
	typeWidth := func(keys string) {
		t.Helper()
		must(tab, "typing "+keys, chromedp.Steps(
			chromedp.Focus(chromedp.CSS("#embed-width")),
			chromedp.Evaluate[chromedp.Void](`document.querySelector('#embed-width').select()`),
			chromedp.SendKeys(chromedp.CSS("#embed-width"), keys),
		))
	}
	// The preview as wide as the column, its document laid out at that
	// width, and the snippet with that width and the height it reports.
	fits := func(width string) string {
		return `(() => {
			const p = document.querySelector('#embed-preview'), c = document.querySelector('#embed-code').value;
			return p?.clientWidth === ` + width + ` && p.contentDocument?.documentElement?.clientWidth === ` + width + ` &&
				p.contentDocument.querySelector('#playground[data-ready="true"]') &&
				document.querySelector('#embed-width').value === '` + width + `' &&
				c.includes('width="` + width + `"') &&
				Math.abs(/height="(\d+)"/.exec(c)[1] - p.contentDocument.body.getBoundingClientRect().height) <= 1;
		})()`
	}
	waitFor(tab, fits("720"))

	// Half typed, the width moves nothing and is not yet an error. The
	// panel takes another choice after the keys, so it has handled them.
	typeWidth("55")
	setInput(tab, "#embed-theme", "dark")
	waitFor(tab, `document.querySelector('#embed-code').value.includes('theme=dark')`)
	if got := evaluate[[]float64](tab, `[document.querySelector('#embed-preview').clientWidth, document.querySelectorAll('#embed-width-error').length]`); got[0] != 720 || got[1] != 0 {
		t.Errorf("with 55 half typed, the preview is %v px wide and %v errors show", got[0], got[1])
	}
	typeWidth("555" + kb.Enter)
	waitFor(tab, fits("555"))
	snippet := evaluate[string](tab, `document.querySelector('#embed-code').value`)
	t.Logf("at 555 px: %s", snippet)

	for _, c := range []struct{ keys, want string }{
		{"", "Type your column's width in pixels, a whole number from 280 to 1600."},
		{"0", "0 px is too narrow: type your column's width"},
		{"-360", "-360 px is too narrow"},
		{"100000", "100000 px is too wide"},
		{"1e9", "1e9 px is too wide"},
		{"555.5", "555.5 px is not a whole number"},
		// Letters make the number field's value empty and its input bad.
		{"wide", "not a number"},
		{"1e", "not a number"},
	} {
		if c.keys == "" {
			typeWidth(kb.Delete + kb.Enter)
		} else {
			typeWidth(c.keys + kb.Enter)
		}
		waitFor(tab, `document.querySelector('#embed-width-error')?.textContent.includes(`+jsString(c.want)+`)`)
		got := evaluate[[]string](tab, `[document.querySelector('#embed-width-error').textContent, document.querySelector('#embed-width').getAttribute('aria-describedby'),
			document.querySelector('#embed-width').value, document.querySelector('#embed-code').value, String(document.querySelector('#embed-preview').clientWidth)]`)
		if !strings.HasSuffix(got[0], "The last good width, 555 px, is back.") || got[1] != "embed-width-error" {
			t.Errorf("typing %q: the error %q, described by %q", c.keys, got[0], got[1])
		}
		if got[2] != "555" || got[3] != snippet || got[4] != "555" {
			t.Errorf("typing %q lost the width: the field %q, the preview %s px, the snippet\n%s", c.keys, got[2], got[4], got[3])
		}
	}
	// A good width clears the error; a preset is one click.
	click(tab, `.presets button[value="480"]`)
	waitFor(tab, fits("480")+` && !document.querySelector('#embed-width-error') &&
		document.querySelector('.presets button[value="480"]').getAttribute('aria-pressed') === 'true'`)
}

// TestEmbedWidthWiderThanThePanel: a column wider than the panel is
// previewed at its full width, inside a strip the reader scrolls sideways,
// and the snippet's height is the one measured there.
func TestEmbedWidthWiderThanThePanel(t *testing.T) {
	tab := openPageAs(t, "/?model=toy&prompt=The%20cat&steps=3", screen{width: 800, height: 900})
	openSharePanel(tab)
	setInput(tab, "#embed-view", "tokens")
	setInput(tab, "#embed-width", "1600")
	waitFor(tab, `(() => {
		const p = document.querySelector('#embed-preview'), c = document.querySelector('#embed-code').value;
		return p?.clientWidth === 1600 && p.contentDocument?.documentElement?.clientWidth === 1600 &&
			p.contentDocument.querySelector('#playground[data-ready="true"]') && c.includes('view=tokens') && c.includes('width="1600"') &&
			Math.abs(/height="(\d+)"/.exec(c)[1] - p.contentDocument.body.getBoundingClientRect().height) <= 1;
	})()`)
	strip := evaluate[[]float64](tab, `(() => { const s = document.querySelector('#share .preview'); return [s.clientWidth, s.scrollWidth, document.documentElement.scrollWidth]; })()`)
	if strip[0] >= 1600 || strip[1] < 1600 {
		t.Errorf("the preview strip is %v px wide around %v px of preview", strip[0], strip[1])
	}
	if strip[2] > 800 {
		t.Errorf("the page is %v px wide in an 800 px window: the preview widened it", strip[2])
	}
	if hint := evaluate[string](tab, `document.querySelector('#share .preview .hint').textContent`); !strings.Contains(hint, "1600 px") || !strings.Contains(hint, "scrolls sideways") {
		t.Errorf("the preview's hint: %q", hint)
	}
}

// TestEmbedScriptResizesFrames pastes three snippets from the panel and
// one embed.js line into a page on another origin: every frame takes its
// content's height, within embedHeightSlack px.
func TestEmbedScriptResizesFrames(t *testing.T) {
	tab := openPage(t, "/?model=toy&prompt=The%20cat&steps=3")
	frames, script := snippetsWithScript(tab, "softmax", "tokens", "kv")
	host := openHost(t, strings.Join(frames, "\n")+"\n"+script)
	framesFit(host, len(frames), "after load")
}

// TestStaticEmbedScript: a static site exported for a sub-path serves
// embed.js, and its snippets, script line included, work on another
// origin.
func TestStaticEmbedScript(t *testing.T) {
	h := needBrowser(t)
	const base = "/nexttoken/"
	srv := serveStatic(t, base)
	tab := openTab(t, h.browser)
	if _, err := loadPage(tab, srv.URL+base+"index.html?model=toy&prompt=The%20cat&steps=2"); err != nil {
		t.Fatalf("the static site did not go live: %v", err)
	}
	frames, script := snippetsWithScript(tab, "tokens", "sampler")
	if want := `<script src="` + srv.URL + base + `web/embed.js" async></script>`; script != want {
		t.Fatalf("the script line is\n%s\nwant\n%s", script, want)
	}
	host := openHost(t, strings.Join(frames, "\n")+"\n"+script)
	framesFit(host, len(frames), "after load")
}

// snippetsWithScript opens the share panel of the playground in tab, asks
// for the resize script, and copies the snippet of each view: its iframe,
// and the script line, the same in every snippet.
func snippetsWithScript(tab context.Context, views ...string) (frames []string, script string) {
	t := testOf(tab)
	t.Helper()
	openSharePanel(tab)
	click(tab, "#embed-script")
	for _, view := range views {
		setInput(tab, "#embed-view", view)
		waitFor(tab, `document.querySelector('#embed-code').value.includes('view=`+view+`') && document.querySelector('#embed-code').value.includes('embed.js')`)
		frame, line, _ := strings.Cut(evaluate[string](tab, `document.querySelector('#embed-code').value`), "\n")
		if script != "" && line != script {
			t.Errorf("the snippets' script lines differ:\n%s\n%s", script, line)
		}
		frames, script = append(frames, frame), line
	}
	if !regexp.MustCompile(`^<script src="http://[^"]+/web/embed\.js" async></script>$`).MatchString(script) {
		t.Fatalf("the script line is %q", script)
	}
	return frames, script
}

// TestEmbedCodeWithoutScript pastes the panel's snippet alone into a page
// on another origin that runs no script: the embed shows at the snippet's
// fixed height, which is its content's at the column's width.
func TestEmbedCodeWithoutScript(t *testing.T) {
	tab := openPage(t, "/?model=toy&prompt=The%20cat&steps=3")
	openSharePanel(tab)
	setInput(tab, "#embed-view", "kv")
	waitFor(tab, `(() => {
		const p = document.querySelector('#embed-preview'), c = document.querySelector('#embed-code')?.value ?? '';
		return p?.contentDocument?.querySelector('#playground[data-ready="true"][data-painted]') &&
			Math.abs(/height="(\d+)"/.exec(c)?.[1] - p.contentDocument.body.getBoundingClientRect().height) <= 1;
	})()`)
	code := evaluate[string](tab, `document.querySelector('#embed-code').value`)
	if strings.Contains(code, "<script") || !strings.Contains(code, `loading="lazy"`) || !strings.Contains(code, `title="nexttoken: kv"`) {
		t.Fatalf("the snippet without the script:\n%s", code)
	}
	height, err := strconv.Atoi(regexp.MustCompile(`height="(\d+)"`).FindStringSubmatch(code)[1])
	if err != nil {
		t.Fatal(err)
	}
	host := openHost(t, code)
	if n := evaluate[int](host, `document.scripts.length`); n != 0 {
		t.Fatalf("the host page runs %d scripts", n)
	}
	content := frameValues(host, 1, `document.querySelector('#playground[data-ready="true"][data-painted]') ? `+contentHeight+`(document) : -1`)
	frame := evaluate[[]float64](host, `(() => { const r = document.querySelector('iframe').getBoundingClientRect(); return [r.width, r.height]; })()`)
	if frame[0] != 720 || frame[1] != float64(height) {
		t.Errorf("the frame is %v × %v px, the snippet says 720 × %d", frame[0], frame[1], height)
	}
	if math.Abs(content[0]-frame[1]) > embedHeightSlack {
		t.Errorf("the frame is %v px tall around %v px of content", frame[1], content[0])
	}
}

// openHost serves body as a documentation page of its own origin, a
// 720 px column, and opens it in a new tab.
func openHost(t *testing.T, body string) context.Context {
	t.Helper()
	h := needBrowser(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>a blog post</title><link rel="icon" href="data:,"></head>
<body style="margin:0"><main style="width:720px">
<p>Before the embeds.</p>
`+body+`
<p>After the embeds.</p>
</main></body></html>`)
	}))
	t.Cleanup(srv.Close)
	if strings.HasPrefix(h.url, srv.URL) {
		t.Fatalf("the host page %s has the playground's origin %s", srv.URL, h.url)
	}
	tab := openTab(t, h.browser)
	must(tab, "opening the host page", chromedp.Navigate(srv.URL+"/"))
	return tab
}

// frameValues waits until each of the n frames of the tab's page, in
// order, gives a positive value for expression, evaluated in the frame's
// own document (of another origin, out of the page's reach), and returns
// the values; it fails the test if they do not within actionTimeout.
func frameValues(tab context.Context, n int, expression string) []float64 {
	t := testOf(tab)
	t.Helper()
	deadline := time.Now().Add(actionTimeout)
	for {
		values, err := inFrames(tab, expression)
		if err == nil && len(values) != n {
			err = fmt.Errorf("%d frames, want %d", len(values), n)
		}
		if err == nil && slices.ContainsFunc(values, func(v float64) bool { return v <= 0 }) {
			err = fmt.Errorf("the frames give %v", values)
		}
		if err == nil {
			return values
		}
		if time.Now().After(deadline) {
			t.Fatalf("evaluating %s in the frames: %v", expression, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// framesFit waits for every one of the n frames of the tab's page to be
// as tall as its content (contentHeight), within embedHeightSlack px, and
// fails the test if they are not within actionTimeout.
func framesFit(tab context.Context, n int, when string) {
	t := testOf(tab)
	t.Helper()
	deadline := time.Now().Add(actionTimeout)
	for {
		content, err := inFrames(tab, `document.querySelector('#playground[data-ready="true"][data-painted]') ? `+contentHeight+`(document) : -1`)
		frames := evaluate[[]float64](tab, `[...document.querySelectorAll('iframe')].map(f => f.getBoundingClientRect().height)`)
		fit := err == nil && len(content) == n && len(frames) == n
		for i := 0; fit && i < n; i++ {
			if fit = content[i] > 0 && math.Abs(frames[i]-content[i]) <= embedHeightSlack; !fit {
				// Chromium does not lay out a frame of another origin
				// off screen, so it cannot report: a reader scrolls to it.
				evaluate[bool](tab, fmt.Sprintf(`(document.querySelectorAll('iframe')[%d].scrollIntoView(), true)`, i))
			}
		}
		if fit {
			t.Logf("%s: frames %v px tall around %v px of content", when, frames, content)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: frames %v px tall around %v px of content (%v), the page:\n%s", when, frames, content, err, evaluate[string](tab, `document.documentElement.outerHTML`))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// inFrames evaluates expression in each child frame of the tab's page, in
// an isolated world of the frame's document: it reads the frame's DOM
// whatever its origin.
func inFrames(tab context.Context, expression string) ([]float64, error) {
	tree, err := chromedp.Call(tab, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	var values []float64
	for _, child := range tree.FrameTree.ChildFrames {
		world, err := chromedp.Call(tab, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: child.Frame.ID, WorldName: "test"})
		if err != nil {
			return nil, err
		}
		v, err := chromedp.Run(tab, chromedp.Evaluate[float64](expression, func(p *runtime.EvaluateParams) { p.ContextID = world.ExecutionContextID }))
		if err != nil {
			return nil, err
		}
		values = append(values, v)
	}
	return values, nil
}
