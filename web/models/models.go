// Package models holds the files of the models every nexttoken build ships
// with. The command line embeds them all, so that it works without any
// files beside it. The browser program embeds only the toy model, which
// the playground opens with: the others are fetched from this folder,
// which the server publishes at /web/models/, when a reader asks for them,
// so that the first page costs no download of a model nobody looked at.
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
)

// Files are the names, in this folder, of the checkpoint and the tokenizer
// of each model of the catalog but the worked example, which has no model.
var Files = map[string]File{
	"toy":         {Checkpoint: "toy.bin", Tokenizer: "toy-tokenizer.bin", Size: 1708 + 69},
	"stories260K": {Checkpoint: "stories260K.bin", Tokenizer: "tok512.bin", Size: 1056540 + 6227},
}

// File names a model's two files in this folder; Size is their sizes'
// sum, for a download's progress before the server says.
type File struct {
	Checkpoint, Tokenizer string
	Size                  int64
}

// embedded are the files this build holds, by model name (embed_native.go
// adds those the browser fetches).
var embedded = map[string][2][]byte{
	"toy": {toyCheckpoint, toyTokenizer},
}

// Names lists the catalog's models in its order, smallest first.
var Names = names()

func names() []string {
	var names []string
	for _, m := range catalog.Models {
		if m.Name != session.LogitsModel {
			names = append(names, m.Name)
		}
	}
	return names
}

// NotEmbeddedError is Load's error for a model of the catalog whose files
// this build does not hold: fetch its Files and call FromFiles.
type NotEmbeddedError struct {
	Name  string
	Files File
}

func (e *NotEmbeddedError) Error() string {
	return fmt.Sprintf("model %s is not part of this program: its files %s and %s are fetched when asked for",
		e.Name, e.Files.Checkpoint, e.Files.Tokenizer)
}

// Load reads the model called name from the files this build embeds. Each
// call returns a fresh copy, so sessions never share mutable state.
func Load(name string) (*session.Model, error) {
	f, ok := embedded[name]
	if !ok {
		if files, known := Files[name]; known {
			return nil, &NotEmbeddedError{Name: name, Files: files}
		}
		return nil, fmt.Errorf("no model called %q (there are %s)", name, strings.Join(Names, ", "))
	}
	return FromFiles(name, f[0], f[1])
}

// FromFiles reads the model called name from the contents of its Files.
func FromFiles(name string, checkpoint, tokenizer []byte) (*session.Model, error) {
	return session.LoadModel(name, checkpoint, tokenizer)
}
