// Command gen writes the SIMD kernel modules from wasmsimd.Generate: those
// app.wasm embeds into DIR (default engine/internal/wasmsimd), those the
// page fetches when a model needs them (wasmsimd.FetchedFiles) into
// FETCHED (default web/kernels), and their hashes into DIR/fetched.go:
//
//	go run ./engine/internal/wasmsimd/gen [DIR [FETCHED]]
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"nexttoken/engine/internal/wasmsimd"
)

func main() {
	dir, fetched := "engine/internal/wasmsimd", "web/kernels"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if len(os.Args) > 2 {
		fetched = os.Args[2]
	}
	if err := write(dir, fetched); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func write(dir, fetched string) error {
	if err := os.MkdirAll(fetched, 0o755); err != nil {
		return err
	}
	for name, bytes := range wasmsimd.Generate() {
		to := dir
		if slices.Contains(wasmsimd.FetchedFiles(), name) {
			to = fetched
		}
		if err := os.WriteFile(filepath.Join(to, name), bytes, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "fetched.go"), wasmsimd.FetchedSource(), 0o644)
}
