package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"nexttoken/wasm/play"
)

// prerenderedPages are links whose pages the server prerenders, with a
// number each shows in its p column.
var prerenderedPages = []struct{ path, number string }{
	{"/", "0.8041"},
	{"/?model=stories260K&prompt=Once%20upon%20a%20time&steps=8", ""},
	{"/?embed=1&view=softmax&model=logits&vocab=The,cat,sat,on,the,mat&logits=-2.1,0.3,3.1,0.8,0.1,-0.5", "0.8041"},
	{"/?embed=1&view=all&theme=dark&model=stories260K&steps=3", ""},
}

// TestPrerenderedWithoutScripts opens prerendered pages with JavaScript
// off: no WebAssembly runs, and the page shows its session's real numbers,
// not the placeholder or go-app's loader.
func TestPrerenderedWithoutScripts(t *testing.T) {
	h := needBrowser(t)
	for _, tc := range prerenderedPages {
		t.Run(tc.path, func(t *testing.T) {
			tab := openTab(t, h.browser)
			if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
				t.Fatal(err)
			}
			must(tab, "open "+tc.path, chromedp.Navigate(h.url+tc.path))
			ps := evaluate[[]string](tab, `[...document.querySelectorAll('td.p')].filter(td => td.checkVisibility()).map(td => td.textContent)`)
			if len(ps) == 0 || !strings.Contains(strings.Join(ps, " "), tc.number) {
				t.Errorf("the p column shows %q, want numbers with %s", ps, tc.number)
			}
			for _, hidden := range []string{"#playground", "#app-wasm-loader"} {
				if evaluate[bool](tab, `document.querySelector(`+jsString(hidden)+`).checkVisibility()`) {
					t.Errorf("%s shows over the prerendered page", hidden)
				}
			}
		})
	}
}

