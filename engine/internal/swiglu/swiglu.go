// Package swiglu is the gating of a SwiGLU feed-forward natively, gate[i]
// = silu(gate[i])·up[i] with silu(g) = g·(1 / (1 + expf(−g))), as the
// transformer's loop computes it in float32 with package expf's Exp: the
// same bits, NaNs and infinities included.
//
// On amd64 with AVX2 the values go eight at a time through assembly
// (swiglu_amd64.s, found with CPUID): Exp's algorithm four lanes of
// float64 at a time, in its order of operations without fused
// multiply-adds, its table read by a gather, its special cases chosen
// lane by lane, then the gating's float32 operations in the Go loop's
// order, so that a NaN result carries the NaN the loop's would. Elsewhere,
// with the purego build tag, and for the last len(gate) mod 8 values,
// Go runs: gateGo, the assembly's twin.
package swiglu

import "nexttoken/engine/internal/expf"

// Gate sets gate[i] = silu(gate[i])·up[i] for i < len(gate) (up holds
// at least as many values).
func Gate(gate, up []float32) {
	up = up[:len(gate)]
	done := 0
	if hasAVX2 && len(gate) >= 8 {
		done = len(gate) &^ 7
		gateAVX2(&gate[0], &up[0], done, expf.Table())
	}
	gateGo(gate[done:], up[done:])
}

// gateGo is Gate in Go, one value at a time.
func gateGo(gate, up []float32) {
	up = up[:len(gate)]
	for i, g := range gate {
		gate[i] = g * (1 / (1 + expf.Exp(-g))) * up[i]
	}
}
