package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/quant"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var files = []string{"../../web/models/stories260K.bin", "../../web/models/toy.bin"}

func TestReadStories260K(t *testing.T) {
	m, err := Read(readFile(t, files[0]))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Dim: 64, HiddenDim: 172, Layers: 5, Heads: 8, KVHeads: 4, VocabSize: 512, SeqLen: 512, SharedHead: true}
	if m.Config != want {
		t.Errorf("config %v, want %v", m.Config, want)
	}
	if m.Config.KVDim() != 32 || m.Config.HeadSize() != 8 {
		t.Errorf("kv_dim %d head_size %d, want 32 and 8", m.Config.KVDim(), m.Config.HeadSize())
	}
	if &m.Weights.Classifier[0] != &m.Weights.TokenEmbedding[0] {
		t.Errorf("a positive vocab_size should share the classifier with the embedding")
	}
}

// TestWriteRoundTrip writes every committed checkpoint back and expects the
// same bytes: nothing is lost, including the unused RoPE table and an
// unshared classifier (toy.bin has one).
func TestWriteRoundTrip(t *testing.T) {
	for _, path := range files {
		data := readFile(t, path)
		m, err := Read(data)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Errorf("%s: written checkpoint differs from the file", path)
		}
	}
}

// header builds a checkpoint header followed by n zero bytes of weights.
func header(fields [7]int32, n int) []byte {
	b := make([]byte, 28+n)
	for i, f := range fields {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(f))
	}
	return b
}

func TestReadErrors(t *testing.T) {
	ok := [7]int32{4, 8, 2, 2, 2, 6, 16}
	okSize := Config{Dim: 4, HiddenDim: 8, Layers: 2, Heads: 2, KVHeads: 2, VocabSize: 6, SeqLen: 16, SharedHead: true}.weightFloats() * 4
	with := func(i int, v int32) [7]int32 {
		h := ok
		h[i] = v
		return h
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "shorter than the 28-byte header"},
		{"short header", make([]byte, 27), "shorter than the 28-byte header"},
		{"zero dim", header(with(0, 0), okSize), "dim = 0"},
		{"negative dim", header(with(0, -4), okSize), "dim = -4"},
		{"huge dim", header(with(0, math.MaxInt32), okSize), "dim = 2147483647"},
		{"huge hidden", header(with(1, math.MaxInt32), okSize), "hidden_dim"},
		{"zero layers", header(with(2, 0), okSize), "n_layers = 0"},
		{"heads do not divide dim", header(with(3, 3), okSize), "n_heads = 3 does not divide dim = 4"},
		{"kv heads do not divide heads", header(with(4, 3), okSize), "n_kv_heads = 3 does not divide n_heads = 2"},
		{"kv heads zero", header(with(4, 0), okSize), "n_kv_heads = 0"},
		{"odd head size", header([7]int32{6, 8, 1, 2, 1, 6, 16}, 0), "odd"},
		{"vocab zero", header(with(5, 0), okSize), "vocab_size = 0"},
		{"vocab most negative", header(with(5, math.MinInt32), okSize), "vocab_size = 2147483648"},
		{"seq_len huge", header(with(6, math.MaxInt32), okSize), "seq_len"},
		{"one byte short", header(ok, okSize-1), "the file has"},
		{"one byte long", header(ok, okSize+1), "the file has"},
		{"unshared classifier missing", header(with(5, -6), okSize), "the file has"},
		{"absurd but valid sizes", header([7]int32{1 << 16, 1 << 18, 1 << 10, 1, 1, 1 << 20, 1 << 20}, 0), "weights"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestTruncated cuts the toy checkpoint at every length: each must fail.
func TestTruncated(t *testing.T) {
	data := readFile(t, files[1])
	for n := range len(data) {
		if _, err := Read(data[:n]); err == nil {
			t.Fatalf("Read of the first %d of %d bytes succeeded", n, len(data))
		}
	}
}

func FuzzRead(f *testing.F) {
	toy := readFile(f, files[1])
	f.Add(toy)
	f.Add(toy[:100])
	tiny, err := New(Config{Dim: 2, HiddenDim: 2, Layers: 1, Heads: 1, KVHeads: 1, VocabSize: 1, SeqLen: 2})
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tiny); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Errorf("Write(Read(data)) differs from data")
		}
	})
}

