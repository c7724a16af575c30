//go:build js

package transformer

import (
	"errors"
	"fmt"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/internal/wasmsimd"
	"nexttoken/engine/quant"
)

// Kernels under js are the WebAssembly SIMD kernels, once LoadKernels has
// instantiated them, or none (the zero Kernels).
type Kernels struct {
	simd *wasmsimd.Kernel // nil: Go's loops
}

// LoadKernels instantiates the WebAssembly SIMD kernels on the Go
// program's own memory (package internal/wasmsimd). It fails where the
// browser's WebAssembly has no SIMD or the Go instance's memory cannot be
// reached; the Go loops then remain, as the zero Kernels it returns.
func LoadKernels() (Kernels, error) {
	k, err := wasmsimd.Load()
	if err != nil {
		return Kernels{}, fmt.Errorf("transformer: the WebAssembly SIMD kernels did not load: %w", err)
	}
	return Kernels{simd: k}, nil
}

// MissingModules returns the kernel modules that m's matrices need and
// k has not added (package internal/wasmsimd's fetched modules, of the
// formats only a model brought by the reader has): each one's file, which
// the page serves in web/kernels, and the address to fetch it by, relative
// to that folder. Until AddModule adds one, its formats run on Go's loops,
// which give the same bits.
func (k Kernels) MissingModules(m *checkpoint.Model) []Module {
	if k.simd == nil {
		return nil
	}
	var missing []Module
	ms := m.Matrices()
	each := []*quant.Matrix{&ms.Classifier}
	for l := range ms.Layers {
		lm := &ms.Layers[l]
		each = append(each, &lm.WQ, &lm.WK, &lm.WV, &lm.WO, &lm.W1, &lm.W2, &lm.W3)
	}
next:
	for _, w := range each {
		file, address, ok := k.simd.Missing(w.Type)
		if !ok {
			continue
		}
		for _, m := range missing {
			if m.File == file {
				continue next
			}
		}
		missing = append(missing, Module{File: file, Address: address})
	}
	return missing
}

// AddModule adds the kernel module called file (MissingModules), whose
// bytes are module, refusing bytes that are not the module this program
// was built with.
func (k Kernels) AddModule(file string, module []byte) error {
	if k.simd == nil {
		return errors.New("transformer: no SIMD kernels to add a module to")
	}
	return k.simd.AddModule(file, module)
}

// Name names the kernels: "SIMD" for WebAssembly SIMD, "Go" for Go's loops.
func (k Kernels) Name() string {
	if k.simd != nil {
		return "SIMD"
	}
	return "Go"
}

// matmul under js is the SIMD kernel, which sums in matmulUnrolled's
// order and so gives its results bit for bit, 3–4 times faster
// (BenchmarkMatmulSIMD under node); otherwise the unrolled loop.
func (k Kernels) matmul(out, x, w []float32, n, d int) {
	if k.simd != nil && k.simd.MatVec(out, x, w, n, d) == nil {
		return
	}
	matmulUnrolled(out, x, w, n, d)
}

// mulQuantized under js multiplies quantized weights with the SIMD
// kernels, which give quant's results bit for bit, several times faster
// (BenchmarkMulQuant in package internal/wasmsimd); without SIMD, with
// quant's Go kernels.
func (k Kernels) mulQuantized(out, x []float32, w *quant.Matrix, v *quant.Vec) {
	if k.simd != nil && k.simdMul(out[:w.Rows], x[:w.Cols], w, v) == nil {
		return
	}
	w.MulVec(out, x, v)
}

// simdMul quantizes x as w's format wants it and multiplies.
func (k Kernels) simdMul(out, x []float32, w *quant.Matrix, v *quant.Vec) error {
	k.quantize(w, v, x)
	return k.simdMulQuantized(out, w, v)
}

// quantize quantizes x into v as w multiplies it, under js the blocks of
// 32 with the SIMD kernel (which stops before blocks it does not take, and
// quant's Go code quantizes those), the same bits 3–4 times faster at
// SmolLM2-135M's widths (BenchmarkQuantize in package internal/wasmsimd).
func (k Kernels) quantize(w *quant.Matrix, v *quant.Vec, x []float32) {
	if k.simd == nil {
		w.Quantize(v, x)
		return
	}
	w.QuantizeWith(v, x, k.simd.QuantizeQ8_0)
}

