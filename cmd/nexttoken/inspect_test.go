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

// readStories260K reads the stories260K checkpoint and its tokenizer.
func readStories260K(t *testing.T) (*checkpoint.Model, *tokenizer.Vocab) {
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
	return m, v
}

// writeGGUF converts stories260K to a GGUF file in a temporary folder, as
// llama.cpp's convert-llama2c-to-ggml would, after edit changes its metadata
// or tensor types (nil leaves them; a tensor of a new type is zeros).
func writeGGUF(t *testing.T, typ gguf.Type, edit func(*gguf.File)) string {
	t.Helper()
	m, v := readStories260K(t)
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
		"model: llama (dim 64, hidden 172, layers 5, heads 8, kv heads 4, vocab 512, seq_len 512), a KV cache of up to 655360 bytes (640.0 KiB) at the full context of 512 tokens\n" +
			"architecture: llama\ntensor types: F16 ×37, F32 ×11\nparameters: 292,800\n" +
			"memory: 1.1 MiB of weights once open, with the file's 0.6 MiB: 1.7 MiB of the 3072.0 MiB a page can hold\n" +
			"vocabulary: 512 tokens, tokenizer llama, no chat template\nwill open in a page\n",
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
		{"other architecture", []string{writeGGUF(t, gguf.F32, setText("general.architecture", "mamba"))}, 0,
			`will not open in a page: architecture "mamba" is not supported; gemma (Gemma), gemma2 (Gemma 2), gemma3 (Gemma 3), gpt2 (GPT-2), llama (Llama 1 to 3, SmolLM, TinyLlama), phi3 (Phi-3 with a 4k context), qwen2 (Qwen2, Qwen2.5) and qwen3 (Qwen3) are`},
		// A qwen2 file reads its hyper-parameters under its own name.
		{"qwen2 keys", []string{writeGGUF(t, gguf.F32, setText("general.architecture", "qwen2"))}, 0,
			`will not open in a page: qwen2.embedding_length is missing`},
		{"quantized", []string{writeGGUF(t, gguf.F32, func(f *gguf.File) { f.Tensors[2].Type = gguf.Q8_0 })}, 0,
			// 1171200 bytes of float32 less output.weight's 131072, plus its 34816 as Q8_0.
			"memory: 1.0 MiB of weights once open"},
		{"other quantized type", []string{writeGGUF(t, gguf.F32, func(f *gguf.File) { f.Tensors[2].Type = gguf.Q4_1 })}, 0,
			"will not open in a page: tensor output.weight is Q4_1, which is not supported for weights (F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS are)"},
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
	bert := writeGGUF(t, gguf.F32, setText("tokenizer.ggml.model", "bert"))
	code, _, errs := runCmd("trace", "--model="+bert, "--steps=1")
	if want := `tokenizer.ggml.model "bert" (WordPiece) is not supported yet; only llama (SentencePiece BPE with byte fallback) and gpt2 (byte-level BPE with merges) are (--tokenizer can give a llama2.c tokenizer file instead)`; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("bert tokenizer: exit %d, %q; want 1 and %q", code, errs, want)
	}
	if code, _, errs := runCmd("trace", "--model="+bert, "--tokenizer="+tok512File, "--steps=1"); code != 0 {
		t.Errorf("bert tokenizer replaced by --tokenizer: exit %d: %s", code, errs)
	}
}

// gpt2Vocab replaces a file's 512-token SentencePiece vocabulary by a
// byte-level one of as many tokens: the 256 bytes and 256 merges (a space
// before each letter, then pairs of lower-case letters), with
// <|endoftext|> for BOS and EOS as GPT-2 has it.
func gpt2Vocab(f *gguf.File) {
	var tokens, merges []string
	for b := range 256 {
		tokens = append(tokens, tokenizer.ByteLevel(string([]byte{byte(b)})))
	}
	letters := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for _, c := range letters {
		merges = append(merges, "Ġ "+string(c))
	}
	for _, a := range letters[:26] {
		for _, b := range letters[:26] {
			merges = append(merges, string(a)+" "+string(b))
		}
	}
	merges = merges[:255]
	for _, m := range merges {
		tokens = append(tokens, strings.ReplaceAll(m, " ", ""))
	}
	tokens = append(tokens, "<|endoftext|>")
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = int32(tokenizer.TokenNormal)
	}
	types[511] = int32(tokenizer.TokenControl)
	set := map[string]any{
		"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "gpt-2", "tokenizer.ggml.tokens": tokens,
		"tokenizer.ggml.token_type": types, "tokenizer.ggml.merges": merges,
		"tokenizer.ggml.bos_token_id": uint32(511), "tokenizer.ggml.eos_token_id": uint32(511),
	}
	for i := range f.Metadata {
		if x, ok := set[f.Metadata[i].Key]; ok {
			f.Metadata[i].Value, _ = gguf.NewValue(x)
			delete(set, f.Metadata[i].Key)
		}
	}
	for key, x := range set {
		v, _ := gguf.NewValue(x)
		f.Metadata = append(f.Metadata, gguf.KV{Key: key, Value: v})
	}
}

// TestTraceGGUFGPT2 traces a GGUF file whose vocabulary is byte-level BPE:
// the prompt is split into its words and merged, and the trace names
// tokens by the text they spell.
func TestTraceGGUFGPT2(t *testing.T) {
	path := writeGGUF(t, gguf.F32, gpt2Vocab)
	code, out, errs := runCmd("trace", "--model="+path, "--prompt=Once upon a time", "--steps=3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// "c e" and "Ġ u" are merges, "p o" and "o n" are not (ranks 456 and
	// 429 are past the 255 merges).
	for _, want := range []string{`prompt "Once upon a time": 12 tokens`, `"ce"`, `" u"`, `" t"`, "step 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
	if code, out, errs := runInput("Once upon", "tokenize", "--tokenizer="+path); code != 0 || out != " 79 110 364 276 112 111 110\n" {
		t.Errorf("tokenize: exit %d, %q, %s", code, out, errs)
	}
}
