//go:build !js

package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

// TestRunTimingSmolLM2 measures the page on a model of the size readers
// bring: a random network of SmolLM2-135M's shape (576 wide, 30 layers,
// 49,152 tokens, tied embeddings) in Q8_0, 137.6 MiB, which the page
// fetches from a URL as it would a reader's. On the whole page and on an
// embed of the tokens alone, a fresh tab each, it reports how long the
// download and opening took, and the longest main-thread task from
// navigation to then; Run's tokens a second over 64 steps while the
// page shows every frame's newest step (runTime), its longest main-thread
// task and, where the engine's worker runs the model, its share of the
// engine's own speed there (data-worker-decoded); Step's with 32 steps
// each drawn and painted (stepTime); Stop pressed during a Run
// (stopTime); and the whole page's share of the embed's speed; on the
// whole page, a drag of the temperature slider, input by input, and the
// token popover's showing (tipTime). The builds take turns each round
// (NEXTTOKEN_TIMING_ROUNDS, default 3). A measurement: make timing runs
// it.
func TestRunTimingSmolLM2(t *testing.T) {
	const name = "SmolLM2-135M shape, Q8_0"
	needTiming(t, name)
	rounds := timingRounds(3)
	link := smolLM2Link(t, name) + "&prompt=Once+upon+a+time&temperature=1&seed=3"
	const runSteps, steps, drags = 64, 32, 20
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	for range rounds {
		for _, b := range builds {
			var drawn [2]float64 // tok/s with every step drawn: the whole page, the embed
			for i, page := range []struct{ name, query string }{
				{name + ", the whole page", ""},
				{name + ", the tokens alone (an embed of view=tokens)", "&embed=1&view=tokens"},
			} {
				start := time.Now()
				tab, closeTab := openBuildPage(t, b, link+page.query, screen{})
				waitWithin(tab, `document.querySelector("#loading") === null && /^0 steps/.test(document.querySelector("#status")?.textContent ?? "")`, 5*time.Minute)
				f.add(page.name+": fetched (or read from the cache) and opened", "s", b, time.Since(start).Seconds())
				loading := evaluate[longTasks](tab, longTasksSoFar)
				f.add(page.name+": from navigation to opened, the longest main-thread task", "ms", b, loading.Longest)
				f.add(page.name+": from navigation to opened, main-thread tasks over 50 ms", "tasks", b, float64(loading.Over50))
				if loading.Marked {
					f.add(page.name+": from navigation to opened, the longest task before the program's start (0: none over 50 ms)", "ms", b, loading.BeforeLongest)
					f.add(page.name+": from navigation to opened, the program's start to main (0: under 50 ms)", "ms", b, loading.Start)
					f.add(page.name+": from navigation to opened, the longest task after the program's start (0: none over 50 ms)", "ms", b, loading.AfterLongest)
					f.add(page.name+": from navigation to opened, tasks over 50 ms after the program's start", "tasks", b, float64(loading.AfterOver50))
				}
				decodedBefore := evaluate[string](tab, workerDecoded)
				evaluate[bool](tab, `(globalThis.runResult = null, (`+runTime+`)(`+strconv.Itoa(runSteps)+`).then(r => globalThis.runResult = r), true)`)
				waitWithin(tab, `globalThis.runResult !== null`, 5*time.Minute)
				r := evaluate[runResult](tab, `globalThis.runResult`)
				run := fmt.Sprintf("%s: Run %d steps", page.name, runSteps)
				f.add(run, "tok/s", b, runSteps/(r.Ms/1000))
				f.add(run+", frames that showed a new step", "frames", b, float64(r.Shown))
				f.add(run+", the longest main-thread task", "ms", b, r.Longest)
				f.add(run+", main-thread tasks over 50 ms", "tasks", b, float64(r.Over50))
				if own, ok := decodeRate(decodedBefore, evaluate[string](tab, workerDecoded)); ok {
					f.add(run+": the engine's own speed in its worker", "tok/s", b, own)
					f.add(run+": the page's speed ÷ the engine's own in its worker", "×", b, runSteps/(r.Ms/1000)/own)
				}
				ms := evaluate[float64](tab, "("+stepTime+")("+strconv.Itoa(steps)+")")
				drawn[i] = steps / (ms / 1000)
				f.add(fmt.Sprintf("%s: Step %d times, every step drawn", page.name, steps), "tok/s", b, drawn[i])
				stop := mustWithin(tab, "stop", time.Minute, chromedp.Evaluate[stopResult]("("+stopTime+")("+strconv.Itoa(runSteps)+")", chromedp.EvalAwaitPromise))
				f.add(page.name+": Stop pressed during Run → the Run button back", "ms", b, stop.StoppedMs)
				f.add(page.name+": Stop pressed during Run → the page's next task", "ms", b, stop.IdleMs)
				if i == 0 {
					evaluate[bool](tab, "(("+pressTemperature+")(), true)")
					for range drags {
						// Each move once the last is drawn: the engine's worker
						// answers a move after the next may have come, and a
						// move to the value shown would change nothing.
						waitFor(tab, `document.getElementById('playground').dataset.ready === 'true'`)
						f.add(page.name+": temperature slider drag, input → DOM", "ms", b, measure(tab, softmaxPs, dragTemperature))
					}
					evaluate[bool](tab, "(("+releaseTemperature+")(), true)")
					for j := range drags {
						f.add(page.name+": popover, pointer rests → shown", "ms", b, evaluate[float64](tab, "("+tipTime+")("+strconv.Itoa(j*13%(2*steps))+")"))
					}
				}
				closeTab()
			}
			f.add(name+": every step drawn, the whole page ÷ the tokens alone", "×", b, drawn[0]/drawn[1])
		}
	}
	f.report()
}

