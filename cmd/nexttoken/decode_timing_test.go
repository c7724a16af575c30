//go:build !js

package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nexttoken/engine/gguf"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

// decodePage runs wasm/decodebench with wasm_exec.js, as go-app's loader
// does, and passes the page's query on to it.
const decodePage = `<!doctype html><meta charset="utf-8"><title>decodebench</title><link rel="icon" href="data:,">
<script src="/wasm_exec.js"></script>
<script>
const go = new Go();
WebAssembly.instantiateStreaming(fetch("/decodebench.wasm"), go.importObject)
	.then(r => go.run(r.instance))
	.catch(e => { globalThis.decodeBench = {error: String(e)}; });
</script>`

// wllamaPage decodes as decodebench does with wllama (llama.cpp built for
// WebAssembly with SIMD): a GGUF file of the same network, one thread, no
// GPU, the same prompt (llama.cpp adds BOS), an untimed run of 16 tokens,
// then 128 greedy tokens; its decode time is llama.cpp's own timing of the
// generated tokens (predicted_ms).
// The query's format (f32 or q8_0) chooses the file, /model-FORMAT.gguf.
// With ids=1 it decodes once more, untimed, asking for log-probabilities,
// whose entries carry the token ids.
const wllamaPage = `<!doctype html><meta charset="utf-8"><title>wllama</title><link rel="icon" href="data:,">
<script type="module">
import { Wllama } from "/wllama/index.js";
const quiet = () => {};
try {
	const query = new URLSearchParams(location.search);
	const tokens = Number(query.get("tokens") || 128);
	const wllama = new Wllama({default: "/wllama/wasm/wllama.wasm"},
		{logger: {debug: quiet, log: quiet, info: quiet, warn: quiet, error: console.error}});
	const format = query.get("format") || "f32";
	await wllama.loadModelFromUrl(location.origin + "/model-" + format + ".gguf", {n_threads: 1, n_ctx: 256, n_gpu_layers: 0});
	const greedy = {prompt: "Once upon a time", max_tokens: tokens, temperature: 0, ignore_eos: true};
	await wllama.createCompletion({...greedy, max_tokens: Math.min(16, tokens)}); // warm-up, as decodebench's
	const r = await wllama.createCompletion(greedy);
	let ids = [];
	if (query.get("ids") === "1") {
		const withIds = await wllama.createCompletion({...greedy, logprobs: 1});
		ids = withIds.choices[0].logprobs.content.map(c => c.id);
	}
	globalThis.decodeBench = {kernel: wllama.isMultithread() ? "wllama, multi-thread" : "wllama, one thread",
		ms: r.timings.predicted_ms, decoded: r.timings.predicted_n, tokens: ids};
} catch (e) {
	globalThis.decodeBench = {error: String(e)};
}
</script>`

// decodeResult is what a decode page leaves in decodeBench.
type decodeResult struct {
	Error   string  `json:"error"`
	Kernel  string  `json:"kernel"`
	Ms      float64 `json:"ms"`
	Tokens  []int   `json:"tokens"`  // the ids decoded (wllama: with ids=1)
	Decoded int     `json:"decoded"` // wllama: the tokens it timed
}

