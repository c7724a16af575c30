package models_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// TestLoad checks that every name in Names loads, as itself, and that
// nothing else does: the catalog and the embedded files agree.
func TestLoad(t *testing.T) {
	if !slices.Equal(models.Names, []string{"toy", "stories260K"}) {
		t.Errorf("Names = %v", models.Names)
	}
	for _, name := range models.Names {
		m, err := models.Load(name)
		if err != nil || m.Name != name {
			t.Errorf("Load(%q) = %v, %v", name, m, err)
		}
	}
	for _, name := range []string{"logits", "TOY", ""} {
		if _, err := models.Load(name); err == nil || !strings.Contains(err.Error(), "there are toy, stories260K") {
			t.Errorf("Load(%q): %v", name, err)
		}
	}
}

// TestFiles checks that Files names each model's files in this folder,
// with their sizes, and that they read as the embedded model does.
func TestFiles(t *testing.T) {
	if len(models.Files) != len(models.Names) {
		t.Errorf("Files has %d models, Names %d", len(models.Files), len(models.Names))
	}
	for _, name := range models.Names {
		f, ok := models.Files[name]
		if !ok {
			t.Errorf("Files lacks %s", name)
			continue
		}
		ckpt, err1 := os.ReadFile(f.Checkpoint)
		tok, err2 := os.ReadFile(f.Tokenizer)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", name, err1, err2)
		}
		if got := int64(len(ckpt) + len(tok)); got != f.Size {
			t.Errorf("%s: Size %d, the files have %d bytes", name, f.Size, got)
		}
		m, err := models.FromFiles(name, ckpt, tok)
		if err != nil || m.Name != name || m.Checkpoint.Config != mustLoad(t, name).Checkpoint.Config {
			t.Errorf("FromFiles(%s) = %v, %v", name, m, err)
		}
	}
}

func mustLoad(t *testing.T, name string) *session.Model {
	t.Helper()
	m, err := models.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