// TestPrerenderedToLive loads prerendered pages as a reader does: real
// numbers from the first frames on, no frame without them until the page
// is live (the live page takes over without a flash, its top first), no
// layout shift, and then the prerendered copy is gone.
func TestPrerenderedToLive(t *testing.T) {
	h := needBrowser(t)
	for _, tc := range prerenderedPages {
		t.Run(tc.path, func(t *testing.T) {
			tab := openTab(t, h.browser)
			load, err := loadPage(tab, h.url+tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if load.Numbers < 0 || load.Numbers > load.Ready {
				t.Errorf("the numbers showed at %.0f ms, the page was live at %.0f ms", load.Numbers, load.Ready)
			}
			// The live page takes over; the prerendered one goes.
			waitFor(tab, `document.getElementById('prerendered') === null && document.querySelector('#playground[data-painted]') !== null`)
			waitFor(tab, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
			if gaps := evaluate[int](tab, `window.nexttokenGaps`); gaps > 0 {
				t.Errorf("%d frames between the prerendered numbers and the live page showed none", gaps)
			}
			if cls := evaluate[float64](tab, `window.nexttokenCLS`); cls > 0.05 {
				t.Errorf("layout shift %.3f, want ≤ 0.05: %s", cls, strings.Join(evaluate[[]string](tab, `window.nexttokenShifts`), "; "))
			}
		})
	}
}

// TestEmbedsBootWhenNear puts ten embeds in a host page of another
// origin, one above the other: the ones near the viewport boot, the others
// wait until scrolled to; every one shows its prerendered numbers.
func TestEmbedsBootWhenNear(t *testing.T) {
	h := needBrowser(t)
	var frames strings.Builder
	for i := range 10 {
		fmt.Fprintf(&frames, `<iframe src="%s/?embed=1&amp;view=softmax&amp;model=logits&amp;vocab=a,b,c&amp;logits=%d,1,0" height="500" style="display:block;width:600px;border:0"></iframe>`, h.url, i)
	}
	tab := openHost(t, frames.String())
	// 2 a frame that is live, 1 one that shows its numbers, 0 neither.
	const state = `document.querySelector('#playground[data-painted]') ? 2 : document.querySelector('td.p') ? 1 : 0`
	frameStates := func() []float64 {
		v, err := inFrames(tab, state)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	waitFor(tab, `new Promise(r => setTimeout(() => r(true), 200))`)
	for deadline := time.Now().Add(actionTimeout); ; time.Sleep(20 * time.Millisecond) {
		if s := frameStates(); len(s) == 10 && s[0] == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first embed did not boot: %v", frameStates())
		}
	}
	// Each frame not yet live has had the time the first took to boot.
	waitFor(tab, `new Promise(r => setTimeout(() => r(true), 1500))`)
	near := evaluate[int](tab, `[...document.querySelectorAll('iframe')].filter(f => f.getBoundingClientRect().top < innerHeight + 200).length`)
	states := frameStates()
	booted := 0
	for i, s := range states {
		if s == 2 {
			booted++
		}
		if s == 0 {
			t.Errorf("embed %d shows no numbers", i)
		}
	}
	t.Logf("%d of 10 embeds booted, %d near the viewport: %v", booted, near, states)
	if booted > near {
		t.Errorf("%d of 10 embeds booted, %d are near the viewport", booted, near)
	}
	evaluate[bool](tab, `(document.querySelectorAll('iframe')[9].scrollIntoView(), true)`)
	for deadline := time.Now().Add(actionTimeout); ; time.Sleep(20 * time.Millisecond) {
		if s := frameStates(); s[9] == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the last embed did not boot once scrolled to: %v", frameStates())
		}
	}
}

// frameLog is a page script for the top document: it records when the
// page loaded and when each frame got its src and loaded, in
// window.nexttokenFrames as [what, frame index, ms].
const frameLog = `if (window.top === window) {
	const log = window.nexttokenFrames = [];
	const index = (f) => [...document.querySelectorAll('iframe')].indexOf(f);
	addEventListener('load', () => log.push(['page', -1, performance.now()]));
	// Caught on the way down, before the frame's own listeners run.
	document.addEventListener('load', (e) => e.target.tagName === 'IFRAME' && log.push(['load', index(e.target), performance.now()]), true);
	new MutationObserver((records) => {
		for (const r of records) {
			if (r.target.tagName === 'IFRAME' && r.target.getAttribute('src')) log.push(['src', index(r.target), performance.now()]);
		}
	}).observe(document, {subtree: true, attributes: true, attributeFilter: ['src']});
}`

// TestDocsFramesLoadInOrder opens the docs page in a short window, where
// only its first frame has src: embed.js gives the others theirs (data-src)
// only once the page has loaded, one after another in the page's order,
// each once the one before has loaded, and every frame shows its session.
// With scripts off the <noscript> copies show instead, one per frame.
func TestDocsFramesLoadInOrder(t *testing.T) {
	h := needBrowser(t)
	tab := openTab(t, h.browser)
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: frameLog}); err != nil {
		t.Fatal(err)
	}
	must(tab, "size the window", chromedp.EmulateViewport(1280, 500))
	must(tab, "open the docs page", chromedp.Navigate(h.url+"/docs/"))
	n := evaluate[int](tab, `document.querySelectorAll('iframe').length`)
	waiting := evaluate[int](tab, `document.querySelectorAll('iframe[data-src]').length`)
	if n < 3 || waiting != n-1 {
		t.Fatalf("%d frames, %d with data-src: want the first with src and the others waiting", n, waiting)
	}
	waitFor(tab, `new Set(window.nexttokenFrames.filter(([what]) => what === 'load').map(([, i]) => i)).size === `+fmt.Sprint(n))
	waitFor(tab, `[...document.querySelectorAll('iframe')].every(f => f.contentDocument?.querySelector('#prerendered, #playground[data-ready="true"]'))`)
	events := evaluate[[][]any](tab, `window.nexttokenFrames`)
	at := map[string]float64{}
	for _, e := range events {
		key := fmt.Sprintf("%s %.0f", e[0], e[1])
		if _, ok := at[key]; !ok {
			at[key] = e[2].(float64)
		}
	}
	pageLoad, ok := at["page -1"]
	if !ok {
		t.Fatalf("no page load in %v", events)
	}
	for i := 1; i < n; i++ {
		src, ok := at[fmt.Sprintf("src %d", i)]
		switch {
		case !ok:
			t.Errorf("frame %d never got its src: %v", i, events)
		case src < pageLoad:
			t.Errorf("frame %d got its src at %.0f ms, before the page loaded at %.0f ms", i, src, pageLoad)
		case i > 1 && src < at[fmt.Sprintf("load %d", i-1)]:
			t.Errorf("frame %d got its src at %.0f ms, before frame %d loaded at %.0f ms", i, src, i-1, at[fmt.Sprintf("load %d", i-1)])
		}
	}

	off := openTab(t, h.browser)
	if _, err := chromedp.Call(off, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	must(off, "open the docs page without scripts", chromedp.Navigate(h.url+"/docs/"))
	waitFor(off, `document.readyState === 'complete'`)
	shown := evaluate[[]string](off, `[...document.querySelectorAll('iframe')].filter(f => f.checkVisibility()).map(f => f.contentDocument?.getElementById('prerendered')?.checkVisibility() ? f.title : f.title + ' (empty)')`)
	if len(shown) != n || strings.Contains(strings.Join(shown, ","), "empty") {
		t.Errorf("without scripts the docs page shows the frames %q, want %d with their sessions", shown, n)
	}
}