// stopTime is a page script: it starts a Run of n steps, presses Stop
// 300 ms later, and resolves, once the page is ready again, with the
// milliseconds from the press to the button reading Run again (stoppedMs)
// and to the page's next task, a timer of 0 ms set at the press (idleMs).
const stopTime = `(n) => new Promise(resolve => {
	const input = document.getElementById('run-n');
	input.value = String(n); input.dispatchEvent(new Event('change', {bubbles: true}));
	setTimeout(() => {
		document.getElementById('run').click();
		setTimeout(() => {
			const label = document.getElementById('run-label');
			let start = 0, stoppedMs = 0, idleMs = 0;
			// Then it waits for the batch the Stop found out, for the page's
			// next measurements.
			const settled = () => document.getElementById('playground').dataset.ready === 'true' ? resolve({stoppedMs, idleMs}) : setTimeout(settled, 5);
			const done = () => stoppedMs && idleMs && settled();
			const observer = new MutationObserver(() => {
				if (label.textContent !== 'Run' || stoppedMs) return;
				stoppedMs = performance.now() - start;
				observer.disconnect();
				done();
			});
			observer.observe(label, {childList: true, characterData: true, subtree: true});
			start = performance.now();
			setTimeout(() => { idleMs = performance.now() - start; done(); }, 0);
			document.getElementById('run').click();
		}, 300);
	}, 100);
})`

type stopResult struct{ StoppedMs, IdleMs float64 }

// workerDecoded is a page script: the steps the engine's worker has taken
// and the milliseconds they took, its details apart (data-worker-decoded),
// or "" where no worker runs the session.
const workerDecoded = `document.documentElement.dataset.workerDecoded ?? ""`

// decodeRate is the engine's own tokens a second in its worker between
// two readings of workerDecoded; false without a worker.
func decodeRate(before, after string) (float64, bool) {
	var s0, s1 int
	var ms0, ms1 float64
	if _, err := fmt.Sscan(after, &s1, &ms1); err != nil {
		return 0, false
	}
	fmt.Sscan(before, &s0, &ms0) // none before: 0 and 0
	if s1 <= s0 || ms1 <= ms0 {
		return 0, false
	}
	return float64(s1-s0) / ((ms1 - ms0) / 1000), true
}

