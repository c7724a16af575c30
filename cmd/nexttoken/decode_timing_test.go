//go:build !js

package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/wasmshare"
)

// decodePage runs wasm/decodebench in a dedicated worker (decodeWorker),
// as the playground runs its engine and wllama runs llama.cpp, and passes
// the page's query on to it. With threads=N (N > 1) it runs the program
// on a shared memory, as the playground's engine does (wasm_exec.js's
// nexttokenInstantiate, wasmshare.Loader), with the kernels' threads
// (web/kernel-threads.js).
const decodePage = `<!doctype html><meta charset="utf-8"><title>decodebench</title><link rel="icon" href="data:,">
<script>
const worker = new Worker("/web/decode-worker.js" + location.search);
worker.onmessage = (e) => { globalThis.decodeBench = e.data; };
worker.onerror = (e) => { globalThis.decodeBench = {error: String(e.message)}; };
</script>`

// decodeWorker is decodePage's worker: it loads the program as go-app's
// loader does and posts what it left. It is served under /web/, beside
// kernel-threads.js, which starts its threads from its own address.
const decodeWorker = `importScripts("/wasm_exec.js", "/web/kernel-threads.js");
const go = new Go();
const shared = Number(new URLSearchParams(location.search).get("threads") || 1) > 1;
WebAssembly.compileStreaming(fetch(shared ? "/decodebench.shared.wasm" : "/decodebench.wasm"))
	.then(m => nexttokenInstantiate(m, go.importObject))
	.then(instance => go.run(instance))
	.then(() => postMessage(globalThis.decodeBench))
	.catch(e => postMessage({error: String(e)}));
`

// wllamaPage decodes as decodebench does with wllama (llama.cpp built for
// WebAssembly with SIMD): a GGUF file of the same network, one thread (or
// threads=N, llama.cpp's threads, which the page's cross-origin isolation
// allows), no GPU, the same prompt (llama.cpp adds BOS), an untimed run of 16 tokens,
// then 128 greedy tokens; its decode time is llama.cpp's own timing of the
// generated tokens (predicted_ms). Its KV cache is llama.cpp's default,
// float16, where nexttoken keeps float32, so their greedy tokens part
// after a few dozen even in F32 (natively, with a float32 cache, llama.cpp
// gives nexttoken's 128 F32 tokens on both stories15M shapes).
// The query's gguf names the file, served at /gguf.
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
	await wllama.loadModelFromUrl(location.origin + "/" + query.get("gguf"), {n_threads: Number(query.get("threads") || 1), n_ctx: 256, n_gpu_layers: 0});
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

// The engines that decode a timed network, one row each, in the order
// they take turns.
const (
	simdRow    = iota // nexttoken with its WebAssembly SIMD kernels (decodebench)
	goRow             // nexttoken with its Go kernels (decodebench's simd=0)
	wllamaRow         // wllama, on the same network written as a GGUF file
	simd2Row          // nexttoken SIMD on two threads (decodebench's threads=2)
	wllama2Row        // wllama on two threads
	rowCount
)

var rowNames = [rowCount]string{"nexttoken SIMD", "nexttoken Go", "wllama", "nexttoken SIMD, 2 threads", "wllama, 2 threads"}

// A timedNetwork is a network TestDecodeTiming decodes: decodebench's
// built-in model, or the random model of shape in format
// (randmodel.BuildShape), seed 15, with what architecture arch adds
// (randmodel.Extend), written as a GGUF file that every row reads.
type timedNetwork struct {
	name                 string
	model, shape, format string // format also for a model: what NEXTTOKEN_TIMING_FORMATS picks by
	tokens               int
	goKernel             bool   // also a row with the Go kernels
	wllama               bool   // also a row with wllama, given NEXTTOKEN_WLLAMA
	arch                 string // randmodel.Extend's architecture, "" for llama2.c's
}

