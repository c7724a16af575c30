package sampler_test

import (
	"fmt"
	"testing"

	"nexttoken/engine/sampler"
)

func BenchmarkSample(b *testing.B) {
	for _, n := range []int{512, 32000} {
		logits := randomLogits(n, 3, 6)
		b.Run(fmt.Sprintf("vocab=%d", n), func(b *testing.B) {
			for _, mode := range []sampler.Mode{sampler.Chain, sampler.RunC} {
				s := sampler.Settings{Mode: mode, Temperature: 0.8, TopP: 0.9, Seed: 42}
				b.Run(string(mode)+"-topp/recorded", func(b *testing.B) {
					rng := sampler.NewRNG(s.Seed)
					b.ReportAllocs()
					for b.Loop() {
						if _, err := sampler.Sample(s, logits, nil, &rng); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(string(mode)+"-topp/compact", func(b *testing.B) {
					rng := sampler.NewRNG(s.Seed)
					var sc sampler.Scratch
					b.ReportAllocs()
					for b.Loop() {
						if _, err := sc.Choose(s, logits, nil, &rng); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
