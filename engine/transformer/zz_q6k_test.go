package transformer

import (
	"testing"

	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

func BenchmarkZZQ6KMix(b *testing.B) {
	smol := randmodel.SmolLM2
	smol.SeqLen = 256
	for _, mix := range []struct {
		name string
		f    func(string, int) quant.Type
	}{
		{"Q8_0", randmodel.Every(quant.Q8_0)},
		{"Q8_0+Q6_K-down", func(name string, cols int) quant.Type {
			if cols == 1536 {
				return quant.Q6_K
			}
			return quant.Q8_0
		}},
	} {
		m := quantModel(b, smol, mix.f)
		b.Run(mix.name, func(b *testing.B) {
			tr := NewWith(m, Options{})
			for b.Loop() {
				decodeGreedy(b, tr, 64)
			}
			b.ReportMetric(float64(64*b.N)/b.Elapsed().Seconds(), "tok/s")
		})
	}
}
