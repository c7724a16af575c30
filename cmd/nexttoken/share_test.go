//go:build !js

package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"nexttoken/wasm/play"
)

// Browser tests of share links and embeds.

// snapshot is what a session shows: its text, its tokens, the softmax table
// and the sampler's stages of the step on display, the choice and the cache.
const snapshot = `JSON.stringify({
	text: document.querySelector('#text')?.textContent,
	tokens: document.querySelector('#tokens')?.textContent,
	softmax: document.querySelector('#softmax')?.textContent,
	stages: document.querySelector('#stages')?.textContent,
	choice: document.querySelector('#choice')?.textContent,
	kv: document.querySelector('#kv-summary')?.textContent,
})`

// TestShareLinkReproduces builds a session by hand — sampled steps, a forced
// token, an edited logit — copies its link and opens it in a fresh tab: the
// same trace, bit for bit as far as the page shows it.
func TestShareLinkReproduces(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Lily&temperature=0.9&top_p=0.95&seed=3")
	for i := range 3 {
		click(tab, "#step")
		waitFor(tab, `document.querySelector('#status').textContent === '`+[]string{"1 step", "2 steps", "3 steps"}[i]+`'`)
	}
	click(tab, `#bars .bar:nth-child(2)`) // force the second most probable token at step 4
	waitFor(tab, `document.querySelector('#status').textContent === '4 steps'`)
	setInput(tab, `#logits tr:nth-child(3) input.logit`, "30") // and make another token win the next one
	waitFor(tab, `document.querySelectorAll('#logits tr.edited').length === 1`)
	drawn(tab)
	before := evaluate[string](tab, snapshot)
	link := evaluate[string](tab, `document.querySelector('#share-url').value`)
	if !strings.Contains(link, "#") {
		t.Fatalf("share link %q carries no state", link)
	}
	waitFor(tab, `location.href === `+jsString(link)) // the address bar follows a moment later
	if n := len(link); n > 2000 {
		t.Errorf("share link is %d characters", n)
	}
	t.Logf("share link: %d characters", len(link))

	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	fresh := openPage(t, u.Path+"#"+u.EscapedFragment())
	if after := evaluate[string](fresh, snapshot); after != before {
		t.Errorf("the link opened a different session:\nbefore %s\nafter  %s", before, after)
	}
}

// TestAddressBarFollows steps and edits: the address follows the session
// without adding history entries.
func TestAddressBarFollows(t *testing.T) {
	tab := openPage(t, "/")
	history := evaluate[int](tab, `history.length`)
	start := evaluate[string](tab, `location.hash`)
	click(tab, "#step")
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '3'`)
	click(tab, "#step")
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '4'`)
	waitFor(tab, `location.hash !== '' && location.hash !== `+jsString(start))
	if n := evaluate[int](tab, `history.length`); n != history {
		t.Errorf("history grew from %d to %d entries", history, n)
	}
}

// TestHostileLinks opens broken fragments: each shows its message over the
// default session.
func TestHostileLinks(t *testing.T) {
	for _, tc := range []struct{ name, fragment string }{
		{"garbage", "#s1.%%%not-a-state"},
		{"unknown version", "#s9.AAAA"},
		{"truncated", "#s1.A"},
		{"huge", "#s1." + strings.Repeat("A", 100_000)},
	} {
		t.Run(tc.name, func(t *testing.T) { opensDefaultSaying(t, "/"+tc.fragment, "The share link") })
	}
}

// TestEmbedViews opens each view compact: no page header, the view itself,
// and a link to the full playground with the same session.
func TestEmbedViews(t *testing.T) {
	for _, tc := range []struct{ view, selector string }{
		{"softmax", "#softmax"},
		{"kv", "#kv-rows"},
		{"tokens", "#tokens"},
		{"sampler", "#sampler"},
		{"all", "#kv-rows"},
	} {
		t.Run(tc.view, func(t *testing.T) {
			tab := openPage(t, "/?embed=1&view="+tc.view+"&model=toy&prompt=The%20cat&steps=1")
			if n := evaluate[int](tab, `document.querySelectorAll('main.embed `+tc.selector+`').length`); n != 1 {
				t.Errorf("%s: %d of %s", tc.view, n, tc.selector)
			}
			if n := evaluate[int](tab, `document.querySelectorAll('#model, #share').length`); n != 0 {
				t.Errorf("%s: the embed shows the page's header or share panel", tc.view)
			}
			href := evaluate[string](tab, `document.querySelector('#open-full').href`)
			if !strings.Contains(href, "#") || evaluate[string](tab, `document.querySelector('#open-full').target`) != "_blank" {
				t.Errorf("%s: open link %q", tc.view, href)
			}
		})
	}
}

