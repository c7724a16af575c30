package main

import (
	"path/filepath"
	"strconv"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/randmodel"
)

// TestTraceThreads traces a random checkpoint whose products are large
// enough to be split with --threads of 1, 2 and 3: the same JSON, every
// number unrounded, and --threads refuses what is not a count.
func TestTraceThreads(t *testing.T) {
	dir := t.TempDir()
	c := checkpoint.Config{Dim: 256, HiddenDim: 512, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 512, SeqLen: 64}
	if err := randmodel.Write(dir, c, 3); err != nil {
		t.Fatal(err)
	}
	var first string
	for threads := 1; threads <= 3; threads++ {
		code, out, errs := runCmd("trace", "--model="+filepath.Join(dir, randmodel.ModelFile),
			"--tokenizer="+filepath.Join(dir, randmodel.TokenizerFile), "--steps=8", "--json", "--vectors",
			"--threads="+strconv.Itoa(threads))
		if code != 0 {
			t.Fatalf("--threads=%d: exit %d: %s", threads, code, errs)
		}
		if threads == 1 {
			first = out
		} else if out != first {
			t.Errorf("--threads=%d traces otherwise than one thread", threads)
		}
	}
	if code, _, _ := runCmd("trace", "--model=toy", "--threads=two"); code == 0 {
		t.Error("--threads=two was taken")
	}
}