// TestEmbedRegistersNoWorker opens an embed in a fresh browser: it
// registers no service worker, whose install would download the program
// for a frame that may never start it. The playground's own page does.
func TestEmbedRegistersNoWorker(t *testing.T) {
	h := needBrowser(t)
	tab, done := coldTab(t, h)
	defer done()
	const registrations = `navigator.serviceWorker.getRegistrations().then(r => r.length)`
	if _, err := loadPage(tab, h.url+prerenderedPages[2].path); err != nil {
		t.Fatal(err)
	}
	waitFor(tab, `new Promise(r => setTimeout(() => r(true), 300))`)
	if n := evaluate[int](tab, registrations); n != 0 {
		t.Errorf("an embed registered %d service workers, want none", n)
	}
	if _, err := loadPage(tab, h.url+"/"); err != nil {
		t.Fatal(err)
	}
	waitFor(tab, registrations+` .then(n => n === 1)`)
}

// splitPage serves handler's pages, and those of requests that match in
// two parts: up to cut(body), and the rest once wait returns. A page with
// nothing to cut at (cut ≤ 0) fails the test and comes whole.
func splitPage(t *testing.T, handler http.Handler, match func(*http.Request) bool, cut func(body []byte) int, wait func()) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !match(r) {
			handler.ServeHTTP(w, r)
			return
		}
		r.Header.Del("Accept-Encoding")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		at := cut(body)
		if at <= 0 {
			t.Errorf("%s: the page has nowhere to cut", r.URL)
			at = len(body)
		}
		maps.Copy(w.Header(), rec.Header())
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(body[:at])
		w.(http.Flusher).Flush()
		wait()
		w.Write(body[at:])
	})
}

