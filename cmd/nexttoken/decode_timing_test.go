//go:build !js

package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
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
	await wllama.loadModelFromUrl(location.origin + "/" + query.get("gguf"), {n_threads: 1, n_ctx: 256, n_gpu_layers: 0});
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
	simdRow   = iota // nexttoken with its WebAssembly SIMD kernels (decodebench)
	goRow            // nexttoken with its Go kernels (decodebench's simd=0)
	wllamaRow        // wllama, on the same network written as a GGUF file
	rowCount
)

var rowNames = [rowCount]string{"nexttoken SIMD", "nexttoken Go", "wllama"}

// A timedNetwork is a network TestDecodeTiming decodes: decodebench's
// model, or its random model of shape in format (randmodel.BuildShape),
// seed 15, with what architecture arch adds (randmodel.Extend).
type timedNetwork struct {
	name                 string
	model, shape, format string // format also for a model: what NEXTTOKEN_TIMING_FORMATS picks by
	tokens               int
	goKernel             bool   // also a row with the Go kernels
	wllama               bool   // also a row with wllama, given NEXTTOKEN_WLLAMA
	arch                 string // randmodel.Extend's architecture, "" for llama2.c's
}

// timedNetworks are the networks TestDecodeTiming measures. The K formats
// need rows of whole 256-weight blocks, hence their own shape, which has
// its own F32 baseline. The Go kernels would take minutes a round on
// SmolLM2's shape; wllama's per-token round trips to its worker dominate
// on stories260K, so neither is measured there (wllama is on SmolLM2's
// Q4_K_M and Q5_K_M and Qwen2.5-0.5B's Q4_K_M, the kind of file a reader
// brings).
var timedNetworks = []timedNetwork{
	{"F32", "", "stories15m", "f32", 128, true, true, ""},
	{"Q8_0", "", "stories15m", "q8_0", 128, true, true, ""},
	{"Q4_0", "", "stories15m", "q4_0", 128, true, true, ""},
	{"F32, K shape", "", "stories15mk", "f32", 128, true, true, ""},
	{"Q4_K", "", "stories15mk", "q4_k", 128, true, true, ""},
	{"Q6_K", "", "stories15mk", "q6_k", 128, true, true, ""},
	{"Q4_K_M", "", "stories15mk", "q4_k_m", 128, true, true, ""},
	{"stories260K", "stories260K", "", "f32", 128, true, false, ""},
	{"SmolLM2 shape, Q8_0", "", "smollm2", "q8_0", 32, false, false, ""},
	// Its rows of 576 take llama-quantize's fallbacks, Q5_0 and Q8_0, as a
	// real SmolLM2-135M Q4_K_M file does.
	{"SmolLM2 shape, Q4_K_M", "", "smollm2", "q4_k_m", 32, false, true, ""},
	// Its rows of 576 take Q5_1 and Q8_0, but its w2 (Q5_K and Q6_K).
	{"SmolLM2 shape, Q5_K_M", "", "smollm2", "q5_k_m", 32, false, true, ""},
	// Its rows of 896 take Q5_0 and Q8_0, but its w2 (Q4_K and Q6_K); its
	// vocabulary is the real one, 151,936 pieces, whose classifier is a
	// third of each token's work.
	{"Qwen2.5-0.5B shape, Q4_K_M", "", "qwen2.5-0.5b", "q4_k_m", 32, false, true, ""},
	// Every other architecture on SmolLM2's shape in Q8_0, with what
	// randmodel.Extend adds to it: biases, norms, windows, soft-caps,
	// GELU, positions (Q8_0 picks these rows too).
	{"SmolLM2 shape, Q8_0, gemma", "", "smollm2", "q8_0", 32, false, false, "gemma"},
	{"SmolLM2 shape, Q8_0, gemma2", "", "smollm2", "q8_0", 32, false, false, "gemma2"},
	{"SmolLM2 shape, Q8_0, gemma3", "", "smollm2", "q8_0", 32, false, false, "gemma3"},
	{"SmolLM2 shape, Q8_0, gpt2", "", "smollm2", "q8_0", 32, false, false, "gpt2"},
	{"SmolLM2 shape, Q8_0, llama3", "", "smollm2", "q8_0", 32, false, false, "llama3"},
	{"SmolLM2 shape, Q8_0, phi3", "", "smollm2", "q8_0", 32, false, false, "phi3"},
	{"SmolLM2 shape, Q8_0, qwen2", "", "smollm2", "q8_0", 32, false, false, "qwen2"},
	{"SmolLM2 shape, Q8_0, qwen3", "", "smollm2", "q8_0", 32, false, false, "qwen3"},
}

