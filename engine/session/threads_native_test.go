//go:build !js

package session_test

import (
	"testing"

	"nexttoken/engine/transformer"
)

// benchKernels are the kernels of n threads (transformer.Threads).
func benchKernels(_ testing.TB, n int) transformer.Kernels { return transformer.Threads(n) }
