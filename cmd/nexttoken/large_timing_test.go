//go:build !js

package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"nexttoken/engine/gguf"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

// TestRunTimingSmolLM2 measures the page on the largest model issue 10
// names: a random network of SmolLM2-135M's shape (576 wide, 30 layers,
// 49,152 tokens, tied embeddings) in Q8_0, 137.6 MiB, which the page
// fetches from a URL as it would a reader's. It reports how long the
// download and opening took, and Run's tokens a second over 32 steps while
// the page shows every frame's newest step (runTime). A measurement: make
// timing runs it.
func TestRunTimingSmolLM2(t *testing.T) {
	if os.Getenv("NEXTTOKEN_TIMING") == "" {
		t.Skip("a measurement: make timing runs it")
	}
	m, v, err := randmodel.BuildQuantized(randmodel.SmolLM2, 15, randmodel.Every(quant.Q8_0))
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
		http.ServeContent(w, r, "smollm2.gguf", time.Time{}, bytes.NewReader(data))
	}))
	defer models.Close()

	ref := modelfile.RefOf(modelfile.File{Name: "smollm2.gguf", Data: data})
	ref.Name, ref.URL = models.URL+"/smollm2.gguf", true
	link := "/?model=" + url.QueryEscape(ref.String()) + "&prompt=Once+upon+a+time&temperature=1&seed=3"
	for _, page := range []struct{ name, query string }{
		{"the whole page", ""},
		{"the tokens alone (an embed of view=tokens)", "&embed=1&view=tokens"},
	} {
		start := time.Now()
		tab := openPage(t, link+page.query)
		waitWithin(tab, `document.querySelector("#loading") === null && /^0 steps/.test(document.querySelector("#status")?.textContent ?? "")`, 5*time.Minute)
		t.Logf("%s: SmolLM2-135M shape, Q8_0, %.1f MiB, fetched (or read from the cache) and opened in %.1f s", page.name, float64(len(data))/(1<<20), time.Since(start).Seconds())
		const steps = 32
		evaluate[bool](tab, `(globalThis.runResult = null, (`+runTime+`)(`+strconv.Itoa(steps)+`).then(r => globalThis.runResult = r), true)`)
		waitWithin(tab, `globalThis.runResult !== null`, 5*time.Minute)
		type run struct {
			Ms            float64
			Frames, Shown int
		}
		r := evaluate[run](tab, `globalThis.runResult`)
		t.Logf("%s: Run %d steps: %.0f ms, %.2f tok/s, %d animation frames, %d of them showed a new step", page.name, steps, r.Ms, steps/(r.Ms/1000), r.Frames, r.Shown)
		ms := evaluate[float64](tab, "("+stepTime+")("+strconv.Itoa(steps)+")")
		t.Logf("%s: Step %d times, each drawn and painted before the next: %.0f ms, %.2f tok/s", page.name, steps, ms, steps/(ms/1000))
	}
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
