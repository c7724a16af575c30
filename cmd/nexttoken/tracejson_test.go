package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update", false, "write testdata/tracejson's files from trace --json's output")

// traceJSONGolden are trace --json command lines and the file of the
// bytes each prints: the schema's one home, package tracefile, keeps them.
var traceJSONGolden = []struct {
	file string
	args []string
}{
	{"toy.json", []string{"--model=toy", "--prompt=The cat", "--steps=4", "--temperature=1", "--top-p=0.9", "--seed=7"}},
	{"logits.json", []string{"--logits=-2.1,0.3,3.1,-inf,0.1,-0.5", workedVocab, "--temperature=0.8"}},
	{"toyvectors.json", []string{"--vectors", "--recompute", "--lens", "--model=toy", "--prompt=The cat", "--steps=3", "--temperature=1", "--top-k=3", "--seed=2"}},
	{"stories.json", []string{"--model=stories260K", "--prompt=Once upon", "--steps=6", "--temperature=1", "--seed=5", "--repetition-penalty=1.1"}},
}

// TestTraceJSONGolden checks that trace --json prints, byte for byte, what
// its golden files hold (go test -run TestTraceJSONGolden -update writes
// them again after a change of the schema meant as one).
func TestTraceJSONGolden(t *testing.T) {
	for _, g := range traceJSONGolden {
		code, out, errs := runCmd(append([]string{"trace", "--json"}, g.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", g.file, code, errs)
		}
		path := filepath.Join("testdata", "tracejson", g.file)
		if *updateGolden {
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("trace --json %v differs from %s:\n%s", g.args, path, out)
		}
	}
}
