//go:build !js

package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
)

// TestKernel checks that the playground decodes with the engine's
// WebAssembly SIMD kernels and says so (data-kernel on the root element),
// that simd=0 in the address runs the Go kernels instead, and that both
// give the text the native engine gives (nexttoken trace), and the same
// tokens with the same probabilities: on stories260K (float32 matrices)
// and on random GGUF models, fetched by URL as a reader's are, whose
// matrices are Q8_0, Q4_0, IQ4_XS, IQ4_NL, Q3_K, Q2_K and llama-quantize's
// Q4_K_M and Q5_K_M mixtures (Q4_K or Q5_K, and Q6_K; at width 64 their
// fallbacks, Q5_0 or Q5_1, and Q8_0), so that each quantized kernel runs
// in Chromium; the page fetches the kernel modules of Q5_1, Q5_K, Q3_K,
// Q2_K and the IQ4 formats (web/kernels) when such a model comes, and no
// others, and adds them (data-module-… on the root element, empty).
func TestKernel(t *testing.T) {
	const steps, prompt = 24, "Once upon a time"
	// Rows of whole blocks of every format, grouped keys and values; and
	// rows of 64, which Q4_K and Q6_K do not fill.
	shape := checkpoint.Config{Dim: 256, HiddenDim: 512, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 64}
	narrow := checkpoint.Config{Dim: 64, HiddenDim: 256, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 64}
	cases := []struct {
		name   string
		shape  checkpoint.Config // the model's, if not shape
		format string            // randmodel.BuildNamed's; "": stories260K
		file   string            // the GGUF file written of the format
		fetch  []string          // the kernel modules the page fetches for it
	}{
		{name: "stories260K"},
		{name: "Q8_0", format: "Q8_0"},
		{name: "Q4_0", format: "Q4_0"},
		{name: "Q4_K_M", format: "Q4_K_M"},
		// Rows of 64 take llama-quantize's fallbacks, Q5_0 and Q8_0.
		{name: "Q4_K_M-64", shape: narrow, format: "Q4_K_M"},
		{name: "Q5_K_M", format: "Q5_K_M", fetch: []string{"q5_k.wasm"}},
		// Q5_1 and Q8_0, and Q5_K and Q6_K in the 256-wide w2.
		{name: "Q5_K_M-64", shape: narrow, format: "Q5_K_M", fetch: []string{"q5_1.wasm", "q5_k.wasm"}},
		{name: "IQ4_XS", format: "IQ4_XS", fetch: []string{"iq4.wasm"}},
		{name: "Q3_K", format: "Q3_K", fetch: []string{"q3_k.wasm"}},
		{name: "Q2_K", format: "Q2_K", fetch: []string{"q2_k.wasm"}},
		{name: "IQ4_NL-64", shape: narrow, format: "IQ4_NL", fetch: []string{"iq4.wasm"}},
	}
	mux := http.NewServeMux()
	for i, c := range cases {
		if c.format == "" {
			continue
		}
		cases[i].file = writeRandomGGUF(t, cmp.Or(c.shape, shape), 7, c.format, c.name+".gguf")
		mux.HandleFunc("/"+c.name+".gguf", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Expose-Headers", "Content-Length, Content-Range")
			http.ServeFile(w, r, cases[i].file)
		})
	}
	models := httptest.NewServer(mux)
	defer models.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model, traced := "stories260K", "stories260K"
			if c.format != "" {
				traced = c.file
				data, err := os.ReadFile(traced)
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(data)
				model = "url:" + hex.EncodeToString(sum[:8]) + ":" + strconv.Itoa(len(data)) + ":" + models.URL + "/" + c.name + ".gguf"
			}
			code, out, errs := runCmd("trace", "--model="+traced, "--prompt="+prompt, "--steps="+strconv.Itoa(steps))
			if code != 0 {
				t.Fatalf("trace: exit %d: %s", code, errs)
			}
			m := regexp.MustCompile(`(?m)^text: (".*")$`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("trace printed no text:\n%s", out)
			}
			want, err := strconv.Unquote(m[1])
			if err != nil {
				t.Fatal(err)
			}
			// A random model may choose </s> before the last step.
			taken := strings.Count(out, "\n  greedy: ")
			var tokens []string
			for _, k := range []struct{ query, kernel string }{{"", "SIMD"}, {"&simd=0", "Go"}} {
				tab := openPage(t, "/?model="+url.QueryEscape(model)+"&prompt="+url.QueryEscape(prompt)+"&steps="+strconv.Itoa(steps)+k.query)
				if got := evaluate[string](tab, `document.documentElement.dataset.kernel`); got != k.kernel {
					t.Errorf("%q: the page reports the %q kernel, want %q", k.query, got, k.kernel)
				}
				waitFor(tab, `document.querySelector('#status')?.textContent.startsWith('`+strconv.Itoa(taken)+` steps')`)
				// The page shows a text that is not UTF-8 as the browser
				// decodes it, a U+FFFD for each bad sequence.
				shown := evaluate[string](tab, `new TextDecoder().decode(new Uint8Array(`+jsBytes(want)+`))`)
				if got := evaluate[string](tab, `document.querySelector('#text').textContent`); got != shown {
					t.Errorf("%s kernel: text %q, want nexttoken trace's %q", k.kernel, got, shown)
				}
				// Each chip's title names its step, piece and probability.
				tokens = append(tokens, evaluate[string](tab, `[...document.querySelectorAll('#tokens .tok.gen')].map(e => e.title).join('\n')`))
				// The modules come in the background, one after another,
				// fetched by the engine's worker, which runs the model; the
				// root element says how each went ("" once added), and
				// names every module fetched.
				const modules = `[...document.documentElement.attributes].filter(a => a.name.startsWith('data-module-'))`
				want := strings.Join(map[bool][]string{true: c.fetch}[k.kernel == "SIMD"], " ")
				waitFor(tab, modules+`.length === `+strconv.Itoa(len(strings.Fields(want))))
				if got := evaluate[string](tab, modules+`.map(a => a.name.slice(12) + (a.value && ': ' + a.value)).sort().join(' ')`); got != want {
					t.Errorf("%s kernel: the engine added the kernel modules %q, want %q", k.kernel, got, want)
				}
			}
			if tokens[0] != tokens[1] || tokens[0] == "" {
				t.Errorf("the generated tokens differ:\nSIMD:\n%s\nGo:\n%s", tokens[0], tokens[1])
			}
		})
	}
}

// jsBytes is s's bytes as a JavaScript array.
func jsBytes(s string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range len(s) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(s[i])))
	}
	b.WriteByte(']')
	return b.String()
}
