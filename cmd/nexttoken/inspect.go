package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"nexttoken/engine/gguf"
	"nexttoken/engine/modelfile"
)

const inspectUsage = `usage: nexttoken inspect FILE

Describes a GGUF file without reading its weights: the header, every
metadata key (long arrays shortened), every tensor with its type, shape
(fastest-varying dimension first, as GGUF stores it) and size, and, for a
model this engine runs, its configuration; then what the playground's
preflight says of it before a download: its architecture, tensor types,
parameters, the memory it would take against what a page can hold, its
vocabulary and tokenizer, whether it has a chat template, and whether a
page will open it, or every reason it will not.
`

func inspect(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	if help, err := parseFlags(fs, args, inspectUsage, stdout); help || err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("inspect: give one GGUF file")
	}
	f, closer, err := gguf.Open(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	defer closer.Close()
	return printGGUF(stdout, fs.Arg(0), f)
}

// printGGUF writes what inspect shows of f, read from path.
func printGGUF(w io.Writer, path string, f *gguf.File) error {
	fmt.Fprintf(w, "%s: GGUF version %d, %s, alignment %d, tensor data from byte %d\n\n",
		path, f.Version, bytesText(f.Size()), f.Alignment, f.DataOffset)
	fmt.Fprintf(w, "metadata (%d keys):\n", len(f.Metadata))
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for _, kv := range f.Metadata {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", kv.Key, kv.Value.Type, kv.Value)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ntensors (%d):\n", len(f.Tensors))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "  name\ttype\tshape\telements\tbytes\toffset\n")
	var total int64
	types := map[gguf.Type]int{}
	for _, t := range f.Tensors {
		dims := make([]string, len(t.Dims))
		for i, d := range t.Dims {
			dims[i] = fmt.Sprint(d)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\n", t.Name, t.Type, strings.Join(dims, "×"), t.Elements, t.Bytes, t.Offset)
		total += t.Bytes
		types[t.Type]++
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var counts []string
	for t, n := range types {
		counts = append(counts, fmt.Sprintf("%d %s", n, t))
	}
	slices.Sort(counts)
	fmt.Fprintf(w, "  tensor data: %s (%s)\n\n", bytesText(total), strings.Join(counts, ", "))

	if c, err := f.LlamaConfig(); err == nil {
		fmt.Fprintf(w, "model: %s %s, a KV cache of up to %s at the full context of %d tokens\n",
			c.Arch, c, bytesText(4*2*int64(c.Layers)*int64(c.SeqLen)*int64(c.KVDim())), c.SeqLen)
	}
	_, err := fmt.Fprintln(w, modelfile.Check(path, f))
	return err
}

// bytesText writes n bytes for people: "1056540 bytes (1.0 MiB)".
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%d bytes (%.1f GiB)", n, float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.1f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