// TestPrerenderedFirstFrame serves prerendered pages slowly, as a slow
// link does: in two parts 400 ms apart, so that Chromium draws frames in
// between. No frame may show the placeholder or a part of the root:
//   - cut before the root, the placeholder must not show: the head says
//     the page is prerendered (it showed, and the root moved up over it
//     when it came: a layout shift of 0.36);
//   - cut inside the root, after the first card, no frame is drawn until
//     the root is whole (the first card alone was laid out as wide as the
//     views, then moved and folded its columns when the others came: a
//     layout shift of 0.067).
//
// TestPrerenderedToLive caught both now and then.
func TestPrerenderedFirstFrame(t *testing.T) {
	h := needBrowser(t)
	handler, err := newServer("../../web")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, before string
	}{
		{"before the root", "/?steps=2", `id="prerendered"`},
		{"after the first card", prerenderedPages[2].path, `id="softmax"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slow := splitPage(t, handler, func(r *http.Request) bool { return r.URL.Path == "/" }, func(body []byte) int {
				return bytes.LastIndex(body[:max(bytes.Index(body, []byte(tc.before)), 0)], []byte("<"))
			}, func() { time.Sleep(400 * time.Millisecond) })
			srv := httptest.NewServer(slow)
			defer srv.Close()
			tab := openTab(t, h.browser)
			const watch = `(() => {
				window.nexttokenPartFrames = [];
				const frame = () => {
					const p = document.getElementById("playground");
					if (p && !p.dataset.painted && !p.dataset.top && p.checkVisibility()) window.nexttokenPartFrames.push("the placeholder");
					else if (document.getElementById("prerendered") && !document.getElementById("` + rootEnd + `")) window.nexttokenPartFrames.push("a part of the root");
					if (!document.querySelector("#playground[data-painted]")) requestAnimationFrame(frame);
				};
				requestAnimationFrame(frame);
			})();`
			if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watch}); err != nil {
				t.Fatal(err)
			}
			if _, err := loadPage(tab, srv.URL+tc.path); err != nil {
				t.Fatal(err)
			}
			if frames := evaluate[[]string](tab, `window.nexttokenPartFrames`); len(frames) > 0 {
				t.Errorf("%d frames before the prerendered page was whole showed %q", len(frames), slices.Compact(frames))
			}
			if cls := evaluate[float64](tab, `window.nexttokenCLS`); cls > 0.05 {
				t.Errorf("layout shift %.3f, want ≤ 0.05: %s", cls, strings.Join(evaluate[[]string](tab, `window.nexttokenShifts`), "; "))
			}
			// The service worker's install fetches from the server: let it
			// finish before the server goes.
			if !play.Embedded(tc.path[2:]) {
				evaluate[bool](tab, `navigator.serviceWorker.ready.then(() => true)`)
			}
		})
	}
}

// TestStepBeforeThePageIsWhole steps the moment the live page's top shows,
// before its later parts are drawn: the step is taken, and the page, once
// whole, shows it.
func TestStepBeforeThePageIsWhole(t *testing.T) {
	h := needBrowser(t)
	tab := openTab(t, h.browser)
	const stepAtTop = `new MutationObserver((_, observer) => {
		const p = document.querySelector("#playground[data-top]");
		if (!p) return;
		observer.disconnect();
		window.nexttokenSteppedWhole = p.dataset.painted !== undefined || p.querySelector("#softmax") !== null;
		document.getElementById("step").click();
	}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-top"]});`
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: stepAtTop}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadPage(tab, h.url+"/?model=toy&prompt=The+cat"); err != nil {
		t.Fatal(err)
	}
	if whole := evaluate[any](tab, `window.nexttokenSteppedWhole`); whole != false {
		t.Fatalf("the step was not taken on the page's top alone (stepped on a whole page: %v)", whole)
	}
	waitFor(tab, `[...document.querySelectorAll("#tokens button.tok.gen")].map(b => b.textContent).join() === "sat" && document.getElementById("status")?.textContent === "1 step"`)
}

// holdProgram holds back the program's download in tab until release is
// called, web/app.wasm or web/shared/app.wasm: the server's page is all
// the reader has meanwhile.
func holdProgram(t *testing.T, tab context.Context) (release func()) {
	t.Helper()
	var mu sync.Mutex
	var held []cdpfetch.RequestID
	released := false
	let := func(id cdpfetch.RequestID) {
		if _, err := chromedp.Call(tab, cdpfetch.ContinueRequest, cdpfetch.ContinueRequestParams{RequestID: id}); err != nil {
			t.Errorf("letting app.wasm through: %v", err)
		}
	}
	go func() {
		for ev, err := range chromedp.Events(tab, cdpfetch.RequestPaused) {
			if err != nil {
				return
			}
			mu.Lock()
			if released {
				go let(ev.RequestID)
			} else {
				held = append(held, ev.RequestID)
			}
			mu.Unlock()
		}
	}()
	if _, err := chromedp.Call(tab, cdpfetch.Enable, cdpfetch.EnableParams{Patterns: []*cdpfetch.RequestPattern{{URLPattern: "*/app.wasm"}}}); err != nil {
		t.Fatal(err)
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		released = true
		for _, id := range held {
			go let(id)
		}
	}
}

// TestStepBeforeTheProgram steps on the server's page while the program
// is held back: Step and → each take a step, drawn by the server for the
// link one step on, and the address follows. A step asked for as the
// program starts is taken on the live page, which takes the page's steps
// again: it shows them all, and Undo takes them back one by one.
func TestStepBeforeTheProgram(t *testing.T) {
	h := needBrowser(t)
	tab, done := coldTab(t, h)
	defer done()
	release := holdProgram(t, tab)
	// As the program starts, the reader steps once more.
	const stepAsItStarts = `addEventListener("DOMContentLoaded", () => {
		const starting = globalThis.nexttokenStarting;
		globalThis.nexttokenStarting = () => {
			const taken = starting();
			document.querySelector("#prerendered #step").click();
			return taken;
		};
	});`
	if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: stepAsItStarts}); err != nil {
		t.Fatal(err)
	}
	must(tab, "open the page", chromedp.Navigate(h.url+"/?model=stories260K&prompt=Once"))
	const strip = `[...document.querySelectorAll("%s #tokens button.tok.gen")].map(b => b.textContent).join("|")`
	shown := func(root string, steps int) string {
		t.Helper()
		waitFor(tab, fmt.Sprintf(`(%s).split("|").filter(Boolean).length === %d`, fmt.Sprintf(strip, root), steps))
		return evaluate[string](tab, fmt.Sprintf(strip, root))
	}
	shown("#prerendered", 0)
	must(tab, "step twice", chromedp.Evaluate[any](`document.querySelector("#prerendered #step").click(); document.querySelector("#prerendered #step").click()`))
	two := shown("#prerendered", 2)
	must(tab, "press →", chromedp.Evaluate[any](`document.body.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", bubbles: true}))`))
	three := shown("#prerendered", 3)
	if !strings.HasPrefix(three, two+"|") {
		t.Errorf("the third step rewrote the first two: %q, then %q", two, three)
	}
	if got := evaluate[string](tab, `location.search`); got != "?model=stories260K&prompt=Once&steps=3" {
		t.Errorf("the address is %q after three steps on the server's page", got)
	}
	release()
	live := shown(`#playground[data-painted]`, 4)
	if !strings.HasPrefix(live, three+"|") {
		t.Errorf("the live page shows %q after the server's page showed %q", live, three)
	}
	for steps := 3; steps >= 0; steps-- {
		must(tab, "undo", chromedp.Evaluate[any](`document.querySelector("#playground #undo").click()`))
		shown(`#playground[data-painted]`, steps)
	}
	if !evaluate[bool](tab, `document.querySelector("#playground #undo").disabled`) {
		t.Error("Undo is still on after taking back every step")
	}
}

