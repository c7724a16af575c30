//go:build !js

package transformer

import (
	"testing"

	"nexttoken/engine/quant"
)

// setSIMD turns package quant's assembly kernels on or off for
// TestSIMDKeepsLogits, skipping where the CPU or the build (purego, not
// amd64) has none, and returns opts: natively Kernels have nothing to
// choose.
func setSIMD(t *testing.T, opts Options, on bool) Options {
	quant.UseSIMD(on)
	if on && quant.Kernel() == "Go" {
		t.Skip("package quant has no assembly kernels on this CPU or build")
	}
	return opts
}

// benchKernels natively are the only ones, the zero Kernels.
func benchKernels(testing.TB) Kernels { return Kernels{} }
