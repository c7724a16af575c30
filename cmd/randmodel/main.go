// Command randmodel writes a stand-in model for measurements (see package
// nexttoken/engine/randmodel): a llama2.c checkpoint of stories15M's shape
// with pseudo-random weights and a matching 32,000-piece tokenizer.bin,
//
//	go run ./cmd/randmodel [-seed N] DIR
//
// writes DIR/model.bin (61 MB) and DIR/tokenizer.bin, the same bytes on
// every run and every machine. make measure uses them; they are not
// committed. With -gguf it writes the same model and vocabulary as
// DIR/model.gguf instead, float32, laid out as llama.cpp's llama2.c
// converter writes one with the classifier tied to the embedding, for
// llama.cpp's tools (llama-quantize makes quantized models of it); the
// other flags change the shape. With -type it writes quantized matrices
// instead (randmodel.BuildQuantized: random blocks, not a quantization of
// the float32 weights), for example SmolLM2-135M's shape in Q8_0:
//
//	go run ./cmd/randmodel -gguf -type q8_0 -dim 576 -hidden 1536 -layers 30 \
//	    -heads 9 -kvheads 3 -vocab 49152 -seqlen 2048 DIR
//
// With -arch (llama3, qwen2, qwen3, gemma, gemma2, gemma3, phi3, gpt2) the
// model has what that architecture adds (randmodel.Extend): Llama 3's RoPE
// frequency factors, Qwen2's biases and RoPE on halves of a head, and so on.
// With -peak its output head is peaked (randmodel.Peak): each token has a
// clear successor, so that llama.cpp's greedy tokens and the engine's agree
// over long runs.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

func main() {
	seed := flag.Uint64("seed", 15, "seed of the weights and the generated pieces")
	asGGUF := flag.Bool("gguf", false, "write DIR/model.gguf (F32) instead of model.bin and tokenizer.bin")
	gains := flag.Bool("gains", false, "random RMSNorm gains instead of ones (randmodel.RandomGains)")
	peak := flag.Bool("peak", false, "with -gguf, a peaked output head: each token has a clear successor (randmodel.Peak)")
	arch := flag.String("arch", "", "with -gguf, an architecture beside llama2.c's: "+strings.Join(randmodel.Extensions, ", ")+" (randmodel.Extend)")
	format := flag.String("type", "F32", "with -gguf, the matrices' format: F32, "+quant.Types+" (every matrix), or Q4_K_M or Q5_K_M (llama-quantize's mixtures)")
	c := randmodel.Stories15M
	flag.IntVar(&c.Dim, "dim", c.Dim, "width of the residual stream")
	flag.IntVar(&c.HiddenDim, "hidden", c.HiddenDim, "width of the feed-forward layer")
	flag.IntVar(&c.Layers, "layers", c.Layers, "layers")
	flag.IntVar(&c.Heads, "heads", c.Heads, "query heads")
	flag.IntVar(&c.KVHeads, "kvheads", c.KVHeads, "key/value heads")
	flag.IntVar(&c.HeadDim, "headsize", 0, "with -gguf, the width of a head when it is not dim/heads (0: dim/heads)")
	flag.IntVar(&c.VocabSize, "vocab", c.VocabSize, "vocabulary size")
	flag.IntVar(&c.SeqLen, "seqlen", c.SeqLen, "context length")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: randmodel [flags] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	var err error
	if *asGGUF {
		err = writeGGUF(filepath.Join(flag.Arg(0), "model.gguf"), c, *seed, *format, *arch, *gains, *peak)
	} else if *gains || *peak || !strings.EqualFold(*format, "F32") || *arch != "" {
		err = fmt.Errorf("-gains, -peak, -type and -arch need -gguf")
	} else {
		err = randmodel.Write(flag.Arg(0), c, *seed)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "randmodel:", err)
		os.Exit(1)
	}
}

func writeGGUF(path string, c checkpoint.Config, seed uint64, format, arch string, gains, peak bool) error {
	m, v, err := randmodel.BuildNamed(c, seed, format)
	if err != nil {
		return fmt.Errorf("-type %s: %w", format, err)
	}
	if gains {
		randmodel.RandomGains(m, seed)
	}
	if arch != "" {
		if err := randmodel.Extend(m, arch, seed); err != nil {
			return err
		}
	}
	if peak {
		if _, err := randmodel.Peak(m, seed); err != nil {
			return err
		}
	}
	return gguf.WriteLlama2cFile(path, m, v, gguf.Llama2cOptions{Type: gguf.F32, TiedOutput: true})
}
