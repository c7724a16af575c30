package gguf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/sampler"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/transformer"
)

// TestLlamaSimple checks stories260K in GGUF against llama.cpp's own tools
// (testdata/llamasimple):
//
//   - the file llama.cpp's convert-llama2c-to-ggml made of stories260K.bin
//     holds the tensors WriteLlama2c writes in F32, and llama-quantize's F16
//     copy of it those WriteLlama2c writes in F16, byte for byte (FNV-1a
//     hashes of every tensor's bytes and of ggml's to_float of them);
//   - llama-simple's greedy text on each file, 200 tokens after "Once upon a
//     time", is the engine's on the same file and on the .bin.
//
// The engine sums in another order than ggml (so its logits differ in the
// last bits, TestStories260K), which could in principle make a greedy
// choice between two near-equal logits go the other way; on these 200
// tokens none does.
func TestLlamaSimple(t *testing.T) {
	m, v := stories260K(t)
	bin, err := tokenizer.NewBPE(v)
	if err != nil {
		t.Fatal(err)
	}
	const prompt, steps = "Once upon a time", 200
	fromBin := greedyText(t, m, bin, prompt, steps)
	for _, tc := range []struct {
		listing, text string
		o             Llama2cOptions
	}{
		{"convert", "f32.txt", Llama2cOptions{Type: F32}},
		{"f16", "f16.txt", Llama2cOptions{Type: F16}},
	} {
		t.Run(tc.listing, func(t *testing.T) {
			f := convert(t, m, v, tc.o)
			want := readListing(t, "llamasimple", tc.listing)
			if len(want) != len(f.Tensors) {
				t.Errorf("llama.cpp's file has %d tensors, WriteLlama2c's %d", len(want), len(f.Tensors))
			}
			for i := range f.Tensors {
				ti := &f.Tensors[i]
				w, ok := want[ti.Name]
				data, err := f.TensorData(ti)
				switch {
				case err != nil:
					t.Fatal(err)
				case !ok:
					t.Errorf("%s is not in llama.cpp's file", ti.Name)
				case ti.Type.String() != w.typ:
					t.Errorf("%s is %s, llama.cpp's %s", ti.Name, ti.Type, w.typ)
				case hashBytes(data) != w.raw:
					t.Errorf("%s: bytes hash %016x, llama.cpp's %016x", ti.Name, hashBytes(data), w.raw)
				}
			}

			ref, err := os.ReadFile(filepath.Join("testdata", "llamasimple", tc.text))
			if err != nil {
				t.Fatal(err)
			}
			// llama-simple prints the prompt's pieces, BOS as "<s>", then
			// the tokens it chose, then a newline.
			llama := strings.TrimSuffix(strings.TrimPrefix(string(ref), "<s> "), "\n")
			g, err := f.Model()
			if err != nil {
				t.Fatal(err)
			}
			tok, err := f.Tokenizer()
			if err != nil {
				t.Fatal(err)
			}
			got := greedyText(t, g, tok, prompt, steps)
			if got != llama {
				t.Errorf("greedy text on the GGUF file:\n%q\nllama-simple's:\n%q", got, llama)
			}
			if got != fromBin {
				t.Errorf("greedy text on the GGUF file:\n%q\non the .bin:\n%q", got, fromBin)
			}
		})
	}
}

// greedyText feeds prompt and then n tokens chosen by argmax, stopping
// after an end token as llama-simple does, and returns the text after BOS.
func greedyText(t *testing.T, m *checkpoint.Model, tok tokenizer.Tokenizer, prompt string, n int) string {
	t.Helper()
	ids, err := tok.Encode(prompt)
	if err != nil {
		t.Fatal(err)
	}
	tr := transformer.New(m)
	logits, err := tr.Prefill(ids, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		next := sampler.Argmax(logits)
		ids = append(ids, next)
		if next == tok.EOS() || next == tok.BOS() {
			break
		}
		if logits, err = tr.Forward(next, len(ids)-1); err != nil {
			t.Fatal(err)
		}
	}
	return tok.Decode(ids)
}
