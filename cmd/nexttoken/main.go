// Command nexttoken is the command line of the nexttoken playground.
//
//	nexttoken trace [flags]         print a decoding session step by step
//	nexttoken inspect FILE          describe a GGUF model file
//	nexttoken tokenize --tokenizer=FILE < text
//	                                print the token ids of a text
//	nexttoken serve [flags]         serve the browser playground
//	nexttoken export [flags] DIR    write the browser playground as a static site
//
// Run `nexttoken COMMAND -h` for a command's flags.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage: nexttoken COMMAND [flags]

commands:
  trace    print a decoding session step by step (nexttoken trace -h for flags)
  inspect  describe a GGUF model file: header, metadata, tensors, memory
  tokenize print the token ids of standard input's text (nexttoken tokenize -h for flags)
  serve    serve the browser playground (nexttoken serve -h for flags)
  export   write the browser playground as a static site (nexttoken export -h for flags)
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "trace":
		err = trace(args[1:], stdout, stderr)
	case "inspect":
		err = inspect(args[1:], stdout)
	case "tokenize":
		err = tokenize(args[1:], stdin, stdout)
	case "serve":
		err = serve(args[1:], stdout)
	case "export":
		err = export(args[1:], stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "nexttoken: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "nexttoken:", err)
		return 1
	}
	return 0
}
