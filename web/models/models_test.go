package models_test

import (
	"slices"
	"strings"
	"testing"

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
