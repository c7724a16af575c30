package modelfile_test

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/gguf"
	"nexttoken/engine/modelfile"
)

func read(t *testing.T, name string) modelfile.File {
	t.Helper()
	data, err := os.ReadFile("../../web/models/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return modelfile.File{Name: name, Data: data}
}

// stories260KGGUF is stories260K as llama.cpp's converter writes it.
func stories260KGGUF(t *testing.T) modelfile.File {
	return modelfile.File{Name: "stories260K.gguf", Data: modelfile.Stories260KAs(t, gguf.F32)}
}

func TestOpen(t *testing.T) {
	ckpt, tok, toy, toyTok := read(t, "stories260K.bin"), read(t, "tok512.bin"), read(t, "toy.bin"), read(t, "toy-tokenizer.bin")
	g := stories260KGGUF(t)
	for _, tc := range []struct {
		name  string
		files []modelfile.File
		vocab int    // the model's vocabulary, when it opens
		named string // its Ref's name
		err   string
	}{
		{"checkpoint and tokenizer", []modelfile.File{ckpt, tok}, 512, "stories260K.bin + tok512.bin", ""},
		{"tokenizer first", []modelfile.File{tok, ckpt}, 512, "stories260K.bin + tok512.bin", ""},
		{"gguf", []modelfile.File{g}, 512, "stories260K.gguf", ""},
		{"gguf and a tokenizer", []modelfile.File{g, tok}, 512, "stories260K.gguf + tok512.bin", ""},
		{"a checkpoint alone", []modelfile.File{ckpt}, 0, "", "stories260K.bin: a llama2.c checkpoint needs its tokenizer.bin"},
		{"a tokenizer alone", []modelfile.File{tok}, 0, "", "tok512.bin is a tokenizer: choose its checkpoint with it"},
		{"two checkpoints", []modelfile.File{ckpt, toy}, 0, "", "stories260K.bin and toy.bin are both models"},
		{"two tokenizers", []modelfile.File{tok, toyTok}, 0, "", "tok512.bin and toy-tokenizer.bin are both tokenizers"},
		{"three files", []modelfile.File{tok, toyTok, ckpt}, 0, "", "3 files"},
		{"mismatched", []modelfile.File{ckpt, toyTok}, 0, "", "the tokenizer has 6 tokens but the checkpoint's vocabulary has 512"},
		{"nothing", nil, 0, "", "0 files"},
		{"garbage", []modelfile.File{{Name: "x.bin", Data: []byte("not a model at all, not at all")}, tok}, 0, "", "x.bin: "},
		{"truncated gguf", []modelfile.File{{Name: "cut.gguf", Data: g.Data[:len(g.Data)/2]}}, 0, "", "cut.gguf: "},
	} {
		m, ref, err := modelfile.Open(tc.files...)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if m.Checkpoint.Config.VocabSize != tc.vocab || m.Tokenizer.VocabSize() != tc.vocab || ref.Name != tc.named || m.Name != ref.String() {
			t.Errorf("%s: model %s of %d tokens, ref %+v", tc.name, m.Name, m.Checkpoint.Config.VocabSize, ref)
		}
		var size int64
		for _, f := range tc.files {
			size += int64(len(f.Data))
		}
		if ref.Size != size {
			t.Errorf("%s: ref size %d, the files have %d bytes", tc.name, ref.Size, size)
		}
	}
	// The same files in either order are the same model; other files are not.
	_, a, _ := modelfile.Open(ckpt, tok)
	_, b, _ := modelfile.Open(tok, ckpt)
	_, c, _ := modelfile.Open(g)
	if a != b || a.Hash == c.Hash {
		t.Errorf("refs %v, %v, %v", a, b, c)
	}
}

func TestParseRef(t *testing.T) {
	good := modelfile.Ref{Hash: "0123456789abcdef", Size: 1063, Name: "stories260K.bin + tok512.bin"}
	if got, err := modelfile.ParseRef(good.String()); err != nil || got != good {
		t.Errorf("ParseRef(%q) = %+v, %v", good.String(), got, err)
	}
	for _, tc := range []struct{ s, err string }{
		{"stories260K", "not a model file's reference"},
		{"file:0123456789abcdef:12", "want file:HASH:SIZE:NAME"},
		{"file:0123456789abcdef:0:x.bin", "not a positive whole number"},
		{"file:0123456789abcdef:-5:x.bin", "not a positive whole number"},
		{"file:0123456789abcdef:1e9:x.bin", "not a positive whole number"},
		{"file:0123456789abcdef:+12:x.bin", "not a positive whole number"},
		{"file:0123456789abcdef:012:x.bin", "not a positive whole number"},
		{"file:0123456789ABCDEF:12:x.bin", "16 lower-case hex digits"},
		{"file:0123:12:x.bin", "16 lower-case hex digits"},
		{"file:0123456789abcdef:12:", "printable characters"},
		{"file:0123456789abcdef:12:a\nb", "printable characters"},
		{"file:0123456789abcdef:12:" + strings.Repeat("x", 201), "printable characters"},
		{"file:0123456789abcdef:12:\xff", "printable characters"},
	} {
		if _, err := modelfile.ParseRef(tc.s); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseRef(%q): %v, want an error saying %q", tc.s, err, tc.err)
		}
	}
}

