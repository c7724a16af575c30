// Command gen writes the reference cases for the C++ harness
// (../../../testdata/harness.cpp) to standard output; with -sessions, the
// sessions in llama.cpp mode instead (refcases.Sessions), step by step.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"nexttoken/engine/sampler/llamacpp/internal/refcases"
	"nexttoken/web/models"
)

func main() {
	sessions := flag.Bool("sessions", false, "write the sessions in llama.cpp mode, each step's logits, instead of the cases")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	var err error
	if *sessions {
		err = refcases.WriteSessions(w, refcases.Sessions(), models.Load)
	} else {
		err = refcases.Write(w, refcases.Cases())
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
