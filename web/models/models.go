// Package models embeds the models every nexttoken build ships with, so that
// the playground and the command line work without any files beside them.
// LICENSE.md in this folder says where each file comes from.
package models

import (
	_ "embed"
	"fmt"
	"strings"

	"nexttoken/engine/catalog"
	"nexttoken/engine/session"
)

var (
	//go:embed toy.bin
	toyCheckpoint []byte
	//go:embed toy-tokenizer.bin
	toyTokenizer []byte
	//go:embed stories260K.bin
	stories260KCheckpoint []byte
	//go:embed tok512.bin
	tok512 []byte
)

// files are the checkpoint and tokenizer of each model of the catalog but
// the worked example, which has no model.
var files = map[string]struct{ checkpoint, tokenizer []byte }{
	"toy":         {toyCheckpoint, toyTokenizer},
	"stories260K": {stories260KCheckpoint, tok512},
}

// Names lists the embedded models in the catalog's order, smallest first.
var Names = embedded()

func embedded() []string {
	var names []string
	for _, m := range catalog.Models {
		if m.Name != session.LogitsModel {
			names = append(names, m.Name)
		}
	}
	return names
}

// Load reads the embedded model called name. Each call returns a fresh copy,
// so sessions never share mutable state.
func Load(name string) (*session.Model, error) {
	f, ok := files[name]
	if !ok {
		return nil, fmt.Errorf("no model called %q (there are %s)", name, strings.Join(Names, ", "))
	}
	return session.LoadModel(name, f.checkpoint, f.tokenizer)
}
