// Command gen writes the SIMD kernel modules, engine/internal/wasmsimd/matvec.wasm
// and attention.wasm, from wasmsimd.Generate: go run ./engine/internal/wasmsimd/gen
// [DIR].
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"nexttoken/engine/internal/wasmsimd"
)

func main() {
	dir := "engine/internal/wasmsimd"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for name, bytes := range wasmsimd.Generate() {
		if err := os.WriteFile(filepath.Join(dir, name), bytes, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
