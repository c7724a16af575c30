package gguf

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/transformer"
)

// TestGreedyRunsMatchLlamaCpp runs llama.cpp's harness (the path in
// NEXTTOKEN_HARNESS, built as testdata/greedy/README.md says) and the
// engine on the same GGUF files of peaked models (randmodel.Peak) of
// SmolLM2-135M's shape, 128 greedy tokens after refTokens: Q8_0 per
// architecture, every format as llama (on Stories15MK's 256-wide shape for
// the formats whose 256-weight blocks SmolLM2's 576-wide rows do not fit).
// It logs a table row per file, the tokens matched and the largest logit
// difference before the first token that differs, absolute and over the
// standard deviation of that step's logits, and requires every token.
// Without NEXTTOKEN_HARNESS it runs nothing.
func TestGreedyRunsMatchLlamaCpp(t *testing.T) {
	harness := os.Getenv("NEXTTOKEN_HARNESS")
	if harness == "" {
		t.Skip("NEXTTOKEN_HARNESS names no llama.cpp harness")
	}
	const steps = 128
	type run struct{ arch, format, shape string }
	var runs []run
	for _, arch := range append([]string{"llama"}, randmodel.Extensions...) {
		runs = append(runs, run{arch, "Q8_0", "smollm2"})
	}
	for _, format := range []string{"F32", "F16", "BF16", "Q4_0", "Q5_0", "Q5_1", "Q4_K_M", "Q5_K_M", "IQ4_NL"} {
		runs = append(runs, run{"llama", format, "smollm2"})
	}
	for _, format := range []string{"Q8_0", "Q6_K", "Q3_K", "Q2_K", "IQ4_XS"} {
		runs = append(runs, run{"llama", format, "stories15mk"})
	}
	t.Logf("| architecture | format | shape | tokens matched | max |Δlogit| | over sd(logits) | smallest margin (sd) |")
	for _, r := range runs {
		c := randmodel.Shapes[r.shape]
		build, written := r.format, F32
		if r.format == "F16" || r.format == "BF16" {
			build, written = "F32", map[string]Type{"F16": F16, "BF16": BF16}[r.format]
		}
		m, v := peakedModel(t, c, refSeed, r.arch, build)
		dir := t.TempDir()
		path := filepath.Join(dir, "model.gguf")
		if err := WriteLlama2cFile(path, m, v, Llama2cOptions{Type: written, TiedOutput: true}); err != nil {
			t.Fatal(err)
		}
		m, v = nil, nil
		args := []string{"greedy", path, filepath.Join(dir, "logits"), strconv.Itoa(steps)}
		for _, tok := range refTokens {
			args = append(args, strconv.Itoa(tok))
		}
		out, err := exec.Command(harness, args...).Output()
		if err != nil {
			t.Fatalf("%s %v: %v", harness, args, err)
		}
		var want []int
		for _, f := range strings.Fields(string(out)) {
			tok, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("the harness printed %q", out)
			}
			want = append(want, tok)
		}
		data, err := os.ReadFile(filepath.Join(dir, "logits"))
		if err != nil {
			t.Fatal(err)
		}
		f, closer, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		g, err := f.Model()
		closer.Close()
		if err != nil {
			t.Fatal(err)
		}
		matched, worst, worstSD, margin := greedyAgainst(g, want, floatsLE(data))
		t.Logf("| %s | %s | %s | %d/%d | %.3g | %.3g | %.3g |", r.arch, r.format, r.shape, matched, steps, worst, worstSD, margin)
		if matched != steps || len(want) != steps {
			t.Errorf("%s %s: %d of llama.cpp's %d tokens matched", r.arch, r.format, matched, len(want))
		}
	}
}

// greedyAgainst decodes greedily after refTokens with m while its tokens
// are want's, and returns how many are, the largest difference of its
// logits from ref's (llama.cpp's, one step's after another) until then,
// absolute and over the standard deviation of ref's step, and the
// smallest lead of ref's winner in those standard deviations.
func greedyAgainst(m *checkpoint.Model, want []int, ref []float32) (matched int, worst, worstSD, margin float64) {
	tr := transformer.New(m)
	n := m.Config.VocabSize
	margin = math.Inf(1)
	tok := refTokens[0]
	for pos := 0; matched < len(want) && (matched+1)*n <= len(ref); pos++ {
		if pos < len(refTokens) {
			tok = refTokens[pos]
		}
		logits, err := tr.Forward(tok, pos)
		if err != nil {
			panic(err) // the shapes' contexts hold every step
		}
		if pos < len(refTokens)-1 {
			continue
		}
		r := ref[matched*n : (matched+1)*n]
		sd := stddev(r)
		d := maxDiff(logits, r)
		worst, worstSD = max(worst, d), max(worstSD, d/sd)
		margin = min(margin, lead(r)/sd)
		if tok = argmax(logits); tok != want[matched] {
			break
		}
		matched++
	}
	return matched, worst, worstSD, margin
}
