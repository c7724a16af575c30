package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/tokenizer"
)

const (
	stories260KFile = "../../web/models/stories260K.bin"
	tok512File      = "../../web/models/tok512.bin"
)

// writeGGUF converts stories260K to a GGUF file in a temporary folder, as
// llama.cpp's convert-llama2c-to-ggml would, after edit changes its metadata
// or tensor types (nil leaves them; a tensor of a new type is zeros).
func writeGGUF(t *testing.T, typ gguf.Type, edit func(*gguf.File)) string {
	t.Helper()
	m, err := checkpoint.ReadFile(stories260KFile)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(tok512File)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tokenizer.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stories260K.gguf")
	fd, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	if err := gguf.WriteLlama2c(fd, m, v, gguf.Llama2cOptions{Type: typ}); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		f, closer, err := gguf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer closer.Close()
		edit(f)
		var ts []gguf.NewTensor
		for i := range f.Tensors {
			ti := &f.Tensors[i]
			b, err := f.TensorData(ti)
			if err != nil {
				t.Fatal(err)
			}
			if n := ti.Elements / int64(ti.Type.BlockSize()) * int64(ti.Type.BlockBytes()); n != ti.Bytes {
				b = make([]byte, n)
			}
			ts = append(ts, gguf.NewTensor{Name: ti.Name, Dims: ti.Dims, Type: ti.Type, Data: b})
		}
		out, err := os.Create(path + ".edited")
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		if err := gguf.Write(out, f.Metadata, ts); err != nil {
			t.Fatal(err)
		}
		return path + ".edited"
	}
	return path
}

// setText sets the string value of key.
func setText(key, value string) func(*gguf.File) {
	return func(f *gguf.File) {
		for i := range f.Metadata {
			if f.Metadata[i].Key == key {
				f.Metadata[i].Value, _ = gguf.NewValue(value)
			}
		}
	}
}

func TestInspect(t *testing.T) {
	path := writeGGUF(t, gguf.F16, nil)
	code, out, errs := runCmd("inspect", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"GGUF version 3, 601184 bytes (587.1 KiB), alignment 32, tensor data from byte 14176",
		"metadata (19 keys):",
		`tokenizer.ggml.tokens                  array   [512 × string: "<unk>", "<s>", "</s>", "<0x00>",`,
		"llama.attention.layer_norm_rms_epsilon float32 1e-05",
		"tensors (48):",
		"blk.0.ffn_down.weight     F16   172×64  11008     22016  178176",
		"tensor data: 587008 bytes (573.2 KiB) (11 F32, 37 F16)",
		"model: llama (dim 64, hidden 172, layers 5, heads 8, kv heads 4, vocab 512, seq_len 512)",
		"memory in this engine: 1171200 bytes (1.1 MiB) of float32 weights, and a KV cache of up to 655360 bytes (640.0 KiB) at the full context of 512 tokens",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestInspectRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stdout for code 0, else stderr
	}{
		{"other architecture", []string{writeGGUF(t, gguf.F32, setText("general.architecture", "qwen2"))}, 0,
			`this engine cannot run it: gguf: architecture "qwen2" is not supported; only llama is`},
		{"quantized", []string{writeGGUF(t, gguf.F32, func(f *gguf.File) { f.Tensors[2].Type = gguf.Q8_0 })}, 0,
			// 1171200 bytes of float32 less output.weight's 131072, plus its 34816 as Q8_0.
			"memory in this engine: 1074944 bytes (1.0 MiB) of weights (1 quantized tensors kept as stored, the others float32)"},
		{"other quantized type", []string{writeGGUF(t, gguf.F32, func(f *gguf.File) { f.Tensors[2].Type = gguf.Q5_0 })}, 0,
			"this engine cannot run it: gguf: tensor output.weight is Q5_0, which is not supported for weights (F32, F16, BF16, Q8_0, Q4_0, Q4_K and Q6_K are)"},
		{"not GGUF", []string{stories260KFile}, 1, "inspect: gguf: not a GGUF file"},
		{"no file", nil, 1, "inspect: give one GGUF file"},
		{"two files", []string{"a", "b"}, 1, "inspect: give one GGUF file"},
		{"missing", []string{filepath.Join(t.TempDir(), "none.gguf")}, 1, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCmd(append([]string{"inspect"}, tc.args...)...)
			got := errs
			if tc.code == 0 {
				got = out
			}
			if code != tc.code || !strings.Contains(got, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errs, tc.code, tc.want)
			}
		})
	}
}

// TestTraceGGUF traces stories260K from a GGUF file, with the tokenizer of
// its metadata and with tok512.bin, and expects the embedded model's trace
// (an F32 file holds the same weights: the same logits, bit for bit), but
// for the model's name and BOS's spelling: llama.cpp's converter renames
// tok512's "\n<s>\n" to "<s>".
func TestTraceGGUF(t *testing.T) {
	path := writeGGUF(t, gguf.F32, nil)
	args := []string{"trace", "--prompt=Once upon a time", "--steps=12", "--sampler=runc", "--temperature=0.8", "--seed=7"}
	_, want, _ := runCmd(append(args, "--model=stories260K")...)
	for _, extra := range [][]string{{"--model=" + path}, {"--model=" + path, "--tokenizer=" + tok512File}} {
		code, out, errs := runCmd(append(args, extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errs)
		}
		got := strings.Replace(out, "model "+path, "model stories260K", 1)
		if len(extra) == 1 {
			got = strings.Replace(got, `1  "<s>"`, `1  "\n<s>\n"`, 1)
		}
		if got != want {
			t.Errorf("%v: trace differs from stories260K's:\n%s\nwant:\n%s", extra, got, want)
		}
	}
	gpt2 := writeGGUF(t, gguf.F32, setText("tokenizer.ggml.model", "gpt2"))
	code, _, errs := runCmd("trace", "--model="+gpt2, "--steps=1")
	if want := `tokenizer.ggml.model "gpt2" (byte-level BPE with merges (GPT-2, Llama 3)) is not supported yet; only llama (SentencePiece BPE with byte fallback) is (--tokenizer can give a llama2.c tokenizer file instead)`; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("gpt2 tokenizer: exit %d, %q; want 1 and %q", code, errs, want)
	}
	if code, _, errs := runCmd("trace", "--model="+gpt2, "--tokenizer="+tok512File, "--steps=1"); code != 0 {
		t.Errorf("gpt2 tokenizer replaced by --tokenizer: exit %d: %s", code, errs)
	}
}
