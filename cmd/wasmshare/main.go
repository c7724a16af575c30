// Command wasmshare writes a Go program compiled to WebAssembly made to
// run on a shared memory, which threads can share (wasmshare.Memory):
//
//	wasmshare -o OUT program.wasm
//
// With -loader, it also writes Go's loader, GOROOT's wasm_exec.js, made
// to run it (wasmshare.Loader): make jstest runs the kernels' thread tests
// so, under node (exec, run.js), and the Makefile builds the page's
// web/app.shared.wasm with it.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"nexttoken/engine/wasmshare"
)

func main() {
	out := flag.String("o", "", "the file to write the program to")
	loader := flag.String("loader", "", "the file to write the loader to, if any")
	flag.Parse()
	if *out == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wasmshare -o OUT [-loader wasm_exec.js] program.wasm")
		os.Exit(2)
	}
	if err := write(flag.Arg(0), *out, *loader); err != nil {
		fmt.Fprintln(os.Stderr, "wasmshare:", err)
		os.Exit(1)
	}
}

func write(program, out, loaderOut string) error {
	module, err := os.ReadFile(program)
	if err != nil {
		return err
	}
	if module, err = wasmshare.Memory(module); err != nil {
		return fmt.Errorf("%s: %w", program, err)
	}
	if loaderOut != "" {
		loader, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
		if err != nil {
			return err
		}
		shared, err := wasmshare.Loader(string(loader))
		if err != nil {
			return err
		}
		if err := os.WriteFile(loaderOut, []byte(shared), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(out, module, 0o755)
}