// TestDecodeTiming measures decoding in headless Chromium, engine only
// (wasm/decodebench, no page around it): 128 greedy tokens on the random
// checkpoint of stories15M's shape (in F32, and in Q8_0: format=q8_0) and on stories260K, with the WebAssembly
// SIMD kernel and with the Go loop (simd=0); 32 tokens of the random
// SmolLM2-135M-shape Q8_0 model with the SIMD kernel (its Go loop would
// take minutes a round); and, when NEXTTOKEN_WLLAMA names a folder
// where npm installed @wllama/wllama (make timing WLLAMA=/path), wllama
// single-threaded on the same networks written as GGUF files, the F32 one
// and the Q8_0 one (the same blocks as decodebench's format=q8_0). The engines
// take turns, a fresh tab each, NEXTTOKEN_TIMING_ROUNDS rounds (default 5),
// so that the shared machine's load falls on all of them alike. A
// measurement, not a test: make timing runs it, with NEXTTOKEN_TIMING=1.
func TestDecodeTiming(t *testing.T) {
	if os.Getenv("NEXTTOKEN_TIMING") == "" {
		t.Skip("a measurement: make timing runs it")
	}
	rounds, err := strconv.Atoi(os.Getenv("NEXTTOKEN_TIMING_ROUNDS"))
	if err != nil || rounds < 1 {
		rounds = 5
	}
	const tokens = 128
	h := needBrowser(t)
	goroot, err := exec.Command(goCommand(), "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	files := map[string]string{
		"/wasm_exec.js":     filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"),
		"/decodebench.wasm": goBuild(t, "../../wasm/decodebench", "decodebench.wasm", "GOOS=js", "GOARCH=wasm"),
	}
	pages := map[string]string{"/decode.html": decodePage}
	engines := []struct{ name, path string }{
		{"nexttoken SIMD", "/decode.html?tokens=" + strconv.Itoa(tokens)},
		{"nexttoken Go", "/decode.html?simd=0&tokens=" + strconv.Itoa(tokens)},
		{"nexttoken Q8_0 SIMD", "/decode.html?format=q8_0&tokens=" + strconv.Itoa(tokens)},
		{"nexttoken Q8_0 Go", "/decode.html?format=q8_0&simd=0&tokens=" + strconv.Itoa(tokens)},
		{"stories260K SIMD", "/decode.html?model=stories260K&tokens=" + strconv.Itoa(tokens)},
		{"stories260K Go", "/decode.html?model=stories260K&simd=0&tokens=" + strconv.Itoa(tokens)},
		{"SmolLM2 shape Q8_0 SIMD", "/decode.html?shape=smollm2&format=q8_0&tokens=32"},
	}
	wllama := -1 // the index of wllama's F32 run among the engines, if it runs; Q8_0 follows
	if dir := os.Getenv("NEXTTOKEN_WLLAMA"); dir != "" {
		esm := filepath.Join(dir, "node_modules", "@wllama", "wllama", "esm")
		if _, err := os.Stat(filepath.Join(esm, "index.js")); err != nil {
			t.Fatalf("NEXTTOKEN_WLLAMA=%s: no wllama there (npm install @wllama/wllama@3.8.1 in it): %v", dir, err)
		}
		mux.Handle("/wllama/", http.StripPrefix("/wllama/", http.FileServer(http.Dir(esm))))
		files["/model-f32.gguf"] = writeRandomGGUF(t, quant.F32)
		files["/model-q8_0.gguf"] = writeRandomGGUF(t, quant.Q8_0)
		pages["/wllama.html"] = wllamaPage
		wllama = len(engines)
		engines = append(engines,
			struct{ name, path string }{"wllama f32", "/wllama.html?format=f32&tokens=" + strconv.Itoa(tokens)},
			struct{ name, path string }{"wllama Q8_0", "/wllama.html?format=q8_0&tokens=" + strconv.Itoa(tokens)})
	}
	mux.Handle("/models/", http.StripPrefix("/models/", http.FileServer(http.Dir("../../web/models"))))
	for path, file := range files {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, file) })
	}
	for path, html := range pages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, html)
		})
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()

	rates := make([][]float64, len(engines))
	var first []decodeResult
	for round := range rounds {
		for i, e := range engines {
			path := e.path
			if round == 0 && strings.HasPrefix(path, "/wllama") {
				path += "&ids=1"
			}
			r := runDecodePage(t, h.browser, srv.URL+path)
			if round == 0 {
				first = append(first, r)
			}
			n := len(r.Tokens)
			if r.Decoded != 0 {
				n = r.Decoded
			}
			rates[i] = append(rates[i], float64(n)/(r.Ms/1000))
			t.Logf("round %d, %s (kernel %s): %d tokens in %.0f ms, %.1f tok/s", round+1, e.name, r.Kernel, n, r.Ms, rates[i][round])
		}
	}
	for i := 0; i < 6; i += 2 {
		if !slices.Equal(first[i].Tokens, first[i+1].Tokens) {
			t.Errorf("%s and %s decode different tokens:\n%v\n%v", engines[i].name, engines[i+1].name, first[i].Tokens, first[i+1].Tokens)
		}
	}
	medians := make([]float64, len(engines))
	for i, e := range engines {
		slices.Sort(rates[i])
		medians[i] = rates[i][rounds/2]
		t.Logf("%s: median %.1f tok/s (min %.1f, max %.1f) over %d rounds", e.name, medians[i], rates[i][0], rates[i][rounds-1], rounds)
	}
	t.Logf("SIMD ÷ Go kernel: %.2f× (Q8_0: %.2f×, stories260K: %.2f×)", medians[0]/medians[1], medians[2]/medians[3], medians[4]/medians[5])
	t.Logf("Q8_0 ÷ F32: %.2f× with SIMD, %.2f× with the Go kernels", medians[2]/medians[0], medians[3]/medians[1])
	if wllama >= 0 {
		t.Logf("nexttoken SIMD ÷ wllama f32: %.2f× (Go kernel: %.2f×)", medians[0]/medians[wllama], medians[1]/medians[wllama])
		t.Logf("nexttoken Q8_0 SIMD ÷ wllama Q8_0: %.2f× (Go kernel: %.2f×)", medians[2]/medians[wllama+1], medians[3]/medians[wllama+1])
		t.Logf("nexttoken and wllama agree on the first %d of %d greedy tokens in F32, %d in Q8_0",
			commonPrefix(first[0].Tokens, first[wllama].Tokens), tokens, commonPrefix(first[2].Tokens, first[wllama+1].Tokens))
	}
}

// commonPrefix is how many tokens a and b share from the start.
func commonPrefix(a, b []int) int {
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	return n
}

// runDecodePage opens url in a new tab and returns what its decode left.
func runDecodePage(t *testing.T, browser context.Context, url string) decodeResult {
	t.Helper()
	tab := openTab(t, browser)
	ctx, cancel := context.WithTimeout(tab, 5*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	r, err := chromedp.Run(ctx, chromedp.Poll[decodeResult](`globalThis.decodeBench`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0)))
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	if r.Error != "" {
		t.Fatalf("%s: %s", url, r.Error)
	}
	return r
}

// writeRandomGGUF writes decodebench's network, the random checkpoint of
// stories15M's shape (randmodel seed 15), as a GGUF file: in F32, or with
// every matrix of format, the blocks decodebench's format= query decodes.
func writeRandomGGUF(t *testing.T, format quant.Type) string {
	t.Helper()
	m, v, err := randmodel.BuildAs(randmodel.Stories15M, 15, format)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model-"+format.String()+".gguf")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := gguf.WriteLlama2c(f, m, v, gguf.Llama2cOptions{Type: gguf.F32}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