// FuzzParseRef: a reference in a link is outside input. Whatever parses
// prints back as itself.
func FuzzParseRef(f *testing.F) {
	f.Add("file:0123456789abcdef:1063:stories260K.bin + tok512.bin")
	f.Add("file:0123456789abcdef:1:a:b")
	f.Add("file::::")
	f.Add("file::1063:stories260K.bin")
	f.Add("url::12:https://x.test/m.gguf")
	f.Fuzz(func(t *testing.T, s string) {
		// ParseName reads what ParseRef reads, and pending Refs besides,
		// which IsPending says are pending; each reads back as it was.
		n, nameErr := modelfile.ParseName(s)
		if nameErr == nil && (n.String() != s || modelfile.IsPending(s) != n.Pending()) {
			t.Errorf("ParseName(%q) = %+v, IsPending %v", s, n, modelfile.IsPending(s))
		}
		if nameErr != nil && modelfile.IsPending(s) {
			t.Errorf("IsPending(%q), which ParseName refuses: %v", s, nameErr)
		}
		r, err := modelfile.ParseRef(s)
		if err != nil {
			return
		}
		if r.String() != s || r != n || r.Pending() {
			t.Errorf("ParseRef(%q) = %+v, String %q; ParseName %+v", s, r, r.String(), n)
		}
	})
}

