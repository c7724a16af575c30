// Command gen writes the reference cases for the C++ harness
// (../../../testdata/harness.cpp) to standard output.
package main

import (
	"bufio"
	"fmt"
	"os"

	"nexttoken/engine/sampler/llamacpp/internal/refcases"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	if err := refcases.Write(w, refcases.Cases()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
