//go:build js

// Command decodebench measures the engine's decode speed in a browser,
// without the playground around it. It takes a model — by default the
// random checkpoint of stories15M's shape that cmd/randmodel writes
// (package randmodel, seed 15), or a built-in one (web/models) — prefills
// "Once upon a time" (after BOS), then takes greedy decode steps
// (transformer.Forward and the first largest logit), timed, prefill
// excluded, after an untimed run of 16, and leaves in the page's global
// decodeBench
//
//	{kernel: "SIMD" or "Go", tokens: [ids], ms: decode time}
//
// or {error: "…"}. The address's query chooses: model=stories260K (a
// built-in model); shape=stories15mk, smollm2 or qwen2.5-0.5b (the random
// model in randmodel.Stories15MK's, SmolLM2-135M's or Qwen2.5-0.5B's shape
// instead of stories15M's: randmodel.BuildShape);
// format=q8_0, q4_0, q4_k, q6_k (every matrix of that type), q4_k_m or
// q5_k_m (llama-quantize's mixtures), f32 by default, refused with the matrix
// whose rows it cannot cut into blocks (the K formats need stories15mk);
// arch=gemma3 (or another of randmodel.Extensions: the random model
// with what that architecture adds, randmodel.Extend);
// tokens=N (default 128); simd=0 for the Go kernels. The SIMD kernels
// failing to load is an error.
// TestDecodeTiming (cmd/nexttoken, make timing) builds and serves it.
package main

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/transformer"
	"nexttoken/wasm/jsx"
	"nexttoken/web/models"
)

// Seed is cmd/randmodel's: the network is the one its files hold.
const seed = 15

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

	m, tok, err := load(u.Query().Get("model"), u.Query().Get("shape"), u.Query().Get("format"))
	if err != nil {
		return nil, err
	}
	if arch := u.Query().Get("arch"); arch != "" {
		if err := randmodel.Extend(m, arch, seed); err != nil {
			return nil, err
		}
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
	if _, err := decode(m, kernels, prompt, min(warmUp, steps)); err != nil {
		return nil, err
	}
	start := time.Now()
	tokens, err := decode(m, kernels, prompt, steps)
	if err != nil {
		return nil, err
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	return map[string]any{"kernel": kernels.Name(), "tokens": tokens, "ms": ms}, nil
}

// decode prefills prompt on a new transformer of m with kernels, then
// takes steps greedy steps and returns the tokens chosen.
func decode(m *checkpoint.Model, kernels transformer.Kernels, prompt []int, steps int) ([]any, error) {
	tr := transformer.NewWith(m, transformer.Options{Kernels: kernels})
	logits, err := tr.Prefill(prompt, 0)
	if err != nil {
		return nil, err
	}
	tokens := make([]any, 0, steps)
	for pos := len(prompt); len(tokens) < steps; pos++ {
		tok := sampler.Argmax(logits)
		tokens = append(tokens, tok)
		if logits, err = tr.Forward(tok, pos); err != nil {
			return nil, err
		}
	}
	return tokens, nil
}

// load returns the model called name, or for "" the random one of shape
// (randmodel.BuildShape; stories15M's for ""), in format (f32 for "", a
// quantized type such as q4_k, or q4_k_m or q5_k_m: randmodel.BuildNamed). A
// built-in model other than the toy is fetched from /models/, where the
// page's server serves web/models, as the playground fetches it.
func load(name, shape, format string) (*checkpoint.Model, tokenizer.Tokenizer, error) {
	if name != "" {
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
	if shape == "" {
		shape = "stories15m"
	}
	if format == "" {
		format = "f32"
	}
	m, v, err := randmodel.BuildShape(shape, seed, format)
	if err != nil {
		return nil, nil, fmt.Errorf("shape %s in format %s: %w", shape, format, err)
	}
	bpe, err := tokenizer.NewBPE(v)
	return m, bpe, err
}
