// Command toymodel writes the worked example's toy model and its vocabulary
// (package nexttoken/engine/toymodel; Build says how it is made) into a folder:
//
//	go run ./cmd/toymodel web/models
//
// writes web/models/toy.bin and web/models/toy-tokenizer.bin. The output is
// the same, byte for byte, on every run and every machine.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"nexttoken/engine/checkpoint"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: toymodel DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "toymodel:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	m, vocab, err := Build()
	if err != nil {
		return err
	}
	var model bytes.Buffer
	if err := checkpoint.Write(&model, m); err != nil {
		return err
	}
	tok, err := vocab.MarshalBinary()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "toy.bin"), model.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "toy-tokenizer.bin"), tok, 0o644)
}
