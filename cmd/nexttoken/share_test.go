//go:build !js

package main

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
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

// TestDocsPage opens the documentation page: every embed renders, takes the
// height it reports, and links back to the full playground.
func TestDocsPage(t *testing.T) {
	tab := openDocs(t, "/docs/")
	n := evaluate[int](tab, `document.querySelectorAll('iframe').length`)
	if n < 3 {
		t.Fatalf("%d embeds, want at least 3", n)
	}
	// The frames load lazily, as the snippet asks: bring each into view.
	evaluate[bool](tab, `(document.querySelectorAll('iframe').forEach(f => f.scrollIntoView()), true)`)
	// Each frame is live, and its height came from its own report.
	waitFor(tab, `[...document.querySelectorAll('iframe')].every(f =>
		f.contentDocument?.querySelector('#playground[data-ready="true"]') &&
		f.style.height !== '' &&
		Math.abs(parseInt(f.style.height) - Math.ceil(f.contentDocument.body.getBoundingClientRect().height)) <= 1)`)
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

// TestEmbedHeights embeds every view in a host page with the snippet's
// listener (the docs page) and checks that each frame reports its height.
func TestEmbedHeights(t *testing.T) {
	tab := openDocs(t, "/docs/")
	evaluate[bool](tab, `(() => {
		document.querySelectorAll('iframe').forEach(f => f.remove());
		for (const view of `+"['softmax', 'kv', 'tokens', 'sampler', 'all']"+`) {
			const f = document.createElement('iframe');
			f.src = '../?embed=1&view=' + view + '&model=toy&prompt=The%20cat&steps=1';
			f.dataset.view = view;
			f.setAttribute('height', '50');
			document.querySelector('main').append(f);
		}
		return true;
	})()`)
	waitFor(tab, `[...document.querySelectorAll('iframe')].every(f =>
		f.contentDocument?.querySelector('#playground[data-ready="true"]') && f.style.height !== '' &&
		Math.abs(parseInt(f.style.height) - Math.ceil(f.contentDocument.body.getBoundingClientRect().height)) <= 1)`)
	heights := evaluate[map[string]string](tab, `Object.fromEntries([...document.querySelectorAll('iframe')].map(f => [f.dataset.view, f.style.height]))`)
	t.Logf("reported heights: %v", heights)
}

// TestEmbedCodeHeight opens the share panel: the embed is previewed, and
// the copied snippet's iframe has the height the preview reported, not a
// fixed guess.
func TestEmbedCodeHeight(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Lily&steps=3")
	click(tab, "#share summary")
	setInput(tab, "#embed-view", "kv")
	// The preview fetches stories260K before it is ready, showing the
	// default session meanwhile: its height settles once it is.
	waitFor(tab, `document.querySelector('#embed-preview')?.contentDocument?.querySelector('#playground[data-ready="true"]') &&
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