// longTasksSoFar is a page script: the page's main-thread tasks of over
// 50 ms since navigation (the "longtask" entries the browser buffered),
// the program's own start among them: a link's model is on its way
// before the page is live. A build that marks its main function's start
// (nexttoken:main) has that task, the runtime's and the packages' start,
// told apart (0 ms where it took under 50 ms) from the tasks before it
// (the browser's: the page's parsing and layout, the program's
// compiling) and after it (the program's).
const longTasksSoFar = `new Promise(resolve => {
	const tasks = [];
	const long = new PerformanceObserver(l => { for (const e of l.getEntries()) tasks.push(e); });
	long.observe({type: "longtask", buffered: true});
	setTimeout(() => {
		long.disconnect();
		const main = performance.getEntriesByName("nexttoken:main")[0]?.startTime;
		const start = tasks.find(e => e.startTime <= main && main <= e.startTime + e.duration);
		const after = tasks.filter(e => e !== start && e.startTime > main).map(e => e.duration);
		const before = tasks.filter(e => e !== start && !(e.startTime > main)).map(e => e.duration);
		resolve({longest: Math.max(0, ...tasks.map(e => e.duration)), over50: tasks.length, marked: main !== undefined,
			start: start?.duration ?? 0, beforeLongest: Math.max(0, ...before), afterLongest: Math.max(0, ...after), afterOver50: after.length});
	}, 100);
})`

// longTasks is what longTasksSoFar resolves with.
type longTasks struct {
	Longest float64
	Over50  int
	// Where the build marks its start: the task it falls in, the longest
	// before it, and those after it.
	Marked                      bool
	Start                       float64
	BeforeLongest, AfterLongest float64
	AfterOver50                 int
}

// smolLM2Link is the page's link to a random network of SmolLM2-135M's
// shape in Q8_0, which a server of its own serves as a reader's URL
// would be, until the test ends.
func smolLM2Link(t *testing.T, name string) string {
	t.Helper()
	return randomModelLink(t, name, randmodel.SmolLM2)
}

// randomModelLink is the page's link to a random network of shape c in
// Q8_0, which a server of its own serves as a reader's URL would be, until
// the test ends.
func randomModelLink(t *testing.T, name string, c checkpoint.Config) string {
	t.Helper()
	m, v, err := randmodel.BuildQuantized(c, 15, randmodel.Every(quant.Q8_0))
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := gguf.WriteLlama2c(&file, m, v, gguf.Llama2cOptions{TiedOutput: true}); err != nil {
		t.Fatal(err)
	}
	data := file.Bytes()
	models := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "Content-Length, Content-Range")
		http.ServeContent(w, r, "model.gguf", time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(models.Close)
	t.Logf("%s: %.1f MiB", name, float64(len(data))/(1<<20))
	ref := modelfile.RefOf(modelfile.File{Name: "model.gguf", Data: data})
	ref.Name, ref.URL = models.URL+"/model.gguf", true
	return "/?model=" + url.QueryEscape(ref.String())
}

// stepTime is a page script: it clicks Step n times, each time waiting
// for the page to show the new step and for the browser to paint a frame
// before the next click, and resolves with the milliseconds it took: the
// speed with every step drawn.
const stepTime = `(n) => new Promise(resolve => {
	const status = () => document.getElementById('status').textContent;
	const start = performance.now();
	let done = 0;
	const next = () => {
		const before = status();
		const observer = new MutationObserver(() => {
			if (status() === before) return;
			observer.disconnect();
			if (++done === n) return resolve(performance.now() - start);
			requestAnimationFrame(() => setTimeout(next, 0));
		});
		observer.observe(document.body, {subtree: true, childList: true, characterData: true});
		document.getElementById('step').click();
	};
	next();
})`

