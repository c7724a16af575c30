package main

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"nexttoken/engine/catalog"
	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/randmodel"
)

// knownShapes are random stand-ins for the models known to work, by name:
// each of its architecture (with what randmodel.Extend adds: Llama 3's
// RoPE factors, Qwen2's biases, GPT-2's LayerNorm and positions) and
// format, with its attention's grouping and a row width that falls back
// from the K formats when the real one does (Qwen2.5's 896, SmolLM2's
// 576), but 2 layers and 400 tokens, so that the test stays fast.
var knownShapes = map[string]struct {
	config checkpoint.Config
	extend string // randmodel.Extend's architecture, "" for llama2.c's
}{
	"SmolLM2 135M Instruct (Q8_0)":   {checkpoint.Config{Dim: 64, HiddenDim: 128, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 64, SharedHead: true}, ""},
	"GPT-2 small (Q8_0)":             {checkpoint.Config{Dim: 64, HiddenDim: 256, Layers: 2, Heads: 4, KVHeads: 4, VocabSize: 400, SeqLen: 64, SharedHead: true}, "gpt2"},
	"Gemma 3 270M instruct (Q8_0)":   {checkpoint.Config{Dim: 128, HiddenDim: 256, Layers: 2, Heads: 4, KVHeads: 1, VocabSize: 400, SeqLen: 64, SharedHead: true}, "gemma3"},
	"Qwen2.5 0.5B Instruct (Q4_K_M)": {checkpoint.Config{Dim: 128, HiddenDim: 256, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 64, SharedHead: true}, "qwen2"},
	"TinyLlama 1.1B Chat (Q4_K_M)":   {checkpoint.Config{Dim: 256, HiddenDim: 512, Layers: 2, Heads: 8, KVHeads: 2, VocabSize: 400, SeqLen: 64}, ""},
	"Llama 3.2 1B Instruct (Q4_K_M)": {checkpoint.Config{Dim: 256, HiddenDim: 512, Layers: 2, Heads: 4, KVHeads: 1, VocabSize: 400, SeqLen: 64, SharedHead: true}, "llama3"},
}

// TestKnownModels chooses each model known to work in the model picker,
// with the hosts it comes from answering with a random model of its shape
// (remoteHosts): the page fetches it from its URL and opens it, named as
// the list names it, and steps it.
func TestKnownModels(t *testing.T) {
	h := needBrowser(t)
	files := map[string][]byte{} // by path
	for _, d := range catalog.Downloads {
		shape, ok := knownShapes[d.Name]
		if !ok {
			t.Fatalf("no random shape for %s", d.Name)
		}
		m, v, err := randmodel.BuildNamed(shape.config, 1, d.Format)
		if err != nil {
			t.Fatal(err)
		}
		if shape.extend != "" {
			if err := randmodel.Extend(m, shape.extend, 1); err != nil {
				t.Fatal(err)
			}
		}
		var buf bytes.Buffer
		if err := gguf.WriteLlama2c(&buf, m, v, gguf.Llama2cOptions{Type: gguf.F32, TiedOutput: true}); err != nil {
			t.Fatal(err)
		}
		r, err := modelfile.Preflight(d.Name, buf.Bytes(), int64(buf.Len()))
		if err != nil || r.Arch != d.Arch || r.Err() != nil {
			t.Fatalf("%s: the stand-in is %v, %v, not %s", d.Name, r, err, d.Arch)
		}
		u, _ := url.Parse(d.URL)
		files[u.Path] = buf.Bytes()
	}
	h.remote.serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "Content-Length, Content-Range")
		http.ServeContent(w, r, "model.gguf", time.Time{}, bytes.NewReader(data))
	}))
	defer h.remote.serve(nil)

	tab := openPage(t, "/")
	evaluate[bool](tab, `caches.delete("nexttoken-models").then(() => true)`)
	for _, d := range catalog.Downloads {
		evaluate[bool](tab, `(s => { s.value = `+jsString(d.URL)+`; s.dispatchEvent(new Event("change", {bubbles: true})); return true })(document.querySelector("#model"))`)
		waitFor(tab, `document.querySelector("#loading") === null && document.querySelector("#model").selectedOptions[0]?.textContent === `+jsString(d.Name)+
			` && document.querySelector("#tokens")?.textContent.startsWith("∅␣The␣cat")`)
		gen := evaluate[int](tab, `document.querySelectorAll("#tokens .tok.gen").length`)
		click(tab, "#step")
		waitFor(tab, `document.querySelectorAll("#tokens .tok.gen").length === `+strconv.Itoa(gen+1))
	}
}
