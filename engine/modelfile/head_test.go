package modelfile

import (
	"bytes"
	"io"
	"os"
	"slices"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/tokenizer"
)

// stories260KAs is stories260K from web/models as a GGUF file, as
// llama.cpp's converter writes it, its matrices of type typ.
func stories260KAs(t *testing.T, typ gguf.Type) []byte {
	t.Helper()
	c, err := os.ReadFile("../../web/models/stories260K.bin")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := os.ReadFile("../../web/models/tok512.bin")
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkpoint.Read(c)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tokenizer.Read(tb)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := gguf.WriteLlama2c(&buf, m, v, gguf.Llama2cOptions{Type: typ}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Stories260KAs is stories260KAs, for the package's external tests.
var Stories260KAs = stories260KAs

// countReads counts the GGUF headers and tokenizers this package reads
// until the test ends.
func countReads(t *testing.T) (headers, tokenizers *int) {
	headers, tokenizers = new(int), new(int)
	h, tk := readHeader, readTokenizer
	readHeader = func(r io.ReaderAt, size int64) (*gguf.File, error) { *headers++; return h(r, size) }
	readTokenizer = func(f *gguf.File) (tokenizer.Tokenizer, error) { *tokenizers++; return tk(f) }
	t.Cleanup(func() { readHeader, readTokenizer = h, tk })
	return headers, tokenizers
}

// TestOpenReusesHead checks that opening a GGUF file whose first bytes the
// page checked (File.Head, from Preflight) reads its header and its
// tokenizer once in all, the check's, when the file starts with the bytes
// the check read; that a report of other bytes (another file's, or Check's
// of a header alone) is not reused, the file's own header and tokenizer
// being read instead; and that the model opened is the same either way.
func TestOpenReusesHead(t *testing.T) {
	stories := stories260KAs(t, gguf.F32)
	half := stories260KAs(t, gguf.F16) // the same tokenizer, other tensors
	preflight := func(data []byte) *Report {
		r, err := Preflight("m.gguf", data[:min(len(data), 64<<10)], int64(len(data)))
		if err != nil || r.Err() != nil {
			t.Fatalf("Preflight: %v, %v", err, r.Err())
		}
		return r
	}
	headerOnly := func(data []byte) *Report {
		f, err := gguf.ReadBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		return Check("m.gguf", f)
	}
	// changed is stories with one of its tokenizer's pieces changed, of
	// the same size: a file changed after its check.
	changed := bytes.Clone(stories)
	i := bytes.Index(changed, []byte("time"))
	if i < 0 {
		t.Fatal("no piece time")
	}
	changed[i+1] = 'a'
	const prompt = "Once upon a time"
	for _, tc := range []struct {
		name                string
		data                []byte
		head                func() *Report // nil: none
		headers, tokenizers int            // read in all, the check's included
	}{
		{"no head", stories, nil, 1, 1},
		{"the file's own head", stories, func() *Report { return preflight(stories) }, 1, 1},
		{"another file's head", stories, func() *Report { return preflight(half) }, 2, 2},
		{"the file's head before it changed", changed, func() *Report { return preflight(stories) }, 2, 2},
		{"a header checked without its bytes", stories, func() *Report { return headerOnly(stories) }, 1, 2},
	} {
		want, wantRef, err := Open(File{Name: "m.gguf", Data: tc.data})
		if err != nil {
			t.Fatal(err)
		}
		wantTokens, err := want.Tokenizer.Encode(prompt)
		if err != nil {
			t.Fatal(err)
		}
		headers, tokenizers := countReads(t)
		f := File{Name: "m.gguf", Data: tc.data}
		if tc.head != nil {
			f.Head = tc.head()
		}
		m, ref, err := Open(f)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if *headers != tc.headers || *tokenizers != tc.tokenizers {
			t.Errorf("%s: %d headers and %d tokenizers read, want %d and %d", tc.name, *headers, *tokenizers, tc.headers, tc.tokenizers)
		}
		got, err := m.Tokenizer.Encode(prompt)
		if ref != wantRef || m.Checkpoint.Config != want.Checkpoint.Config || err != nil || !slices.Equal(got, wantTokens) ||
			!slices.Equal(m.Checkpoint.Weights.TokenEmbedding, want.Checkpoint.Weights.TokenEmbedding) {
			t.Errorf("%s: opened %s %+v, %q as %v (%v); want %s %+v, %v", tc.name, ref, m.Checkpoint.Config, prompt, got, err, wantRef, want.Checkpoint.Config, wantTokens)
		}
	}
	// The changed file's tokenizer is another, or the case above shows nothing.
	a, _, _ := Open(File{Name: "m.gguf", Data: stories})
	b, _, _ := Open(File{Name: "m.gguf", Data: changed})
	ta, _ := a.Tokenizer.Encode(prompt)
	tb, _ := b.Tokenizer.Encode(prompt)
	if slices.Equal(ta, tb) {
		t.Errorf("%q is %v in both files", prompt, ta)
	}
}

// TestOpenURLReadsHeadOnce checks that OpenURL, which checks the whole
// file's header before it opens it, reads the header and the tokenizer
// once.
func TestOpenURLReadsHeadOnce(t *testing.T) {
	headers, tokenizers := countReads(t)
	m, _, err := OpenURL("https://example.com/m.gguf", stories260KAs(t, gguf.F32))
	if err != nil {
		t.Fatal(err)
	}
	if *headers != 1 || *tokenizers != 1 || m.Tokenizer.VocabSize() != 512 {
		t.Errorf("%d headers and %d tokenizers read, a vocabulary of %d; want 1, 1 and 512", *headers, *tokenizers, m.Tokenizer.VocabSize())
	}
}
