//go:build !js

package transformer

import (
	"testing"

	"nexttoken/engine/quant"
)

// setSIMD turns package quant's assembly kernels on or off for
// TestSIMDKeepsLogits, skipping where the CPU or the build (purego, not
// amd64) has none.
func setSIMD(t *testing.T, on bool) {
	quant.UseSIMD(on)
	if on && quant.Kernel() == "Go" {
		t.Skip("package quant has no assembly kernels on this CPU or build")
	}
}