// simdMulQuantized multiplies w by x quantized into v (Quantize).
func (k Kernels) simdMulQuantized(out []float32, w *quant.Matrix, v *quant.Vec) error {
	q, d, sums, s := v.Blocks()
	switch w.Type {
	case quant.Q8_0:
		return k.simd.MulQ8_0(out, w.Q, q, d)
	case quant.Q4_0:
		return k.simd.MulQ4_0(out, w.Q, q, d, sums)
	case quant.Q5_0:
		return k.simd.MulQ5_0(out, w.Q, q, d, sums)
	case quant.Q5_1:
		return k.simd.MulQ5_1(out, w.Q, q, d, s)
	case quant.Q4_K:
		return k.simd.MulQ4_K(out, w.Q, q, d, sums)
	case quant.Q5_K:
		return k.simd.MulQ5_K(out, w.Q, q, d, sums)
	case quant.Q6_K:
		return k.simd.MulQ6_K(out, w.Q, q, d)
	case quant.Q2_K:
		return k.simd.MulQ2_K(out, w.Q, q, d, sums)
	case quant.Q3_K:
		return k.simd.MulQ3_K(out, w.Q, q, d)
	case quant.IQ4_NL:
		return k.simd.MulIQ4_NL(out, w.Q, q, d)
	case quant.IQ4_XS:
		return k.simd.MulIQ4_XS(out, w.Q, q, d)
	}
	return errNoKernel
}

// mulBatch sets out[i] = W·x[i] for every row i, its sums mul's: x
// quantized into vecs once, W's rows a tile at a time (tileRows), each
// tile read from memory once and multiplied by every x while it is in
// cache.
func (k Kernels) mulBatch(out, x [][]float32, w *quant.Matrix, vecs []quant.Vec) {
	k.quantizeRows(w, x, vecs)
	eachTile(w, 0, w.Rows, func(span *quant.Matrix, r, end int) {
		for i := range x {
			k.mulSpan(out[i][r:end], x[i], span, &vecs[i])
		}
	})
}

// mulSpan is one tile's product of mulBatch: x, or its quantization v.
func (k Kernels) mulSpan(out, x []float32, w *quant.Matrix, v *quant.Vec) {
	if w.Type == quant.F32 {
		k.matmul(out, x[:w.Cols], w.F32, w.Cols, w.Rows)
		return
	}
	if k.simd != nil && k.simdMulQuantized(out, w, v) == nil {
		return
	}
	w.MulQuantized(out, v)
}

// errNoKernel says a format has no SIMD kernel.
var errNoKernel = errors.New("no SIMD kernel for this format")

// scoreHeads under js scores the positions below l.positions &^ 3 of
// every head with the SIMD kernel, the same bits as attend's Go loop, and
// returns how many it scored (none without SIMD): the Go loop scores the
// rest.
func (k Kernels) scoreHeads(att, q, keys []float32, l heads, sqrtHS float32) int {
	if k.simd != nil && k.simd.AttentionScores(att, q, keys, l.layout(), sqrtHS) == nil {
		return l.positions &^ 3
	}
	return 0
}

// swiglu under js is the SIMD kernel, the same bits as swigluGo, for
// all but the last len(gate) mod 4 values, which the Go loop takes.
func (k Kernels) swiglu(gate, up []float32) {
	done := 0
	if k.simd != nil {
		if n, err := k.simd.SwiGLU(gate, up); err == nil {
			done = n
		}
	}
	swigluGo(gate[done:], up[done:])
}

// softmaxHeads under js is the SIMD kernel, the same bits as
// softmaxHeadsGo; the Go loop without SIMD or for rows of fewer than four
// positions, which the kernel does not take.
func (k Kernels) softmaxHeads(att []float32, l heads) {
	if k.simd != nil && l.positions >= 4 && k.simd.Softmax(att, l.layout()) == nil {
		return
	}
	softmaxHeadsGo(att, l)
}