// timedNetworks are the networks TestDecodeTiming measures. The K formats
// need rows of whole 256-weight blocks, hence the stories15M K shape, which
// has its own F32 baseline. On SmolLM2-135M's shape, whose rows of 576 are
// whole 256-weight blocks only in the 1536-wide w2, a K type or IQ4_XS is
// that type in w2 and llama-quantize's fallback elsewhere
// (randmodel.EveryOrFallback), as a real SmolLM2-135M file of it is.
// wllama's per-token round trips to its worker dominate on stories260K,
// and the Go kernels would take minutes a round on Qwen2.5-0.5B's shape,
// so neither is measured there.
var timedNetworks = []timedNetwork{
	{"F32", "", "stories15m", "f32", 128, true, true, ""},
	{"Q8_0", "", "stories15m", "q8_0", 128, true, true, ""},
	{"Q4_0", "", "stories15m", "q4_0", 128, true, true, ""},
	{"F32, K shape", "", "stories15mk", "f32", 128, true, true, ""},
	{"Q4_K", "", "stories15mk", "q4_k", 128, true, true, ""},
	{"Q6_K", "", "stories15mk", "q6_k", 128, true, true, ""},
	{"Q4_K_M", "", "stories15mk", "q4_k_m", 128, true, true, ""},
	{"stories260K", "stories260K", "", "f32", 128, true, false, ""},
	{"SmolLM2 shape, F32", "", "smollm2", "f32", 32, true, true, ""},
	{"SmolLM2 shape, Q8_0", "", "smollm2", "q8_0", 32, true, true, ""},
	{"SmolLM2 shape, Q4_0", "", "smollm2", "q4_0", 32, true, true, ""},
	{"SmolLM2 shape, Q5_0", "", "smollm2", "q5_0", 32, true, true, ""},
	{"SmolLM2 shape, Q5_1", "", "smollm2", "q5_1", 32, true, true, ""},
	{"SmolLM2 shape, IQ4_NL", "", "smollm2", "iq4_nl", 32, true, true, ""},
	// Its rows of 576 take llama-quantize's fallbacks, Q5_0 and Q8_0, as a
	// real SmolLM2-135M Q4_K_M file does.
	{"SmolLM2 shape, Q4_K_M", "", "smollm2", "q4_k_m", 32, true, true, ""},
	// Its rows of 576 take Q5_1 and Q8_0, but its w2 (Q5_K and Q6_K).
	{"SmolLM2 shape, Q5_K_M", "", "smollm2", "q5_k_m", 32, true, true, ""},
	{"SmolLM2 shape, Q6_K", "", "smollm2", "q6_k", 32, true, true, ""},
	{"SmolLM2 shape, Q3_K", "", "smollm2", "q3_k", 32, true, true, ""},
	{"SmolLM2 shape, Q2_K", "", "smollm2", "q2_k", 32, true, true, ""},
	{"SmolLM2 shape, IQ4_XS", "", "smollm2", "iq4_xs", 32, true, true, ""},
	// Its rows of 896 take Q5_0 and Q8_0, but its w2 (Q4_K and Q6_K); its
	// vocabulary is the real one, 151,936 pieces, whose classifier is a
	// third of each token's work.
	{"Qwen2.5-0.5B shape, Q4_K_M", "", "qwen2.5-0.5b", "q4_k_m", 32, false, true, ""},
	// Every other architecture on SmolLM2's shape in Q8_0, with what
	// randmodel.Extend adds to it: biases, norms, windows, soft-caps,
	// GELU, positions (Q8_0 picks these rows too).
	{"SmolLM2 shape, Q8_0, gemma", "", "smollm2", "q8_0", 32, true, true, "gemma"},
	{"SmolLM2 shape, Q8_0, gemma2", "", "smollm2", "q8_0", 32, true, true, "gemma2"},
	{"SmolLM2 shape, Q8_0, gemma3", "", "smollm2", "q8_0", 32, true, true, "gemma3"},
	{"SmolLM2 shape, Q8_0, gpt2", "", "smollm2", "q8_0", 32, true, true, "gpt2"},
	{"SmolLM2 shape, Q8_0, llama3", "", "smollm2", "q8_0", 32, true, true, "llama3"},
	{"SmolLM2 shape, Q8_0, phi3", "", "smollm2", "q8_0", 32, true, true, "phi3"},
	{"SmolLM2 shape, Q8_0, qwen2", "", "smollm2", "q8_0", 32, true, true, "qwen2"},
	{"SmolLM2 shape, Q8_0, qwen3", "", "smollm2", "q8_0", 32, true, true, "qwen3"},
}

