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
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/session"
	"nexttoken/engine/tokenizer"
)

// File is one file's name and contents, and Head, the report of its first
// bytes when the page checked them before reading it whole (Preflight):
// opening the file then reuses the header and the tokenizer Head read,
// rather than reading them again, if Data starts with the bytes they were
// read from. Nil, or another file's, opening reads them from Data.
type File struct {
	Name string
	Data []byte
	Head *Report
}

// Ref names a model opened from files: what a session's Spec.Model and a
// link hold, "file:" hash ":" size ":" name, or for a GGUF file fetched
// from the web "url:" hash ":" size ":" URL. Hash is the first 16 hex
// digits of the SHA-256 of the files' contents, the model's file first,
// then the tokenizer's if there is one; Size their total; Name the files'
// names, joined by " + ", or the URL.
type Ref struct {
	Hash string
	Size int64
	Name string
	URL  bool // Name is the URL the file is fetched from
}

// The prefixes of a Ref's string.
const (
	filePrefix = "file:"
	urlPrefix  = "url:"
)

// maxName and maxURL bound a Ref's name, which every link to the model
// carries.
const (
	maxName = 200
	maxURL  = 2000
)

func (r Ref) String() string {
	prefix := filePrefix
	if r.URL {
		prefix = urlPrefix
	}
	return prefix + r.Hash + ":" + strconv.FormatInt(r.Size, 10) + ":" + r.Name
}

// Pending reports whether r names files whose hash is not known yet
// (OpenPending, OpenURLPending): its string, "file::" size ":" name or
// "url::" size ":" URL, is no link's, and ParseRef refuses it; ParseName
// reads it.
func (r Ref) Pending() bool { return r.Hash == "" }

// ParseName reads a model's name that is a Ref's string or a pending
// Ref's (Pending).
func ParseName(s string) (Ref, error) {
	for _, prefix := range []string{filePrefix, urlPrefix} {
		if rest, ok := strings.CutPrefix(s, prefix+":"); ok {
			if r, err := ParseRef(prefix + strings.Repeat("0", 16) + ":" + rest); err == nil {
				r.Hash = ""
				return r, nil
			}
		}
	}
	return ParseRef(s)
}

// IsPending reports whether a model's name is a pending Ref's (Pending):
// no link can name the model yet.
func IsPending(name string) bool {
	if !strings.HasPrefix(name, filePrefix+":") && !strings.HasPrefix(name, urlPrefix+":") {
		return false // not even the start of one: no parse, no error made
	}
	r, err := ParseName(name)
	return err == nil && r.Pending()
}

// IsRef reports whether s is meant as a Ref (it may still be malformed).
func IsRef(s string) bool { return strings.HasPrefix(s, filePrefix) || strings.HasPrefix(s, urlPrefix) }

// ParseRef reads a Ref's string.
func ParseRef(s string) (Ref, error) {
	rest, isFile := strings.CutPrefix(s, filePrefix)
	if !isFile {
		var isURL bool
		if rest, isURL = strings.CutPrefix(s, urlPrefix); !isURL {
			return Ref{}, fmt.Errorf("%q is not a model file's reference (file:HASH:SIZE:NAME or url:HASH:SIZE:URL)", s)
		}
	}
	hash, rest, ok1 := strings.Cut(rest, ":")
	size, name, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 {
		return Ref{}, fmt.Errorf("model file %q: want file:HASH:SIZE:NAME", s)
	}
	r := Ref{Hash: hash, Name: name, URL: !isFile}
	var err error
	if r.Size, err = strconv.ParseInt(size, 10, 64); err != nil || r.Size <= 0 || strconv.FormatInt(r.Size, 10) != size {
		return Ref{}, fmt.Errorf("model file %q: the size %q is not a positive whole number", s, size)
	}
	if _, err := hex.DecodeString(hash); err != nil || len(hash) != 16 || strings.ToLower(hash) != hash {
		return Ref{}, fmt.Errorf("model file %q: the hash %q is not 16 lower-case hex digits", s, hash)
	}
	if r.URL {
		if err := CheckURL(name); err != nil {
			return Ref{}, fmt.Errorf("model file %.80q: %w", s, err)
		}
		return r, nil
	}
	if name == "" || len(name) > maxName || !utf8.ValidString(name) || strings.ContainsFunc(name, isControl) {
		return Ref{}, fmt.Errorf("model file %q: the name must be 1 to %d printable characters", s, maxName)
	}
	return r, nil
}

