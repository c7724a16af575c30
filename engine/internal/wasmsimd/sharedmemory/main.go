// Command sharedmemory writes a Go program compiled to WebAssembly and
// Go's loader made to run it on a shared memory, which threads can share
// (wasmsimd.ShareMemory, wasmsimd.ShareLoader):
//
//	sharedmemory -o DIR program.wasm
//
// writes DIR/program.wasm and DIR/wasm_exec.js (from GOROOT's). make jstest
// runs the kernels' thread tests so, under node (exec).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"nexttoken/engine/internal/wasmsimd"
)

func main() {
	out := flag.String("o", "", "the folder to write to")
	flag.Parse()
	if *out == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: sharedmemory -o DIR program.wasm")
		os.Exit(2)
	}
	if err := write(*out, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "sharedmemory:", err)
		os.Exit(1)
	}
}

func write(dir, program string) error {
	module, err := os.ReadFile(program)
	if err != nil {
		return err
	}
	if module, err = wasmsimd.ShareMemory(module); err != nil {
		return fmt.Errorf("%s: %w", program, err)
	}
	loader, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return err
	}
	shared, err := wasmsimd.ShareLoader(string(loader))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(program)), module, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "wasm_exec.js"), []byte(shared), 0o644)
}