// TestTypeBeforeTheProgram types a prompt on the server's page while the
// program is held back, and steps: nothing is lost. The live page has the
// typed prompt in its field, with the focus, runs it, and takes the step
// on it; a step after an edit waits for the live page, since the server
// drew the pages of the old prompt.
func TestTypeBeforeTheProgram(t *testing.T) {
	h := needBrowser(t)
	tab, done := coldTab(t, h)
	defer done()
	release := holdProgram(t, tab)
	must(tab, "open the page", chromedp.Navigate(h.url+"/?model=toy&prompt=The+cat"))
	must(tab, "type a prompt", chromedp.Steps(
		chromedp.Focus(chromedp.CSS("#prerendered #prompt")),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#prerendered #prompt').select()`),
		chromedp.SendKeys(chromedp.CSS("#prerendered #prompt"), "The mat"),
	))
	must(tab, "step", chromedp.Evaluate[any](`document.querySelector("#prerendered #step").click()`))
	if got := evaluate[string](tab, `location.search + " " + document.querySelectorAll("#prerendered #tokens button.tok.gen").length`); got != "?model=toy&prompt=The+cat 0" {
		t.Errorf("the server's page stepped the old prompt: %s", got)
	}
	release()
	waitFor(tab, `document.querySelector("#playground[data-painted] #prompt")?.value === "The mat" && document.activeElement === document.querySelector("#playground #prompt")`)
	waitFor(tab, `(() => {
		const prompt = [...document.querySelectorAll("#playground #tokens .tok.prompt")].map(b => b.textContent).join("|");
		return prompt === "The|mat" && document.querySelectorAll("#playground #tokens button.tok.gen").length === 1;
	})()`)
}

