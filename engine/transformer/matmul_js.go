//go:build js

package transformer

import (
	"errors"

	"nexttoken/engine/internal/wasmsimd"
	"nexttoken/engine/quant"
)

// simd holds the WebAssembly SIMD kernels, loaded at start-up; nil where
// the engine has no SIMD or the module could not be loaded, or once
// DisableSIMD turned them off.
var simd, _ = wasmsimd.Load()

// matmul under js/wasm is the SIMD kernel, which sums in matmulUnrolled's
// order and so gives its results bit for bit, 3–4 times faster
// (BenchmarkMatmulSIMD under node); otherwise the unrolled loop.
func matmul(out, x, w []float32, n, d int) {
	if simd != nil && simd.MatVec(out, x, w, n, d) == nil {
		return
	}
	matmulUnrolled(out, x, w, n, d)
}

// mulQuantized under js/wasm multiplies quantized weights with the SIMD
// kernels, which give quant's results bit for bit, several times faster
// (BenchmarkMulQuant in package wasmsimd); without SIMD, with quant's Go
// kernels.
func mulQuantized(out, x []float32, w *quant.Matrix, v *quant.Vec) {
	if simd != nil && simdMul(out[:w.Rows], x[:w.Cols], w, v) == nil {
		return
	}
	w.MulVec(out, x, v)
}

// simdMul quantizes x as w's format wants it and multiplies.
func simdMul(out, x []float32, w *quant.Matrix, v *quant.Vec) error {
	switch w.Type {
	case quant.Q8_0:
		q, d, _ := v.Q8_0(x)
		return simd.MulQ8_0(out, w.Q, q, d)
	case quant.Q4_0:
		q, d, sums := v.Q8_0(x)
		return simd.MulQ4_0(out, w.Q, q, d, sums)
	case quant.Q5_0:
		q, d, sums := v.Q8_0(x)
		return simd.MulQ5_0(out, w.Q, q, d, sums)
	case quant.Q4_K:
		q, d, sums := v.Q8_K(x)
		return simd.MulQ4_K(out, w.Q, q, d, sums)
	case quant.Q6_K:
		q, d, _ := v.Q8_K(x)
		return simd.MulQ6_K(out, w.Q, q, d)
	}
	return errNoKernel
}

// errNoKernel says a format has no SIMD kernel.
var errNoKernel = errors.New("no SIMD kernel for this format")

// scoreHeads under js scores the positions below l.positions &^ 3 of
// every head with the SIMD kernel, the same bits as attend's Go loop, and
// returns how many it scored (none without SIMD): the Go loop scores the
// rest.
func scoreHeads(att, q, keys []float32, l heads, sqrtHS float32) int {
	if simd != nil && simd.AttentionScores(att, q, keys, l.layout(), sqrtHS) == nil {
		return l.positions &^ 3
	}
	return 0
}

// swiglu under js is the SIMD kernel, the same bits as swigluGo, for
// all but the last len(gate) mod 4 values, which the Go loop takes.
func swiglu(gate, up []float32) {
	done := 0
	if simd != nil {
		if n, err := simd.SwiGLU(gate, up); err == nil {
			done = n
		}
	}
	swigluGo(gate[done:], up[done:])
}

// softmaxHeads under js is the SIMD kernel, the same bits as
// softmaxHeadsGo; the Go loop without SIMD or for rows of fewer than four
// positions, which the kernel does not take.
func softmaxHeads(att []float32, l heads) {
	if simd != nil && l.positions >= 4 && simd.Softmax(att, l.layout()) == nil {
		return
	}
	softmaxHeadsGo(att, l)
}

// mixHeads under js is the SIMD kernel, the same bits as mixHeadsGo; the
// Go loop without SIMD or for heads the kernel does not take (a size not
// a multiple of four).
func mixHeads(out, att, values []float32, l heads) {
	if simd != nil && simd.AttentionValues(out, att, values, l.layout()) == nil {
		return
	}
	mixHeadsGo(out, att, values, l)
}

// layout is l as package wasmsimd names it.
func (l heads) layout() wasmsimd.Heads {
	return wasmsimd.Heads{Count: l.count, Size: l.size, KVMul: l.kvMul, Positions: l.positions, Stride: l.stride, AttStride: l.attStride}
}

// Kernel names the matrix-vector kernel of the default arithmetic:
// "SIMD" for WebAssembly SIMD, "Go" for the Go loop.
func Kernel() string {
	if simd != nil {
		return "SIMD"
	}
	return "Go"
}

// DisableSIMD makes the default arithmetic use the Go loop from now on
// (the page's ?simd=0). The results do not change, only the speed.
func DisableSIMD() { simd = nil }
