//go:build !js

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/randmodel"
)

// qwen25_15B is the shape of Qwen2.5-1.5B (its config.json): 28 layers
// 1536 wide, 12 query heads of 128 with 2 key/value heads, a feed-forward
// layer of 8960, the classifier tied to the embedding of 151,936 pieces;
// its context cut to 2048, as randmodel's shapes are. In Q4_K_M its file
// has 984,040,224 bytes, as a real Qwen2.5-1.5B Q4_K_M file has about.
var qwen25_15B = checkpoint.Config{
	Dim: 1536, HiddenDim: 8960, Layers: 28, Heads: 12, KVHeads: 2, HeadDim: 128,
	VocabSize: 151936, SeqLen: 2048, SharedHead: true,
}

// largeModelFile is the path of the GGUF file TestOpenTimingLarge opens:
// NEXTTOKEN_LARGE_GGUF when set (any GGUF file the page opens), and
// otherwise a random network of Qwen2.5-1.5B's shape in Q4_K_M with
// Qwen2's additions, as
//
//	go run ./cmd/randmodel -gguf -type Q4_K_M -arch qwen2 -dim 1536 -hidden 8960 \
//	    -layers 28 -heads 12 -kvheads 2 -headsize 128 -vocab 151936 -seqlen 2048 DIR
//
// writes it, which the test writes into the system's temporary folder
// (0.98 GB, in about 10 s) and leaves there for the next run; make timing
// gives each run a temporary folder of its own, removed at its end, so
// there set NEXTTOKEN_LARGE_GGUF to write it once.
func largeModelFile(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("NEXTTOKEN_LARGE_GGUF"); path != "" {
		if _, err := os.Stat(path); err != nil {
			t.Skipf("NEXTTOKEN_LARGE_GGUF: %v", err)
		}
		return path
	}
	path := filepath.Join(os.TempDir(), "nexttoken-qwen2.5-1.5b-shape-q4_k_m.gguf")
	if info, err := os.Stat(path); err == nil && info.Size() > 0 {
		return path
	}
	m, v, err := randmodel.BuildNamed(qwen25_15B, 15, "Q4_K_M")
	if err == nil {
		err = randmodel.Extend(m, "qwen2", 15)
	}
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".part"
	if err := gguf.WriteLlama2cFile(tmp, m, v, gguf.Llama2cOptions{Type: gguf.F32, TiedOutput: true}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// openTime is a page script: it resolves once a model file chosen in the
// file field #model-file is open and the page is ready for its first step
// (the model picker shows the file, "name (your files)", and the page's
// data-ready is true: no download and no run under way), with the
// milliseconds from the field's change event (the File in the page) to
// then, and the User Timing marks the page set on the way ("nexttoken:…",
// from that event too).
const openTime = `(name) => new Promise(resolve => {
	let start = 0;
	addEventListener('change', e => {
		if (e.target.id !== 'model-file') return;
		start = performance.now();
		performance.clearMarks();
	}, {capture: true, once: true});
	const ready = () => start > 0 &&
		document.querySelector('#model')?.selectedOptions[0]?.textContent === name + ' (your files)' &&
		document.querySelector('#playground')?.dataset.ready === 'true';
	const observer = new MutationObserver(() => {
		if (!ready()) return;
		const ms = performance.now() - start;
		observer.disconnect();
		const marks = {};
		for (const m of performance.getEntriesByType('mark')) {
			if (m.name.startsWith('nexttoken:')) marks[m.name.slice(10)] = m.startTime - start;
		}
		resolve({ms, marks, error: document.querySelector('#file-status')?.textContent ?? ''});
	});
	observer.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
})`

type openResult struct {
	Ms    float64
	Marks map[string]float64
}

// TestOpenTimingLarge measures a reader's 1 GB model file from its bytes
// in the browser to the page ready for its first step: a fresh tab each
// round opens largeModelFile in the file field, and the figure is the
// time from the field's change event (the File is in the page) to the
// model picker showing the file with the page ready (openTime); beside
// it, the page's marks on the way (where the time goes), and the time
// from the bytes read (the mark bytes-read, where a build has it) to
// ready. The builds take
// turns each round (NEXTTOKEN_TIMING_ROUNDS, default 3). A measurement:
// make timing runs it.
func TestOpenTimingLarge(t *testing.T) {
	const name = "a 1 GB model file"
	needTiming(t, name)
	path := largeModelFile(t)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(path)
	label := fmt.Sprintf("%s (%s, %.2f GB)", name, base, float64(info.Size())/1e9)
	t.Logf("%s: %d bytes", label, info.Size())
	rounds := timingRounds(3)
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	for range rounds {
		for _, b := range builds {
			tab, closeTab := openBuildPage(t, b, "/", screen{})
			evaluate[bool](tab, `(globalThis.openResult = null, (`+openTime+`)(`+jsString(base)+`).then(r => globalThis.openResult = r), true)`)
			must(tab, "choose the file", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{path}))
			waitWithin(tab, `globalThis.openResult !== null || /could not|cannot|more than/.test(document.querySelector("#file-status")?.textContent ?? "")`, 5*time.Minute)
			if status := evaluate[string](tab, `globalThis.openResult === null ? document.querySelector("#file-status").textContent : ""`); status != "" {
				t.Fatalf("%s did not open: %s", path, status)
			}
			r := evaluate[openResult](tab, `globalThis.openResult`)
			f.add(label+": the File in the page → ready for the first step", "s", b, r.Ms/1000)
			if read, ok := r.Marks["bytes-read"]; ok {
				f.add(label+": its bytes in the browser (the worker's read) → ready for the first step", "s", b, (r.Ms-read)/1000)
			}
			marks := make([]string, 0, len(r.Marks))
			for m := range r.Marks {
				marks = append(marks, m)
			}
			sort.Slice(marks, func(i, j int) bool { return r.Marks[marks[i]] < r.Marks[marks[j]] })
			for _, m := range marks {
				f.add(label+": the File in the page → "+m, "s", b, r.Marks[m]/1000)
			}
			t.Logf("%sready at %.0f ms; marks %s; kernel modules %s", b.prefix(), r.Ms, fmtMarks(marks, r.Marks),
				evaluate[string](tab, `document.documentElement.getAttributeNames().filter(n => n.startsWith("data-module-")).join(" ") || "none fetched"`))
			closeTab()
		}
	}
	f.report()
}

func fmtMarks(names []string, at map[string]float64) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %.0f ms", n, at[n])
	}
	return strings.Join(parts, ", ")
}

