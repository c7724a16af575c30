//go:build !js

package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestTiming measures how long the playground takes to go live after a
// navigation: cold, in a fresh browser profile, then warm, navigating again
// in the same tab (HTTP cache, go-app's service worker, V8's code cache).
// Each round starts a fresh Chromium per build. It is a measurement, not a
// test: make timing runs it, with NEXTTOKEN_TIMING=1 (and
// NEXTTOKEN_TIMING_ROUNDS, default 5).
func TestTiming(t *testing.T) {
	needTiming(t, "cold start", "warm start")
	rounds := timingRounds(5)
	h := needBrowser(t)
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	for range rounds {
		for _, b := range builds {
			tab, done := readersTab(t, h)
			for _, start := range []string{"cold start", "warm start"} {
				load, err := loadPage(tab, b.url+"/")
				if err != nil {
					done()
					t.Fatal(err)
				}
				f.add(start+": HTML received", "ms", b, load.HTML)
				f.add(start+": app.wasm received", "ms", b, load.Wasm)
				if start == "cold start" {
					f.add("cold start: app.wasm on the wire", "bytes", b, float64(load.WasmBytes))
				}
				f.add(start+": navigation → the session shown", "ms", b, load.Shown)
				f.add(start+": navigation → the live page's top (interactive)", "ms", b, load.Top)
				f.add(start+": navigation → live", "ms", b, load.Ready)
			}
			done()
		}
	}
	f.report()
}

// TestStepAtTopTiming opens the playground cold and clicks Step the moment
// the live page's top shows, while its later parts are still to be drawn:
// navigation → the top, the click → the step in the token strip (the DOM),
// and navigation → the whole page live. It is how soon a reader can act,
// and how soon the page answers then.
func TestStepAtTopTiming(t *testing.T) {
	needTiming(t, "step at the top")
	rounds := timingRounds(5)
	h := needBrowser(t)
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	// On a build without data-top (a baseline), the click waits for the
	// page to be painted whole.
	const stepAtTop = `new MutationObserver((_, observer) => {
		if (!document.querySelector("#playground[data-top], #playground[data-painted]")) return;
		observer.disconnect();
		window.nexttokenClicked = performance.now();
		document.getElementById("step").click();
		const shown = new MutationObserver(() => {
			if (!document.querySelector("#tokens button.tok.gen")) return;
			shown.disconnect();
			window.nexttokenStepShown = performance.now();
		});
		shown.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
	}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-top", "data-painted"]});`
	for range rounds {
		for _, b := range builds {
			tab, done := readersTab(t, h)
			if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: stepAtTop}); err != nil {
				done()
				t.Fatal(err)
			}
			load, err := loadPage(tab, b.url+"/")
			if err != nil {
				done()
				t.Fatal(err)
			}
			waitFor(tab, `window.nexttokenStepShown !== undefined`)
			f.add("step at the top: navigation → the click", "ms", b, evaluate[float64](tab, `window.nexttokenClicked`))
			f.add("step at the top: the click → the step in the strip (DOM)", "ms", b, evaluate[float64](tab, `window.nexttokenStepShown - window.nexttokenClicked`))
			f.add("step at the top: navigation → live", "ms", b, load.Ready)
			done()
		}
	}
	f.report()
}