// timedSeed is the random networks' seed, cmd/randmodel's.
const timedSeed = 15

// gguf is the name of n's GGUF file, "" for a built-in model.
func (n timedNetwork) gguf() string {
	if n.model != "" {
		return ""
	}
	return "model-" + strings.Join(slices.DeleteFunc([]string{n.shape, n.format, n.arch}, func(s string) bool { return s == "" }), "-") + ".gguf"
}

// path is the page and query of n's row.
func (n timedNetwork) path(row int) string {
	q := url.Values{"tokens": {strconv.Itoa(n.tokens)}}
	if row == simd2Row || row == wllama2Row {
		q.Set("threads", "2")
	}
	if row == wllamaRow || row == wllama2Row {
		q.Set("gguf", n.gguf())
		return "/wllama.html?" + q.Encode()
	}
	if row == goRow {
		q.Set("simd", "0")
	}
	if n.model != "" {
		q.Set("model", n.model)
	} else {
		q.Set("gguf", n.gguf())
	}
	return "/decode.html?" + q.Encode()
}

// runs reports whether n has row, wllama's only when it is installed.
func (n timedNetwork) runs(row int, wllama bool) bool {
	switch row {
	case goRow:
		return n.goKernel
	case wllamaRow, wllama2Row:
		return n.wllama && wllama
	}
	return true
}

// timedFormats returns the networks, in timedNetworks' order, of the
// formats list names (a comma list such as "q4_k,q6_k",
// NEXTTOKEN_TIMING_FORMATS), all for "".
func timedFormats(list string) ([]timedNetwork, error) {
	if list == "" {
		return timedNetworks, nil
	}
	named := map[string]bool{}
	for _, format := range strings.Split(list, ",") {
		named[strings.ToLower(strings.TrimSpace(format))] = true
	}
	var picked []timedNetwork
	var formats []string
	for _, n := range timedNetworks {
		if named[n.format] {
			picked = append(picked, n)
		}
		if !slices.Contains(formats, n.format) {
			formats = append(formats, n.format)
		}
	}
	for format := range named {
		if !slices.Contains(formats, format) {
			return nil, fmt.Errorf("NEXTTOKEN_TIMING_FORMATS names %q, which no timed network is in (%s are)", format, strings.Join(formats, ", "))
		}
	}
	return picked, nil
}

