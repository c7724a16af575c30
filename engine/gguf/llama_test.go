package gguf

import (
	"bytes"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/sampler"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/transformer"
)

// stories260K reads the embedded llama2.c model and its tokenizer.
func stories260K(t testing.TB) (*checkpoint.Model, *tokenizer.Vocab) {
	t.Helper()
	m, err := checkpoint.ReadFile("../../web/models/stories260K.bin")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../web/models/tok512.bin")
	if err != nil {
		t.Fatal(err)
	}
	v, err := tokenizer.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	return m, v
}

// convert writes m and v as GGUF with o and reads the file back.
func convert(t testing.TB, m *checkpoint.Model, v *tokenizer.Vocab, o Llama2cOptions) *File {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteLlama2c(&buf, m, v, o); err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestStories260K converts stories260K to GGUF as llama.cpp's
// convert-llama2c-to-ggml lays it out and runs both: F32 gives the
// checkpoint's logits bit for bit (so attn_q and attn_k need no
// permutation), F16 and BF16 logits within a tolerance.
//
// The tolerances: F16 keeps 11 significant bits, so rounding moves each
// weight by at most 2^-12 of itself; over stories260K's 5 layers the logits
// (of size about 10) moved by at most 0.011 (measured on the 48 positions),
// and 0.05 leaves room for other platforms' summation orders. BF16 keeps 8
// bits, 8 times coarser: the logits moved by at most 0.088, and the bound is
// 0.3.
func TestStories260K(t *testing.T) {
	m, v := stories260K(t)
	want := greedy(t, m, nil, 48)
	for _, tc := range []struct {
		name string
		o    Llama2cOptions
		tol  float64
	}{
		{"F32", Llama2cOptions{Type: F32}, 0},
		{"F32 tied", Llama2cOptions{Type: F32, TiedOutput: true}, 0},
		{"F16", Llama2cOptions{Type: F16}, 0.05},
		{"BF16", Llama2cOptions{Type: BF16, TiedOutput: true}, 0.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := convert(t, m, v, tc.o)
			g, err := f.Model()
			if err != nil {
				t.Fatal(err)
			}
			if _, shared := f.Tensor("output.weight"); g.Config.SharedHead == shared {
				t.Errorf("SharedHead = %v with output.weight present = %v", g.Config.SharedHead, shared)
			}
			c := g.Config
			c.SharedHead, c.RoPEBase, c.NormEps, c.Arch = m.Config.SharedHead, 0, 0, ""
			if c != m.Config || g.Config.Arch != "llama" || g.Config.Base() != 10000 || g.Config.Eps() != float32(1e-5) {
				t.Fatalf("config %v (base %v, eps %v), want %v", g.Config, g.Config.Base(), g.Config.Eps(), m.Config)
			}
			got := greedy(t, g, want.tokens, 48)
			worst := 0.0
			for i := range want.logits {
				for j, x := range want.logits[i] {
					worst = max(worst, math.Abs(float64(got.logits[i][j]-x)))
				}
			}
			if worst > tc.tol {
				t.Errorf("logits differ by up to %g, want at most %g", worst, tc.tol)
			}
			if tc.tol == 0 && !slices.Equal(got.tokens, want.tokens) {
				t.Errorf("greedy tokens %v, want %v", got.tokens, want.tokens)
			}
			t.Logf("largest logit difference %g", worst)
		})
	}
}

type run struct {
	tokens []int       // fed, from BOS
	logits [][]float32 // after each
}

// greedy runs m in run.c mode from BOS: feeding force if given, else the
// greedy choice, for n positions.
func greedy(t *testing.T, m *checkpoint.Model, force []int, n int) run {
	t.Helper()
	tr := transformer.NewWith(m, transformer.Options{RunC: true})
	r := run{tokens: []int{1}}
	for pos := range n {
		logits, err := tr.Forward(r.tokens[pos], pos)
		if err != nil {
			t.Fatal(err)
		}
		r.logits = append(r.logits, slices.Clone(logits))
		next := force
		if next == nil {
			next = append(r.tokens, sampler.Argmax(logits))
		}
		r.tokens = next[:pos+2]
	}
	return r
}