// TestReadFile reads every committed checkpoint from its file, and from a
// reader, and expects what Read gives for the file's bytes.
func TestReadFile(t *testing.T) {
	for _, path := range files {
		want, err := Read(readFile(t, path))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ReadFile differs from Read", path)
		}
		if got.Config.SharedHead && &got.Weights.Classifier[0] != &got.Weights.TokenEmbedding[0] {
			t.Errorf("%s: the shared classifier is a copy", path)
		}
	}
	if _, err := ReadFile(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadFile of a folder: err = %v", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.bin")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: err = %v", err)
	}
}

// TestReadFromSizeMismatch gives ReadFrom a reader that holds fewer or
// more bytes than the size it is told: both fail.
func TestReadFromSizeMismatch(t *testing.T) {
	data := readFile(t, files[1])
	size := int64(len(data))
	if _, err := ReadFrom(bytes.NewReader(data[:len(data)-1]), size); err == nil || !strings.Contains(err.Error(), "tensor classifier") {
		t.Errorf("a reader one byte short: err = %v", err)
	}
	if _, err := ReadFrom(bytes.NewReader(data[:20]), size); err == nil || !strings.Contains(err.Error(), "header") {
		t.Errorf("a reader inside the header: err = %v", err)
	}
	long := append(slices.Clone(data), 0)
	if _, err := ReadFrom(bytes.NewReader(long), size); err == nil || !strings.Contains(err.Error(), "longer") {
		t.Errorf("a reader one byte long: err = %v", err)
	}
}

// TestReadFileMemory checks that reading a file allocates the weights and
// a small buffer, not the file's bytes too, and that a file whose header
// promises more weights than it holds costs next to nothing.
func TestReadFileMemory(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("under js, node's file system (through syscall/js) allocates for every read; the native test measures the reader")
	}
	path := files[0]
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	allocated := func(f func()) int64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return int64(after.TotalAlloc - before.TotalAlloc)
	}
	if n := allocated(func() {
		if _, err := ReadFile(path); err != nil {
			t.Error(err)
		}
	}); n > info.Size()+chunkBytes+16<<10 {
		t.Errorf("ReadFile of a %d-byte checkpoint allocated %d bytes", info.Size(), n)
	}

	hostile := filepath.Join(t.TempDir(), "hostile.bin")
	if err := os.WriteFile(hostile, header([7]int32{2048, 5632, 22, 32, 4, 32000, 2048}, 1<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := allocated(func() {
		if _, err := ReadFile(hostile); err == nil || !strings.Contains(err.Error(), "the file has 1024") {
			t.Errorf("ReadFile of a truncated file: err = %v", err)
		}
	}); n > 16<<10 {
		t.Errorf("rejecting a truncated file allocated %d bytes", n)
	}
}

// TestRoPEBaseAndEps checks the fields llama2.c's format lacks: zero means
// run.c's values, explicit run.c values write as before, others are
// validated and cannot be written.
func TestRoPEBaseAndEps(t *testing.T) {
	m, err := Read(readFile(t, files[1]))
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.Base() != 10000 || m.Config.Eps() != float32(1e-5) {
		t.Errorf("Base %v, Eps %v; want run.c's 10000 and 1e-5", m.Config.Base(), m.Config.Eps())
	}
	for _, tc := range []struct {
		base, eps float32
		want      string // Validate's error, or Write's
	}{
		{10000, 1e-5, ""},
		{500000, 1e-5, "cannot store RoPE base 500000 and RMSNorm epsilon 1e-05"},
		{10000, 1e-6, "cannot store RoPE base 10000 and RMSNorm epsilon 1e-06"},
		{1, 0, "RoPE base 1, want a finite number above 1"},
		{float32(math.NaN()), 0, "RoPE base NaN"},
		{0, -1, "RMSNorm epsilon -1, want 0 to 1"},
	} {
		c := m.Config
		c.RoPEBase, c.NormEps = tc.base, tc.eps
		err := c.Validate()
		if err == nil {
			err = Write(&bytes.Buffer{}, &Model{Config: c, Weights: m.Weights})
		}
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("base %v, eps %v: error %v, want %q", tc.base, tc.eps, err, tc.want)
		}
	}
	c := m.Config
	c.RoPEBase, c.NormEps = 500000, 1e-6
	if s := c.String(); !strings.HasSuffix(s, ", RoPE base 500000, RMSNorm eps 1e-06)") {
		t.Errorf("String() = %s", s)
	}
}

