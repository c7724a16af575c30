package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/tokenizer"
)

// mustValue is NewValue for values the test knows have a type.
func mustValue(t testing.TB, x any) Value {
	t.Helper()
	v, err := NewValue(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sample is a small file with a value of every type and three tensors.
func sample(t testing.TB) []byte {
	t.Helper()
	inner1, _ := mustValue(t, []uint8{1, 2}).Array()
	inner2, _ := mustValue(t, []string{"a"}).Array()
	md := Metadata{}
	for _, kv := range []struct {
		key string
		x   any
	}{
		{"general.architecture", "test"},
		{"general.alignment", uint32(64)},
		{"t.u8", uint8(200)}, {"t.i8", int8(-100)}, {"t.u16", uint16(60000)}, {"t.i16", int16(-30000)},
		{"t.u32", uint32(4e9)}, {"t.i32", int32(-2e9)}, {"t.f32", float32(0.5)}, {"t.bool", true},
		{"t.string", "héllo"}, {"t.u64", uint64(math.MaxUint64)}, {"t.i64", int64(math.MinInt64)}, {"t.f64", 1e300},
		{"t.floats", []float32{1, 2, 3}}, {"t.strings", []string{"x", "", "z"}}, {"t.bools", []bool{true, false}},
		{"t.nested", []Array{inner1, inner2}}, {"t.long", make([]int32, 100)},
	} {
		md = append(md, KV{kv.key, mustValue(t, kv.x)})
	}
	var buf bytes.Buffer
	err := Write(&buf, md, []NewTensor{
		{"a", []int64{3}, F32, make([]byte, 12)},
		{"b", []int64{32, 2}, Q8_0, make([]byte, 2*34)},
		{"c", []int64{2, 2}, F16, []byte{1, 2, 3, 4, 5, 6, 7, 8}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadSample(t *testing.T) {
	data := sample(t)
	f, err := Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || f.Alignment != 64 || f.DataOffset%64 != 0 || len(f.Metadata) != 19 || len(f.Tensors) != 3 {
		t.Fatalf("version %d, alignment %d, data at %d, %d keys, %d tensors", f.Version, f.Alignment, f.DataOffset, len(f.Metadata), len(f.Tensors))
	}
	for _, tc := range []struct {
		key, want string
	}{
		{"t.u8", "200"}, {"t.i8", "-100"}, {"t.u16", "60000"}, {"t.i16", "-30000"}, {"t.u32", "4000000000"},
		{"t.i32", "-2000000000"}, {"t.f32", "0.5"}, {"t.bool", "true"}, {"t.string", `"héllo"`},
		{"t.u64", "18446744073709551615"}, {"t.i64", "-9223372036854775808"}, {"t.f64", "1e+300"},
		{"t.floats", "[3 × float32: 1, 2, 3]"}, {"t.strings", `[3 × string: "x", "", "z"]`},
		{"t.bools", "[2 × bool: true, false]"}, {"t.nested", `[2 × array: [2 × uint8: 1, 2], [1 × string: "a"]]`},
		{"t.long", "[100 × int32: 0, 0, 0, 0, 0, 0, 0, 0, …]"},
	} {
		v, ok := f.Metadata.Lookup(tc.key)
		if !ok || v.String() != tc.want {
			t.Errorf("%s = %s, want %s", tc.key, v, tc.want)
		}
	}
	get := func(key string) Value { v, _ := f.Metadata.Lookup(key); return v }
	if n, ok := get("t.i16").Int(); !ok || n != -30000 {
		t.Errorf("Int of int16 = %d, %v", n, ok)
	}
	if _, ok := get("t.u64").Int(); ok {
		t.Error("Int of 2^64-1 fits")
	}
	if x, ok := get("t.f32").Float(); !ok || x != 0.5 {
		t.Errorf("Float = %v, %v", x, ok)
	}
	if _, ok := get("t.string").Float(); ok {
		t.Error("Float of a string")
	}
	if a, _ := get("t.long").Array(); a.Len() != 100 {
		t.Errorf("Len = %d", a.Len())
	} else if ints, ok := a.Ints(); !ok || len(ints) != 100 {
		t.Errorf("Ints = %v, %v", ints, ok)
	}
	b, _ := f.Tensor("b")
	if b.Type != Q8_0 || b.Elements != 64 || b.Bytes != 68 || b.Offset != 64 {
		t.Errorf("tensor b = %+v", *b)
	}
	c, _ := f.Tensor("c")
	if data, err := f.TensorData(c); err != nil || !bytes.Equal(data, []byte{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("TensorData(c) = %v, %v", data, err)
	}
	// Version 2 has the same little-endian layout.
	v2 := bytes.Clone(data)
	v2[4] = 2
	if f, err := Read(bytes.NewReader(v2), int64(len(v2))); err != nil || f.Version != 2 || len(f.Tensors) != 3 {
		t.Errorf("version 2: %v", err)
	}
}

func TestWriteRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		md   Metadata
		ts   []NewTensor
		want string
	}{
		{"no value", Metadata{{Key: "k"}}, nil, "metadata k has no value"},
		{"alignment", Metadata{{"general.alignment", mustValue(t, uint32(3))}}, nil, "general.alignment is 3, want a uint32 power of two"},
		{"size", nil, []NewTensor{{"t", []int64{2}, F32, make([]byte, 4)}}, "tensor t of F32 [2] takes 8 bytes, not the 4 given"},
		{"blocks", nil, []NewTensor{{"t", []int64{2}, Q4_0, nil}}, "tensor t of Q4_0 [2] is not a whole number of blocks of 32"},
	} {
		if err := Write(&bytes.Buffer{}, tc.md, tc.ts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := NewValue(struct{}{}); err == nil || !strings.Contains(err.Error(), "no metadata type for a Go struct {}") {
		t.Errorf("NewValue(struct{}{}): error %v", err)
	}
}

// le builds a file byte by byte.
type le []byte

func (b le) u32(x uint32) le { return binary.LittleEndian.AppendUint32(b, x) }
func (b le) u64(x uint64) le { return binary.LittleEndian.AppendUint64(b, x) }
func (b le) str(s string) le { return append(b.u64(uint64(len(s))), s...) }

// header starts a version-3 file with the counts given.
func header(tensors, kvs uint64) le { return le("GGUF").u32(3).u64(tensors).u64(kvs) }

// tensor appends a tensor info.
func (b le) tensor(name string, typ Type, offset uint64, dims ...uint64) le {
	b = b.str(name).u32(uint32(len(dims)))
	for _, d := range dims {
		b = b.u64(d)
	}
	return b.u32(uint32(typ)).u64(offset)
}

func (b le) pad(n int) le { return append(b, make([]byte, n)...) }

// TestReadRefuses feeds hostile and broken files, each checked to fail with
// an error that names the problem and to allocate little.
func TestReadRefuses(t *testing.T) {
	const huge = 1 << 62
	big := le("GGUF")
	big = append(big, 0, 0, 0, 3)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short for the magic"},
		{"magic", []byte("GGML\x03\x00\x00\x00"), `not a GGUF file: it starts with "GGML"`},
		{"version 1", le("GGUF").u32(1), "version 1 (32-bit counts) is not supported; versions 2 and 3 are"},
		{"version 4", le("GGUF").u32(4), "version 4 is not supported"},
		{"big-endian", big, "big-endian"},
		{"version 0", le("GGUF").u32(0), "version 0 is not supported; versions 2 and 3 are"},
		{"no counts", le("GGUF").u32(3), "inside the tensor count"},
		{"tensor count", header(huge, 0), "the tensor count is 4611686018427387904, but the 8 bytes left hold at most 0"},
		{"kv count", header(0, huge), "the metadata count is 4611686018427387904"},
		{"key length", header(0, 1).u64(huge).pad(16), "metadata key 0 is 4611686018427387904 bytes long, more than the 65535 allowed"},
		{"key past end", header(0, 1).u64(100).pad(8), "metadata key 0 is 100 bytes long, but only 8 bytes are left"},
		{"value type", header(0, 1).str("k").u32(13), "k: unknown value type 13"},
		{"string length", header(0, 1).str("k").u32(uint32(ValueString)).u64(huge), "the value of k is 4611686018427387904 bytes long"},
		{"array length", header(0, 1).str("k").u32(uint32(ValueArray)).u32(uint32(ValueUint32)).u64(huge), "the length of k is 4611686018427387904, but the 0 bytes left hold at most 0 (4 bytes each)"},
		{"array of strings", header(0, 1).str("k").u32(uint32(ValueArray)).u32(uint32(ValueString)).u64(1 << 40).pad(64), "(8 bytes each)"},
		{"array type", header(0, 1).str("k").u32(uint32(ValueArray)).u32(99).u64(1), "k: unknown array element type 99"},
		{"nested", nested(20), "k[0][0]: an array inside an array inside an array; arrays nest one level at most"},
		{"nested twice", nested(2), "k[0][0]: an array inside an array inside an array"},
		{"inner arrays", header(0, 1).str("k").u32(uint32(ValueArray)).u32(uint32(ValueArray)).u64(maxInnerArrays + 1).pad(12 * (maxInnerArrays + 1)),
			"the length of k is 65537, more than the 65536 arrays left of the 65536 that may lie inside arrays in all"},
		{"bool", header(0, 1).str("k").u32(uint32(ValueBool)).pad(0).u32(2), "k: bool byte is 2, want 0 or 1"},
		{"duplicate key", header(0, 2).str("k").u32(uint32(ValueUint8)).pad(1).str("k").u32(uint32(ValueUint8)).pad(1), `metadata key "k" appears twice`},
		{"alignment type", header(0, 1).str("general.alignment").u32(uint32(ValueUint64)).u64(32), "general.alignment is 32, want a uint32 power of two"},
		{"alignment", header(0, 1).str("general.alignment").u32(uint32(ValueUint32)).u32(48), "general.alignment is 48, want a uint32 power of two"},
		{"alignment zero", header(0, 1).str("general.alignment").u32(uint32(ValueUint32)).u32(0), "general.alignment is 0"},
		{"name length", header(1, 0).str(strings.Repeat("n", 65)), "the name of tensor 0 is 65 bytes long, more than the 64 allowed"},
		{"no dims", header(1, 0).tensor("t", F32, 0), "tensor t has 0 dimensions, want 1 to 4"},
		{"five dims", header(1, 0).tensor("t", F32, 0, 1, 1, 1, 1, 1), "tensor t has 5 dimensions, want 1 to 4"},
		{"zero dim", header(1, 0).tensor("t", F32, 0, 4, 0), "tensor t: dimension 1 is 0: the dimensions must be positive"},
		{"overflow", header(1, 0).tensor("t", F32, 0, 1<<32, 1<<32), "tensor t: dimension 1 is 4294967296: the dimensions must be positive and their product below 2^63"},
		{"byte overflow", header(1, 0).tensor("t", F64, 0, 1<<61), "tensor t: 2305843009213693952 elements of F64 overflow a 64-bit size"},
		{"type", header(1, 0).tensor("t", 4, 0, 4), "tensor t has unknown type 4"},
		{"blocks", header(1, 0).tensor("t", Q4_0, 0, 31), "tensor t is Q4_0, whose blocks hold 32 elements, but its rows have 31"},
		{"offset alignment", header(1, 0).tensor("t", F32, 4, 1).pad(64), "tensor t: offset 4 is not a multiple of the alignment 32"},
		{"offset range", header(1, 0).tensor("t", F32, 1<<40, 1).pad(64), "tensor t (4 bytes at offset 1099511627776 of the data section) runs past the end of the file"},
		{"size range", header(1, 0).tensor("t", F32, 0, 1<<40).pad(64), "tensor t (4398046511104 bytes at offset 0"},
		{"no data", header(1, 0).tensor("t", F32, 0, 1), "runs past the end of the file, which leaves 0 bytes"},
		{"overlap", header(2, 0).tensor("t", F32, 0, 16).tensor("u", F32, 32, 1).pad(64 + 128), "tensors t and u overlap"},
		{"same name", header(2, 0).tensor("t", F32, 0, 1).tensor("t", F32, 32, 1), `two tensors are called "t"`},
		{"truncated info", header(1, 0).tensor(strings.Repeat("t", 40), F32, 0, 1)[:84], "file ends at byte 84 inside the type of tensor ttt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Read(bytes.NewReader(tc.data), int64(len(tc.data)))
			runtime.ReadMemStats(&after)
			if err == nil || !strings.HasPrefix(err.Error(), "gguf: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			// The bufio buffer is 64 KiB; everything else is a few
			// allocations per byte of the file.
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("reading a %d-byte file allocated %d bytes", len(tc.data), n)
			}
		})
	}
}

// TestReadRefusesSparse reads files of zeros after a header that claims
// the most entries the file's size allows, as a sparse file of 64 MiB,
// 1 GiB or 2 GiB would: each is refused by the count it claims, having
// allocated no more than a few buffers, whatever its size.
func TestReadRefusesSparse(t *testing.T) {
	for _, size := range []int64{64 << 20, 1 << 30, 2 << 30} {
		array := func(elem ValueType, n uint64) le {
			return header(0, 1).str("k").u32(uint32(ValueArray)).u32(uint32(elem)).u64(n)
		}
		afterArray := uint64(size - int64(len(array(0, 0))))
		for _, tc := range []struct {
			name    string
			head    le
			claimed uint64
			want    string
		}{
			{"metadata count", header(0, uint64(size-24)/13), uint64(size-24) / 13, "the metadata count is %d, more than the 65536 keys a file may have"},
			{"tensor count", header(uint64(size-24)/32, 0), uint64(size-24) / 32, "the tensor count is %d, more than the 65536 tensors a file may have"},
			{"empty strings", array(ValueString, afterArray/8), afterArray / 8,
				"the length of k is %d, more than the 4194304 elements left of the 4194304 that a file's arrays may hold in all"},
			{"empty arrays", array(ValueArray, afterArray/12), afterArray / 12, "the length of k is %d, more than the 4194304 elements left"},
			{"bytes", array(ValueUint8, afterArray), afterArray, "the length of k is %d, more than the 4194304 elements left"},
		} {
			t.Run(fmt.Sprintf("%s/%dMiB", tc.name, size>>20), func(t *testing.T) {
				want := fmt.Sprintf(tc.want, tc.claimed)
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				_, err := Read(zerosAfter(tc.head), size)
				runtime.ReadMemStats(&after)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want one containing %q", err, want)
				}
				if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
					t.Errorf("reading a %d-byte file allocated %d bytes", size, n)
				}
			})
		}
	}
}

// TestReadGrowsAsItReads reads files of zeros whose counts are within the
// bounds but far beyond what the zeros hold: each fails at the first bad
// entry, having allocated for the entries read, not for those claimed.
func TestReadGrowsAsItReads(t *testing.T) {
	const size = 1 << 30
	for _, tc := range []struct {
		name string
		head le
		want string
	}{
		{"metadata", header(0, maxMetadata), `metadata key "" appears twice`},
		{"tensors", header(maxTensors, 0), "tensor  has 0 dimensions"},
		{"strings", header(0, 3).str("k").u32(uint32(ValueArray)).u32(uint32(ValueString)).u64(maxArrayElements), `metadata key "" appears twice`},
		{"arrays", header(0, 3).str("k").u32(uint32(ValueArray)).u32(uint32(ValueArray)).u64(maxInnerArrays), `metadata key "" appears twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Read(zerosAfter(tc.head), size)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			// The strings' slice holds 4,194,304 of 16 bytes, 64 MiB, grown
			// in steps as they are read; the rest is the buffer.
			if n, most := after.TotalAlloc-before.TotalAlloc, uint64(1<<20+3*16*maxArrayElements); n > most {
				t.Errorf("allocated %d bytes, more than %d", n, most)
			}
		})
	}
}

// TestReadArrayBound reads a file whose arrays hold one element more than
// the bound, in two arrays: the second is refused by its length.
func TestReadArrayBound(t *testing.T) {
	data := header(0, 2).str("a").u32(uint32(ValueArray)).u32(uint32(ValueUint8)).u64(maxArrayElements - 2).pad(maxArrayElements - 2).
		str("b").u32(uint32(ValueArray)).u32(uint32(ValueUint8)).u64(3).pad(3)
	_, err := Read(bytes.NewReader(data), int64(len(data)))
	want := "the length of b is 3, more than the 2 elements left of the 4194304 that a file's arrays may hold in all"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}

// zerosAfter is a file that starts with head and holds zeros after it.
type zerosAfter []byte

func (z zerosAfter) ReadAt(b []byte, off int64) (int, error) {
	clear(b)
	if off < int64(len(z)) {
		copy(b, z[off:])
	}
	return len(b), nil
}

// nested is a file whose one value is depth arrays, each inside the last.
func nested(depth int) le {
	b := header(0, 1).str("k").u32(uint32(ValueArray))
	for range depth {
		b = b.u32(uint32(ValueArray)).u64(1)
	}
	return b.u32(uint32(ValueUint8)).u64(0)
}

// TestTruncated cuts a valid file at every length: each cut before the end
// of the last tensor's data must be refused; the padding after it may go.
func TestTruncated(t *testing.T) {
	data := sample(t)
	f, err := Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	end := f.DataOffset
	for _, ti := range f.Tensors {
		end = max(end, f.DataOffset+ti.Offset+ti.Bytes)
	}
	for n := range len(data) {
		_, err := Read(bytes.NewReader(data[:n]), int64(n))
		if int64(n) < end && (err == nil || !strings.HasPrefix(err.Error(), "gguf: ")) || int64(n) >= end && err != nil {
			t.Fatalf("the first %d of %d bytes (data ends at %d): error %v", n, len(data), end, err)
		}
	}
}

func TestTypes(t *testing.T) {
	for _, tc := range []struct {
		t            Type
		name         string
		block, bytes int
	}{
		{F32, "F32", 1, 4}, {F16, "F16", 1, 2}, {BF16, "BF16", 1, 2}, {Q4_0, "Q4_0", 32, 18},
		{Q8_0, "Q8_0", 32, 34}, {Q4_K, "Q4_K", 256, 144}, {Q6_K, "Q6_K", 256, 210}, {Q2_K, "Q2_K", 256, 84},
		{IQ4_XS, "IQ4_XS", 256, 136}, {TQ1_0, "TQ1_0", 256, 54}, {MXFP4, "MXFP4", 32, 17}, {4, "type 4", 0, 0},
	} {
		if tc.t.String() != tc.name || tc.t.BlockSize() != tc.block || tc.t.BlockBytes() != tc.bytes {
			t.Errorf("%d: %s, %d, %d; want %s, %d, %d", uint32(tc.t), tc.t, tc.t.BlockSize(), tc.t.BlockBytes(), tc.name, tc.block, tc.bytes)
		}
	}
}

// FuzzRead reads any bytes as GGUF, and a model and tokenizer from what
// reads: no panic, errors prefixed "gguf: ", and at most 1 MiB plus 64
// bytes per byte of input allocated in all (the float32 weights of an F16
// tensor take 2 bytes per byte, a quantized tensor 1, a vocabulary's map a
// few dozen). A seed is a quantized model.
func FuzzRead(f *testing.F) {
	f.Add(sample(f))
	f.Add([]byte(nested(3)))
	// Headers that claim the most entries 4 KiB of zeros allow, and
	// floods of empty strings and arrays.
	f.Add([]byte(header(0, 4096/13).pad(4096)))
	f.Add([]byte(header(4096/32, 0).pad(4096)))
	f.Add([]byte(header(0, 2).str("k").u32(uint32(ValueArray)).u32(uint32(ValueString)).u64(4096 / 8).pad(4096)))
	f.Add([]byte(header(0, 2).str("k").u32(uint32(ValueArray)).u32(uint32(ValueArray)).u64(4096 / 12).pad(4096)))
	// Seeds are kept small, for the fuzzer mutates and minimizes them: the
	// toy model (d = 4) in the llama layout, and tok512's vocabulary alone.
	toy, err := checkpoint.ReadFile("../../web/models/toy.bin")
	if err != nil {
		f.Fatal(err)
	}
	words := &tokenizer.Vocab{MaxTokenLength: 3, Pieces: []string{"The", "cat", "sat", "on", "the", "mat"}, Scores: make([]float32, 6)}
	var buf bytes.Buffer
	if err := WriteLlama2c(&buf, toy, words, Llama2cOptions{Type: F16}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	// A quantized model: Q8_0 matrices of 32 columns, one block a row.
	qc := checkpoint.Config{Dim: 32, HiddenDim: 32, Layers: 1, Heads: 1, KVHeads: 1, VocabSize: 354, SeqLen: 4, SharedHead: true}
	qm, qv, err := randmodel.BuildQuantized(qc, 1, randmodel.Every(quant.Q8_0))
	if err != nil {
		f.Fatal(err)
	}
	buf.Reset()
	if err := WriteLlama2c(&buf, qm, qv, Llama2cOptions{Type: F32, TiedOutput: true}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	// What the architectures add: Qwen2's biases, Llama 3's RoPE factors,
	// Qwen3's and Gemma 3's heads wider than dim/heads, and so on.
	for _, arch := range randmodel.Extensions {
		ac := checkpoint.Config{Dim: 8, HiddenDim: 8, Layers: 1, Heads: 2, KVHeads: 1, VocabSize: 354, SeqLen: 4, SharedHead: true}
		if arch == "qwen3" || arch == "gemma3" {
			ac.HeadDim = 8
		}
		am, av, err := randmodel.Build(ac, 1)
		if err != nil {
			f.Fatal(err)
		}
		if err := randmodel.Extend(am, arch, 1); err != nil {
			f.Fatal(err)
		}
		buf.Reset()
		if err := WriteLlama2c(&buf, am, av, Llama2cOptions{Type: F32, TiedOutput: true}); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	// A weight that is NaN, read alike from a reader and from memory.
	withNaN := slices.Clone(buf.Bytes())
	binary.LittleEndian.PutUint32(withNaN[len(withNaN)-8:], math.Float32bits(float32(math.NaN())))
	f.Add(withNaN)
	_, v := stories260K(f)
	buf.Reset()
	md := Metadata{
		{"tokenizer.ggml.model", mustValue(f, "llama")},
		{"tokenizer.ggml.tokens", mustValue(f, v.Pieces)},
		{"tokenizer.ggml.scores", mustValue(f, v.Scores)},
		{"tokenizer.ggml.add_bos_token", mustValue(f, false)},
	}
	if err := Write(&buf, md, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(gpt2File(f, "llama-bpe", []string{"Ġ t", "h e", "Ġt he"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		defer func() {
			runtime.ReadMemStats(&after)
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20+64*uint64(len(data)) {
				t.Fatalf("a %d-byte input allocated %d bytes", len(data), n)
			}
		}()
		file, err := Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "gguf: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		for _, kv := range file.Metadata {
			_ = kv.Value.String()
		}
		m, err := file.Model()
		if err != nil && !strings.HasPrefix(err.Error(), "gguf: ") {
			t.Fatalf("Model: error without prefix: %v", err)
		}
		// The same file held in memory: the same model, its quantized
		// bytes in place.
		inMemory, err2 := ReadBytes(data)
		if err2 != nil {
			t.Fatalf("ReadBytes fails where Read does not: %v", err2)
		}
		if m2, err2 := inMemory.Model(); (err == nil) != (err2 == nil) || err == nil && !sameModel(reflect.ValueOf(m), reflect.ValueOf(m2)) {
			t.Fatalf("ReadBytes's model differs from Read's: %v, %v", err, err2)
		}
		if _, err := file.Tokenizer(); err != nil && !strings.HasPrefix(err.Error(), "gguf: ") {
			t.Fatalf("Tokenizer: error without prefix: %v", err)
		}
	})
}

// sameModel is reflect.DeepEqual with a NaN equal to a NaN: a file's
// weights may hold them, read alike both ways. It handles the kinds a
// model is made of.
func sameModel(a, b reflect.Value) bool {
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || x != x && y != y
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.String:
		return a.String() == b.String()
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameModel(a.Elem(), b.Elem())
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameModel(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameModel(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if v := b.MapIndex(k); !v.IsValid() || !sameModel(a.MapIndex(k), v) {
				return false
			}
		}
		return true
	}
	panic("sameModel: a model holds a " + a.Kind().String())
}