func TestOpenURL(t *testing.T) {
	g := stories260KGGUF(t)
	const u = "https://example.com/models/stories260K.gguf?download=1"
	m, ref, err := modelfile.OpenURL(u, g.Data)
	if err != nil || !ref.URL || ref.Name != u || ref.Size != int64(len(g.Data)) || m.Name != ref.String() {
		t.Fatalf("OpenURL = %v, %+v, %v", m, ref, err)
	}
	if back, err := modelfile.ParseRef(ref.String()); err != nil || back != ref {
		t.Errorf("ParseRef(%q) = %+v, %v", ref.String(), back, err)
	}
	if _, files, _ := modelfile.Open(g); files.Hash != ref.Hash {
		t.Errorf("the same bytes from a file hash to %s, from a URL to %s", files.Hash, ref.Hash)
	}
	for _, tc := range []struct {
		name string
		head []byte
		size int64
		err  string
	}{
		{"whole", g.Data, int64(len(g.Data)), ""},
		{"metadata beyond the head", g.Data[:1000], int64(len(g.Data)), u + ": its header goes on beyond the bytes read"},
		{"a checkpoint", read(t, "stories260K.bin").Data[:64], 1056540, "is not a GGUF file"},
		{"html", []byte("<!doctype html>"), 15, `is not a GGUF file (it starts with "<!do")`},
		{"empty", nil, 0, "is not a GGUF file"},
		{"a lying size", g.Data[:1000], 500, u + ": gguf: "},
		// A sparse file's header claims the most keys 1 GiB allows.
		{"a count", binary.LittleEndian.AppendUint64([]byte("GGUF\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), (1<<30-24)/13), 1 << 30,
			u + ": gguf: the metadata count is 82595523, more than the 65536 keys a file may have"},
		{"too large to read", g.Data, modelfile.MaxFile + 1<<20, u + ": the file has 1025.0 MiB, more than the 1024.0 MiB a page reads"},
	} {
		_, err := modelfile.CheckHead(u, tc.head, tc.size)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: CheckHead = %v, want %q", tc.name, err, tc.err)
		}
	}
	for _, bad := range []string{"ftp://x/y.gguf", "/models/y.gguf", "https://", "https://x/a b", "https://x/" + strings.Repeat("a", 2000)} {
		if err := modelfile.CheckURL(bad); err == nil {
			t.Errorf("CheckURL(%q) accepted it", bad)
		}
		if _, err := modelfile.ParseRef("url:0123456789abcdef:5:" + bad); err == nil {
			t.Errorf("ParseRef accepted the URL %q", bad)
		}
	}
}

// TestHashed names files with a Hash standing in for the browser's
// digest: the Ref is Open's, from Go's SHA-256, whichever order the files
// come in (the Hash is asked for the model's file first) and whether the
// Hash gives the sum, fails or gives a sum of the wrong length (then Go's
// is used); and OpenURLHashed's is OpenURL's.
func TestHashed(t *testing.T) {
	ckpt, tok := read(t, "stories260K.bin"), read(t, "tok512.bin")
	g := stories260KGGUF(t)
	digest := func(files []modelfile.File, asked *[]int) modelfile.Hash {
		return func(order []int) ([]byte, error) {
			*asked = order
			h := sha256.New()
			for _, i := range order {
				h.Write(files[i].Data)
			}
			return h.Sum(nil), nil
		}
	}
	failing := func([]int) ([]byte, error) { return nil, errors.New("no digest here") }
	short := func([]int) ([]byte, error) { return make([]byte, 16), nil }
	for _, tc := range []struct {
		name  string
		files []modelfile.File
		order []int // the order the Hash is asked for
	}{
		{"gguf", []modelfile.File{g}, []int{0}},
		{"checkpoint and tokenizer", []modelfile.File{ckpt, tok}, []int{0, 1}},
		{"tokenizer first", []modelfile.File{tok, ckpt}, []int{1, 0}},
		{"gguf and a tokenizer", []modelfile.File{g, tok}, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, want, err := modelfile.Open(tc.files...)
			if err != nil {
				t.Fatal(err)
			}
			var asked []int
			for _, h := range []struct {
				name string
				hash modelfile.Hash
			}{{"digest", digest(tc.files, &asked)}, {"failing", failing}, {"short", short}, {"none", nil}} {
				if got, err := modelfile.Hashed(h.hash, tc.files...); err != nil || got != want {
					t.Errorf("%s: the Ref is %v (%v), want %v", h.name, got, err, want)
				}
			}
			if !slices.Equal(asked, tc.order) {
				t.Errorf("the Hash was asked for %v, want %v", asked, tc.order)
			}
		})
	}
	const u = "https://example.com/m.gguf"
	_, want, err := modelfile.OpenURL(u, g.Data)
	if err != nil {
		t.Fatal(err)
	}
	var asked []int
	for _, hash := range []modelfile.Hash{digest([]modelfile.File{g}, &asked), failing, nil} {
		if _, got, err := modelfile.OpenURLHashed(u, g.Data, hash); err != nil || got != want {
			t.Errorf("OpenURLHashed: %v, %v; want %v", got, err, want)
		}
	}
	if !slices.Equal(asked, []int{0}) {
		t.Errorf("OpenURLHashed asked the Hash for %v, want [0]", asked)
	}
}