// CheckURL says what is wrong with a model's URL, if anything: it must be
// an absolute http or https URL of at most 2,000 printable characters.
func CheckURL(u string) error {
	parsed, err := url.Parse(u)
	switch {
	case len(u) > maxURL:
		return fmt.Errorf("the URL has %d characters, more than %d", len(u), maxURL)
	case err != nil || strings.ContainsFunc(u, isControl) || strings.ContainsRune(u, ' '):
		return fmt.Errorf("%.80q is not a URL", u)
	case parsed.Scheme != "http" && parsed.Scheme != "https" || parsed.Host == "":
		return fmt.Errorf("%.80q is not an http or https URL", u)
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Describe says which files r is, for a reader asked to open them, or
// which file at which URL.
func (r Ref) Describe() string {
	return fmt.Sprintf("%s (%s bytes, SHA-256 %s…)", r.Name, strconv.FormatInt(r.Size, 10), r.Hash)
}

// RefOf is the reference of files, the model's file first.
func RefOf(files ...File) Ref {
	h := sha256.New()
	for _, f := range files {
		h.Write(f.Data)
	}
	return refWithSum(h.Sum(nil), files)
}

// refWithSum is the reference of files whose contents, in order, have the
// SHA-256 sum; a pending one (Pending) for a nil sum.
func refWithSum(sum []byte, files []File) Ref {
	names := make([]string, len(files))
	var size int64
	for i, f := range files {
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
	r := Ref{Size: size, Name: name}
	if sum != nil {
		r.Hash = hex.EncodeToString(sum)[:16]
	}
	return r
}

// A Hash gives the SHA-256 of the contents of the files at the indexes
// order, one after the other: a digest computed outside Go, such as the
// browser's own (crypto.subtle), which runs off the page's thread and far
// faster than Go's in WebAssembly. It may fail; the files are then hashed
// in Go.
type Hash func(order []int) ([]byte, error)

// refHashed is the reference of files[order[0]], files[order[1]], …: from
// hash's sum when hash is given and gives one, and otherwise from Go's.
func refHashed(hash Hash, files []File, order []int) Ref {
	in := ordered(files, order)
	if hash != nil {
		if sum, err := hash(order); err == nil && len(sum) == sha256.Size {
			return refWithSum(sum, in)
		}
	}
	return RefOf(in...)
}

// ordered is files[order[0]], files[order[1]], ….
func ordered(files []File, order []int) []File {
	in := make([]File, len(order))
	for i, j := range order {
		in[i] = files[j]
	}
	return in
}

// Open reads a model from the files a reader chose: one GGUF file (its
// tokenizer is in its metadata), or a llama2.c checkpoint and its
// tokenizer.bin in either order. The model is named by its Ref.
func Open(files ...File) (*session.Model, Ref, error) {
	m, _, err := OpenPending(files...)
	if err != nil {
		return nil, Ref{}, err
	}
	ref, err := Hashed(nil, files...)
	if err != nil {
		return nil, Ref{}, err
	}
	m.SetName(ref.String())
	return m, ref, nil
}

// OpenPending is Open without the files' hash: the model is named by a
// pending Ref (Pending), which a page shows and runs sessions on while
// the browser hashes the files; Hashed then gives the Ref to rename it to.
func OpenPending(files ...File) (*session.Model, Ref, error) {
	order, err := Order(files...)
	if err != nil {
		return nil, Ref{}, err
	}
	var tokFile *File
	if len(order) > 1 {
		tokFile = &files[order[1]]
	}
	m, err := open(&files[order[0]], tokFile)
	if err != nil {
		return nil, Ref{}, err
	}
	ref := refWithSum(nil, ordered(files, order))
	m.SetName(ref.String())
	return m, ref, nil
}

// Hashed is the Ref of the model in files, which OpenPending opens: with
// the SHA-256 hash gives for them (asked in Order's order), or Go's when
// hash is nil or fails.
func Hashed(hash Hash, files ...File) (Ref, error) {
	order, err := Order(files...)
	if err != nil {
		return Ref{}, err
	}
	return refHashed(hash, files, order), nil
}

// Order is the order of files as a model, the model's file first and then
// a llama2.c checkpoint's tokenizer.bin when there is one, [0], [0 1] or
// [1 0]: the order a Ref names them in and hashes them in. It fails when
// the files are not one model, as Open does.
func Order(files ...File) ([]int, error) {
	if len(files) == 0 || len(files) > 2 {
		return nil, fmt.Errorf("%d files: choose a GGUF file, or a llama2.c checkpoint and its tokenizer.bin", len(files))
	}
	model, tok := -1, -1
	for i := range files {
		f := &files[i]
		if !isGGUF(f.Data) && looksLikeTokenizer(f.Data) {
			if tok >= 0 {
				return nil, fmt.Errorf("%s and %s are both tokenizers: choose one", files[tok].Name, f.Name)
			}
			tok = i
			continue
		}
		if model >= 0 {
			return nil, fmt.Errorf("%s and %s are both models: choose one model, and a llama2.c checkpoint's tokenizer.bin", files[model].Name, f.Name)
		}
		model = i
	}
	if model < 0 {
		return nil, fmt.Errorf("%s is a tokenizer: choose its checkpoint with it", files[tok].Name)
	}
	if tok >= 0 {
		return []int{model, tok}, nil
	}
	return []int{model}, nil
}

// open reads the model in model's file, with tok's tokenizer if given,
// named by the file until its caller knows its Ref.
func open(model, tok *File) (*session.Model, error) {
	var ckpt *checkpoint.Model
	var own tokenizer.Tokenizer // a GGUF file's, when no tokenizer.bin is given
	var template string         // its chat template's source, with its own tokenizer
	if isGGUF(model.Data) {
		f, checked, err := readGGUF(model) // its quantized weights stay where they are
		if err == nil {
			ckpt, err = f.Model()
		}
		if err == nil && tok == nil {
			if checked != nil {
				own, err = checked.tok, checked.tokErr
			} else {
				own, err = readTokenizer(f)
			}
		}
		if err == nil && tok == nil {
			template, _ = f.ChatTemplate() // "" for none: the model takes prompts alone
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", model.Name, err)
		}
	} else {
		if tok == nil {
			return nil, fmt.Errorf("%s: a llama2.c checkpoint needs its tokenizer.bin: choose both files together", model.Name)
		}
		var err error
		if ckpt, err = checkpoint.Read(model.Data); err != nil {
			return nil, fmt.Errorf("%s: %w", model.Name, err)
		}
	}
	if tok != nil {
		m, err := session.NewModel(model.Name, ckpt, tok.Data)
		if err != nil {
			return nil, fmt.Errorf("%s with %s: %w", model.Name, tok.Name, err)
		}
		return m, nil
	}
	m, err := session.Pair(model.Name, ckpt, own)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", model.Name, err)
	}
	m.ChatTemplate = template
	return m, nil
}

// readGGUF reads the header of model, a GGUF file held whole: the one its
// Head read, with the Report it is in, when Data starts with the bytes
// Head read it from, and otherwise read from Data (with a nil Report).
func readGGUF(model *File) (*gguf.File, *Report, error) {
	if h := model.Head; h != nil && h.header != nil && h.head != nil && bytes.HasPrefix(model.Data, h.head) {
		if f, err := h.header.Held(model.Data); err == nil {
			return f, h, nil
		}
	}
	f, err := readHeader(bytes.NewReader(model.Data), int64(len(model.Data)))
	if err == nil {
		f, err = f.Held(model.Data)
	}
	return f, nil, err
}

// isGGUF reports whether data starts with GGUF's magic.
func isGGUF(data []byte) bool { return bytes.HasPrefix(data, []byte(gguf.Magic)) }

// looksLikeTokenizer reports whether data reads as a llama2.c tokenizer
// file, which has no magic number of its own.
func looksLikeTokenizer(data []byte) bool {
	if len(data) > tokenizer.MaxFile {
		return false
	}
	_, err := tokenizer.Read(data)
	return err == nil
}

// OpenURL reads the GGUF file fetched from u; its Ref names the URL.
func OpenURL(u string, data []byte) (*session.Model, Ref, error) { return OpenURLHashed(u, data, nil) }

// OpenURLHashed is OpenURL with data's SHA-256 from hash (nil: Go's).
func OpenURLHashed(u string, data []byte, hash Hash) (*session.Model, Ref, error) {
	m, _, err := OpenURLPending(u, data)
	if err != nil {
		return nil, Ref{}, err
	}
	ref := HashedURL(u, data, hash)
	m.SetName(ref.String())
	return m, ref, nil
}

// OpenURLPending is OpenURL without data's hash: the model is named by a
// pending Ref (Pending) until HashedURL gives the Ref to rename it to.
func OpenURLPending(u string, data []byte) (*session.Model, Ref, error) {
	head, err := CheckHead(u, data, int64(len(data)))
	if err != nil {
		return nil, Ref{}, err
	}
	m, err := open(&File{Name: u, Data: data, Head: head}, nil)
	if err != nil {
		return nil, Ref{}, err
	}
	ref := Ref{Size: int64(len(data)), Name: u, URL: true}
	m.SetName(ref.String())
	return m, ref, nil
}

// HashedURL is the Ref of data fetched from u: with the SHA-256 hash
// gives, or Go's when hash is nil or fails.
func HashedURL(u string, data []byte, hash Hash) Ref {
	ref := refHashed(hash, []File{{Data: data}}, []int{0})
	ref.Name, ref.URL = u, true
	return ref
}

// ErrShortHead says that a head ends inside its file's metadata or tensor
// list: read more of the file (HeadSizes) and check again, or let the
// file through, to be checked once in whole.
var ErrShortHead = errors.New("its header goes on beyond the bytes read")

// HeadSizes are how much of a model file a page reads, in turn while the
// header goes on beyond them (ErrShortHead), to refuse a file it cannot
// run before its weights come: most files' metadata fits in the first; a
// vocabulary of 150,000 tokens with its merges, as Qwen2's and Llama 3's,
// takes some of the second.
var HeadSizes = []int{4 << 20, 16 << 20, 64 << 20}

// CheckHead reads the report of the file at u from its first bytes (head,
// of a file of size bytes), so that the weights of a file a page will not
// open are never fetched: it fails when the file is not GGUF (a model from
// a URL must be), as Preflight fails, and with the report's verdict.
func CheckHead(u string, head []byte, size int64) (*Report, error) {
	if !isGGUF(head) {
		return nil, fmt.Errorf("%s is not a GGUF file (it starts with %q): a model from a URL must be GGUF; open a llama2.c checkpoint and its tokenizer.bin from files", u, head[:min(len(head), 4)])
	}
	r, err := Preflight(u, head, size)
	if err != nil {
		return nil, err
	}
	return r, r.Err()
}

// prefixReader reads the first bytes of a file, and fails with
// io.ErrUnexpectedEOF beyond them.
type prefixReader []byte

func (p prefixReader) ReadAt(b []byte, off int64) (int, error) {
	if off >= int64(len(p)) {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(b, p[off:])
	if n < len(b) {
		return n, io.ErrUnexpectedEOF
	}
	return n, nil
}