// TestStepAtOnceTiming opens the playground cold and clicks Step as soon
// as a frame shows it, prerendered or live: at once, as no reader can, and
// a quarter of a second later, about as soon as a reader who knows where
// it is can. How soon after the click the step shows. A build whose
// prerendered Step does nothing loses the click (steps lost: 1).
func TestStepAtOnceTiming(t *testing.T) {
	needTiming(t, "step at once")
	rounds := timingRounds(5)
	h := needBrowser(t)
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	const stepAfter = `(after) => {
		const roots = "#prerendered, #playground[data-top], #playground[data-painted]";
		const visible = (selector) => [...document.querySelectorAll(selector)].find(e => e.closest(roots) && e.checkVisibility());
		const click = () => {
			const step = visible("#step");
			if (!step) return requestAnimationFrame(click);
			window.nexttokenStepSeen ??= performance.now();
			if (performance.now() - window.nexttokenStepSeen < after) return requestAnimationFrame(click);
			window.nexttokenClicked = performance.now();
			step.click();
			const shown = () => {
				if (visible("#tokens button.tok.gen")) window.nexttokenStepShown = performance.now();
				else requestAnimationFrame(shown);
			};
			shown();
		};
		requestAnimationFrame(click);
	}`
	for range rounds {
		for _, b := range builds {
			for _, after := range []struct {
				ms   int
				name string
			}{{0, "at once"}, {250, "250 ms after it shows"}} {
				tab, done := readersTab(t, h)
				script := fmt.Sprintf("(%s)(%d)", stepAfter, after.ms)
				if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
					done()
					t.Fatal(err)
				}
				if _, err := loadPage(tab, b.url+"/"); err != nil {
					done()
					t.Fatal(err)
				}
				// Live and painted, the page shows a step it took within frames.
				waitFor(tab, `new Promise(r => setTimeout(() => r(true), 500))`)
				name := "step at once: Step clicked " + after.name
				f.add(name+": navigation → the click", "ms", b, evaluate[float64](tab, `window.nexttokenClicked`))
				if evaluate[bool](tab, `window.nexttokenStepShown !== undefined`) {
					f.add(name+": the click → the step shown", "ms", b, evaluate[float64](tab, `window.nexttokenStepShown - window.nexttokenClicked`))
					f.add(name+": steps lost", "", b, 0)
				} else {
					f.add(name+": steps lost", "", b, 1)
				}
				done()
			}
		}
	}
	f.report()
}

// TestDocsTiming opens the documentation page cold, in a fresh browser,
// and measures for each embed that loads with it (the others load as the
// reader scrolls) when it showed its session, prerendered, after the
// page's navigation; the page's layout shift up to then; and, for an
// embed that has loaded but not booted (below the viewport), how long it
// takes to be live after the reader first touches it.
func TestDocsTiming(t *testing.T) {
	needTiming(t, "docs page")
	rounds := timingRounds(5)
	h := needBrowser(t)
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	// The frames in the viewport: the first frame each showed its session
	// in, on the page's clock; -1 for one that has not yet. (A frame off
	// screen is not drawn, so it shows nothing until scrolled to.)
	const shown = `[...document.querySelectorAll('iframe')].filter(f => f.getBoundingClientRect().top < innerHeight)
		.map(f => f.contentWindow?.nexttokenShown === undefined ? -1 : f.contentWindow.performance.timeOrigin + f.contentWindow.nexttokenShown - performance.timeOrigin)`
	// scrolledTo brings frame i into view and resolves with the time until
	// it showed its session.
	const scrolledTo = `i => new Promise(resolve => {
		const f = document.querySelectorAll('iframe')[i], start = performance.now();
		f.scrollIntoView();
		const wait = () => f.contentWindow?.nexttokenShown !== undefined && f.contentWindow.performance.timeOrigin + f.contentWindow.nexttokenShown - performance.timeOrigin > start
			? resolve(f.contentWindow.performance.timeOrigin + f.contentWindow.nexttokenShown - performance.timeOrigin - start)
			: f.contentWindow?.nexttokenShown !== undefined ? resolve(0) : setTimeout(wait, 5);
		wait();
	})`
	for range rounds {
		for _, b := range builds {
			tab, done := readersTab(t, h)
			if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: readyObserver}); err != nil {
				done()
				t.Fatal(err)
			}
			// A tall window, as a reader's on a desktop: the first embeds
			// are in it.
			must(tab, "size the window", chromedp.EmulateViewport(1280, 1600))
			must(tab, "open the docs page", chromedp.Navigate(b.url+"/docs/"))
			waitWithin(tab, `(v => v.length > 0 && v.every(x => x >= 0))(`+shown+`)`, loadTimeout)
			times := evaluate[[]float64](tab, shown)
			f.add("docs page: navigation → an embed's session shown (slowest in the viewport)", "ms", b, slices.Max(times))
			f.add("docs page: layout shift up to then", "CLS", b, evaluate[float64](tab, `window.nexttokenCLS`))
			// The others, as the reader scrolls to them.
			slowest := 0.0
			for i := len(times); i < evaluate[int](tab, `document.querySelectorAll('iframe').length`); i++ {
				slowest = max(slowest, evaluate[float64](tab, fmt.Sprintf("(%s)(%d)", scrolledTo, i)))
			}
			f.add("docs page: scrolled to → an embed's session shown (slowest below the viewport)", "ms", b, slowest)
			f.add("docs page: layout shift at the end", "CLS", b, evaluate[float64](tab, `window.nexttokenCLS`))
			// An embed loaded and not booted, in a short window, the page
			// opened again (the program in the browser's cache, as after
			// the reader's first embed): the reader touches it.
			must(tab, "size the window", chromedp.EmulateViewport(1280, 600))
			must(tab, "open the docs page again", chromedp.Navigate(b.url+"/docs/"))
			waitFor(tab, `new Promise(r => setTimeout(() => r(true), 1000))`)
			touched := evaluate[float64](tab, `new Promise(resolve => {
				const f = [...document.querySelectorAll('iframe')].find(f => f.contentDocument?.getElementById('prerendered') && !f.contentDocument.querySelector('#playground[data-painted]'));
				if (!f) return resolve(-1);
				const start = performance.now();
				const wait = () => f.contentDocument.querySelector('#playground[data-painted]') ? resolve(performance.now() - start) : setTimeout(wait, 5);
				f.contentWindow.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));
				wait();
			})`)
			if touched >= 0 {
				f.add("docs page: an embed's first touch → live", "ms", b, touched)
			}
			done()
		}
	}
	f.report()
}