// TestMatrices checks the float32 views: each layer's matrices are the
// slices of the flat tensors a layer at a time, sharing their memory, with
// the shapes the transformer multiplies; a quantized model's are its own;
// and Write refuses a quantized model.
func TestMatrices(t *testing.T) {
	m, err := ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	c, w := m.Config, &m.Weights
	ms := m.Matrices()
	d, kv, h := c.Dim, c.KVDim(), c.HiddenDim
	for l, lm := range ms.Layers {
		for _, tc := range []struct {
			name       string
			m          quant.Matrix
			flat       []float32
			rows, cols int
		}{
			{"wq", lm.WQ, w.WQ, d, d}, {"wk", lm.WK, w.WK, kv, d}, {"wv", lm.WV, w.WV, kv, d}, {"wo", lm.WO, w.WO, d, d},
			{"w1", lm.W1, w.W1, h, d}, {"w2", lm.W2, w.W2, d, h}, {"w3", lm.W3, w.W3, h, d},
		} {
			n := tc.rows * tc.cols
			if tc.m.Rows != tc.rows || tc.m.Cols != tc.cols || tc.m.Check() != nil || &tc.m.F32[0] != &tc.flat[l*n] {
				t.Errorf("layer %d %s: %d × %d at %p, want %d × %d at %p", l, tc.name, tc.m.Rows, tc.m.Cols, &tc.m.F32[0], tc.rows, tc.cols, &tc.flat[l*n])
			}
		}
	}
	if &ms.Classifier.F32[0] != &w.TokenEmbedding[0] || ms.TokenEmbedding.Rows != c.VocabSize {
		t.Error("the shared classifier is not the token embedding")
	}
	q := &Model{Config: c, Weights: Weights{RMSAtt: w.RMSAtt, RMSFFN: w.RMSFFN, RMSFinal: w.RMSFinal, Quantized: ms}}
	if q.Matrices() != ms {
		t.Error("Matrices of a quantized model is not Weights.Quantized")
	}
	if err := Write(&bytes.Buffer{}, q); err == nil || !strings.Contains(err.Error(), "not quantized ones") {
		t.Errorf("Write of a quantized model: %v", err)
	}
}

// TestHeadDim checks heads of another width than dim/heads (Gemma's,
// Qwen3's): the query and output matrices are q_dim = heads × head_size
// wide where the others keep dim, dim need not be a multiple of the
// heads, a bad width is refused, and llama2.c's format cannot hold it.
func TestHeadDim(t *testing.T) {
	c := Config{Dim: 6, HiddenDim: 8, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 4, VocabSize: 5, SeqLen: 3, SharedHead: true}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if c.HeadSize() != 4 || c.QDim() != 16 || c.KVDim() != 8 {
		t.Errorf("head size %d, q_dim %d, kv_dim %d; want 4, 16, 8", c.HeadSize(), c.QDim(), c.KVDim())
	}
	for _, tc := range []struct {
		name       string
		m          quant.Matrix
		rows, cols int
	}{
		{"wq", m.Matrices().Layers[1].WQ, 16, 6}, {"wk", m.Matrices().Layers[1].WK, 8, 6}, {"wo", m.Matrices().Layers[1].WO, 6, 16},
	} {
		if tc.m.Rows != tc.rows || tc.m.Cols != tc.cols || len(tc.m.F32) != tc.rows*tc.cols {
			t.Errorf("%s is %d × %d (%d values), want %d × %d", tc.name, tc.m.Rows, tc.m.Cols, len(tc.m.F32), tc.rows, tc.cols)
		}
	}
	if err := Write(&bytes.Buffer{}, m); err == nil || !strings.Contains(err.Error(), "a head size other than dim/n_heads") {
		t.Errorf("Write: %v", err)
	}
	for _, tc := range []struct {
		headDim int
		want    string
	}{
		{3, "head size 3 is odd"},
		{-2, "head size -2 × 4 heads"},
		{1 << 17, "want at most 262144 in all"},
	} {
		bad := c
		bad.HeadDim = tc.headDim
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("head size %d: %v, want %q", tc.headDim, err, tc.want)
		}
	}
}