// TestDecodeTiming measures decoding in headless Chromium, engine only
// (wasm/decodebench, no page around it), greedily, single-threaded, on
// timedNetworks: 128 tokens of the random networks of stories15M's shape
// in F32, Q8_0 and Q4_0; of the K shape (randmodel.Stories15MK, width 256)
// in F32, Q4_K, Q6_K (every matrix) and Q4_K_M (llama-quantize's
// mixture); of stories260K; and 32 tokens of the random networks of
// SmolLM2-135M's shape in every type, in Q8_0 with what each other
// architecture adds (randmodel.Extend), and of Qwen2.5-0.5B's in Q4_K_M.
// Each random network is written as a GGUF file (NEXTTOKEN_TIMING_KEEP=DIR
// writes them into DIR and keeps them, for the native engine and
// llama.cpp's tools), and each row reads that very file:
//
//   - nexttoken SIMD: decodebench with the WebAssembly SIMD kernels;
//   - nexttoken Go: decodebench with simd=0, the Go kernels only, which
//     must decode the same tokens as the SIMD row;
//   - wllama: when NEXTTOKEN_WLLAMA names a folder where npm installed
//     @wllama/wllama (make timing WLLAMA=/path), wllama 3.8.1.
//
// Two more rows run each network on two threads, cross-origin isolated as
// the playground's server's pages are: nexttoken SIMD with threads=2
// (decodebench on a shared memory, web/kernel-threads.js), which must
// decode the SIMD row's tokens, and wllama with two of llama.cpp's
// threads.
//
// NEXTTOKEN_TIMING_FORMATS (a comma list, such as "q4_k,q6_k") measures
// only the networks of those formats, NEXTTOKEN_TIMING_NETWORKS (a regular
// expression) only those whose names it matches. The rows take turns within each of
// NEXTTOKEN_TIMING_ROUNDS rounds (default 5), a fresh tab each, so that
// the shared machine's load falls on all of them alike. It logs each
// row's median tok/s, and per network SIMD ÷ Go, SIMD ÷ wllama, the first
// greedy tokens of nexttoken and wllama and how many they share from the
// start. It measures this tree's engine only, never make timing's
// baseline. A measurement, not a test: make timing runs it, with
// NEXTTOKEN_TIMING=1.
func TestDecodeTiming(t *testing.T) {
	needTiming(t, "engine decode")
	rounds, err := strconv.Atoi(os.Getenv("NEXTTOKEN_TIMING_ROUNDS"))
	if err != nil || rounds < 1 {
		rounds = 5
	}
	networks, err := timedFormats(os.Getenv("NEXTTOKEN_TIMING_FORMATS"))
	if err != nil {
		t.Fatal(err)
	}
	if names := os.Getenv("NEXTTOKEN_TIMING_NETWORKS"); names != "" {
		match, err := regexp.Compile(names)
		if err != nil {
			t.Fatalf("NEXTTOKEN_TIMING_NETWORKS: %v", err)
		}
		networks = slices.DeleteFunc(networks, func(n timedNetwork) bool { return !match.MatchString(n.name) })
	}
	h := needBrowser(t)
	goroot, err := exec.Command(goCommand(), "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	bench := goBuild(t, "../../wasm/decodebench", "decodebench.wasm", "GOOS=js", "GOARCH=wasm")
	files := map[string]string{
		"/wasm_exec.js":            sharedFile(t, filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"), "wasm_exec.js"),
		"/decodebench.wasm":        bench,
		"/decodebench.shared.wasm": sharedFile(t, bench, "decodebench.shared.wasm"),
		"/web/kernel-threads.js":   "../../web/kernel-threads.js",
	}
	pages := map[string]string{"/decode.html": decodePage, "/web/decode-worker.js": decodeWorker}
	dir := os.Getenv("NEXTTOKEN_WLLAMA")
	wllama := dir != ""
	if wllama {
		esm := filepath.Join(dir, "node_modules", "@wllama", "wllama", "esm")
		if _, err := os.Stat(filepath.Join(esm, "index.js")); err != nil {
			t.Fatalf("NEXTTOKEN_WLLAMA=%s: no wllama there (npm install @wllama/wllama@3.8.1 in it): %v", dir, err)
		}
		mux.Handle("/wllama/", http.StripPrefix("/wllama/", http.FileServer(http.Dir(esm))))
		pages["/wllama.html"] = wllamaPage
	}
	keep := os.Getenv("NEXTTOKEN_TIMING_KEEP")
	folder := keep
	if folder == "" {
		folder = t.TempDir()
	} else if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range networks {
		if n.gguf() != "" {
			path := filepath.Join(folder, n.gguf())
			n.writeGGUF(t, path)
			files["/"+n.gguf()] = path
			if keep != "" {
				t.Logf("%s: %s", n.name, path)
			}
		}
	}
	mux.Handle("/models/", http.StripPrefix("/models/", http.FileServer(http.Dir("../../web/models"))))
	mux.Handle("/web/kernels/", http.StripPrefix("/web/kernels/", http.FileServer(http.Dir("../../web/kernels"))))
	for path, file := range files {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, file) })
	}
	for path, text := range pages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			kind := "text/html; charset=utf-8"
			if strings.HasSuffix(path, ".js") {
				kind = "text/javascript; charset=utf-8"
			}
			w.Header().Set("Content-Type", kind)
			fmt.Fprint(w, text)
		})
	}
	// Cross-origin isolated, as the playground's server's pages, so that the
	// threads of both engines can share memory.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
		w.Header().Set("Cross-Origin-Embedder-Policy", "credentialless")
		mux.ServeHTTP(w, r)
	}))
	defer srv.Close()

	rates := make([][rowCount][]float64, len(networks))
	first := make([][rowCount]decodeResult, len(networks)) // round 1's, with wllama's ids
	for round := range rounds {
		for i, n := range networks {
			for row := range rowCount {
				if !n.runs(row, wllama) {
					continue
				}
				path := n.path(row)
				if round == 0 && (row == wllamaRow || row == wllama2Row) {
					path += "&ids=1"
				}
				r := runDecodePage(t, h.browser, srv.URL+path)
				if round == 0 {
					first[i][row] = r
				}
				decoded := len(r.Tokens)
				if r.Decoded != 0 {
					decoded = r.Decoded
				}
				rate := float64(decoded) / (r.Ms / 1000)
				rates[i][row] = append(rates[i][row], rate)
				t.Logf("round %d, %s, %s (kernel %s): %d tokens in %.0f ms, %.1f tok/s", round+1, n.name, rowNames[row], r.Kernel, decoded, r.Ms, rate)
			}
		}
	}
	for i, n := range networks {
		var medians [rowCount]float64
		for row := range rowCount {
			if !n.runs(row, wllama) {
				continue
			}
			r := rates[i][row]
			slices.Sort(r)
			medians[row] = r[len(r)/2]
			t.Logf("%s, %s: median %.1f tok/s (min %.1f, max %.1f) over %d rounds", n.name, rowNames[row], medians[row], r[0], r[len(r)-1], rounds)
		}
		var summary []string
		if n.goKernel {
			summary = append(summary, fmt.Sprintf("nexttoken SIMD ÷ Go %.2f×", medians[simdRow]/medians[goRow]))
			if !slices.Equal(first[i][simdRow].Tokens, first[i][goRow].Tokens) {
				t.Errorf("%s: the SIMD and Go kernels decode different tokens:\n%v\n%v", n.name, first[i][simdRow].Tokens, first[i][goRow].Tokens)
			}
		}
		if n.runs(wllamaRow, wllama) {
			summary = append(summary, fmt.Sprintf("nexttoken SIMD ÷ wllama %.2f× (%.1f against %.1f tok/s)",
				medians[simdRow]/medians[wllamaRow], medians[simdRow], medians[wllamaRow]),
				fmt.Sprintf("they share the first %d of %d greedy tokens (nexttoken %v…, wllama %v…)", commonPrefix(first[i][simdRow].Tokens, first[i][wllamaRow].Tokens), n.tokens,
					first[i][simdRow].Tokens[:min(8, len(first[i][simdRow].Tokens))], first[i][wllamaRow].Tokens[:min(8, len(first[i][wllamaRow].Tokens))]))
		}
		summary = append(summary, fmt.Sprintf("nexttoken SIMD 2 threads ÷ 1 %.2f×", medians[simd2Row]/medians[simdRow]))
		if !slices.Equal(first[i][simdRow].Tokens, first[i][simd2Row].Tokens) {
			t.Errorf("%s: the SIMD kernels decode different tokens on one thread and on two:\n%v\n%v", n.name, first[i][simdRow].Tokens, first[i][simd2Row].Tokens)
		}
		if n.runs(wllama2Row, wllama) {
			summary = append(summary, fmt.Sprintf("nexttoken SIMD ÷ wllama, 2 threads each, %.2f× (%.1f against %.1f tok/s); wllama 2 threads ÷ 1 %.2f×",
				medians[simd2Row]/medians[wllama2Row], medians[simd2Row], medians[wllama2Row], medians[wllama2Row]/medians[wllamaRow]))
		}
		t.Logf("%s: %s", n.name, strings.Join(summary, "; "))
	}
}