// TestEmbedBadParameter opens embeds whose embed, view or theme is wrong:
// each says what is wrong, in a small page with a link to the session in
// the full playground, not the playground with its header.
func TestEmbedBadParameter(t *testing.T) {
	for _, tc := range []struct{ query, says string }{
		{"embed=yes&view=tokens", "embed, “yes”, is not 0 or 1"},
		{"embed=1&view=tokenz", "view, “tokenz”, is not one of"},
		{"embed=1&view=tokens&theme=purple", "theme, “purple”, is not one of"},
		{"embed=1&embed=1&view=tokens", "embed, “1”, cannot be used (given more than once)"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			tab := openPage(t, "/?"+tc.query+"&model=toy&prompt=The%20cat&steps=1")
			if got := evaluate[string](tab, `document.querySelector('main.embed #embed-error')?.textContent ?? ''`); !strings.Contains(got, tc.says) {
				t.Errorf("the embed says %q, want it to say %q", got, tc.says)
			}
			if n := evaluate[int](tab, `document.querySelectorAll('#model, #share, #step, #tokens, .card').length`); n != 0 {
				t.Errorf("the embed shows %d parts of the playground", n)
			}
			if href := evaluate[string](tab, `document.querySelector('#open-full')?.href ?? ''`); !strings.Contains(href, "#") {
				t.Errorf("the link to the full playground is %q", href)
			}
		})
	}
}

// TestDocsPage opens the documentation page: every embed renders, takes the
// height it reports, and links back to the full playground.
func TestDocsPage(t *testing.T) {
	h := needBrowser(t)
	tab := openTab(t, h.browser)
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: readyObserver}); err != nil {
		t.Fatal(err)
	}
	must(tab, "opening the docs page", chromedp.Navigate(h.url+"/docs/"))
	n := evaluate[int](tab, `document.querySelectorAll('iframe').length`)
	if n < 3 {
		t.Fatalf("%d embeds, want at least 3", n)
	}
	// The frames load in reading order (embed.js) and boot when they come
	// near the viewport: bring each into view, and see it live, its height
	// from its own report, and the height the page gave it before within
	// 32 px of that: the page holds the embed's place.
	for i := range n {
		frame := fmt.Sprintf(`document.querySelectorAll('iframe')[%d]`, i)
		evaluate[bool](tab, `(`+frame+`.scrollIntoView(), true)`)
		waitFor(tab, `(f => f.contentDocument?.querySelector('#playground[data-ready="true"][data-painted]') &&
			f.style.height !== '' &&
			Math.abs(parseInt(f.style.height) - Math.ceil(f.contentDocument.body.getBoundingClientRect().height)) <= 1)(`+frame+`)`)
		if heights := evaluate[[]float64](tab, `(f => [Number(f.getAttribute('height')), parseInt(f.style.height), f.clientWidth])(`+frame+`)`); math.Abs(heights[0]-heights[1]) > 32 {
			t.Errorf("embed %d (%s): the page gives it %v px, its content is %v px tall at %v px wide", i,
				evaluate[string](tab, frame+`.title`), heights[0], heights[1], heights[2])
		}
	}
	if cls := evaluate[float64](tab, `window.nexttokenCLS`); cls > 0.05 {
		t.Errorf("the page's layout shifted %.3f as its embeds loaded, want ≤ 0.05: %q", cls, evaluate[[]string](tab, `window.nexttokenShifts`))
	}
	links := evaluate[[]string](tab, `[...document.querySelectorAll('iframe')].map(f => f.contentDocument.querySelector('#open-full')?.href ?? '')`)
	for i, l := range links {
		if !strings.Contains(l, "#") {
			t.Errorf("embed %d links to %q", i, l)
		}
	}
	if got := evaluate[string](tab, `document.querySelector('iframe').contentDocument.querySelector('#bars .bar.chosen .bar-label').textContent`); got != "sat" {
		t.Errorf("the softmax embed chose %q", got)
	}
	// The runtimes' section: min-p before the temperature keeps two tokens
	// in llama.cpp, three in nexttoken's chain.
	llama := evaluate[string](tab, `document.querySelector('iframe[title="nexttoken: compare"]').contentDocument.querySelector('#compare .chain[data-chain="llama.cpp"]')?.textContent ?? ''`)
	if !strings.Contains(llama, "min-p: 2 kept") {
		t.Errorf("the compare embed's llama.cpp chain: %q", llama)
	}
}

