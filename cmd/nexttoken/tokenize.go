package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"nexttoken/engine/gguf"
	"nexttoken/engine/regularfile"
	"nexttoken/engine/tokenizer"
)

const tokenizeUsage = `usage: nexttoken tokenize --tokenizer=FILE < text

Reads text from standard input and prints its token ids, without BOS, each
after a space, on one line: the format of llama.cpp's tokenizer test .out
files (llama_tokenize with add_special and parse_special false). FILE is a
llama2.c tokenizer.bin, or a GGUF file with or without weights, whose
tokenizer.ggml.model is llama or gpt2.

  echo -n "Hello world" | nexttoken tokenize --tokenizer=ggml-vocab-gpt-2.gguf

flags:
`

func tokenize(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	path := fs.String("tokenizer", "", "a llama2.c tokenizer.bin, or a GGUF file (its weights are not read)")
	if help, err := parseFlags(fs, args, tokenizeUsage, stdout); help || err != nil {
		if err != nil {
			err = fmt.Errorf("tokenize: %w", err)
		}
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("tokenize: unexpected argument %q (the text comes from standard input)", fs.Arg(0))
	case *path == "":
		return errors.New("tokenize: --tokenizer=FILE is required")
	}
	tok, err := loadTokenizer(*path)
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	// As a prompt file, the text is bounded before it is held.
	text, err := io.ReadAll(io.LimitReader(stdin, maxPromptFile+1))
	if err != nil {
		return fmt.Errorf("tokenize: reading standard input: %w", err)
	}
	if len(text) > maxPromptFile {
		return fmt.Errorf("tokenize: standard input is more than the %d bytes it may have", maxPromptFile)
	}
	ids, err := tokenizer.EncodeText(tok, string(text))
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	w := bufio.NewWriter(stdout)
	var buf []byte
	for _, id := range ids {
		buf = strconv.AppendInt(append(buf[:0], ' '), int64(id), 10)
		w.Write(buf)
	}
	w.WriteByte('\n')
	return w.Flush()
}

// loadTokenizer reads the tokenizer of a GGUF file's metadata, or of a
// llama2.c tokenizer file.
func loadTokenizer(path string) (tokenizer.Tokenizer, error) {
	gg, err := isGGUF(path)
	if err != nil {
		return nil, err
	}
	if gg {
		f, closer, err := gguf.Open(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer closer.Close()
		tok, err := f.Tokenizer()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return tok, nil
	}
	data, err := regularfile.ReadAll(path, maxTokenizerFile)
	if err != nil {
		return nil, err
	}
	v, err := tokenizer.Read(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tokenizer.New(v)
}
