// Command randmodel writes a stand-in model for measurements (see package
// nexttoken/engine/randmodel): a llama2.c checkpoint of stories15M's shape
// with pseudo-random weights and a matching 32,000-piece tokenizer.bin,
//
//	go run ./cmd/randmodel [-seed N] DIR
//
// writes DIR/model.bin (61 MB) and DIR/tokenizer.bin, the same bytes on
// every run and every machine. make measure uses them; they are not
// committed.
package main

import (
	"flag"
	"fmt"
	"os"

	"nexttoken/engine/randmodel"
)

func main() {
	seed := flag.Uint64("seed", 15, "seed of the weights and the generated pieces")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: randmodel [-seed N] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := randmodel.Write(flag.Arg(0), randmodel.Stories15M, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "randmodel:", err)
		os.Exit(1)
	}
}