// coldTab opens a tab in a fresh Chromium, whose profile is empty: a
// cold cache. done closes both.
func coldTab(t *testing.T, h *harness) (tab context.Context, done func()) {
	t.Helper()
	browser, stop, err := newBrowser(h.chromium)
	if err != nil {
		t.Fatal(err)
	}
	tab, closeTab := openClosableTab(t, browser)
	return tab, func() { closeTab(); stop() }
}

// readersTab is coldTab as a reader's browser has it: without the
// DevTools agents chromedp turns on in every tab it opens (Network, DOM,
// CSS), which a reader's browser does not run. The Network agent keeps a
// copy of every response's body: it costs app.wasm's download 60–90 ms.
// The timing tests measure in it; a test that queries the DOM through
// DevTools needs coldTab.
func readersTab(t *testing.T, h *harness) (tab context.Context, done func()) {
	t.Helper()
	tab, done = coldTab(t, h)
	for _, agent := range []cdp.Command[cdp.Empty, cdp.Empty]{network.Disable, css.Disable} {
		if _, err := chromedp.Call(tab, agent, cdp.Empty{}); err != nil {
			done()
			t.Fatalf("turning off %s: %v", agent.Method, err)
		}
	}
	return tab, done
}

// interactionTime is a page script: it runs an action and resolves with the
// milliseconds until the text watched changes (the DOM, not the paint:
// go-app applies updates in its own frame loop). watch is a selector,
// whose element's text is watched, or a function that reads the text.
const interactionTime = `(watch, action) => new Promise(resolve => {
	const read = typeof watch === 'function' ? watch : () => document.querySelector(watch)?.textContent;
	const before = read();
	const start = performance.now();
	const observer = new MutationObserver(() => {
		if (read() !== before) {
			observer.disconnect();
			resolve(performance.now() - start);
		}
	});
	observer.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
	action();
})`