// TestTokenizer checks that the vocabulary read from GGUF metadata encodes
// and decodes as tok512.bin does.
func TestTokenizer(t *testing.T) {
	m, v := stories260K(t)
	want, err := tokenizer.NewBPE(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := convert(t, m, v, Llama2cOptions{Type: F32}).Tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	if got.BOS() != want.BOS() || got.EOS() != want.EOS() || got.VocabSize() != want.VocabSize() {
		t.Errorf("BOS, EOS, size %d %d %d, want %d %d %d", got.BOS(), got.EOS(), got.VocabSize(), want.BOS(), want.EOS(), want.VocabSize())
	}
	for _, text := range []string{"", "Once upon a time", " two  spaces\nand a line", "naïve café ☃ 🐱", "<s> and </s>"} {
		a, _ := got.Encode(text)
		b, _ := want.Encode(text)
		if !slices.Equal(a, b) {
			t.Errorf("Encode(%q) = %v, want %v", text, a, b)
		}
		if got.Decode(a) != want.Decode(b) {
			t.Errorf("Decode(Encode(%q)) = %q, want %q", text, got.Decode(a), want.Decode(b))
		}
	}
}

// TestTokenizerOptions checks add_bos_token, add_space_prefix and the
// special ids.
func TestTokenizerOptions(t *testing.T) {
	m, v := stories260K(t)
	f := convert(t, m, v, Llama2cOptions{Type: F32})
	set := func(key string, x any) {
		val, err := NewValue(x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Metadata {
			if f.Metadata[i].Key == key {
				f.Metadata[i].Value = val
				return
			}
		}
		f.Metadata = append(f.Metadata, KV{key, val})
	}
	set("tokenizer.ggml.add_bos_token", false)
	set("tokenizer.ggml.add_space_prefix", false)
	set("tokenizer.ggml.eos_token_id", int32(-1))
	tok, err := f.Tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tok.Encode("Once")
	if tok.BOS() != 1 || tok.EOS() != -1 || slices.Contains(ids, 1) || tok.Decode(ids) != "Once" {
		t.Errorf("BOS %d, EOS %d, Encode %v, Decode %q; want 1, -1, no BOS, %q", tok.BOS(), tok.EOS(), ids, tok.Decode(ids), "Once")
	}
	if n := tok.MinTokens("Once"); n > len(ids) {
		t.Errorf("MinTokens = %d, more than the %d tokens", n, len(ids))
	}
}

// TestModelRefuses edits a valid file's metadata and tensors into files
// Model or Tokenizer must refuse, and checks each error names the problem.
func TestModelRefuses(t *testing.T) {
	m, v := stories260K(t)
	for _, tc := range []struct {
		name string
		edit func(f *File)
		want string
	}{
		{"architecture", setKV("general.architecture", "mamba"), `architecture "mamba" is not supported; ` + supportedArchitectures() + " are"},
		{"no architecture", dropKV("general.architecture"), "general.architecture is missing"},
		{"quantized type", func(f *File) { f.Tensors[0].Type = Q4_1 }, "token_embd.weight is Q4_1, which is not supported for weights (F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS are)"},
		{"quantized gain", func(f *File) { f.Tensors[1].Type = Q8_0 }, "output_norm.weight is Q8_0; a gain, bias or RoPE factor must be F32, F16 or BF16"},
		{"integer tensor", func(f *File) { f.Tensors[0].Type = I32 }, "I32, which is not supported for weights"},
		{"missing tensor", func(f *File) { f.Tensors = f.Tensors[:len(f.Tensors)-1] }, "tensor blk.4.ffn_norm.weight is missing"},
		{"extra tensor", func(f *File) { f.Tensors[1].Name = "blk.0.ffn_gate_inp.weight" }, "blk.0.ffn_gate_inp.weight is not one of the llama tensors"},
		{"dims", func(f *File) { f.Tensors[0].Dims = []int64{512, 64} }, "token_embd.weight has dims [512 64], want [64 512]"},
		{"rope dims", setKV("llama.rope.dimension_count", uint32(4)), "llama.rope.dimension_count is 4, but the transformer uses the whole head, 8"},
		{"rope scaling", setKV("llama.rope.scaling.type", "linear"), "RoPE scaling is not supported"},
		{"rope factor", setKV("llama.rope.scaling.factor", float32(2)), "llama.rope.scaling.factor is 2: RoPE scaling"},
		{"experts", setKV("llama.expert_count", uint32(8)), "mixture-of-experts models are not supported"},
		{"no eps", dropKV("llama.attention.layer_norm_rms_epsilon"), "layer_norm_rms_epsilon is missing"},
		{"eps type", setKV("llama.attention.layer_norm_rms_epsilon", "tiny"), `layer_norm_rms_epsilon is string "tiny", want a float`},
		{"base", setKV("llama.rope.freq_base", float32(math.Inf(1))), "RoPE base +Inf"},
		{"heads", setKV("llama.attention.head_count", uint32(7)), "n_heads = 7 does not divide dim = 64"},
		{"negative", setKV("llama.block_count", int32(-5)), "llama.block_count is -5, want 1 to"},
		{"no dim", dropKV("llama.embedding_length"), "llama.embedding_length is missing"},
		{"vocab", setKV("llama.vocab_size", uint64(500)), "token_embd.weight has dims [64 512], want [64 500]"},
		{"gpt2 without merges", setKV("tokenizer.ggml.model", "gpt2"), "tokenizer.ggml.merges is missing"},
		{"bert tokenizer", setKV("tokenizer.ggml.model", "bert"), `tokenizer.ggml.model "bert" (WordPiece) is not supported yet; only llama (SentencePiece BPE with byte fallback) and gpt2`},
		{"bos", setKV("tokenizer.ggml.bos_token_id", uint32(512)), "bos_token_id is 512, outside the vocabulary of 512 tokens"},
		{"scores", setKV("tokenizer.ggml.scores", []float32{1}), "tokenizer.ggml.scores is 1 × float32, want 512 float32"},
		{"tokens", setKV("tokenizer.ggml.tokens", make([]int32, 512)), "tokenizer.ggml.tokens is 512 × int32, want strings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := convert(t, m, v, Llama2cOptions{Type: F32})
			tc.edit(f)
			_, err := f.Model()
			if err == nil {
				_, err = f.Tokenizer()
			}
			if err == nil || !strings.HasPrefix(err.Error(), "gguf: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func setKV(key string, x any) func(*File) {
	return func(f *File) {
		val, err := NewValue(x)
		if err != nil {
			panic(err)
		}
		for i := range f.Metadata {
			if f.Metadata[i].Key == key {
				f.Metadata[i].Value = val
				return
			}
		}
		f.Metadata = append(f.Metadata, KV{key, val})
	}
}

func dropKV(key string) func(*File) {
	return func(f *File) {
		f.Metadata = slices.DeleteFunc(f.Metadata, func(kv KV) bool { return kv.Key == key })
	}
}

// TestBF16 checks FloatToBF16's rounding.
func TestBF16(t *testing.T) {
	for _, tc := range []struct {
		x    float32
		want uint16
	}{
		{1, 0x3f80},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even below
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, odd below
		{math.Float32frombits(0x3f808001), 0x3f81},
		{float32(math.NaN()), 0x7fc0},
	} {
		if got := FloatToBF16(tc.x); got != tc.want {
			t.Errorf("FloatToBF16(%v) = %#04x, want %#04x", tc.x, got, tc.want)
		}
	}
}

// TestRotaryLayout checks that the layout of attn_q and attn_k matters, so
// that TestStories260K would catch a wrong one: with the rows of every head
// of Wq and Wk in Hugging Face's order (LlamaModel.permute undone), the
// first position, whose attention has one key and weight 1 whatever q and
// k, keeps its logits, and later positions do not.
func TestRotaryLayout(t *testing.T) {
	m, v := stories260K(t)
	g, err := convert(t, m, v, Llama2cOptions{Type: F32}).Model()
	if err != nil {
		t.Fatal(err)
	}
	c := g.Config
	hs, d := c.HeadSize(), c.Dim
	// unpermute moves row 2j+s of each head to row s·hs/2+j.
	unpermute := func(w []float32, rows int) {
		old := slices.Clone(w)
		for r := range rows {
			head, i := r/hs, r%hs
			to := head*hs + (i%2)*hs/2 + i/2
			copy(w[to*d:(to+1)*d], old[r*d:(r+1)*d])
		}
	}
	for l := range c.Layers {
		unpermute(g.Weights.WQ[l*d*d:(l+1)*d*d], d)
		unpermute(g.Weights.WK[l*c.KVDim()*d:(l+1)*c.KVDim()*d], c.KVDim())
	}
	want := greedy(t, m, nil, 8)
	got := greedy(t, g, want.tokens, 8)
	if !slices.Equal(got.logits[0], want.logits[0]) {
		t.Error("position 0's logits changed, though its attention cannot")
	}
	if slices.Equal(got.logits[7], want.logits[7]) {
		t.Error("position 7's logits are the same in the other layout")
	}
}