// sharedFile writes file made for a shared memory into a folder of the
// test's, as name, and returns its path: a program (wasmshare.Memory), or
// wasm_exec.js (wasmshare.Loader).
func sharedFile(t *testing.T, file, name string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(file, ".js") {
		var js string
		js, err = wasmshare.Loader(string(b))
		b = []byte(js)
	} else {
		b, err = wasmshare.Memory(b)
	}
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
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

// writeGGUF writes n's random network (randmodel.BuildShape, timedSeed,
// randmodel.Extend) as the GGUF file path, its classifier tied to the
// embedding as SmolLM2-135M's and Qwen2.5-0.5B's are.
func (n timedNetwork) writeGGUF(t *testing.T, path string) {
	t.Helper()
	m, v, err := randmodel.BuildShape(n.shape, timedSeed, n.format)
	if err == nil && n.arch != "" {
		err = randmodel.Extend(m, n.arch, timedSeed)
	}
	if err != nil {
		t.Fatalf("%s: %v", n.name, err)
	}
	writeModelGGUF(t, m, v, path, gguf.Llama2cOptions{Type: gguf.F32, TiedOutput: true})
}

// writeRandomGGUF writes randmodel's model of shape c in the format called
// format (randmodel.BuildNamed) as a GGUF file named name, in a folder of
// the test's, and returns its path: the same weights, the quantized ones
// in the same blocks.
func writeRandomGGUF(t *testing.T, c checkpoint.Config, seed uint64, format, name string) string {
	t.Helper()
	m, v, err := randmodel.BuildNamed(c, seed, format)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	writeModelGGUF(t, m, v, path, gguf.Llama2cOptions{Type: gguf.F32})
	return path
}

// writeModelGGUF writes m and v as the GGUF file path.
func writeModelGGUF(t *testing.T, m *checkpoint.Model, v *tokenizer.Vocab, path string, o gguf.Llama2cOptions) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := gguf.WriteLlama2c(w, m, v, o); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestTimedFormats checks that NEXTTOKEN_TIMING_FORMATS picks the networks
// of the formats it names, in the table's order, all for "", and refuses a
// format no network is in, naming those that are; that every architecture
// and every type has its row on SmolLM2's shape, each with the Go kernels
// and wllama; and that each row's page is given the network's file, or
// its built-in model.
func TestTimedFormats(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string // the networks' names, nil for all
		err  string
	}{
		{"", nil, ""},
		{"Q6_K, q4_k", []string{"Q4_K", "Q6_K", "SmolLM2 shape, Q6_K"}, ""},
		{"q4_k_m", []string{"Q4_K_M", "SmolLM2 shape, Q4_K_M", "Qwen2.5-0.5B shape, Q4_K_M"}, ""},
		{"q5_k_m,Q3_K,q2_k", []string{"SmolLM2 shape, Q5_K_M", "SmolLM2 shape, Q3_K", "SmolLM2 shape, Q2_K"}, ""},
		{"iq4_nl,iq4_xs,q5_0,q5_1", []string{"SmolLM2 shape, Q5_0", "SmolLM2 shape, Q5_1", "SmolLM2 shape, IQ4_NL", "SmolLM2 shape, IQ4_XS"}, ""},
		{"q8_0", []string{"Q8_0", "SmolLM2 shape, Q8_0", "SmolLM2 shape, Q8_0, gemma", "SmolLM2 shape, Q8_0, gemma2", "SmolLM2 shape, Q8_0, gemma3",
			"SmolLM2 shape, Q8_0, gpt2", "SmolLM2 shape, Q8_0, llama3", "SmolLM2 shape, Q8_0, phi3", "SmolLM2 shape, Q8_0, qwen2", "SmolLM2 shape, Q8_0, qwen3"}, ""},
		{"f32", []string{"F32", "F32, K shape", "stories260K", "SmolLM2 shape, F32"}, ""},
		{"q4_k,q5_k", nil, `NEXTTOKEN_TIMING_FORMATS names "q5_k", which no timed network is in (f32, q8_0, q4_0, q4_k, q6_k, q4_k_m, q5_0, q5_1, iq4_nl, q5_k_m, q3_k, q2_k, iq4_xs are)`},
	} {
		networks, err := timedFormats(tc.list)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %s", tc.list, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.list, err)
			continue
		}
		var names []string
		for _, n := range networks {
			names = append(names, n.name)
		}
		if tc.want == nil && len(networks) != len(timedNetworks) || tc.want != nil && !slices.Equal(names, tc.want) {
			t.Errorf("%q picks %q, want %q (nil: all)", tc.list, names, tc.want)
		}
	}

	smol := map[string]bool{}
	for _, n := range timedNetworks {
		if n.shape == "smollm2" && n.goKernel && n.wllama {
			smol[n.format+"/"+n.arch] = true
		}
	}
	for _, format := range []string{"f32", "q8_0", "q4_0", "q5_0", "q5_1", "q4_k_m", "q5_k_m", "q6_k", "q3_k", "q2_k", "iq4_nl", "iq4_xs"} {
		if !smol[format+"/"] {
			t.Errorf("no row of SmolLM2's shape in %s with the Go kernels and wllama", format)
		}
	}
	for _, arch := range randmodel.Extensions {
		if !smol["q8_0/"+arch] {
			t.Errorf("no row of SmolLM2's shape in Q8_0 as %s with the Go kernels and wllama", arch)
		}
	}

	k := timedNetwork{name: "Q4_K", shape: "stories15mk", format: "q4_k", tokens: 128, goKernel: true, wllama: true}
	gemma3 := timedNetwork{shape: "smollm2", format: "q8_0", tokens: 32, goKernel: true, wllama: true, arch: "gemma3"}
	stories := timedNetwork{model: "stories260K", format: "f32", tokens: 128, goKernel: true}
	for _, tc := range []struct {
		n    timedNetwork
		row  int
		want string
	}{
		{k, simdRow, "/decode.html?gguf=model-stories15mk-q4_k.gguf&tokens=128"},
		{k, goRow, "/decode.html?gguf=model-stories15mk-q4_k.gguf&simd=0&tokens=128"},
		{k, wllamaRow, "/wllama.html?gguf=model-stories15mk-q4_k.gguf&tokens=128"},
		{gemma3, simdRow, "/decode.html?gguf=model-smollm2-q8_0-gemma3.gguf&tokens=32"},
		{gemma3, wllamaRow, "/wllama.html?gguf=model-smollm2-q8_0-gemma3.gguf&tokens=32"},
		{stories, goRow, "/decode.html?model=stories260K&simd=0&tokens=128"},
	} {
		if got := tc.n.path(tc.row); got != tc.want {
			t.Errorf("%s: %s, want %s", rowNames[tc.row], got, tc.want)
		}
	}
	if stories.gguf() != "" {
		t.Errorf("a built-in model has a file, %s", stories.gguf())
	}
	if k.runs(wllamaRow, false) || !k.runs(wllamaRow, true) || (timedNetwork{}).runs(goRow, true) {
		t.Error("a row runs without its engine, or not with it")
	}
}
