package randmodel_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/transformer"
)

// TestPeak decodes greedily with peaked models of every architecture, in
// float32 and in Q8_0, whose kernel quantizes the activations: each
// token chosen is the successor Peak names, by at least 1 standard
// deviation of the logits, 25 times the largest logit difference one
// activation rounded the other way makes (0.04, package gguf's
// TestMatchesLlamaCpp); a model too small for the code is refused.
func TestPeak(t *testing.T) {
	c := checkpoint.Config{Dim: 256, HiddenDim: 256, Layers: 2, Heads: 4, KVHeads: 1, VocabSize: 354, SeqLen: 80, SharedHead: true}
	prompt := []int{1, 300, 40, 200, 5, 77, 353, 100, 12, 260}
	for _, arch := range append([]string{"llama"}, randmodel.Extensions...) {
		for _, format := range []string{"F32", "Q8_0"} {
			t.Run(arch+"-"+format, func(t *testing.T) {
				m, _, err := randmodel.BuildNamed(c, 7, format)
				if err != nil {
					t.Fatal(err)
				}
				randmodel.RandomGains(m, 7)
				if arch != "llama" {
					if err := randmodel.Extend(m, arch, 7); err != nil {
						t.Fatal(err)
					}
				}
				head, err := randmodel.Peak(m, 7)
				if err != nil {
					t.Fatal(err)
				}
				tr := transformer.New(m)
				tok, least := prompt[0], math.Inf(1)
				for pos := range len(prompt) + 63 {
					if pos < len(prompt) {
						tok = prompt[pos]
					}
					logits, err := tr.Forward(tok, pos)
					if err != nil {
						t.Fatal(err)
					}
					if pos < len(prompt)-1 {
						continue
					}
					best, margin := winner(logits)
					if best != head.Next[tok] {
						t.Fatalf("position %d: token %d wins after %d, not its successor %d", pos, best, tok, head.Next[tok])
					}
					least, tok = min(least, margin), best
				}
				t.Logf("smallest margin %.3g sd; the head's own %.3g", least, head.Margin)
				if least < 1 {
					t.Errorf("the winner leads by only %.3g standard deviations", least)
				}
			})
		}
	}
	small := checkpoint.Config{Dim: 16, HiddenDim: 32, Layers: 1, Heads: 2, KVHeads: 2, VocabSize: 400, SeqLen: 8, SharedHead: true}
	m, _, err := randmodel.Build(small, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := randmodel.Peak(m, 1); err == nil || !strings.Contains(err.Error(), "too small for a peaked head") {
		t.Errorf("a model of dim 16: %v", err)
	}
}

// winner returns the largest logit's token and its lead over the next, in
// standard deviations of the logits.
func winner(logits []float32) (int, float64) {
	var mean, sq float64
	for _, x := range logits {
		mean += float64(x)
	}
	mean /= float64(len(logits))
	for _, x := range logits {
		sq += (float64(x) - mean) * (float64(x) - mean)
	}
	rest := slices.Clone(logits)
	best := slices.Index(rest, slices.Max(rest))
	rest[best] = float32(math.Inf(-1))
	return best, float64(logits[best]-slices.Max(rest)) / math.Sqrt(sq/float64(len(logits)))
}