// Page scripts the interaction measurements share.
const (
	// clickStep clicks Step.
	clickStep = `() => document.getElementById('step').click()`
	// clickUndo takes the last action back.
	clickUndo = `() => document.getElementById('undo').click()`
	// softmaxPs reads the softmax card's p column.
	softmaxPs = `() => [...document.querySelectorAll('#softmax tr td.p')].map(td => td.textContent).join(' ')`
	// pressTemperature presses the pointer on the temperature slider, as a
	// drag begins.
	pressTemperature = `() => document.getElementById('slide-temperature').dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}))`
	// dragTemperature moves the temperature slider to another value
	// between 0.8 and 2 (in its steps of 0.05) with an input event, as a
	// drag does.
	dragTemperature = `() => {
		const el = document.getElementById('slide-temperature'), before = el.value;
		do { el.value = (0.8 + Math.random() * 1.2).toFixed(2); } while (el.value === before);
		el.dispatchEvent(new Event('input', {bubbles: true}));
	}`
	// releaseTemperature ends the drag.
	releaseTemperature = `() => document.getElementById('slide-temperature').dispatchEvent(new Event('change', {bubbles: true}))`
)

// interaction is a measurement of TestInteractionTiming: action, run on
// page path, until the text watch reads changes.
type interaction struct {
	name, path    string
	watch, action string // watch: a selector's JavaScript string or a function
	reset         string // an action that undoes action, so every round starts alike
	setup, ready  string // an action before the rounds, and what to wait for after it
	teardown      string // an action after the rounds
}

// measure runs page script action with the text watch reads and returns
// the milliseconds until it changed.
func measure(tab context.Context, watch, action string) float64 {
	testOf(tab).Helper()
	return evaluate[float64](tab, "("+interactionTime+")("+watch+", "+action+")")
}

// TestInteractionTiming measures, in one browser, how long an edit and a
// step take to reach the DOM: a logit edit on the toy model and on
// stories260K, a toy step, stories260K steps early in a story, 200 and
// 495 tokens in, opening a step from the timeline of 200 steps, a
// temperature change with the compare card open, a drag of the
// temperature slider, and the first Step after the page loads. Each
// build has a tab of its own, and the builds take turns round by round;
// the first Step opens a page afresh each round.
func TestInteractionTiming(t *testing.T) {
	const rounds, firstStepRounds = 20, 10
	const stories = "/?model=stories260K&prompt=Once%20upon%20a%20time"
	const firstStep = "stories260K: first Step after the page loads → DOM"
	edit := `() => { const el = document.querySelector('#logits tr[data-token="0"] input.logit');
		el.value = (Math.random() * 4 - 2).toFixed(4); el.dispatchEvent(new Event('change', {bubbles: true})); }`
	// The stories260K edit sets the logit of the table's first token, the
	// most probable, 1 and 2 above its own in turn, so its row stays on
	// the table and its p changes each time.
	pickToken := `() => { const row = document.querySelector('#logits tr[data-token]');
		globalThis.timingToken = row.dataset.token; globalThis.timingEdits = 0;
		globalThis.timingLogit = Number(row.querySelector('input.logit').value.replace('−', '-')); }`
	editTop := `() => { const el = document.querySelector('#logits tr[data-token="' + globalThis.timingToken + '"] input.logit');
		el.value = (globalThis.timingLogit + 1 + globalThis.timingEdits++ % 2).toFixed(4); el.dispatchEvent(new Event('change', {bubbles: true})); }`
	topP := `() => document.querySelector('#softmax tr[data-token="' + globalThis.timingToken + '"] td.p')?.textContent`
	temperature := `() => { const el = document.getElementById('set-temperature');
		el.value = (0.5 + Math.random()).toFixed(3); el.dispatchEvent(new Event('change', {bubbles: true})); }`
	// Another step than the one on display, 37 steps on (of 200).
	timelineOther := `() => (` + clickTimeline + `)((Number(document.getElementById('step-title').textContent.match(/\d+/)?.[0] ?? 0) + 36) % 200)`
	interactions := []interaction{
		{name: "toy: logit edit → DOM", path: "/", watch: jsString(`#softmax tr[data-token="0"] td.p`), action: edit},
		{name: "toy: step → DOM", path: "/", watch: jsString("#kv-rows"), action: clickStep, reset: clickUndo},
		{name: "stories260K: logit edit → DOM", path: stories, watch: topP, action: editTop, setup: pickToken, ready: "globalThis.timingToken !== undefined"},
		{name: "stories260K: step at position 5 → DOM", path: stories, watch: jsString("#kv-rows"), action: clickStep, reset: clickUndo},
		{name: "stories260K: step at position 205 → DOM", path: stories + "&steps=200&temperature=1&seed=3", watch: jsString("#kv-rows"), action: clickStep, reset: clickUndo},
		{name: "stories260K: step at position 500 → DOM", path: stories + "&steps=495&temperature=1&seed=4", watch: jsString("#kv-rows"), action: clickStep, reset: clickUndo},
		{name: "stories260K: open a step from the timeline → DOM", path: stories + "&steps=200&temperature=1&seed=3",
			watch: jsString("#step-title"), action: timelineOther},
		{name: "stories260K, compare card open: temperature → DOM", path: stories + "&temperature=1&min_p=0.02",
			watch: jsString(`#compare .chain[data-chain="chain"]`), action: temperature,
			setup: `() => document.querySelector('#compare summary').click()`, ready: `document.querySelector('#compare .chain[data-chain="chain"]') !== null`},
		{name: "stories260K: temperature slider input → DOM", path: stories + "&temperature=1", watch: softmaxPs, action: dragTemperature,
			setup: pressTemperature, teardown: releaseTemperature},
	}
	names := []string{firstStep}
	for _, m := range interactions {
		names = append(names, m.name)
	}
	needTiming(t, names...)
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	for _, m := range interactions {
		if timingSelected(t, m.name) {
			m.run(t, f, builds, rounds)
		}
	}
	if timingSelected(t, firstStep) {
		for range firstStepRounds {
			for _, b := range builds {
				tab, closeTab := openBuildPage(t, b, stories, screen{})
				f.add(firstStep, "ms", b, measure(tab, jsString("#kv-rows"), clickStep))
				closeTab()
			}
		}
	}
	f.report()
}