// digestTime is a page script: it reads the File chosen in the file field
// #digest-probe into an ArrayBuffer, and resolves with the milliseconds
// the read took, the call of crypto.subtle.digest (the thread that calls
// it waits for the sum, in Chromium) and then the promise's settling.
const digestTime = `() => (async () => {
	const file = document.getElementById('digest-probe').files[0];
	let t = performance.now();
	const bytes = await file.arrayBuffer();
	const read = performance.now() - t;
	t = performance.now();
	const sum = crypto.subtle.digest('SHA-256', bytes);
	const call = performance.now() - t;
	t = performance.now();
	await sum;
	return {read, call, settle: performance.now() - t};
})()`

// TestDigestTiming measures the browser's own SHA-256 of largeModelFile
// in the page: reading the File into an ArrayBuffer, the call of
// crypto.subtle.digest, which blocks the thread that calls it until the
// sum is made (so the page asks for it in a worker, web/digest.js), and
// the promise's settling after it. This build's tab only. A measurement:
// make timing runs it.
func TestDigestTiming(t *testing.T) {
	const name = "the browser's SHA-256 of a 1 GB model file"
	needTiming(t, name)
	path := largeModelFile(t)
	rounds := timingRounds(3)
	now := build{"now", needBrowser(t).url}
	f := newFigures(t, []build{now})
	for range rounds {
		tab, closeTab := openBuildPage(t, now, "/", screen{})
		evaluate[bool](tab, `(document.body.insertAdjacentHTML("beforeend", '<input type="file" id="digest-probe" hidden>'), true)`)
		must(tab, "choose the file", chromedp.SetUploadFiles(chromedp.CSS("#digest-probe"), []string{path}))
		r := mustWithin(tab, "digest", 2*time.Minute, chromedp.Evaluate[struct{ Read, Call, Settle float64 }](`(`+digestTime+`)()`, chromedp.EvalAwaitPromise))
		f.add(name+": File → ArrayBuffer", "s", now, r.Read/1000)
		f.add(name+": crypto.subtle.digest's call, the calling thread blocked", "s", now, r.Call/1000)
		f.add(name+": then the promise settles", "s", now, r.Settle/1000)
		closeTab()
	}
	f.report()
}
