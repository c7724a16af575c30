//go:build js

// Command decodebench measures the engine's decode speed in a browser,
// without the playground around it. It takes a model — a GGUF file fetched
// from the page's server, or a built-in one (web/models) — prefills
// "Once upon a time" (after BOS), then takes greedy decode steps
// (transformer.Forward and the first largest logit), timed, prefill
// excluded, after an untimed run of 16, and leaves in the page's global
// decodeBench
//
//	{kernel: "SIMD" or "Go", tokens: [ids], ms: decode time}
//
// or {error: "…"}. The address's query chooses: gguf=NAME (the file the
// server serves at /NAME, its tokenizer the file's) or model=stories260K
// (a built-in model); tokens=N (default 128); simd=0 for the Go kernels;
// threads=N for the SIMD kernels' products on N threads, which needs the
// program on a shared memory (cmd/wasmshare) and web/kernel-threads.js.
// The SIMD kernels failing to load is an error.
// TestDecodeTiming (cmd/nexttoken, make timing) builds and serves it, and
// the files it writes, which wllama and llama.cpp read too.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/sampler"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/transformer"
	"nexttoken/wasm/jsx"
	"nexttoken/web/models"
)

func main() {
	result, err := measure()
	if err != nil {
		result = map[string]any{"error": err.Error()}
	}
	_ = safejs.Global().Set("decodeBench", result)
}

func measure() (map[string]any, error) {
	href, err := safejs.Global().Get("location")
	if err == nil {
		href, err = href.Get("href")
	}
	if err != nil {
		return nil, err
	}
	s, err := href.String()
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	steps := 128
	if v := u.Query().Get("tokens"); v != "" {
		if steps, err = strconv.Atoi(v); err != nil || steps < 1 {
			return nil, errors.New("tokens must be a positive count")
		}
	}
	var kernels transformer.Kernels // Go's loops for simd=0
	if u.Query().Get("simd") != "0" {
		if kernels, err = transformer.LoadKernels(); err != nil {
			return nil, err
		}
	}
	threads := 1
	if v := u.Query().Get("threads"); v != "" {
		if threads, err = strconv.Atoi(v); err != nil || threads < 1 || threads > transformer.MaxThreads {
			return nil, fmt.Errorf("threads must be 1 to %d", transformer.MaxThreads)
		}
	}
	if threads > 1 {
		if err := kernels.StartThreads(threads); err != nil {
			return nil, err
		}
		for deadline := time.Now().Add(10 * time.Second); kernels.Threads() < threads; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				return nil, errors.New("the kernel threads did not start")
			}
		}
	}

	m, tok, err := load(u.Query().Get("model"), u.Query().Get("gguf"))
	if err != nil {
		return nil, err
	}
	// The kernel modules of formats app.wasm does not embed, from
	// /web/kernels/, where the page's server serves web/kernels.
	for _, module := range kernels.MissingModules(m) {
		bytes, err := jsx.Fetch("/web/kernels/" + module.Address)
		if err == nil {
			err = kernels.AddModule(module.File, bytes)
		}
		if err != nil {
			return nil, fmt.Errorf("the kernel module %s: %w", module.File, err)
		}
	}
	prompt, err := tok.Encode("Once upon a time")
	if err != nil {
		return nil, err
	}
	if len(prompt)+steps > m.Config.SeqLen {
		return nil, errors.New("tokens do not fit the context")
	}
	// A first, untimed run of warmUp steps lets the browser compile the
	// hot functions with its optimising compiler (V8 starts every
	// WebAssembly function in a baseline compiler and tiers up in the
	// background, late on a busy machine).
	const warmUp = 16
	if _, _, err := decode(m, kernels, prompt, min(warmUp, steps)); err != nil {
		return nil, err
	}
	tokens, took, err := decode(m, kernels, prompt, steps)
	if err != nil {
		return nil, err
	}
	ms := float64(took.Microseconds()) / 1000
	name := kernels.Name()
	if threads > 1 {
		name += fmt.Sprintf(", %d threads", kernels.Threads())
	}
	return map[string]any{"kernel": name, "tokens": tokens, "ms": ms}, nil
}

// decode prefills prompt on a new transformer of m with kernels, then
// takes steps greedy steps and returns the tokens chosen and the time the
// steps took, the prefill's not counted.
func decode(m *checkpoint.Model, kernels transformer.Kernels, prompt []int, steps int) ([]any, time.Duration, error) {
	tr := transformer.NewWith(m, transformer.Options{Kernels: kernels})
	logits, err := tr.Prefill(prompt, 0)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	tokens := make([]any, 0, steps)
	for pos := len(prompt); len(tokens) < steps; pos++ {
		tok := sampler.Argmax(logits)
		tokens = append(tokens, tok)
		if logits, err = tr.Forward(tok, pos); err != nil {
			return nil, 0, err
		}
	}
	return tokens, time.Since(start), nil
}

// load returns the model called name, or for "" the GGUF file the page's
// server serves at /file. A built-in model other than the toy is fetched
// from /models/, where the page's server serves web/models, as the
// playground fetches it.
func load(name, file string) (*checkpoint.Model, tokenizer.Tokenizer, error) {
	if name == "" {
		if file == "" {
			return nil, nil, errors.New("the query names no model (model=) and no GGUF file (gguf=)")
		}
		data, err := jsx.Fetch("/" + file)
		if err != nil {
			return nil, nil, err
		}
		return fromGGUF(data)
	}
	m, err := models.Load(name)
	var missing *models.NotEmbeddedError
	if errors.As(err, &missing) {
		var ckpt, tok []byte
		if ckpt, err = jsx.Fetch("/models/" + missing.Files.Checkpoint); err == nil {
			if tok, err = jsx.Fetch("/models/" + missing.Files.Tokenizer); err == nil {
				m, err = models.FromFiles(name, ckpt, tok)
			}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return m.Checkpoint, m.Tokenizer, nil
}

// fromGGUF returns the model and tokenizer of a GGUF file's bytes.
func fromGGUF(data []byte) (*checkpoint.Model, tokenizer.Tokenizer, error) {
	f, err := gguf.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, err
	}
	m, err := f.Model()
	if err != nil {
		return nil, nil, err
	}
	tok, err := f.Tokenizer()
	if err != nil {
		return nil, nil, err
	}
	return m, tok, nil
}
