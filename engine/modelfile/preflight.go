package modelfile

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"nexttoken/engine/gguf"
	"nexttoken/engine/tokenizer"
)

// MaxFile bounds the files a page reads for a model, before it reads
// them: a WebAssembly program has at most 4 GiB of memory, and a file is
// held whole while its weights are decoded beside it (MaxHeld).
const MaxFile = 1 << 30

// MaxHeld bounds what a page holds of a model while it opens it: the
// file's bytes and the weights decoded from them. A WebAssembly program
// has at most 4 GiB of memory, and Go's collector needs room beside what
// it keeps.
const MaxHeld = 3 << 30

// Report is what a GGUF file's header says of the model in it, read
// before its weights: what it is, what opening it would take, and every
// reason a page would not open it. Problems is empty exactly when the
// page opens the file, but for what only its weights can show (a tensor
// of the wrong shape, a missing one).
type Report struct {
	Name         string
	Size         int64  // the file's bytes
	Arch         string // general.architecture, "" when absent
	Types        []TypeCount
	Params       int64  // the weights in all tensors
	Weights      int64  // the bytes the engine holds of them once open
	Vocab        int    // tokens, 0 when the header does not say
	Tokenizer    string // tokenizer.ggml.model, "" when absent
	ChatTemplate bool   // tokenizer.chat_template is there
	Problems     []error

	// What Check read, which opening the same file reuses (File.Head):
	// the header, the bytes it was read from up to its data section when
	// Preflight read it (nil when Check was given the header alone), and
	// the tokenizer with its error.
	header *gguf.File
	head   []byte
	tok    tokenizer.Tokenizer
	tokErr error
}

// TypeCount is how many of a file's tensors are of one type, and whether
// the engine reads that type.
type TypeCount struct {
	Type      gguf.Type
	Tensors   int
	Supported bool
}

// Preflight reads the report of the GGUF file called name from its first
// bytes (head, of a file of size bytes). It fails when the header is
// malformed or claims more than a real file holds, and with ErrShortHead
// when head ends inside the header.
func Preflight(name string, head []byte, size int64) (*Report, error) {
	f, err := readHeader(prefixReader(head), size)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%s: %w", name, ErrShortHead)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r := Check(name, f)
	r.head = head[:min(int64(len(head)), f.DataOffset)]
	return r, nil
}

// readHeader and readTokenizer read a GGUF file's header and its
// tokenizer: variables, so that a test counts the reads.
var (
	readHeader    = gguf.Read
	readTokenizer = (*gguf.File).Tokenizer
)

// Check is the report of f, the header of the GGUF file called name. The
// reasons a page would not open it come in the order it meets them: the
// architecture and its hyper-parameters, the tensor types, the tokenizer,
// the memory.
func Check(name string, f *gguf.File) *Report {
	r := &Report{Name: name, Size: f.Size()}
	r.Arch, _ = text(f, "general.architecture")
	r.Tokenizer, _ = text(f, "tokenizer.ggml.model")
	_, r.ChatTemplate = f.Metadata.Lookup("tokenizer.chat_template")
	c, err := f.LlamaConfig()
	if err != nil {
		r.Problems = append(r.Problems, err)
	}
	r.Vocab = c.VocabSize
	if v, ok := f.Metadata.Lookup("tokenizer.ggml.tokens"); ok {
		if a, ok := v.Array(); ok {
			r.Vocab = a.Len()
		}
	}
	for i := range f.Tensors {
		t := &f.Tensors[i]
		r.Params += t.Elements
		typeErr := t.CheckType()
		j := slices.IndexFunc(r.Types, func(tc TypeCount) bool { return tc.Type == t.Type })
		if j < 0 {
			r.Types = append(r.Types, TypeCount{Type: t.Type, Supported: typeErr == nil})
			j = len(r.Types) - 1
			if typeErr != nil {
				r.Problems = append(r.Problems, typeErr)
			}
		}
		r.Types[j].Tensors++
	}
	slices.SortStableFunc(r.Types, func(a, b TypeCount) int { return b.Tensors - a.Tensors })
	r.header = f
	r.tok, r.tokErr = readTokenizer(f)
	if r.tokErr != nil {
		r.Problems = append(r.Problems, r.tokErr)
	}
	r.Weights, _ = f.WeightBytes()
	switch {
	case r.Size > MaxFile:
		r.Problems = append(r.Problems, fmt.Errorf("the file has %s, more than the %s a page reads", mib(r.Size), mib(MaxFile)))
	case r.Size+r.Weights > MaxHeld:
		r.Problems = append(r.Problems, fmt.Errorf("its weights take %s in this engine, which with the file's own %s is more than the %s a page can hold while it opens a model",
			mib(r.Weights), mib(r.Size), mib(MaxHeld)))
	}
	return r
}

func text(f *gguf.File, key string) (string, bool) {
	v, ok := f.Metadata.Lookup(key)
	if !ok {
		return "", false
	}
	return v.Text()
}

// RefusedError is a model file a page will not open, with every reason.
type RefusedError struct {
	Name    string
	Reasons []error
}

func (e *RefusedError) Error() string {
	reasons := make([]string, len(e.Reasons))
	for i, r := range e.Reasons {
		reasons[i] = r.Error()
	}
	return e.Name + ": " + strings.Join(reasons, "; ")
}

func (e *RefusedError) Unwrap() []error { return e.Reasons }

// Err is the report's verdict: nil when a page opens the file, and
// otherwise a *RefusedError with every reason it will not.
func (r *Report) Err() error {
	if len(r.Problems) == 0 {
		return nil
	}
	return &RefusedError{Name: r.Name, Reasons: r.Problems}
}

// String describes the model for people, a line for each thing the
// header says, and the verdict last.
func (r *Report) String() string {
	var b strings.Builder
	arch := r.Arch
	if arch == "" {
		arch = "not given"
	}
	b.WriteString("architecture: " + arch + "\ntensor types:")
	for i, t := range r.Types {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(" " + t.Type.String() + " ×" + strconv.Itoa(t.Tensors))
		if !t.Supported {
			b.WriteString(" (not supported)")
		}
	}
	fmt.Fprintf(&b, "\nparameters: %s\nmemory: %s of weights once open, with the file's %s: %s of the %s a page can hold\nvocabulary: %s tokens",
		thousands(r.Params), mib(r.Weights), mib(r.Size), mib(r.Weights+r.Size), mib(MaxHeld), thousands(int64(r.Vocab)))
	if r.Tokenizer != "" {
		b.WriteString(", tokenizer " + r.Tokenizer)
	}
	if r.ChatTemplate {
		b.WriteString(", with a chat template")
	} else {
		b.WriteString(", no chat template")
	}
	if err := r.Err(); err != nil {
		b.WriteString("\nwill not open in a page: ")
		for i, p := range r.Problems {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(strings.TrimPrefix(p.Error(), "gguf: "))
		}
	} else {
		b.WriteString("\nwill open in a page")
	}
	return b.String()
}

// mib writes n bytes in MiB, to a tenth.
func mib(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB" }

// thousands writes n with commas between thousands: 494,032,768.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
