//go:build !js

package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
)

// TestTiming measures how long the playground takes to go live after a
// navigation: cold, in a fresh browser profile, then warm, navigating again
// in the same tab (HTTP cache, go-app's service worker, V8's code cache).
// It is a measurement, not a test: make timing runs it, with
// NEXTTOKEN_TIMING=1 (and NEXTTOKEN_TIMING_ROUNDS, default 5).
func TestTiming(t *testing.T) {
	if os.Getenv("NEXTTOKEN_TIMING") == "" {
		t.Skip("a measurement: make timing runs it")
	}
	rounds, err := strconv.Atoi(os.Getenv("NEXTTOKEN_TIMING_ROUNDS"))
	if err != nil || rounds < 1 {
		rounds = 5
	}
	h := needBrowser(t)
	var cold, warm []pageLoad
	for range rounds {
		browser, stop, err := newBrowser(h.chromium)
		if err != nil {
			t.Fatal(err)
		}
		tab := openTab(t, browser)
		for _, loads := range []*[]pageLoad{&cold, &warm} {
			load, err := loadPage(tab, h.url+"/")
			if err != nil {
				stop()
				t.Fatal(err)
			}
			*loads = append(*loads, load)
		}
		stop()
	}
	t.Logf("%d rounds, ms after navigation, median (min–max):", rounds)
	for _, run := range []struct {
		name  string
		loads []pageLoad
	}{{"cold", cold}, {"warm", warm}} {
		t.Logf("%s: HTML %s, app.wasm %s (%d bytes on the wire), live %s", run.name,
			spread(run.loads, func(l pageLoad) float64 { return l.HTML }),
			spread(run.loads, func(l pageLoad) float64 { return l.Wasm }),
			run.loads[0].WasmBytes,
			spread(run.loads, func(l pageLoad) float64 { return l.Ready }))
	}
}

// spread is the median, minimum and maximum of a figure.
func spread(loads []pageLoad, figure func(pageLoad) float64) string {
	v := make([]float64, len(loads))
	for i, l := range loads {
		v[i] = figure(l)
	}
	slices.Sort(v)
	return fmt.Sprintf("%.0f (%.0f–%.0f)", v[len(v)/2], v[0], v[len(v)-1])
}

// interactionTime is a page script: it runs an action and resolves with the
// milliseconds until the text of a watched element changes (the DOM, not
// the paint: go-app applies updates in its own frame loop).
const interactionTime = `(watch, action) => new Promise(resolve => {
	const before = document.querySelector(watch).textContent;
	const start = performance.now();
	const observer = new MutationObserver(() => {
		if (document.querySelector(watch).textContent !== before) {
			observer.disconnect();
			resolve(performance.now() - start);
		}
	});
	observer.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
	action();
})`