// gguf is the name of n's GGUF file for wllama.
func (n timedNetwork) gguf() string { return "model-" + n.shape + "-" + n.format + ".gguf" }

// path is the page and query of n's row.
func (n timedNetwork) path(row int) string {
	q := url.Values{"tokens": {strconv.Itoa(n.tokens)}}
	if row == wllamaRow {
		q.Set("gguf", n.gguf())
		return "/wllama.html?" + q.Encode()
	}
	if row == goRow {
		q.Set("simd", "0")
	}
	for key, value := range map[string]string{"model": n.model, "shape": n.shape, "format": n.format, "arch": n.arch} {
		if value != "" {
			q.Set(key, value)
		}
	}
	return "/decode.html?" + q.Encode()
}

// runs reports whether n has row, wllama's only when it is installed.
func (n timedNetwork) runs(row int, wllama bool) bool {
	return row == simdRow || row == goRow && n.goKernel || row == wllamaRow && n.wllama && wllama
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
	for _, n := range timedNetworks {
		if named[n.format] {
			picked = append(picked, n)
		}
	}
	for format := range named {
		if !slices.ContainsFunc(picked, func(n timedNetwork) bool { return n.format == format }) {
			return nil, fmt.Errorf("NEXTTOKEN_TIMING_FORMATS names %q, which no timed network is in (f32, q8_0, q4_0, q4_k, q6_k, q4_k_m, q5_k_m are)", format)
		}
	}
	return picked, nil
}