// run measures m on every build, rounds times in turn, in a tab a build
// that it closes at the end.
func (m interaction) run(t *testing.T, f *figures, builds []build, rounds int) {
	t.Helper()
	tabs := make([]context.Context, len(builds))
	for i, b := range builds {
		tab, closeTab := openBuildPage(t, b, m.path, screen{})
		defer closeTab()
		if m.setup != "" {
			evaluate[bool](tab, "(("+m.setup+")(), true)")
		}
		if m.ready != "" {
			waitFor(tab, m.ready)
		}
		tabs[i] = tab
	}
	for range rounds {
		for i, b := range builds {
			f.add(m.name, "ms", b, measure(tabs[i], m.watch, m.action))
			if m.reset != "" {
				measure(tabs[i], m.watch, m.reset)
			}
		}
	}
	if m.teardown != "" {
		for _, tab := range tabs {
			evaluate[bool](tab, "(("+m.teardown+")(), true)")
		}
	}
}

// runTime is a page script: it clicks Run for n steps and resolves with the
// milliseconds until the status says they are done, the animation frames
// the browser ran meanwhile and how many of them showed a new step.
const runTime = `(n) => new Promise(resolve => {
	const input = document.getElementById('run-n');
	input.value = String(n); input.dispatchEvent(new Event('change', {bubbles: true}));
	setTimeout(() => {
		// The cache's rows show each new step; a view without the cache card
		// has the status line.
		const shownStep = () => (document.getElementById('kv-rows') ?? document.getElementById('status')).textContent;
		const target = String(Number(document.getElementById('status').textContent.match(/^\d+/)[0]) + n);
		let frames = 0, shown = 0, last = shownStep(), running = true;
		const tasks = []; // the page's main-thread tasks of over 50 ms meanwhile
		const long = new PerformanceObserver(l => { for (const e of l.getEntries()) tasks.push(e.duration); });
		long.observe({type: "longtask"});
		const count = () => {
			if (!running) return;
			frames++;
			const now = shownStep();
			if (now !== last) { shown++; last = now; }
			requestAnimationFrame(count);
		};
		requestAnimationFrame(count);
		const start = performance.now();
		const observer = new MutationObserver(() => {
			if (document.getElementById('status').textContent.startsWith(target + ' steps')) {
				running = false;
				observer.disconnect();
				const ms = performance.now() - start;
				setTimeout(() => { // the last task's entry
					long.disconnect();
					resolve({ms, frames, shown, longest: Math.max(0, ...tasks), over50: tasks.length});
				}, 100);
			}
		});
		observer.observe(document.body, {subtree: true, childList: true, characterData: true});
		document.getElementById('run').click();
	}, 100);
})`