// TestInteractionTiming measures, in one browser, how long an edit and a
// step take to reach the DOM: a logit edit on the toy model, a toy step,
// a stories260K step early in a story and 200 tokens in, and opening a
// step from the timeline of 200 steps.
func TestInteractionTiming(t *testing.T) {
	if os.Getenv("NEXTTOKEN_TIMING") == "" {
		t.Skip("a measurement: make timing runs it")
	}
	const rounds = 20
	edit := `() => { const el = document.querySelector('#logits tr[data-token="0"] input.logit');
		el.value = (Math.random() * 4 - 2).toFixed(4); el.dispatchEvent(new Event('change', {bubbles: true})); }`
	step := `() => document.getElementById('step').click()`
	temperature := `() => { const el = document.getElementById('set-temperature');
		el.value = (0.5 + Math.random()).toFixed(3); el.dispatchEvent(new Event('change', {bubbles: true})); }`
	undo := `() => document.getElementById('undo').click()`
	// Another step than the one on display, 37 steps on (of 200).
	timelineOther := `() => (` + clickTimeline + `)((Number(document.getElementById('step-title').textContent.match(/\d+/)?.[0] ?? 0) + 36) % 200)`
	for _, m := range []struct {
		name, path, watch, action string
		reset                     string // an action that undoes action, so every round starts alike
		setup                     string // an action before the rounds
	}{
		{"toy: logit edit → DOM", "/", `#softmax tr[data-token="0"] td.p`, edit, "", ""},
		{"toy: step → DOM", "/", "#kv-rows", step, undo, ""},
		{"stories260K: step at position 5 → DOM", "/?model=stories260K&prompt=Once%20upon%20a%20time", "#kv-rows", step, undo, ""},
		{"stories260K: step at position 205 → DOM", "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=200&temperature=1&seed=3", "#kv-rows", step, undo, ""},
		{"stories260K: step at position 500 → DOM", "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=495&temperature=1&seed=4", "#kv-rows", step, undo, ""},
		{"stories260K: open a step from the timeline → DOM", "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=200&temperature=1&seed=3",
			"#step-title", timelineOther, "", ""},
		{"stories260K, compare card open: temperature → DOM", "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=1&min_p=0.02",
			`#compare .chain[data-chain="chain"]`, temperature, "", `() => document.querySelector('#compare summary').click()`},
	} {
		tab := openPage(t, m.path)
		if m.setup != "" {
			evaluate[bool](tab, "(("+m.setup+")(), true)")
			waitFor(tab, `document.querySelector(`+jsString(m.watch)+`) !== null`)
		}
		times := make([]float64, 0, rounds)
		for range rounds {
			times = append(times, evaluate[float64](tab, "("+interactionTime+")("+jsString(m.watch)+", "+m.action+")"))
			if m.reset != "" {
				evaluate[float64](tab, "("+interactionTime+")("+jsString(m.watch)+", "+m.reset+")")
			}
		}
		slices.Sort(times)
		t.Logf("%s: median %.1f ms (min %.1f, max %.1f) over %d rounds", m.name, times[rounds/2], times[0], times[rounds-1], rounds)
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
				resolve({ms: performance.now() - start, frames, shown});
			}
		});
		observer.observe(document.body, {subtree: true, childList: true, characterData: true});
		document.getElementById('run').click();
	}, 100);
})`

// TestRunTiming measures Run: 200 steps of stories260K, how many tokens a
// second the page generates while it shows every frame's newest step.
func TestRunTiming(t *testing.T) {
	if os.Getenv("NEXTTOKEN_TIMING") == "" {
		t.Skip("a measurement: make timing runs it")
	}
	const steps, rounds = 200, 5
	type run struct {
		Ms            float64
		Frames, Shown int
	}
	var rates []float64
	for range rounds {
		tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=1&seed=3")
		r := evaluate[run](tab, "("+runTime+")("+strconv.Itoa(steps)+")")
		rates = append(rates, steps/(r.Ms/1000))
		t.Logf("Run %d steps: %.0f ms, %.0f tok/s, %d animation frames, %d of them showed a new step", steps, r.Ms, steps/(r.Ms/1000), r.Frames, r.Shown)
	}
	slices.Sort(rates)
	t.Logf("Run %d steps of stories260K: median %.0f tok/s (min %.0f, max %.0f) over %d page loads", steps, rates[rounds/2], rates[0], rates[rounds-1], rounds)
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
// token: a few rounds each, the median reported.
func TestRecomputeTiming(t *testing.T) {
	if os.Getenv("NEXTTOKEN_TIMING") == "" {
		t.Skip("a measurement: make timing runs it")
	}
	const rounds = 7
	for _, tokens := range []int{64, 256, 512} {
		// Seed 4 writes a story that fills the context; the prompt is 5 tokens.
		tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&temperature=1&seed=4&steps="+strconv.Itoa(tokens-5))
		var cached, recomputed, prefill []float64
		var rows [][]float64
		for range rounds {
			rows = evaluate[[][]float64](tab, "("+recomputeCosts+")()")
			cached, recomputed, prefill = append(cached, rows[0][1]), append(recomputed, rows[1][1]), append(prefill, rows[2][1])
		}
		for _, v := range [][]float64{cached, recomputed, prefill} {
			slices.Sort(v)
		}
		t.Logf("stories260K, %d tokens: cached %.0f multiply-adds, median %.3f ms; recomputed %.0f multiply-adds, median %.2f ms; prefill %.0f multiply-adds a prompt token, median %.3f ms a token (%d rounds)",
			tokens, rows[0][0], cached[rounds/2], rows[1][0], recomputed[rounds/2], rows[2][0], prefill[rounds/2], rounds)
	}
}
