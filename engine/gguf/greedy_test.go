package gguf

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/transformer"
)

// greedySteps is how many tokens TestGreedyMatchesLlamaCpp decodes after
// refTokens; its models' context, 80, holds them. greedyTol bounds the
// difference of its last step's logits from llama.cpp's, over their
// standard deviation: one activation rounded to the other integer by a
// kernel's quantization moves them by up to 5.4e-4 (phi3 in Q8_0; F32 runs
// differ by at most 2.4e-6), and the last token fed without the 73
// positions before it by 0.035 (Q5_K_M) to 0.34 (qwen3).
const (
	greedySteps = 64
	greedyTol   = 0.005
)

// TestGreedyMatchesLlamaCpp decodes greedySteps greedy tokens after
// refTokens with peaked models (randmodel.Peak) of every architecture of
// TestArchitecturesMatchLlamaCpp, in F32 and Q8_0, and of llama in every
// other format of TestMatchesLlamaCpp and Q6_K, written as GGUF files and
// read back, and requires llama.cpp's tokens for the same files
// (testdata/greedy, README.md there), and the logits of the last step
// within greedyTol of llama.cpp's. Every matrix but the ones Peak builds
// is random blocks of the format (randmodel.BuildNamed), so each format's
// kernel, with its activations quantized, runs every step. The tokens are
// the same walk for every model of one seed, as Peak's head chooses them;
// the layers show in the logits.
func TestGreedyMatchesLlamaCpp(t *testing.T) {
	want := readGreedy(t)
	var cases []string
	for _, arch := range append([]string{"llama"}, randmodel.Extensions...) {
		cases = append(cases, arch+"-f32", arch+"-q8_0")
	}
	for _, format := range []string{"q4_0", "q5_0", "q5_1", "q4_k_m", "q5_k_m", "q6_k", "q3_k", "q2_k", "iq4_nl", "iq4_xs"} {
		cases = append(cases, "llama-"+format)
	}
	if len(want) != len(cases) {
		t.Errorf("testdata/greedy/tokens.txt has %d runs, the test %d", len(want), len(cases))
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			arch, format, _ := strings.Cut(name, "-")
			c, seed := archModel(arch)
			c.SeqLen = 80
			m, v := peakedModel(t, c, seed, arch, format)
			g, err := convert(t, m, v, Llama2cOptions{Type: F32, TiedOutput: true}).Model()
			if err != nil {
				t.Fatal(err)
			}
			tr := transformer.New(g)
			var got []int
			var logits []float32
			tok := refTokens[0]
			for pos := range len(refTokens) + greedySteps - 1 {
				if pos < len(refTokens) {
					tok = refTokens[pos]
				}
				if logits, err = tr.Forward(tok, pos); err != nil {
					t.Fatal(err)
				}
				if pos >= len(refTokens)-1 {
					tok = argmax(logits)
					got = append(got, tok)
				}
			}
			if !slices.Equal(got, want[name]) {
				t.Errorf("greedy tokens\n%v\nllama.cpp's\n%v", got, want[name])
			}
			data, err := os.ReadFile(filepath.Join("testdata", "greedy", name+".logits"))
			if err != nil {
				t.Fatal(err)
			}
			ref := floatsLE(data)
			sd := stddev(ref)
			worst := maxDiff(logits, ref) / sd
			alone, err := transformer.New(g).Forward(got[len(got)-2], 0)
			if err != nil {
				t.Fatal(err)
			}
			context := maxDiff(alone, ref) / sd
			t.Logf("%s: the last step's largest |Δlogit| / sd(logits) = %.3g; without its context %.3g", name, worst, context)
			if worst > greedyTol {
				t.Errorf("the last step's logits differ from llama.cpp's by up to %.3g standard deviations, more than %.3g", worst, greedyTol)
			}
			if context < 5*greedyTol {
				t.Errorf("without its context the last step's logits differ from llama.cpp's by only %.3g standard deviations: the comparison does not see the context", context)
			}
		})
	}
}

// peakedModel is the random model of c and seed in format with random
// gains, arch's additions (none for llama) and a peaked head
// (randmodel.Peak).
func peakedModel(t *testing.T, c checkpoint.Config, seed uint64, arch, format string) (*checkpoint.Model, *tokenizer.Vocab) {
	t.Helper()
	m, v, err := randmodel.BuildNamed(c, seed, format)
	if err != nil {
		t.Fatal(err)
	}
	randmodel.RandomGains(m, seed)
	if arch != "llama" {
		if err := randmodel.Extend(m, arch, seed); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := randmodel.Peak(m, seed); err != nil {
		t.Fatal(err)
	}
	return m, v
}

// readGreedy reads testdata/greedy/tokens.txt: per run a line "NAME:
// TOKEN…".
func readGreedy(t *testing.T) map[string][]int {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "greedy", "tokens.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runs := map[string][]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, list, ok := strings.Cut(sc.Text(), ": ")
		var tokens []int
		for _, field := range strings.Fields(list) {
			tok, err := strconv.Atoi(field)
			if err != nil {
				ok = false
			}
			tokens = append(tokens, tok)
		}
		if !ok || len(tokens) != greedySteps {
			t.Fatalf("tokens.txt: bad line %q", sc.Text())
		}
		runs[name] = tokens
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return runs
}
