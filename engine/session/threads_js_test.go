//go:build js

package session_test

import (
	"testing"

	"nexttoken/engine/transformer"
)

// benchKernels are Go's loops: a js/wasm program has one thread, so a
// benchmark of more is skipped.
func benchKernels(tb testing.TB, n int) transformer.Kernels {
	if n > 1 {
		tb.Skip("threads are native")
	}
	return transformer.Kernels{}
}
