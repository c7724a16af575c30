// Command gen writes the SIMD kernel module, engine/wasmsimd/matvec.wasm,
// from wasmsimd.Generate: go run ./engine/wasmsimd/gen [FILE].
package main

import (
	"fmt"
	"os"

	"nexttoken/engine/wasmsimd"
)

func main() {
	file := "engine/wasmsimd/matvec.wasm"
	if len(os.Args) > 1 {
		file = os.Args[1]
	}
	if err := os.WriteFile(file, wasmsimd.Generate(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
