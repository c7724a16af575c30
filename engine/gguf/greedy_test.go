package gguf

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/randmodel"
	"nexttoken/engine/transformer"
)

// greedySteps is how many tokens TestGreedyMatchesLlamaCpp decodes after
// refTokens; its models' context, 80, holds them.
const greedySteps = 64

// TestGreedyMatchesLlamaCpp decodes greedySteps greedy tokens after
// refTokens with peaked models (randmodel.Peak) of every architecture of
// TestArchitecturesMatchLlamaCpp, in F32 and Q8_0, and of llama in every
// other format of TestMatchesLlamaCpp and Q6_K, written as GGUF files and
// read back, and requires llama.cpp's tokens for the same files
// (testdata/greedy, README.md there). Every matrix but the ones Peak
// builds is random blocks of the format (randmodel.BuildNamed), so each
// format's kernel, with its activations quantized, runs every step.
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
			g, err := convert(t, m, v, Llama2cOptions{Type: F32, TiedOutput: true}).Model()
			if err != nil {
				t.Fatal(err)
			}
			tr := transformer.New(g)
			var got []int
			tok := refTokens[0]
			for pos := range len(refTokens) + greedySteps - 1 {
				if pos < len(refTokens) {
					tok = refTokens[pos]
				}
				logits, err := tr.Forward(tok, pos)
				if err != nil {
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
		})
	}
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