// TestOpenPending opens files before their hash is known: a working
// model named by a pending Ref, which no link may carry (ParseRef refuses
// it) and ParseName reads back, with the size and names Open's Ref has;
// Hashed then gives Open's Ref; and a URL's file (OpenURLPending,
// HashedURL).
func TestOpenPending(t *testing.T) {
	ckpt, tok := read(t, "stories260K.bin"), read(t, "tok512.bin")
	g := stories260KGGUF(t)
	for _, files := range [][]modelfile.File{{g}, {tok, ckpt}} {
		_, want, err := modelfile.Open(files...)
		if err != nil {
			t.Fatal(err)
		}
		m, pending, err := modelfile.OpenPending(files...)
		if err != nil {
			t.Fatal(err)
		}
		if !pending.Pending() || pending.Size != want.Size || pending.Name != want.Name || m.Name != pending.String() {
			t.Errorf("OpenPending: the Ref %+v and the model %q, want a pending %+v", pending, m.Name, want)
		}
		if ids, err := m.Tokenizer.Encode("Once upon a time"); err != nil || len(ids) == 0 {
			t.Errorf("the pending model's tokenizer: %v, %v", ids, err)
		}
		if _, err := modelfile.ParseRef(pending.String()); err == nil {
			t.Errorf("ParseRef(%q) took a pending Ref", pending)
		}
		if got, err := modelfile.ParseName(pending.String()); err != nil || got != pending {
			t.Errorf("ParseName(%q) = %+v, %v", pending, got, err)
		}
		if got, err := modelfile.ParseName(want.String()); err != nil || got != want {
			t.Errorf("ParseName(%q) = %+v, %v", want, got, err)
		}
		if !modelfile.IsPending(pending.String()) || modelfile.IsPending(want.String()) {
			t.Errorf("IsPending: %v for %q, %v for %q", modelfile.IsPending(pending.String()), pending, modelfile.IsPending(want.String()), want)
		}
		if got, err := modelfile.Hashed(nil, files...); err != nil || got != want {
			t.Errorf("Hashed: %v, %v; want %v", got, err, want)
		}
	}
	// A URL's file the same way.
	const u = "https://example.com/m.gguf"
	_, want, err := modelfile.OpenURL(u, g.Data)
	if err != nil {
		t.Fatal(err)
	}
	m, pending, err := modelfile.OpenURLPending(u, g.Data)
	if err != nil || !pending.Pending() || !pending.URL || pending.Name != u || pending.Size != want.Size || m.Name != pending.String() || !modelfile.IsPending(m.Name) {
		t.Errorf("OpenURLPending: %+v (%v), the model %q; want a pending %+v", pending, err, m.Name, want)
	}
	if got, err := modelfile.ParseName(pending.String()); err != nil || got != pending {
		t.Errorf("ParseName(%q) = %+v, %v", pending, got, err)
	}
	if got := modelfile.HashedURL(u, g.Data, nil); got != want {
		t.Errorf("HashedURL: %v, want %v", got, want)
	}
	for _, s := range []string{"file::0:m.gguf", "file::12:", "file::x:m.gguf", "file:::m", "toy", "url::12:m.gguf", "url::12:"} {
		if r, err := modelfile.ParseName(s); err == nil {
			t.Errorf("ParseName(%q) = %+v", s, r)
		}
		if modelfile.IsPending(s) {
			t.Errorf("IsPending(%q)", s)
		}
	}
}

// TestOrder checks the order Order gives files in, the model's first, and
// that it refuses what Open refuses for the files' kinds, with Open's
// error.
func TestOrder(t *testing.T) {
	ckpt, tok, toyTok := read(t, "stories260K.bin"), read(t, "tok512.bin"), read(t, "toy-tokenizer.bin")
	g := stories260KGGUF(t)
	for _, tc := range []struct {
		name  string
		files []modelfile.File
		order []int
		err   string
	}{
		{"gguf", []modelfile.File{g}, []int{0}, ""},
		{"checkpoint and tokenizer", []modelfile.File{ckpt, tok}, []int{0, 1}, ""},
		{"tokenizer first", []modelfile.File{tok, ckpt}, []int{1, 0}, ""},
		{"gguf and a tokenizer", []modelfile.File{tok, g}, []int{1, 0}, ""},
		{"a tokenizer alone", []modelfile.File{tok}, nil, "tok512.bin is a tokenizer: choose its checkpoint with it"},
		{"two tokenizers", []modelfile.File{tok, toyTok}, nil, "tok512.bin and toy-tokenizer.bin are both tokenizers"},
		{"two models", []modelfile.File{ckpt, g}, nil, "stories260K.bin and stories260K.gguf are both models"},
		{"nothing", nil, nil, "0 files"},
	} {
		order, err := modelfile.Order(tc.files...)
		_, _, openErr := modelfile.Open(tc.files...)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || openErr == nil || openErr.Error() != err.Error() {
				t.Errorf("%s: error %v, want one saying %q, as Open's %v", tc.name, err, tc.err, openErr)
			}
			continue
		}
		if err != nil || !slices.Equal(order, tc.order) {
			t.Errorf("%s: order %v, %v; want %v", tc.name, order, err, tc.order)
		}
	}
}