// TestDecodeTiming measures decoding in headless Chromium, engine only
// (wasm/decodebench, no page around it), greedily, single-threaded, on
// timedNetworks: 128 tokens of the random checkpoint of stories15M's shape
// in F32, Q8_0 and Q4_0; of the K shape (randmodel.Stories15MK, width 256)
// in F32, Q4_K, Q6_K (every matrix) and Q4_K_M (llama-quantize's
// mixture); of stories260K; and 32 tokens of the random SmolLM2-135M-shape
// model in Q8_0 and in Q4_K_M (whose 576-wide rows take llama-quantize's
// fallbacks, Q5_0 and Q8_0), and in Q8_0 with what each other
// architecture adds (randmodel.Extend). Each network has up to three rows:
//
//   - nexttoken SIMD: decodebench with the WebAssembly SIMD kernels;
//   - nexttoken Go: decodebench with simd=0, the Go kernels only, which
//     must decode the same tokens as the SIMD row;
//   - wllama: when NEXTTOKEN_WLLAMA names a folder where npm installed
//     @wllama/wllama (make timing WLLAMA=/path), wllama 3.8.1 on the same
//     network written as a GGUF file (the same blocks, so the same
//     weights), for the stories15M and K shapes and SmolLM2's Q4_K_M.
//
// NEXTTOKEN_TIMING_FORMATS (a comma list, such as "q4_k,q6_k") measures
// only the networks of those formats. The rows take turns within each of
// NEXTTOKEN_TIMING_ROUNDS rounds (default 5), a fresh tab each, so that
// the shared machine's load falls on all of them alike. It logs each
// row's median tok/s, and per network SIMD ÷ Go, SIMD ÷ wllama and how
// many of the greedy tokens nexttoken and wllama share from the start.
// It measures this tree's engine only, never make timing's baseline. A
// measurement, not a test: make timing runs it, with NEXTTOKEN_TIMING=1.
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
	dir := os.Getenv("NEXTTOKEN_WLLAMA")
	wllama := dir != ""
	if wllama {
		esm := filepath.Join(dir, "node_modules", "@wllama", "wllama", "esm")
		if _, err := os.Stat(filepath.Join(esm, "index.js")); err != nil {
			t.Fatalf("NEXTTOKEN_WLLAMA=%s: no wllama there (npm install @wllama/wllama@3.8.1 in it): %v", dir, err)
		}
		mux.Handle("/wllama/", http.StripPrefix("/wllama/", http.FileServer(http.Dir(esm))))
		pages["/wllama.html"] = wllamaPage
		for _, n := range networks {
			if n.runs(wllamaRow, wllama) {
				files["/"+n.gguf()] = n.writeGGUF(t)
			}
		}
	}
	mux.Handle("/models/", http.StripPrefix("/models/", http.FileServer(http.Dir("../../web/models"))))
	mux.Handle("/web/kernels/", http.StripPrefix("/web/kernels/", http.FileServer(http.Dir("../../web/kernels"))))
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

	rates := make([][rowCount][]float64, len(networks))
	first := make([][rowCount]decodeResult, len(networks)) // round 1's, with wllama's ids
	for round := range rounds {
		for i, n := range networks {
			for row := range rowCount {
				if !n.runs(row, wllama) {
					continue
				}
				path := n.path(row)
				if round == 0 && row == wllamaRow {
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
				fmt.Sprintf("they share the first %d of %d greedy tokens", commonPrefix(first[i][simdRow].Tokens, first[i][wllamaRow].Tokens), n.tokens))
		}
		if summary != nil {
			t.Logf("%s: %s", n.name, strings.Join(summary, "; "))
		}
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

// writeGGUF writes n's random model, decodebench's (randmodel.BuildShape,
// its seed), as the GGUF file n.gguf() in a folder of the test's, and
// returns its path.
func (n timedNetwork) writeGGUF(t *testing.T) string {
	t.Helper()
	m, v, err := randmodel.BuildShape(n.shape, 15, n.format)
	if err != nil {
		t.Fatal(err)
	}
	return writeModelGGUF(t, m, v, n.gguf())
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
	return writeModelGGUF(t, m, v, name)
}

// writeModelGGUF writes m and v as a GGUF file named name in a folder of the
// test's, and returns its path.
func writeModelGGUF(t *testing.T, m *checkpoint.Model, v *tokenizer.Vocab, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
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

// TestTimedFormats checks that NEXTTOKEN_TIMING_FORMATS picks the networks
// of the formats it names, in the table's order, all for "", and refuses a format no network is
// in, and that each row's page is given the network's query.
func TestTimedFormats(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string // the networks' names, nil for all
		err  string
	}{
		{"", nil, ""},
		{"Q6_K, q4_k", []string{"Q4_K", "Q6_K"}, ""},
		{"q4_k_m", []string{"Q4_K_M", "SmolLM2 shape, Q4_K_M", "Qwen2.5-0.5B shape, Q4_K_M"}, ""},
		{"q5_k_m", []string{"SmolLM2 shape, Q5_K_M"}, ""},
		{"q8_0", []string{"Q8_0", "SmolLM2 shape, Q8_0", "SmolLM2 shape, Q8_0, gemma", "SmolLM2 shape, Q8_0, gemma2", "SmolLM2 shape, Q8_0, gemma3",
			"SmolLM2 shape, Q8_0, gpt2", "SmolLM2 shape, Q8_0, llama3", "SmolLM2 shape, Q8_0, phi3", "SmolLM2 shape, Q8_0, qwen2", "SmolLM2 shape, Q8_0, qwen3"}, ""},
		{"f32", []string{"F32", "F32, K shape", "stories260K"}, ""},
		{"q4_k,q5_k", nil, `NEXTTOKEN_TIMING_FORMATS names "q5_k"`},
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
	k := timedNetwork{name: "Q4_K", shape: "stories15mk", format: "q4_k", tokens: 128, goKernel: true, wllama: true}
	for row, want := range [rowCount]string{
		simdRow:   "/decode.html?format=q4_k&shape=stories15mk&tokens=128",
		goRow:     "/decode.html?format=q4_k&shape=stories15mk&simd=0&tokens=128",
		wllamaRow: "/wllama.html?gguf=model-stories15mk-q4_k.gguf&tokens=128",
	} {
		if got := k.path(row); got != want {
			t.Errorf("%s: %s, want %s", rowNames[row], got, want)
		}
	}
	gemma3 := timedNetwork{shape: "smollm2", format: "q8_0", tokens: 32, arch: "gemma3"}
	if got, want := gemma3.path(simdRow), "/decode.html?arch=gemma3&format=q8_0&shape=smollm2&tokens=32"; got != want {
		t.Errorf("an architecture's row: %s, want %s", got, want)
	}
	if k.runs(wllamaRow, false) || !k.runs(wllamaRow, true) || (timedNetwork{}).runs(goRow, true) {
		t.Error("a row runs without its engine, or not with it")
	}
}
