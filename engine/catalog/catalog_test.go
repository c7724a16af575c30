package catalog_test

import (
	"reflect"
	"testing"

	"nexttoken/engine/catalog"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/toymodel"
	"nexttoken/web/models"
)

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		name, want string // want "" when there is no such model
	}{
		{"toy", "toy"},
		{"TOY", "toy"},
		{"stories260k", "stories260K"},
		{"Logits", session.LogitsModel},
		{"", ""},
		{"toy ", ""},
		{"gpt2", ""},
	} {
		m, ok := catalog.Lookup(tc.name)
		if ok != (tc.want != "") || m.Name != tc.want {
			t.Errorf("Lookup(%q) = %+v, %v, want %q", tc.name, m, ok, tc.want)
		}
	}
}

func TestDefault(t *testing.T) {
	want := session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings()}
	if got := catalog.Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default() = %+v, want %+v", got, want)
	}
}

// TestSpec checks what each model opens with, and that the worked
// example's slices are copies: editing a session's vocabulary must not
// rename package toymodel's words.
func TestSpec(t *testing.T) {
	set := sampler.Settings{Temperature: 0.7, TopP: 0.9, Seed: 3}
	for _, tc := range []struct {
		name string
		want session.Spec
	}{
		{session.LogitsModel, session.Spec{Model: session.LogitsModel, Vocab: toymodel.Words, Logits: toymodel.WorkedLogits, Sampler: set}},
		{"toy", session.Spec{Model: "toy", Prompt: "The cat", Sampler: set}},
		{"stories260K", session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: set}},
	} {
		m, ok := catalog.Lookup(tc.name)
		if !ok {
			t.Fatalf("no model %q", tc.name)
		}
		got := m.Spec(set)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Spec = %+v, want %+v", tc.name, got, tc.want)
		}
		if len(got.Vocab) > 0 {
			got.Vocab[0], got.Logits[0] = "changed", 99
			if toymodel.Words[0] == "changed" || toymodel.WorkedLogits[0] == 99 {
				t.Fatalf("%s: Spec shares its slices with package toymodel", tc.name)
			}
		}
	}
}

// TestEveryModelOpens runs a step of every model's opening session with
// the embedded models: each default prompt tokenizes and fits.
func TestEveryModelOpens(t *testing.T) {
	for _, m := range catalog.Models {
		spec := m.Spec(sampler.DefaultSettings())
		spec.Steps = 1
		s, err := session.New(spec, models.Load)
		if err != nil {
			t.Errorf("%s: %v", m.Name, err)
			continue
		}
		if n := len(s.Trace().Steps); n != 1 || m.Label == "" {
			t.Errorf("%s: %d steps, label %q", m.Name, n, m.Label)
		}
	}
}
