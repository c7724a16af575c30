// Package catalog lists the models the playground offers — the worked
// example and the built-in checkpoints — with the name a Spec and a link
// spell, the label a person reads, and the session each opens with; and
// the models known to work that it fetches by URL (Downloads), with their
// size, license and what each shows well.
//
// It is the one list: package link reads model names with Lookup, package
// models (web/models) embeds a checkpoint for every entry but the worked
// example, and the command line and the playground's model picker show
// Models in order. A new built-in model is a line here and its files there.
//
// Package session knows nothing of this list: a Spec names any model its
// Loader can load, and LogitsModel is the only name it knows itself.
package catalog

import (
	"slices"
	"strings"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/toymodel"
)

// Model is one entry of the catalog.
type Model struct {
	Name   string // as a Spec and a link spell it
	Label  string // for people, as the model picker shows it
	Prompt string // the prompt a new session starts with; "" for the worked example
}

// Models are the built-in models, in the order the playground lists them:
// the worked example (session.LogitsModel, hand-typed logits and no
// model), then the checkpoints, smallest first.
var Models = []Model{
	{Name: session.LogitsModel, Label: "Worked example (logits only)"},
	{Name: "toy", Label: "Toy model (d = 4)", Prompt: "The cat"},
	{Name: "stories260K", Label: "TinyStories 260K", Prompt: "Once upon a time"},
}

// DefaultModel is the model the playground opens with.
const DefaultModel = "toy"

// Lookup finds the model called name, in any case ("STORIES260k" is
// stories260K); Model.Name is the canonical spelling.
func Lookup(name string) (Model, bool) {
	i := slices.IndexFunc(Models, func(m Model) bool { return strings.EqualFold(m.Name, name) })
	if i < 0 {
		return Model{}, false
	}
	return Models[i], true
}

// Names returns the models' names in order.
func Names() []string {
	names := make([]string, len(Models))
	for i, m := range Models {
		names[i] = m.Name
	}
	return names
}

// Spec returns the session m opens with, before any step: its prompt, or
// for the worked example the vocabulary and logits of package toymodel
// (the logits the toy model gives after "The cat"), with the sampler
// settings set, so that switching models keeps them. The slices are fresh
// copies.
func (m Model) Spec(set sampler.Settings) session.Spec {
	spec := session.Spec{Model: m.Name, Prompt: m.Prompt, Sampler: set}
	if m.Name == session.LogitsModel {
		spec.Vocab = slices.Clone(toymodel.Words)
		spec.Logits = slices.Clone(toymodel.WorkedLogits)
	}
	return spec
}

// Default is the session the playground opens with: DefaultModel after
// its prompt, sampler.DefaultSettings (greedy, seed 42), no steps.
func Default() session.Spec {
	m, _ := Lookup(DefaultModel) // in Models: TestDefault
	return m.Spec(sampler.DefaultSettings())
}