// openDocs opens a page that is not the playground, such as the
// documentation page, and waits for it to load.
func openDocs(t *testing.T, path string) context.Context {
	t.Helper()
	h := needBrowser(t)
	tab := openTab(t, h.browser)
	must(tab, "opening "+path, chromedp.Navigate(h.url+path))
	return tab
}

// TestEmbedHeights embeds every view, light and dark, in a host page with
// the snippet's listener (the docs page's embed.js) and holds each frame's
// height to its content's, measured inside the frame, within
// embedHeightSlack px: after load, after six steps, after Reset, and after
// the host makes the frame taller. A view without step buttons moves
// through its link instead.
func TestEmbedHeights(t *testing.T) {
	for _, view := range play.Views {
		for _, theme := range []string{"light", "dark"} {
			t.Run(view+"/"+theme, func(t *testing.T) {
				h := needBrowser(t)
				tab := openTab(t, h.browser)
				_, err := chromedp.Call(tab, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: theme}}})
				if err != nil {
					t.Fatal(err)
				}
				must(tab, "opening /docs/", chromedp.Navigate(h.url+"/docs/"))
				src := func(steps int) string {
					return jsString(fmt.Sprintf("../?embed=1&view=%s&theme=%s&model=toy&prompt=The%%20cat&steps=%d", view, theme, steps))
				}
				// The snippet's frame, at the height it writes before the
				// embed reports one.
				evaluate[bool](tab, `(() => {
					document.querySelectorAll('iframe').forEach(f => f.remove());
					const f = document.createElement('iframe');
					f.id = 'embed';
					f.style.cssText = 'width:100%;border:0';
					f.setAttribute('height', '480');
					f.src = `+src(1)+`;
					document.querySelector('main').prepend(f);
					return true;
				})()`)
				status := func() string {
					return evaluate[string](tab, `document.querySelector('#embed').contentDocument?.querySelector('#status')?.textContent ?? ''`)
				}
				settle := func(when, want string) {
					t.Helper()
					waitFor(tab, `(() => {
						const d = document.querySelector('#embed').contentDocument;
						return d?.querySelector('#playground[data-ready="true"][data-painted]') && (d.querySelector('#status')?.textContent ?? '') === `+jsString(want)+`;
					})()`)
					fits(tab, when)
				}
				waitFor(tab, `document.querySelector('#embed').contentDocument?.querySelector('#playground[data-ready="true"][data-painted]') != null`)
				if !evaluate[bool](tab, `!!document.querySelector('#embed').contentDocument.querySelector('#step')`) {
					// No step buttons: the link takes the steps.
					fits(tab, "after load")
					navigateFrame(tab, src(7))
					fits(tab, "at step 7")
					navigateFrame(tab, src(1))
					fits(tab, "back at step 1")
				} else {
					settle("after load", "1 step")
					for i := 2; i <= 7; i++ {
						evaluate[bool](tab, `(document.querySelector('#embed').contentDocument.querySelector('#step').click(), true)`)
						waitFor(tab, `document.querySelector('#embed').contentDocument.querySelector('#status')?.textContent === `+jsString(fmt.Sprintf("%d steps", i)))
					}
					settle("after Step × 6", "7 steps")
					before := status()
					evaluate[bool](tab, `(document.querySelector('#embed').contentDocument.querySelector('#reset').click(), true)`)
					waitFor(tab, `document.querySelector('#embed').contentDocument.querySelector('#status')?.textContent !== `+jsString(before))
					settle("after Reset", status())
				}
				evaluate[bool](tab, `(() => {
					const f = document.querySelector('#embed');
					f.style.height = (f.getBoundingClientRect().height + 300) + 'px';
					return true;
				})()`)
				fits(tab, "after the host made the frame 300 px taller")
			})
		}
	}
}

// TestEmbedFillsTallerFrame embeds the dark tokens view on a light system
// in a frame far taller than the view, on a host page with no script to
// resize it: below the view, the frame shows the embed's dark background,
// not the system's light one.
func TestEmbedFillsTallerFrame(t *testing.T) {
	tab := openDocs(t, "/docs/")
	// The host is a frame of its own inside the docs page, out of reach of
	// the docs page's listener.
	evaluate[bool](tab, `(() => {
		document.body.replaceChildren();
		const host = document.createElement('iframe');
		host.style.cssText = 'display:block;width:400px;height:900px;border:0';
		host.srcdoc = '<body style="margin:0"><iframe src="../?embed=1&view=tokens&theme=dark&model=toy&prompt=The%20cat&steps=1" style="display:block;width:400px;height:900px;border:0"></iframe>';
		document.body.append(host);
		return true;
	})()`)
	waitFor(tab, `document.querySelector('iframe').contentDocument?.querySelector('iframe')?.contentDocument?.querySelector('#playground[data-ready="true"][data-painted]') != null`)
	content := evaluate[float64](tab, `document.querySelector('iframe').contentDocument.querySelector('iframe').contentDocument.body.getBoundingClientRect().height`)
	if content > 800 {
		t.Fatalf("the tokens view is %v px tall: the frame is not taller", content)
	}
	shot, err := png.Decode(bytes.NewReader(must(tab, "screenshot", chromedp.FullScreenshot(100))))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := shot.At(200, 880).RGBA(); r>>8 > 64 || g>>8 > 64 || b>>8 > 64 {
		t.Errorf("below the %v px of the view, the frame is rgb(%d, %d, %d), not the dark embed's background", content, r>>8, g>>8, b>>8)
	}
}

