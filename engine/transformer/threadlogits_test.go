package transformer

import (
	"math"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
)

// threadFormats are every format randmodel writes: float32, each quantized
// type in every matrix, and llama-quantize's two mixtures.
var threadFormats = []string{
	"F32", "Q8_0", "Q4_0", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K",
	"IQ4_NL", "IQ4_XS", "Q4_K_M", "Q5_K_M",
}

// decodeLogits decodes steps greedy tokens of m from token 1 with kernels
// and returns every pass's logits.
func decodeLogits(t *testing.T, m *checkpoint.Model, kernels Kernels, steps int) [][]float32 {
	tr := NewWith(m, Options{Kernels: kernels})
	var all [][]float32
	tok := 1
	for pos := range steps {
		logits, err := tr.Forward(tok, pos)
		if err != nil {
			t.Error(err)
			return nil
		}
		all = append(all, append([]float32(nil), logits...))
		tok = sampler.Argmax(logits)
	}
	return all
}

// threadModel is the random model of every thread test, in format, with
// products large enough to be split.
func threadModel(t *testing.T, format string) *checkpoint.Model {
	t.Helper()
	c := smallQuant
	c.SeqLen = 128 // room for forwardDoesNotAllocate's passes
	m, _, err := randmodel.BuildNamed(c, 15, format)
	if err != nil {
		t.Fatal(err)
	}
	if format != "F32" && m.Matrices().Classifier.Type == quant.F32 {
		t.Fatalf("%s: the classifier is float32", format)
	}
	randmodel.RandomGains(m, 15)
	return m
}

// threadSteps is how many passes the thread tests decode.
const threadSteps = 8

// compareLogits fails t at the first logit of got that is not want's bits.
func compareLogits(t *testing.T, threads int, how string, want, got [][]float32) {
	t.Helper()
	for pos := range want {
		for i := range want[pos] {
			if math.Float32bits(got[pos][i]) != math.Float32bits(want[pos][i]) {
				t.Fatalf("%d threads%s: pass %d, logit %d is %g, on one thread %g", threads, how, pos, i, got[pos][i], want[pos][i])
			}
		}
	}
}
