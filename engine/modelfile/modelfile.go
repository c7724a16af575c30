// Package modelfile opens a model from files a reader brings: a GGUF file,
// or a llama2.c checkpoint with its tokenizer.bin, and names it by a
// reference that a link can carry. The files stay on the reader's machine:
// a link says which files it needs (their name, size and hash) and the page
// that opens it asks for them and checks them.
package modelfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/session"
	"nexttoken/engine/tokenizer"
)

// File is one file's name and contents.
type File struct {
	Name string
	Data []byte
}

// Ref names a model opened from files: what a session's Spec.Model and a
// link hold, "file:" hash ":" size ":" name. Hash is the first 16 hex
// digits of the SHA-256 of the files' contents, the model's file first,
// then the tokenizer's if there is one; Size their total; Name the files'
// names, joined by " + ".
type Ref struct {
	Hash string
	Size int64
	Name string
}

// refPrefix starts every Ref's string.
const refPrefix = "file:"

// maxName bounds a Ref's name, which every link to the model carries.
const maxName = 200

func (r Ref) String() string {
	return refPrefix + r.Hash + ":" + strconv.FormatInt(r.Size, 10) + ":" + r.Name
}

// IsRef reports whether s is meant as a Ref (it may still be malformed).
func IsRef(s string) bool { return strings.HasPrefix(s, refPrefix) }

// ParseRef reads a Ref's string.
func ParseRef(s string) (Ref, error) {
	rest, ok := strings.CutPrefix(s, refPrefix)
	if !ok {
		return Ref{}, fmt.Errorf("%q is not a model file's reference (file:HASH:SIZE:NAME)", s)
	}
	hash, rest, ok1 := strings.Cut(rest, ":")
	size, name, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 {
		return Ref{}, fmt.Errorf("model file %q: want file:HASH:SIZE:NAME", s)
	}
	r := Ref{Hash: hash, Name: name}
	var err error
	if r.Size, err = strconv.ParseInt(size, 10, 64); err != nil || r.Size <= 0 || strconv.FormatInt(r.Size, 10) != size {
		return Ref{}, fmt.Errorf("model file %q: the size %q is not a positive whole number", s, size)
	}
	if _, err := hex.DecodeString(hash); err != nil || len(hash) != 16 || strings.ToLower(hash) != hash {
		return Ref{}, fmt.Errorf("model file %q: the hash %q is not 16 lower-case hex digits", s, hash)
	}
	if name == "" || len(name) > maxName || !utf8.ValidString(name) || strings.ContainsFunc(name, isControl) {
		return Ref{}, fmt.Errorf("model file %q: the name must be 1 to %d printable characters", s, maxName)
	}
	return r, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Describe says which files r is, for a reader asked to open them.
func (r Ref) Describe() string {
	return fmt.Sprintf("%s (%s bytes, SHA-256 %s…)", r.Name, strconv.FormatInt(r.Size, 10), r.Hash)
}

// RefOf is the reference of files, the model's file first.
func RefOf(files ...File) Ref {
	h := sha256.New()
	names := make([]string, len(files))
	var size int64
	for i, f := range files {
		h.Write(f.Data)
		names[i] = f.Name
		size += int64(len(f.Data))
	}
	name := strings.Join(names, " + ")
	if len(name) > maxName {
		name = name[:maxName]
		for !utf8.ValidString(name) {
			name = name[:len(name)-1]
		}
	}
	name = strings.Map(func(r rune) rune {
		if isControl(r) {
			return '?'
		}
		return r
	}, name)
	return Ref{Hash: hex.EncodeToString(h.Sum(nil))[:16], Size: size, Name: name}
}

// Open reads a model from the files a reader chose: one GGUF file (its
// tokenizer is in its metadata), or a llama2.c checkpoint and its
// tokenizer.bin in either order. The model is named by its Ref.
func Open(files ...File) (*session.Model, Ref, error) {
	if len(files) == 0 || len(files) > 2 {
		return nil, Ref{}, fmt.Errorf("%d files: choose a GGUF file, or a llama2.c checkpoint and its tokenizer.bin", len(files))
	}
	var model, tok *File
	for i := range files {
		f := &files[i]
		switch {
		case !bytes.HasPrefix(f.Data, []byte(gguf.Magic)) && looksLikeTokenizer(f.Data):
			if tok != nil {
				return nil, Ref{}, fmt.Errorf("%s and %s are both tokenizers: choose one", tok.Name, f.Name)
			}
			tok = f
		default:
			if model != nil {
				return nil, Ref{}, fmt.Errorf("%s and %s are both models: choose one model, and a llama2.c checkpoint's tokenizer.bin", model.Name, f.Name)
			}
			model = f
		}
	}
	if model == nil {
		return nil, Ref{}, fmt.Errorf("%s is a tokenizer: choose its checkpoint with it", tok.Name)
	}
	ordered := []File{*model}
	if tok != nil {
		ordered = append(ordered, *tok)
	}
	ref := RefOf(ordered...)
	m, err := open(ref.String(), model, tok)
	if err != nil {
		return nil, Ref{}, err
	}
	return m, ref, nil
}

func open(name string, model, tok *File) (*session.Model, error) {
	if !bytes.HasPrefix(model.Data, []byte(gguf.Magic)) {
		if tok == nil {
			return nil, fmt.Errorf("%s: a llama2.c checkpoint needs its tokenizer.bin: choose both files together", model.Name)
		}
		ckpt, err := checkpoint.Read(model.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", model.Name, err)
		}
		m, err := session.NewModel(name, ckpt, tok.Data)
		if err != nil {
			return nil, fmt.Errorf("%s with %s: %w", model.Name, tok.Name, err)
		}
		return m, nil
	}
	f, err := gguf.Read(bytes.NewReader(model.Data), int64(len(model.Data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", model.Name, err)
	}
	ckpt, err := f.Model()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", model.Name, err)
	}
	if tok != nil {
		m, err := session.NewModel(name, ckpt, tok.Data)
		if err != nil {
			return nil, fmt.Errorf("%s with %s: %w", model.Name, tok.Name, err)
		}
		return m, nil
	}
	t, err := f.Tokenizer()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", model.Name, err)
	}
	if t.VocabSize() != ckpt.Config.VocabSize {
		return nil, fmt.Errorf("%s: the tokenizer has %d tokens but the model's vocabulary has %d", model.Name, t.VocabSize(), ckpt.Config.VocabSize)
	}
	return &session.Model{Name: name, Checkpoint: ckpt, Tokenizer: t}, nil
}

// looksLikeTokenizer reports whether data reads as a llama2.c tokenizer
// file, which has no magic number of its own.
func looksLikeTokenizer(data []byte) bool {
	if len(data) > tokenizer.MaxFile {
		return false
	}
	_, err := tokenizer.Read(data)
	return err == nil
}
