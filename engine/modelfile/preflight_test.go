package modelfile_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/randmodel"
)

// smallShape is a model whose rows are whole blocks of every format (256
// weights), with grouped-query attention and a vocabulary of 400 tokens.
var smallShape = checkpoint.Config{Dim: 256, HiddenDim: 512, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 64, SharedHead: true}

// randomGGUF writes a random model of architecture arch (as
// randmodel.Extend names them, or "llama") with its matrices in format (as
// randmodel.BuildNamed names them; "F16" and "BF16" are F32 matrices
// written so).
func randomGGUF(t testing.TB, c checkpoint.Config, arch, format string) []byte {
	t.Helper()
	build, as := format, gguf.F32
	switch format {
	case "F16":
		build, as = "F32", gguf.F16
	case "BF16":
		build, as = "F32", gguf.BF16
	}
	m, v, err := randmodel.BuildNamed(c, 1, build)
	if err != nil {
		t.Fatal(err)
	}
	if arch != "llama" {
		if err := randmodel.Extend(m, arch, 1); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := gguf.WriteLlama2c(&buf, m, v, gguf.Llama2cOptions{Type: as, TiedOutput: true}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// edited reads the GGUF file data, lets edit change its metadata and its
// tensors' types (a tensor given a new type is zeros) and writes it again.
func edited(t testing.TB, data []byte, edit func(md *gguf.Metadata, ts []gguf.TensorInfo)) []byte {
	t.Helper()
	f, err := gguf.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	ts := make([]gguf.NewTensor, len(f.Tensors))
	for i := range f.Tensors {
		ti := &f.Tensors[i]
		ts[i] = gguf.NewTensor{Name: ti.Name, Dims: ti.Dims, Type: ti.Type}
		if ts[i].Data, err = f.TensorData(ti); err != nil {
			t.Fatal(err)
		}
	}
	edit(&f.Metadata, f.Tensors)
	for i, ti := range f.Tensors {
		if ti.Type != ts[i].Type {
			ts[i].Type, ts[i].Data = ti.Type, make([]byte, ti.Elements/int64(ti.Type.BlockSize())*int64(ti.Type.BlockBytes()))
		}
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, f.Metadata, ts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// setText sets (or adds) the string value of key.
func setText(key, value string) func(*gguf.Metadata, []gguf.TensorInfo) {
	return func(md *gguf.Metadata, _ []gguf.TensorInfo) {
		v, _ := gguf.NewValue(value)
		for i := range *md {
			if (*md)[i].Key == key {
				(*md)[i].Value = v
				return
			}
		}
		*md = append(*md, gguf.KV{Key: key, Value: v})
	}
}

// TestPreflightOpens checks the report of a random model of every
// architecture, and of the llama architecture in every format, against
// the model the whole file opens as: the preflight says it will open, and
// it does.
func TestPreflightOpens(t *testing.T) {
	type model struct{ arch, format string }
	var cases []model
	for _, arch := range append([]string{"llama"}, randmodel.Extensions...) {
		for _, format := range []string{"F32", "F16", "Q8_0", "Q4_K_M"} {
			if (arch == "gpt2" || arch == "phi3") && format == "Q4_K_M" {
				continue // their fused attn_qkv has one type, not the mixture's two
			}
			cases = append(cases, model{arch, format})
		}
	}
	for _, format := range []string{"BF16", "Q4_0", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "IQ4_NL", "IQ4_XS"} {
		cases = append(cases, model{"llama", format})
	}
	for _, tc := range cases {
		data := randomGGUF(t, smallShape, tc.arch, tc.format)
		r, err := modelfile.Preflight("m.gguf", data[:min(len(data), 4<<20)], int64(len(data)))
		if err != nil {
			t.Errorf("%s %s: %v", tc.arch, tc.format, err)
			continue
		}
		if err := r.Err(); err != nil || !strings.HasSuffix(r.String(), "\nwill open in a page") {
			t.Errorf("%s %s: %v\n%s", tc.arch, tc.format, err, r)
		}
		f, err := gguf.Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var params int64
		for _, ti := range f.Tensors {
			params += ti.Elements
		}
		wantArch := tc.arch
		if wantArch == "llama3" {
			wantArch = "llama" // llama with rope_freqs
		}
		if r.Arch != wantArch || r.Params != params || r.Vocab != smallShape.VocabSize || r.Tokenizer != "llama" || r.ChatTemplate || r.Size != int64(len(data)) {
			t.Errorf("%s %s: report %+v, want architecture %s, %d parameters, 400 tokens, llama tokenizer", tc.arch, tc.format, r, wantArch, params)
		}
		named := strings.TrimSuffix(tc.format, "_M")
		if !slices.ContainsFunc(r.Types, func(c modelfile.TypeCount) bool { return c.Supported && strings.HasPrefix(c.Type.String(), named) }) {
			t.Errorf("%s %s: types %v", tc.arch, tc.format, r.Types)
		}
		m, _, err := modelfile.Open(modelfile.File{Name: "m.gguf", Data: data})
		if err != nil {
			t.Errorf("%s %s: the preflight says it opens, but: %v", tc.arch, tc.format, err)
		} else if held := m.Checkpoint.Config.VocabSize; held != r.Vocab {
			t.Errorf("%s %s: opened with %d tokens, the report says %d", tc.arch, tc.format, held, r.Vocab)
		}
	}
}

// TestPreflightRefuses checks the reasons a file will not open, found in
// its header.
func TestPreflightRefuses(t *testing.T) {
	good := randomGGUF(t, smallShape, "llama", "Q8_0")
	template := setText("tokenizer.chat_template", "{% for m in messages %}{{ m.content }}{% endfor %}")
	for _, tc := range []struct {
		name    string
		data    []byte
		size    int64    // 0: the data's
		reasons []string // in order; none: it opens
		types   string   // the report's tensor types line, when given
	}{
		{"opens, with a chat template", edited(t, good, template), 0, nil, ""},
		{"unknown architecture", edited(t, good, setText("general.architecture", "t5")), 0,
			[]string{`architecture "t5" is not supported; `}, ""},
		{"unsupported type", edited(t, good, func(_ *gguf.Metadata, ts []gguf.TensorInfo) { ts[1].Type, ts[2].Type = gguf.Q4_1, gguf.Q4_1 }), 0,
			[]string{" is Q4_1, which is not supported for weights (F32, F16, BF16, Q8_0"}, "Q4_1 ×2 (not supported)"},
		{"unknown architecture and an unsupported type",
			edited(t, good, func(md *gguf.Metadata, ts []gguf.TensorInfo) {
				setText("general.architecture", "t5")(md, ts)
				ts[3].Type = gguf.IQ2_XS
			}), 0,
			[]string{`architecture "t5" is not supported`, "is IQ2_XS, which is not supported"}, ""},
		{"unsupported tokenizer", edited(t, good, setText("tokenizer.ggml.model", "bert")), 0,
			[]string{`tokenizer.ggml.model "bert" (WordPiece) is not supported yet`}, ""},
		{"RoPE scaling", edited(t, good, setText("llama.rope.scaling.type", "yarn")), 0,
			[]string{`llama.rope.scaling.type is "yarn": RoPE scaling is not supported`}, ""},
		{"too large to read", good, modelfile.MaxFile + 5<<20, []string{"the file has 1029.0 MiB, more than the 1024.0 MiB a page reads"}, ""},
	} {
		size := tc.size
		if size == 0 {
			size = int64(len(tc.data))
		}
		head := tc.data[:min(len(tc.data), 4<<20)]
		r, err := modelfile.Preflight("m.gguf", head, size)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		err = r.Err()
		var refused *modelfile.RefusedError
		if len(tc.reasons) == 0 {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		} else if !errors.As(err, &refused) || len(refused.Reasons) != len(tc.reasons) {
			t.Errorf("%s: %v, want %d reasons", tc.name, err, len(tc.reasons))
		} else {
			for i, want := range tc.reasons {
				if !strings.Contains(refused.Reasons[i].Error(), want) {
					t.Errorf("%s: reason %d is %q, want %q", tc.name, i, refused.Reasons[i], want)
				}
				if !strings.Contains(r.String(), want) {
					t.Errorf("%s: the report does not say %q:\n%s", tc.name, want, r)
				}
			}
			if _, check := modelfile.CheckHead("m.gguf", head, size); check == nil || check.Error() != err.Error() {
				t.Errorf("%s: CheckHead = %v, the report's verdict %v", tc.name, check, err)
			}
		}
		if tc.types != "" && !strings.Contains(r.String(), tc.types) {
			t.Errorf("%s: the report lacks %q:\n%s", tc.name, tc.types, r)
		}
	}
	// A header whose tensors take more than a page reads.
	head, size := hugeHead(t)
	r, err := modelfile.Preflight("m.gguf", head, size)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"memory: 2307.3 MiB of weights once open, with the file's 1153.7 MiB: 3460.9 MiB of the 3072.0 MiB a page can hold",
		"will not open in a page: the file has 1153.7 MiB, more than the 1024.0 MiB a page reads"} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("huge tensors: the report lacks %q:\n%s", want, r)
		}
	}
}

// TestPreflightHeld checks the memory a file's weights take once open
// beside the file: a quantized GPT-2 position embedding is kept as float32
// (it is looked up, not multiplied), so a file of 0.4 GiB can need more
// than a page holds.
func TestPreflightHeld(t *testing.T) {
	const rows, cols = 732_422, 1024 // 750 million weights
	arch, _ := gguf.NewValue("gpt2")
	embd := make([]byte, rows*cols/32*18) // untouched: the zero pages cost no memory
	w := &headWriter{keep: 4 << 20}
	if err := gguf.Write(w, gguf.Metadata{{Key: "general.architecture", Value: arch}}, []gguf.NewTensor{
		{Name: "position_embd.weight", Dims: []int64{cols, rows}, Type: gguf.Q4_0, Data: embd},
		{Name: "token_embd.weight", Dims: []int64{32}, Type: gguf.Q8_0, Data: make([]byte, 34)},
	}); err != nil {
		t.Fatal(err)
	}
	r, err := modelfile.Preflight("m.gguf", w.head, w.n)
	if err != nil {
		t.Fatal(err)
	}
	var refused *modelfile.RefusedError
	if !errors.As(r.Err(), &refused) || !strings.Contains(refused.Reasons[len(refused.Reasons)-1].Error(),
		"its weights take 2861.0 MiB in this engine, which with the file's own 402.3 MiB is more than the 3072.0 MiB a page can hold while it opens a model") {
		t.Errorf("%v\n%s", r.Err(), r)
	}
}

// hugeHead is the first 4 MiB of a llama file of 9 layers 2048 wide, in
// F16, and its size: 1.1 GiB. Its tensors share one buffer, so that writing
// it takes no more memory than its largest tensor.
func hugeHead(t *testing.T) ([]byte, int64) {
	t.Helper()
	c := checkpoint.Config{Dim: 2048, HiddenDim: 8192, Layers: 9, Heads: 32, KVHeads: 32, VocabSize: 400, SeqLen: 64, SharedHead: true}
	small := randomGGUF(t, smallShape, "llama", "F32")
	f, err := gguf.Read(bytes.NewReader(small), int64(len(small)))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range []struct {
		key string
		n   int
	}{{"llama.embedding_length", c.Dim}, {"llama.feed_forward_length", c.HiddenDim}, {"llama.block_count", c.Layers},
		{"llama.attention.head_count", c.Heads}, {"llama.attention.head_count_kv", c.KVHeads}} {
		v, _ := gguf.NewValue(uint32(kv.n))
		i := slices.IndexFunc(f.Metadata, func(m gguf.KV) bool { return m.Key == kv.key })
		if i < 0 {
			t.Fatalf("no %s", kv.key)
		}
		f.Metadata[i].Value = v
	}
	buf := make([]byte, 2*c.Dim*c.HiddenDim)
	d, h := int64(c.Dim), int64(c.HiddenDim)
	tensor := func(name string, dims ...int64) gguf.NewTensor {
		n := int64(2)
		for _, x := range dims {
			n *= x
		}
		return gguf.NewTensor{Name: name, Dims: dims, Type: gguf.F16, Data: buf[:n]}
	}
	ts := []gguf.NewTensor{tensor("token_embd.weight", d, int64(c.VocabSize)), tensor("output_norm.weight", d)}
	for l := range c.Layers {
		for _, x := range []gguf.NewTensor{
			tensor("attn_norm", d), tensor("ffn_norm", d),
			tensor("attn_q", d, d), tensor("attn_k", d, d), tensor("attn_v", d, d), tensor("attn_output", d, d),
			tensor("ffn_gate", d, h), tensor("ffn_down", h, d), tensor("ffn_up", d, h),
		} {
			x.Name = "blk." + strconv.Itoa(l) + "." + x.Name + ".weight"
			ts = append(ts, x)
		}
	}
	w := &headWriter{keep: 4 << 20}
	if err := gguf.Write(w, f.Metadata, ts); err != nil {
		t.Fatal(err)
	}
	return w.head, w.n
}

// headWriter keeps the first bytes written to it and counts the rest.
type headWriter struct {
	head []byte
	keep int
	n    int64
}

func (w *headWriter) Write(p []byte) (int, error) {
	if room := w.keep - len(w.head); room > 0 {
		w.head = append(w.head, p[:min(room, len(p))]...)
	}
	w.n += int64(len(p))
	return len(p), nil
}

// TestPreflightHeads checks heads that give no report: one that ends inside
// the header asks for more of it, and a malformed one says why.
func TestPreflightHeads(t *testing.T) {
	data := edited(t, randomGGUF(t, smallShape, "qwen2", "Q4_K_M"), setText("tokenizer.chat_template", strings.Repeat("x", 5000)))
	f, err := gguf.Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(data))
	for _, tc := range []struct {
		name string
		head []byte
		size int64
		want string // "" for ErrShortHead
	}{
		{"magic only", data[:4], size, ""},
		{"inside the metadata", data[:3000], size, ""},
		{"inside the tensor list", data[:f.DataOffset-100], size, ""},
		{"not GGUF", []byte("<!doctype html>"), 15, `not a GGUF file: it starts with "<!do"`},
		{"big-endian", []byte("GGUF\x00\x00\x00\x03"), size, "the file is big-endian"},
		{"a count beyond the file", binary.LittleEndian.AppendUint64([]byte("GGUF\x03\x00\x00\x00"), 1<<40), size, "the tensor count is 1099511627776"},
		{"a key longer than the file", append(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64([]byte("GGUF\x03\x00\x00\x00"), 0), 1), 0xff, 0xff, 0, 0, 0, 0, 0, 0), 1000, "metadata key 0 is 65535 bytes long, but only 968 bytes are left"},
		{"a size shorter than the header", data[:3000], 2000, "but the 1931 bytes left hold at most 241"},
	} {
		_, err := modelfile.Preflight("m.gguf", tc.head, tc.size)
		short := errors.Is(err, modelfile.ErrShortHead)
		if tc.want == "" && !short || tc.want != "" && (short || err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if r, err := modelfile.Preflight("m.gguf", data[:f.DataOffset], size); err != nil || !r.ChatTemplate || r.Arch != "qwen2" {
		t.Errorf("the header alone: %+v, %v", r, err)
	}
}

// FuzzPreflight reads any bytes as a GGUF file's head: no panic, a report
// or an error, and CheckHead's verdict the report's for a GGUF file; the same bytes cut
// short either give the same answer or ask for more.
func FuzzPreflight(f *testing.F) {
	f.Add(randomGGUF(f, smallShape, "llama", "Q8_0"))
	f.Add(edited(f, randomGGUF(f, smallShape, "gpt2", "F16"), setText("general.architecture", "t5")))
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		size := int64(len(data))
		r, err := modelfile.Preflight("f", data, size)
		_, check := modelfile.CheckHead("f", data, size)
		switch {
		case err != nil:
			if check == nil || bytes.HasPrefix(data, []byte(gguf.Magic)) && check.Error() != err.Error() {
				t.Fatalf("Preflight: %v; CheckHead: %v", err, check)
			}
			return
		case r.Err() == nil && check != nil, r.Err() != nil && (check == nil || check.Error() != r.Err().Error()):
			t.Fatalf("the report's verdict %v, CheckHead's %v", r.Err(), check)
		case r.String() == "" || r.Size != size:
			t.Fatalf("report %+v", r)
		}
		half, err := modelfile.Preflight("f", data[:len(data)/2], size)
		if err != nil && !errors.Is(err, modelfile.ErrShortHead) || err == nil && half.String() != r.String() {
			t.Fatalf("half the bytes: %v, %v; all of them: %v", half, err, r)
		}
	})
}
