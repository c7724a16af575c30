// Package models embeds the models every nexttoken build ships with, so that
// the playground and the command line work without any files beside them.
// LICENSE.md in this folder says where each file comes from.
package models

import (
	_ "embed"
	"fmt"
	"strings"

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

// Names lists the embedded models, smallest first.
var Names = []string{"toy", "stories260K"}

// Load reads the embedded model called name. Each call returns a fresh copy,
// so sessions never share mutable state.
func Load(name string) (*session.Model, error) {
	switch name {
	case "toy":
		return session.LoadModel(name, toyCheckpoint, toyTokenizer)
	case "stories260K":
		return session.LoadModel(name, stories260KCheckpoint, tok512)
	}
	return nil, fmt.Errorf("no model called %q (there are %s)", name, strings.Join(Names, ", "))
}
