package gguf

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/transformer"
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
			if c := g.Config; c.Eps() == m.Config.Eps() {
				c.NormEps = m.Config.NormEps // the file says 1e-5, the checkpoint 0 for it
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
			ref := floatsLE(data)
			tr := transformer.New(g)
			n := refConfig.VocabSize
			worst, margin := 0.0, math.Inf(1)
			for pos, tok := range refTokens {
				got, err := tr.Forward(tok, pos)
				if err != nil {
					t.Fatal(err)
				}
				want := ref[pos*n : (pos+1)*n]
				var mean, sq float64
				for _, x := range want {
					mean += float64(x)
				}
				mean /= float64(n)
				for _, x := range want {
					sq += (float64(x) - mean) * (float64(x) - mean)
				}
				sd := math.Sqrt(sq / float64(n))
				for i := range want {
					worst = max(worst, math.Abs(float64(got[i])-float64(want[i]))/sd)
				}
				top := argmax(want)
				if g := argmax(got); g != top {
					t.Errorf("position %d: greedy token %d, llama.cpp's %d", pos, g, top)
				}
				second := slices.Clone(want)
				second[top] = float32(math.Inf(-1))
				margin = min(margin, float64(want[top]-second[argmax(second)])/sd)
			}
			t.Logf("%s: largest |Δlogit| / sd(logits) = %.3g; smallest greedy margin %.3g sd", name, worst, margin)
			if worst > tol {
				t.Errorf("logits differ from llama.cpp's by up to %.3g standard deviations, more than %.3g", worst, tol)
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