// runResult is what runTime resolves with.
type runResult struct {
	Ms, Longest           float64 // Longest: the longest main-thread task meanwhile, over 50 ms
	Frames, Shown, Over50 int
}

// TestRunTiming measures Run: 200 steps of stories260K, how many tokens a
// second the page generates while it shows every frame's newest step, on
// a fresh page each round (NEXTTOKEN_TIMING_ROUNDS, default 5).
func TestRunTiming(t *testing.T) {
	const steps = 200
	name := fmt.Sprintf("stories260K: Run %d steps", steps)
	needTiming(t, name)
	rounds := timingRounds(5)
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	for range rounds {
		for _, b := range builds {
			tab, closeTab := openBuildPage(t, b, "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=1&seed=3", screen{})
			r := evaluate[runResult](tab, "("+runTime+")("+strconv.Itoa(steps)+")")
			closeTab()
			f.add(name, "tok/s", b, steps/(r.Ms/1000))
			f.add(name+": animation frames", "frames", b, float64(r.Frames))
			f.add(name+": frames that showed a new step", "frames", b, float64(r.Shown))
		}
	}
	f.report()
}

// recomputeCosts is a page script: it turns the recompute switch off and
// on, so that the card measures the step on display again, and resolves
// with the costs table's rows: multiply-adds and milliseconds, with the
// cache, recomputed, and prefill per prompt token.
const recomputeCosts = `() => new Promise(resolve => {
	const toggle = document.getElementById('recompute-toggle');
	if (toggle.checked) toggle.click();
	setTimeout(() => {
		toggle.click();
		const read = () => {
			const rows = [...document.querySelectorAll('#recompute-costs tr')].slice(1);
			if (rows.length !== 3) return requestAnimationFrame(read);
			resolve(rows.map(r => [...r.querySelectorAll('td')].map(td => Number(td.textContent.replace(/[^0-9.e-]/g, '')))));
		};
		read();
	}, 50);
})`

// TestRecomputeTiming measures, in the page, a stories260K step with the
// cache and recomputed without it at positions 64, 256 and 512 (the
// context's end), with their multiply-adds, and the prompt's prefill per
// token: the card's own times, 7 rounds each, a tab a build.
func TestRecomputeTiming(t *testing.T) {
	const rounds = 7
	const name = "stories260K: recompute card"
	needTiming(t, name)
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	for _, tokens := range []int{64, 256, 512} {
		prefix := fmt.Sprintf("%s, %d tokens: ", name, tokens)
		tabs := make([]context.Context, len(builds))
		closers := make([]func(), len(builds))
		for i, b := range builds {
			// Seed 4 writes a story that fills the context; the prompt is 5 tokens.
			tabs[i], closers[i] = openBuildPage(t, b, "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=1&seed=4&steps="+strconv.Itoa(tokens-5), screen{})
		}
		for round := range rounds {
			for i, b := range builds {
				rows := evaluate[[][]float64](tabs[i], "("+recomputeCosts+")()")
				f.add(prefix+"a step with the cache", "ms", b, rows[0][1])
				f.add(prefix+"the step recomputed", "ms", b, rows[1][1])
				f.add(prefix+"prefill a prompt token", "ms", b, rows[2][1])
				if round == 0 {
					t.Logf("%s%s%.0f multiply-adds with the cache, %.0f recomputed, %.0f a prompt token", b.prefix(), prefix, rows[0][0], rows[1][0], rows[2][0])
				}
			}
		}
		for _, closeTab := range closers {
			closeTab()
		}
	}
	f.report()
}
