package gguf

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

// TestArchitecturesMatchLlamaCpp runs the reference model of
// testdata/quantized with what each architecture adds (randmodel.Extend),
// in F32 and Q8_0 (every matrix, as llama-quantize makes it), written as a
// GGUF file of that architecture and read back, against the logits
// llama.cpp computed for the same file (testdata/architectures,
// README.md there): every position's logits within 1e-4 standard
// deviations, and the same greedy token, which wins by a margin hundreds
// of times the largest difference, so that rounding cannot flip it.
func TestArchitecturesMatchLlamaCpp(t *testing.T) {
	const tol = 1e-4 // of |Δlogit|, over the standard deviation of the logits
	// GELU rounds its input to half precision (ggml's table), so a
	// last-bit difference before it, such as another order of summing a
	// product (WebAssembly's matmul loop), moves its output by a
	// half-precision step now and then: 4.2e-5 (Gemma) and 7.2e-5 (GPT-2)
	// natively, 3.1e-4 under js/wasm.
	const geluTol = 1e-3
	var cases []string
	for _, arch := range randmodel.Extensions {
		cases = append(cases, arch, arch+"-q8_0")
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			arch, quantized := strings.CutSuffix(name, "-q8_0")
			m, v, err := randmodel.Build(refConfig, refSeed)
			if err != nil {
				t.Fatal(err)
			}
			randmodel.RandomGains(m, refSeed)
			if err := randmodel.Extend(m, arch, refSeed); err != nil {
				t.Fatal(err)
			}
			if quantized {
				quantizeAll(m, quant.Q8_0)
			}
			g, err := convert(t, m, v, Llama2cOptions{Type: F32, TiedOutput: true}).Model()
			if err != nil {
				t.Fatal(err)
			}
			if c := g.Config; c.Eps() == m.Config.Eps() && c.Base() == m.Config.Base() {
				// The file says 1e-5 and 10000, the checkpoint 0 for them;
				// a GPT-2 file always has its classifier (llama.cpp's gpt2
				// requires output.weight).
				c.NormEps, c.RoPEBase = m.Config.NormEps, m.Config.RoPEBase
				if c.Positions {
					c.SharedHead = m.Config.SharedHead
				}
				if c != m.Config {
					t.Errorf("read back as %+v, written as %+v", g.Config, m.Config)
				}
			} else {
				t.Errorf("read back as %+v, written as %+v", g.Config, m.Config)
			}
			data, err := os.ReadFile(filepath.Join("testdata", "architectures", name+".logits"))
			if err != nil {
				t.Fatal(err)
			}
			worst, margin := compareLogits(t, g, floatsLE(data))
			t.Logf("%s: largest |Δlogit| / sd(logits) = %.3g; smallest greedy margin %.3g sd", name, worst, margin)
			limit := tol
			if m.Config.GELU && !quantized {
				limit = geluTol
			}
			if worst > limit {
				t.Errorf("logits differ from llama.cpp's by up to %.3g standard deviations, more than %.3g", worst, limit)
			}
			if margin < 100*tol {
				t.Errorf("the greedy token wins by %.3g standard deviations, too little for the comparison to show it", margin)
			}
		})
	}
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// TestArchitecturesRefused: what an architecture adds, wrong, is refused
// with a message saying what: by the writer, a model without what its
// architecture needs; by the reader, a RoPE factor that is not a positive
// number, a bias of another layer's size, a required bias missing.
func TestArchitecturesRefused(t *testing.T) {
	build := func(arch string) *checkpoint.Model {
		m, _, err := randmodel.Build(refConfig, refSeed)
		if err != nil {
			t.Fatal(err)
		}
		if err := randmodel.Extend(m, arch, refSeed); err != nil {
			t.Fatal(err)
		}
		return m
	}
	_, v, err := randmodel.Build(refConfig, refSeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, arch string
		edit       func(m *checkpoint.Model)
		want       string
	}{
		{"qwen2 without biases", "qwen2", func(m *checkpoint.Model) { m.Weights.BV = nil }, "a qwen2 model has query, key and value biases"},
		{"llama with one bias", "llama3", func(m *checkpoint.Model) { m.Weights.BQ = make([]float32, refConfig.Layers*refConfig.Dim) }, "all three of the query, key and value biases or none"},
		{"qwen2 with adjacent pairs", "qwen2", func(m *checkpoint.Model) { m.Config.RoPEHalves = false }, "a qwen2 model rotates RoPE pairs on halves of a head: true, not false"},
		{"qwen2 with factors", "qwen2", func(m *checkpoint.Model) { m.Weights.RoPEFactors = []float32{1} }, "a qwen2 model has no RoPE frequency factors"},
	} {
		m := build(tc.arch)
		tc.edit(m)
		var buf bytes.Buffer
		if err := WriteLlama2c(&buf, m, v, Llama2cOptions{Type: F32}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: writing gives %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name, arch string
		model      func(m *checkpoint.Model) // before writing
		file       func(f *File)             // after reading the header
		want       string
	}{
		{"NaN factor", "llama3", func(m *checkpoint.Model) { m.Weights.RoPEFactors[3] = float32(math.NaN()) }, nil, "rope_freqs.weight[3] is NaN; a RoPE frequency factor must be a positive number"},
		{"zero factor", "llama3", func(m *checkpoint.Model) { m.Weights.RoPEFactors[0] = 0 }, nil, "rope_freqs.weight[0] is 0"},
		{"missing bias", "qwen2", nil, func(f *File) {
			f.Tensors = slices.DeleteFunc(f.Tensors, func(t TensorInfo) bool { return t.Name == "blk.1.attn_k.bias" })
		}, "tensor blk.1.attn_k.bias is missing"},
		{"bias of the wrong size", "qwen2", nil, func(f *File) { f.Tensors[slices.IndexFunc(f.Tensors, named("blk.0.attn_q.bias"))].Dims = []int64{64} },
			"blk.0.attn_q.bias has dims [64], want [256]"},
		{"a bias llama has not", "llama3", nil, func(f *File) {
			f.Tensors[slices.IndexFunc(f.Tensors, named("rope_freqs.weight"))].Name = "blk.0.attn_output.bias"
		},
			"blk.0.attn_output.bias is not one of the llama tensors"},
	} {
		m := build(tc.arch)
		if tc.model != nil {
			tc.model(m)
		}
		f := convert(t, m, v, Llama2cOptions{Type: F32})
		if tc.file != nil {
			tc.file(f)
		}
		if _, err := f.Model(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: reading gives %v, want %q", tc.name, err, tc.want)
		}
	}
}

func named(name string) func(TensorInfo) bool {
	return func(t TensorInfo) bool { return t.Name == name }
}
