package matvec

import "nexttoken/engine/internal/expf"

// SwiGLU sets gate[i] = silu(gate[i])·up[i] for i < len(gate) (up holds
// at least as many values), silu(g) = g·(1 / (1 + expf(−g))): the gating
// of a SwiGLU feed-forward as the transformer's loop computes it in
// float32 with package expf's Exp, the same bits, NaNs and infinities
// included.
//
// On amd64 with AVX2 the values go eight at a time through assembly
// (swiglu_amd64.s): Exp's algorithm four lanes of float64 at a time, in
// its order of operations without fused multiply-adds, its table read by
// a gather, its special cases chosen lane by lane, then the gating's
// float32 operations with the Go loop's operands in its order, so that a
// NaN result carries the NaN the loop's would. Elsewhere, with the purego
// build tag, and for the last len(gate) mod 8 values, swigluGo runs: the
// assembly's twin.
func SwiGLU(gate, up []float32) {
	up = up[:len(gate)]
	done := 0
	if hasFMA && len(gate) >= 8 {
		done = len(gate) &^ 7
		swigluAVX2(&gate[0], &up[0], done, expf.Table())
	}
	swigluGo(gate[done:], up[done:])
}

// swigluGo is SwiGLU in Go, one value at a time.
func swigluGo(gate, up []float32) {
	up = up[:len(gate)]
	for i, g := range gate {
		gate[i] = g * (1 / (1 + expf.Exp(-g))) * up[i]
	}
}