// embedHeightSlack is how far a frame's height may be from its content's.
const embedHeightSlack = 32

// contentHeight is a JavaScript function of an embed's document: the
// height of its content, from the top of its main element to the bottom
// of its lowest child, margin and main's own padding included, whatever
// height main itself takes; -1 before there is a main element.
const contentHeight = `(d => {
	const main = d?.querySelector('main');
	if (!main) return -1;
	const top = main.getBoundingClientRect().top, style = d.defaultView.getComputedStyle(main);
	let bottom = top + parseFloat(style.paddingTop);
	for (const c of main.children) {
		const box = c.getBoundingClientRect();
		if (box.height > 0) bottom = Math.max(bottom, box.bottom + parseFloat(d.defaultView.getComputedStyle(c).marginBottom));
	}
	return bottom + parseFloat(style.paddingBottom) + parseFloat(style.borderBottomWidth) - top;
})`

// fits waits for the frame #embed to be as tall as its content
// (contentHeight, measured in the frame), give or take embedHeightSlack
// px, and fails the test if it is not within actionTimeout.
func fits(tab context.Context, when string) {
	t := testOf(tab)
	t.Helper()
	const heights = `(() => {
		const f = document.querySelector('#embed');
		return [f.getBoundingClientRect().height, ` + contentHeight + `(f.contentDocument)];
	})()`
	ctx, cancel := context.WithTimeout(tab, actionTimeout)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`(([frame, content]) => content > 0 && Math.abs(frame - content) <= `+fmt.Sprint(embedHeightSlack)+`)(`+heights+`)`,
		chromedp.WithPollingInterval(5*time.Millisecond), chromedp.WithPollingTimeout(0)))
	hs := evaluate[[]float64](tab, heights)
	if err != nil {
		t.Errorf("%s: the frame is %.0f px tall around %.0f px of content", when, hs[0], hs[1])
		return
	}
	t.Logf("%s: the frame is %.0f px tall around %.0f px of content", when, hs[0], hs[1])
}

// navigateFrame opens src in the frame #embed and waits until it is live.
func navigateFrame(tab context.Context, src string) {
	testOf(tab).Helper()
	evaluate[bool](tab, `new Promise(ok => {
		const f = document.querySelector('#embed');
		f.addEventListener('load', () => ok(true), {once: true});
		f.src = `+src+`;
	})`)
	waitFor(tab, `document.querySelector('#embed').contentDocument.querySelector('#playground[data-ready="true"][data-painted]') !== null`)
}

// TestEmbedCodeHeight opens the share panel: the embed is previewed, and
// the copied snippet's iframe has the height the preview reported, not a
// fixed guess.
func TestEmbedCodeHeight(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Lily&steps=3")
	openSharePanel(tab)
	setInput(tab, "#embed-view", "kv")
	// The preview fetches stories260K before it is ready, showing the
	// default session meanwhile: its height settles once it is.
	waitFor(tab, `document.querySelector('#embed-preview')?.contentDocument?.querySelector('#playground[data-ready="true"][data-painted]') &&
		Math.abs(/height="(\d+)"/.exec(document.querySelector('#embed-code').value)?.[1] -
			document.querySelector('#embed-preview').contentDocument.body.getBoundingClientRect().height) <= 1`)
	reported := evaluate[int](tab, `Number(/height="(\d+)"/.exec(document.querySelector('#embed-code').value)[1])`)
	// The preview's own page: its body is as tall as it said.
	body := evaluate[float64](tab, `document.querySelector('#embed-preview').contentDocument.body.getBoundingClientRect().height`)
	if reported <= 480 {
		t.Errorf("the snippet's height is %d, the kv view of stories260K is taller", reported)
	}
	if d := float64(reported) - body; d < -1 || d > 1 {
		t.Errorf("the snippet's height is %d, the embed's body %v px", reported, body)
	}
}
