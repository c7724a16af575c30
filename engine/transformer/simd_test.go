package transformer

import (
	"math"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
)

// TestSIMDKeepsLogits checks that turning the platform's SIMD kernels off
// (setSIMD: WebAssembly SIMD under js, package quant's AVX2 assembly on
// amd64) changes nothing a forward pass computes: the greedy tokens and the
// logits, bit for bit, of stories260K (float32 matrices; also with run.c's
// arithmetic, whose attention takes the SIMD kernels too) and of random
// Q8_0, Q4_0, Q4_K_M (Q4_K and Q6_K), Q5_K_M (Q5_K and Q6_K), IQ4_XS,
// Q3_K and Q2_K models,
// each format with a SIMD kernel of its own, with rows of 8 blocks of 32
// or one of 256 (smallQuant), of 9 blocks (stories15M's dim 288, two
// layers), and of 64 weights, where Q4_K_M falls back to Q5_0 and Q8_0,
// and Q5_K_M to Q5_1 and Q8_0, beside IQ4_NL; and a model with Gemma 3's
// sliding windows.
func TestSIMDKeepsLogits(t *testing.T) {
	shape288 := randmodel.Stories15M
	shape288.Layers, shape288.SeqLen = 2, 40
	type model struct {
		name  string
		model *checkpoint.Model
		opts  Options
	}
	stories := loadModel(t, stories260K)
	models := []model{{"stories260K", stories, Options{}}, {"stories260K-runc", stories, Options{RunC: true}}}
	for _, format := range []string{"Q8_0", "Q4_0", "Q4_K_M", "Q5_K_M", "IQ4_XS", "Q3_K", "Q2_K"} {
		models = append(models, model{"smallQuant-" + format, quantModel(t, smallQuant, quantFormats(smallQuant)[format]), Options{}})
	}
	for _, format := range []string{"Q8_0", "Q4_0"} {
		models = append(models, model{"dim288-" + format, quantModel(t, shape288, quantFormats(shape288)[format]), Options{}})
	}
	// Rows of 64: the fallbacks, Q5_0 or Q5_1 and Q8_0, beside Q4_K or
	// Q5_K and Q6_K.
	narrow := checkpoint.Config{Dim: 64, HiddenDim: 256, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 32}
	models = append(models, model{"dim64-Q4_K_M", quantModel(t, narrow, randmodel.Q4_K_M(narrow)), Options{}},
		model{"dim64-Q5_K_M", quantModel(t, narrow, randmodel.Q5_K_M(narrow)), Options{}},
		model{"dim64-IQ4_NL", quantModel(t, narrow, randmodel.Every(quant.IQ4_NL)), Options{}})
	// Gemma 3's additions on six layers, with its heads wider than
	// dim/heads: the attention kernels take a sliding window's rows from
	// its first.
	windowed := narrow
	windowed.Layers, windowed.HeadDim = 6, 32 // heads wider than dim/heads, as Gemma 3's are
	gemma3 := randomModel(t, windowed)
	if err := randmodel.Extend(gemma3, "gemma3", 3); err != nil {
		t.Fatal(err)
	}
	models = append(models, model{"dim64-gemma3", gemma3, Options{}})
	for _, c := range models {
		t.Run(c.name, func(t *testing.T) {
			decode := func(opts Options) [][]float32 {
				tr := NewWith(c.model, opts)
				var all [][]float32
				tok := 1
				for pos := range min(40, c.model.Config.SeqLen) {
					logits, err := tr.Forward(tok, pos)
					if err != nil {
						t.Fatal(err)
					}
					all = append(all, append([]float32(nil), logits...))
					tok = sampler.Argmax(logits)
				}
				return all
			}
			defer setSIMD(t, c.opts, true)
			withSIMD := decode(setSIMD(t, c.opts, true))
			withGo := decode(setSIMD(t, c.opts, false))
			for pos := range withGo {
				for i := range withGo[pos] {
					if math.Float32bits(withSIMD[pos][i]) != math.Float32bits(withGo[pos][i]) {
						t.Fatalf("position %d logit %d: SIMD %v, Go %v", pos, i, withSIMD[pos][i], withGo[pos][i])
					}
				}
			}
		})
	}
}
