package transformer

import (
	"fmt"
	"math"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

// smallQuant is a shape whose rows are whole blocks of every format, with
// grouped keys and values.
var smallQuant = checkpoint.Config{Dim: 256, HiddenDim: 512, Layers: 2, Heads: 4, KVHeads: 2,
	VocabSize: 400, SeqLen: 32, SharedHead: false}

// quantFormats are the mixtures the tests and benchmarks run: one format
// everywhere (IQ4_XS, Q3_K and Q2_K only in rows of whole 256-weight
// blocks), or
// llama-quantize's Q4_K_M or Q5_K_M.
func quantFormats(c checkpoint.Config) map[string]func(string, int) quant.Type {
	return map[string]func(string, int) quant.Type{
		"Q8_0": randmodel.Every(quant.Q8_0), "Q4_0": randmodel.Every(quant.Q4_0), "Q4_K_M": randmodel.Q4_K_M(c),
		"Q5_K_M": randmodel.Q5_K_M(c), "IQ4_XS": randmodel.Every(quant.IQ4_XS),
		"Q3_K": randmodel.Every(quant.Q3_K), "Q2_K": randmodel.Every(quant.Q2_K),
	}
}

func quantModel(tb testing.TB, c checkpoint.Config, format func(string, int) quant.Type) *checkpoint.Model {
	m, _, err := randmodel.BuildQuantized(c, 15, format)
	if err != nil {
		tb.Fatal(err)
	}
	randmodel.RandomGains(m, 15)
	return m
}

// dequantized is m with every matrix expanded to float32 by Row.
func dequantized(m *checkpoint.Model) *checkpoint.Model {
	q := *m.Weights.Quantized
	q.Layers = append([]checkpoint.LayerMatrices(nil), q.Layers...)
	expand := func(x *quant.Matrix) {
		f := make([]float32, x.Rows*x.Cols)
		for i := range x.Rows {
			x.Row(i, f[i*x.Cols:])
		}
		*x = quant.Matrix{Type: quant.F32, Rows: x.Rows, Cols: x.Cols, F32: f}
	}
	expand(&q.TokenEmbedding)
	expand(&q.Classifier)
	for l := range q.Layers {
		lm := &q.Layers[l]
		for _, x := range []*quant.Matrix{&lm.WQ, &lm.WK, &lm.WV, &lm.WO, &lm.W1, &lm.W2, &lm.W3} {
			expand(x)
		}
	}
	d := *m
	d.Weights.Quantized = &q
	return &d
}

// TestQuantizedForward runs quantized models, each against the same
// weights expanded to float32: the logits differ only by the quantization
// of the activations (about 0.1 of their standard deviation in
// package gguf's reference test), so a matrix wired to the wrong place or
// a kernel summing the wrong numbers would show. A step allocates nothing.
func TestQuantizedForward(t *testing.T) {
	formats := quantFormats(smallQuant)
	for _, name := range []string{"Q8_0", "Q4_0", "Q4_K_M"} {
		t.Run(name, func(t *testing.T) {
			m := quantModel(t, smallQuant, formats[name])
			q, f := New(m), New(dequantized(m))
			worst := 0.0
			for pos, tok := range []int{1, 30, 200, 399, 7, 64} {
				a, err := q.Forward(tok, pos)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := f.Forward(tok, pos)
				var mean, sq float64
				for _, x := range b {
					mean += float64(x) / float64(len(b))
				}
				for _, x := range b {
					sq += (float64(x) - mean) * (float64(x) - mean)
				}
				sd := math.Sqrt(sq / float64(len(b)))
				for i := range a {
					worst = max(worst, math.Abs(float64(a[i]-b[i]))/sd)
				}
			}
			t.Logf("largest |Δlogit| / sd against float32 activations: %.3g", worst)
			if worst > 0.3 || worst == 0 {
				t.Errorf("largest |Δlogit| / sd = %.3g, want above 0 (x is quantized) and at most 0.3", worst)
			}
			pos := 6
			if n := testing.AllocsPerRun(10, func() {
				if _, err := q.Forward(1, pos); err != nil {
					t.Fatal(err)
				}
				pos++
			}); n != 0 {
				t.Errorf("Forward allocates %v times per call", n)
			}
		})
	}
}

// stories15M256 is randmodel.Stories15MK, stories15M's shape with dim 256
// and 4 heads, whose rows are whole blocks of the K formats.
var stories15M256 = randmodel.Stories15MK

// quantBenchModels are stories15M's shape in Q8_0 and Q4_0, stories15M256
// in F32, Q8_0, Q4_0 and Q4_K_M, and SmolLM2-135M's shape in Q8_0 and
// Q5_K_M (Q5_1 and Q8_0, with Q5_K and Q6_K in w2) with 256 positions
// (BenchmarkDecode decodes a whole context). cmd/randmodel -gguf writes
// the same weights for llama.cpp (seed 15).
func quantBenchModels(b *testing.B) []benchModel {
	var all []benchModel
	for _, name := range []string{"Q8_0", "Q4_0"} {
		all = append(all, benchModel{name: "stories15M-shape-" + name, model: quantModel(b, randmodel.Stories15M, quantFormats(randmodel.Stories15M)[name])})
	}
	all = append(all, benchModel{name: "stories15M256-F32", model: randomModel(b, stories15M256)})
	for _, name := range []string{"Q8_0", "Q4_0", "Q4_K_M"} {
		all = append(all, benchModel{name: fmt.Sprint("stories15M256-", name), model: quantModel(b, stories15M256, quantFormats(stories15M256)[name])})
	}
	smol := randmodel.SmolLM2
	smol.SeqLen = 256
	for _, name := range []string{"Q8_0", "Q5_K_M"} {
		all = append(all, benchModel{name: "SmolLM2-135M-shape-" + name, model: quantModel(b, smol, quantFormats(smol)[name])})
	}
	return all
}
