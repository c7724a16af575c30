//go:build !js

package main

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// firstPageLimit is what the first page may cost on the wire: the worked
// example and the toy model, with no other model (issue 10).
const firstPageLimit = 2_000_000

// TestFirstPageBytes opens the playground as a first-time reader does and
// adds up every byte that came over the network: the page, its scripts,
// its styles and app.wasm, brotli-compressed. No model is fetched.
func TestFirstPageBytes(t *testing.T) {
	tab := openPage(t, "/")
	type resource struct {
		Name     string  `json:"name"`
		Bytes    float64 `json:"bytes"`
		Encoding string  `json:"encoding"`
	}
	all := evaluate[[]resource](tab, `[...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")].
		map(e => ({name: new URL(e.name).pathname, bytes: e.transferSize, encoding: e.contentEncoding ?? ""}))`)
	var total float64
	for _, r := range all {
		total += r.Bytes
		if strings.Contains(r.Name, "/web/models/") {
			t.Errorf("the first page fetched %s", r.Name)
		}
		t.Logf("%-28s %9.0f bytes %s", r.Name, r.Bytes, r.Encoding)
	}
	t.Logf("the first page: %.0f bytes on the wire", total)
	if total > firstPageLimit {
		t.Errorf("the first page cost %.0f bytes, more than %d", total, firstPageLimit)
	}
}

// TestModelFetch opens stories260K, which app.wasm does not hold: the page
// fetches its files from web/models, keeps them in Cache Storage, and a
// second visit reads them from there, with no download.
func TestModelFetch(t *testing.T) {
	tab := openPage(t, "/")
	evaluate[bool](tab, `caches.delete("nexttoken-models").then(() => true)`)
	const link = "/?model=stories260K&prompt=Once+upon+a+time&steps=3"
	for visit, wantDownload := range []bool{true, false} {
		tab := openPage(t, link) // ready only once the model is in
		waitFor(tab, `document.querySelector("#model").value === "stories260K" && document.querySelectorAll("#tokens .tok.gen").length === 3`)
		fetched := evaluate[bool](tab, `performance.getEntriesByType("resource").some(e => e.name.endsWith("/web/models/stories260K.bin"))`)
		if fetched != wantDownload {
			t.Errorf("visit %d: downloaded stories260K.bin: %v, want %v", visit+1, fetched, wantDownload)
		}
	}
	cached := evaluate[[]string](tab, `caches.open("nexttoken-models").then(c => c.keys()).then(ks => ks.map(r => new URL(r.url).pathname))`)
	if strings.Join(cached, " ") != "/web/models/stories260K.bin /web/models/tok512.bin" {
		t.Errorf("Cache Storage holds %v", cached)
	}
}

// TestModelFetchProgress opens a link to stories260K on a slow network:
// the page shows the download's progress, and the address keeps the link
// meanwhile; Cancel stops it, leaving the toy model's session. Chosen in
// the model picker on a fast network, the model comes in.
func TestModelFetchProgress(t *testing.T) {
	tab := openPage(t, "/")
	evaluate[bool](tab, `caches.delete("nexttoken-models").then(() => true)`)
	// 100 kB/s: stories260K's 1 MB takes ten seconds.
	throttle := func(bytesPerSecond float64) {
		rule := network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: []*network.Conditions{{
			URLPattern: needBrowser(t).url + "/web/models/*", Latency: 20, DownloadThroughput: bytesPerSecond, UploadThroughput: -1}}}
		if _, err := chromedp.Call(tab, network.EmulateNetworkConditionsByRule, rule); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	throttle(100_000)
	const link = "/?model=stories260K&prompt=Once+upon+a+time"
	must(tab, "navigate", chromedp.Navigate(needBrowser(t).url+link))
	waitFor(tab, `document.querySelector("#loading progress")?.value > 0`)
	if got := text(tab, "#loading"); !strings.Contains(got, "Loading TinyStories 260K:") || !strings.Contains(got, "of 1.0 MiB") || !strings.Contains(got, "s left") {
		t.Errorf("the progress says %q", got)
	}
	if got := evaluate[string](tab, `document.querySelector("#playground").dataset.ready + " " + location.search`); got != "false ?model=stories260K&prompt=Once+upon+a+time" {
		t.Errorf("while loading, the page's ready and address are %q", got)
	}
	// A click by script: the banner redraws its progress ten times a
	// second, which chromedp's node lookup does not survive.
	evaluate[bool](tab, `(document.querySelector("#loading-cancel").click(), true)`)
	waitFor(tab, `document.querySelector("#loading") === null && document.querySelector("#notice")?.textContent.includes("Stopped loading TinyStories 260K")`)
	if got := evaluate[string](tab, `document.querySelector("#model").value`); got != "toy" {
		t.Errorf("after Cancel the model picker says %q, want toy", got)
	}
	waitFor(tab, `!location.search.includes("stories260K")`) // the address follows the toy session again
	throttle(-1)
	setInput(tab, "#model", "stories260K")
	waitFor(tab, `document.querySelector("#loading") === null && document.querySelector("#tokens")?.textContent.startsWith("∅Once␣upon␣a␣time")`)
}