// TestStepBeforeTheNextStepIsParsed clicks Step on the server's page
// before the parser has reached the next step's page, which the server
// sends after the root: the step waits for it, and is taken when it comes.
func TestStepBeforeTheNextStepIsParsed(t *testing.T) {
	h := needBrowser(t)
	handler, err := newServer("../../web")
	if err != nil {
		t.Fatal(err)
	}
	rest := make(chan struct{})
	held := splitPage(t, handler, func(r *http.Request) bool { return r.URL.Path == "/" && r.URL.RawQuery == "model=toy" }, func(body []byte) int {
		return bytes.Index(body, []byte(`<template id="next-step"`))
	}, func() { <-rest })
	srv := httptest.NewServer(held)
	defer srv.Close()
	var once sync.Once
	sendRest := func() { once.Do(func() { close(rest) }) }
	defer sendRest()
	tab, done := coldTab(t, h)
	defer done()
	holdProgram(t, tab) // never let through: this is the server's page alone
	// Navigate without waiting for the page's load, which waits for the rest.
	if _, err := chromedp.Call(tab, page.Navigate, page.NavigateParams{URL: srv.URL + "/?model=toy"}); err != nil {
		t.Fatal(err)
	}
	waitFor(tab, `document.querySelector("#prerendered #step")?.checkVisibility() === true`)
	must(tab, "step", chromedp.Evaluate[any](`document.querySelector("#prerendered #step").click()`))
	if n := evaluate[int](tab, `document.querySelectorAll("#prerendered #tokens button.tok.gen").length`); n != 0 {
		t.Fatalf("%d steps shown before the next step's page came", n)
	}
	sendRest()
	waitFor(tab, `document.querySelectorAll("#prerendered #tokens button.tok.gen").length === 1 && location.search === "?model=toy&steps=1"`)
}

// TestEmbedKeepsItsHeightLive opens an embed of every view: the live page
// is as tall as the prerendered one it takes over from, so the frame
// around it does not jump. (The KV card's attention lines, a hot view
// inside the card, were not prerendered: the kv embed grew by 129 px when
// the program started, and the docs page's frame with it.)
func TestEmbedKeepsItsHeightLive(t *testing.T) {
	h := needBrowser(t)
	const heights = `(() => {
		const frame = () => {
			const pre = document.getElementById("prerendered");
			if (pre?.checkVisibility()) window.nexttokenPrerenderedHeight = pre.getBoundingClientRect().height;
			if (!document.querySelector("#playground[data-painted]")) requestAnimationFrame(frame);
		};
		requestAnimationFrame(frame);
	})();`
	for _, view := range play.Views {
		t.Run(view, func(t *testing.T) {
			tab := openTab(t, h.browser)
			if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: heights}); err != nil {
				t.Fatal(err)
			}
			if _, err := loadPage(tab, h.url+"/?embed=1&view="+view+"&model=stories260K&steps=2"); err != nil {
				t.Fatal(err)
			}
			waitFor(tab, `document.getElementById('prerendered') === null && document.querySelector('#playground[data-painted]') !== null`)
			got := evaluate[[]float64](tab, `[window.nexttokenPrerenderedHeight ?? -1, document.getElementById("playground").getBoundingClientRect().height]`)
			if got[0] < 0 {
				t.Fatal("no frame showed the prerendered page")
			}
			if math.Abs(got[0]-got[1]) > 1 {
				t.Errorf("the prerendered page was %.0f px tall, the live page is %.0f px", got[0], got[1])
			}
		})
	}
}
