// Command gen writes the reference cases for the C++ harness
// (../../../testdata/harness.cpp) to standard output; with -sessions, the
// sessions in llama.cpp mode instead (refcases.Sessions), step by step,
// on stories260K read from -models (web/models, run from the repository
// root). It reads the files itself: the engine imports nothing of the
// programs and their site.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"nexttoken/engine/sampler/llamacpp/internal/refcases"
	"nexttoken/engine/session"
)

func main() {
	sessions := flag.Bool("sessions", false, "write the sessions in llama.cpp mode, each step's logits, instead of the cases")
	dir := flag.String("models", "web/models", "the folder of stories260K.bin and its tokenizer, tok512.bin, for -sessions")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	var err error
	if *sessions {
		err = refcases.WriteSessions(w, refcases.Sessions(), func(name string) (*session.Model, error) {
			if name != "stories260K" {
				return nil, fmt.Errorf("no model called %q: the sessions run stories260K", name)
			}
			checkpoint, err := os.ReadFile(filepath.Join(*dir, "stories260K.bin"))
			if err != nil {
				return nil, err
			}
			tokenizer, err := os.ReadFile(filepath.Join(*dir, "tok512.bin"))
			if err != nil {
				return nil, err
			}
			return session.LoadModel(name, checkpoint, tokenizer)
		})
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