// prefillTime is a page script: it types text as the prompt, leaves the
// field 50 ms later, and resolves, once the page shows the prompt's tokens
// (more than least of them) and no prefill notice, with the milliseconds
// from leaving the field, the prompt's
// tokens as the notice counted them, and the page's main-thread tasks of
// over 50 ms meanwhile ("longtask" entries, the typing's among them): the
// longest, when it began (from leaving the field) and how many.
// With stop set, it presses the notice's Stop as soon as it shows and
// resolves once the notice is gone, with the milliseconds from the press
// (stopMs) instead.
const prefillTime = `(text, least, stop) => new Promise(resolve => {
	const tasks = [];
	const long = new PerformanceObserver(l => { for (const e of l.getEntries()) tasks.push([e.startTime, e.duration]); });
	long.observe({type: "longtask"});
	let total = 0, pressed = 0;
	const notices = new MutationObserver(() => {
		const n = document.querySelector("#prefill-notice .prefill-progress");
		const m = n && /of ([\d,]+) tokens/.exec(n.textContent);
		if (m) total = +m[1].replace(/,/g, "");
		if (n && stop && !pressed) {
			pressed = performance.now();
			document.querySelector("#prefill-notice button").click();
		}
	});
	notices.observe(document.body, {childList: true, subtree: true, characterData: true});
	// The text is typed in one task and the field left in the next, as a
	// reader's paste and Enter are.
	const input = document.getElementById("prompt");
	input.value = text;
	input.dispatchEvent(new Event("input", {bubbles: true}));
	let start = 0;
	setTimeout(() => {
		start = performance.now();
		input.dispatchEvent(new Event("change", {bubbles: true}));
		check();
	}, 50);
	const done = () => document.querySelector("#prefill-notice") === null &&
		(stop ? pressed > 0 : document.querySelectorAll("#tokens .tok").length > least);
	const check = () => {
		if (!done()) return setTimeout(check, 5);
		const end = performance.now();
		setTimeout(() => { // the last task's entry
			long.disconnect();
			notices.disconnect();
			const longest = tasks.reduce((a, t) => t[1] > a[1] ? t : a, [0, 0]);
			resolve({ms: end - start, stopMs: pressed ? end - pressed : 0, total,
				longest: longest[1], longestAt: longest[0] - start, over50: tasks.length});
		}, 100);
	};
})`

type prefillResult struct {
	Ms, StopMs, Longest, LongestAt float64
	Total, Over50                  int
}

// TestPrefillTimingSmolLM2 measures a prompt of about 300 tokens typed on
// the page on the SmolLM2-135M-shaped network of TestRunTimingSmolLM2:
// the time to read it and its tokens a second, the longest main-thread
// task meanwhile and how many took over 50 ms (prefillTime); then another
// such prompt whose notice's Stop is pressed at once: the time from the
// press to the notice gone, the prefill stopped. The builds take turns
// each round (NEXTTOKEN_TIMING_ROUNDS, default 3). A measurement: make
// timing runs it.
func TestPrefillTimingSmolLM2(t *testing.T) {
	const name = "SmolLM2-135M shape, Q8_0: a prompt of about 300 tokens"
	needTiming(t, name)
	rounds := timingRounds(3)
	link := smolLM2Link(t, name) + "&prompt=Once&temperature=1&seed=3"
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	for range rounds {
		for _, b := range builds {
			tab, closeTab := openBuildPage(t, b, link, screen{})
			waitWithin(tab, `document.querySelector("#loading") === null && /^0 steps/.test(document.querySelector("#status")?.textContent ?? "")`, 5*time.Minute)
			for _, run := range []struct {
				text string
				stop bool
			}{{strings.Repeat("Once upon a time ", 75), false}, {strings.Repeat("The cat sat ", 100), true}} {
				r := mustWithin(tab, "prefill", 5*time.Minute, chromedp.Evaluate[prefillResult](
					"("+prefillTime+")("+jsString(run.text)+", 200, "+strconv.FormatBool(run.stop)+")", chromedp.EvalAwaitPromise))
				if run.stop {
					f.add(name+": Stop pressed → the notice gone", "ms", b, r.StopMs)
					f.add(name+", stopped: the longest main-thread task", "ms", b, r.Longest)
					continue
				}
				t.Logf("%s%d tokens in %.0f ms; %d tasks over 50 ms, the longest %.0f ms at %.0f ms", b.prefix(), r.Total, r.Ms, r.Over50, r.Longest, r.LongestAt)
				f.add(name+": typed → read", "s", b, r.Ms/1000)
				if r.Total > 0 {
					f.add(name+": tokens a second", "tok/s", b, float64(r.Total)/(r.Ms/1000))
				}
				f.add(name+": the longest main-thread task", "ms", b, r.Longest)
				f.add(name+": main-thread tasks over 50 ms", "tasks", b, float64(r.Over50))
			}
			closeTab()
		}
	}
	f.report()
}