// mixHeads under js is the SIMD kernel, the same bits as mixHeadsGo; the
// Go loop without SIMD or for heads the kernel does not take (a size not
// a multiple of four).
func (k Kernels) mixHeads(out, att, values []float32, l heads) {
	if k.simd != nil && k.simd.AttentionValues(out, att, values, l.layout()) == nil {
		return
	}
	mixHeadsGo(out, att, values, l)
}

// layout is l as package internal/wasmsimd names it.
func (l heads) layout() wasmsimd.Heads {
	return wasmsimd.Heads{Count: l.count, Size: l.size, KVMul: l.kvMul, Positions: l.positions, Stride: l.stride, AttStride: l.attStride}
}

// MaxThreads is the most threads StartThreads runs.
const MaxThreads = wasmsimd.MaxThreads

// StartThreads runs k's matrix products on n threads from now on, once
// they have started: the caller's and n − 1 workers over the program's
// shared memory, each with its share of a product's rows (package
// internal/wasmsimd), so the logits are the same bits. It fails where the
// memory is not shared (a page that is not cross-origin isolated) or k
// has no SIMD kernels, and k stays on one thread.
func (k Kernels) StartThreads(n int) error {
	if k.simd == nil {
		return errors.New("transformer: threads need the SIMD kernels")
	}
	return k.simd.StartThreads(n)
}

// Shared reports whether the program's memory is shared, so that
// StartThreads can run threads on it: a cross-origin isolated page's
// program built for it (web/shared/app.wasm).
func (k Kernels) Shared() bool { return k.simd != nil && k.simd.Shared() }

// Threads is the number of threads k's products run on now.
func (k Kernels) Threads() int {
	if k.simd == nil {
		return 1
	}
	return k.simd.Threads()
}

// mulThree under js sets q = Wq·x, k = Wk·x and v = Wv·x with the SIMD
// kernels (mulEach), and reports whether it did: not without them.
func (k Kernels) mulThree(q, kk, v, x []float32, wq, wk, wv *quant.Matrix, vec *quant.Vec) bool {
	return k.mulEach(x, vec, matrixProduct{q, wq}, matrixProduct{kk, wk}, matrixProduct{v, wv})
}

// mulGated under js sets gate = act(W1·x) ⊙ W3·x, act SiLU or with gelu
// GELU, its products mulEach's, and reports whether it did: not without
// the SIMD kernels.
func (k Kernels) mulGated(gate, up, x []float32, w1, w3 *quant.Matrix, gelu bool, v *quant.Vec) bool {
	if !k.mulEach(x, v, matrixProduct{gate, w1}, matrixProduct{up, w3}) {
		return false
	}
	if gelu {
		gegluGo(gate, up)
	} else {
		k.swiglu(gate, up)
	}
	return true
}

// matrixProduct is out = W·x for an x that mulEach gives.
type matrixProduct struct {
	out []float32
	w   *quant.Matrix
}

// mulEach sets p.out = p.w·x for every product p, each row mul's, with the
// SIMD kernels, and reports whether it did: not without them. x is
// quantized into vec once for a run of matrices of one format, and the
// products the kernels' threads split are split as one (a batch: one
// wake of the threads instead of one a product).
func (k Kernels) mulEach(x []float32, vec *quant.Vec, ps ...matrixProduct) bool {
	if k.simd == nil {
		return false
	}
	failed, quantized := false, quant.F32
	k.simd.Batch()
	for _, p := range ps {
		if p.w.Type != quant.F32 && p.w.Type != quantized {
			failed = k.simd.RunBatch() != nil || failed // vec is about to change
			k.simd.Batch()
			k.quantize(p.w, vec, x)
			quantized = p.w.Type
		}
		k.mulSpan(p.out[:p.w.Rows], x, p.w, vec)
	}
	if k.simd.RunBatch() != nil || failed {
		for _, p := range ps { // a batch failed: Go's loops give the same bits
			if p.w.Type == quant.F32 {
				matmulUnrolled(p.out, x, p.w.F32, p.w.Cols, p.w.Rows)
			} else {
				p.w.MulVec(p.out, x, vec)
			}
		}
	}
	return true
}

// attendHeads under js is none: attend runs its layer-wide SIMD kernels.
func (Kernels) attendHeads(attendJob) bool { return false }
