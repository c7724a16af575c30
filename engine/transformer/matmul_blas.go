//go:build !js

package transformer

import (
	"errors"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/internal/matvec"
	"nexttoken/engine/quant"
)

// Kernels natively are Go's loops and the assembly of packages matvec and
// quant, chosen by the CPU, which need no loading: the zero Kernels run
// on the calling goroutine, Threads' split every matrix product's rows
// among more.
type Kernels struct {
	threads *threads // nil: the calling goroutine alone
}

// LoadKernels fails natively: the WebAssembly SIMD kernels run only in a
// js/wasm build. The zero Kernels it returns are the native ones.
func LoadKernels() (Kernels, error) {
	return Kernels{}, errors.New("transformer: the WebAssembly SIMD kernels run only in a js/wasm build")
}

// MissingModules natively is none: there are no modules to fetch.
func (Kernels) MissingModules(*checkpoint.Model) []Module { return nil }

// AddModule natively fails: there are no modules to add.
func (Kernels) AddModule(string, []byte) error {
	return errors.New("transformer: kernel modules are for the WebAssembly SIMD kernels")
}

// Name natively is "Go": package matvec's and package quant's kernels,
// chosen by the CPU (quant.Kernel names quant's).
func (Kernels) Name() string { return "Go" }

// matmul natively is package matvec's kernel, AVX2 with FMA where the
// CPU has them (BenchmarkMatmul), on k's threads.
func (k Kernels) matmul(out, x, w []float32, n, d int) {
	if t := k.threads; t.take(n * d) {
		t.f32 = f32Rows{out, x, w, n}
		t.split(&t.f32, d, 16)
		return
	}
	matvec.Mul(out, x, w, n, d)
}

// mulQuantized natively is package quant's kernels, on k's threads.
func (k Kernels) mulQuantized(out, x []float32, w *quant.Matrix, v *quant.Vec) {
	if t := k.threads; t.take(w.Rows * w.Cols) {
		t.quant = quantRows{out, x, w, quantized{v, t.vecs, t.formats}}
		t.split(&t.quant, w.Rows, 16)
		return
	}
	w.MulVec(out, x, v)
}

// quantize quantizes x into v as w multiplies it: natively, package
// quant's code does.
func (Kernels) quantize(w *quant.Matrix, v *quant.Vec, x []float32) { w.Quantize(v, x) }

// mulBatch sets out[i] = W·x[i] for every row i, its sums mul's, on k's
// threads: x quantized into vecs once, W's rows a tile at a time
// (tileRows), each tile read from memory once and multiplied by every x
// while it is in cache.
func (k Kernels) mulBatch(out, x [][]float32, w *quant.Matrix, vecs []quant.Vec) {
	k.quantizeRows(w, x, vecs)
	b := batchRows{out, x, w, vecs}
	if t := k.threads; t.take(len(x) * w.Rows * w.Cols) {
		t.batch = b
		t.split(&t.batch, w.Rows, 16)
		return
	}
	b.Rows(0, 0, w.Rows)
}

// mulThree sets q = Wq·x, k = Wk·x and v = Wv·x, each row mul's, on k's
// threads as one split of the three matrices' rows, stacked (one wake of
// the threads instead of three, and x quantized once a thread and
// format), and reports whether it did: not without threads, nor for
// products too small to split (splitMin, the three together), nor for
// matrices whose rows are not whole spans of 16 (threads.split).
func (k Kernels) mulThree(q, kk, v, x []float32, wq, wk, wv *quant.Matrix, vec *quant.Vec) bool {
	t := k.threads
	if t == nil || wq.Rows%16 != 0 || wk.Rows%16 != 0 || wv.Rows%16 != 0 {
		return false
	}
	if !t.take((wq.Rows + wk.Rows + wv.Rows) * wq.Cols) {
		return false
	}
	t.three = threeRows{x: x, out: [3][]float32{q, kk, v}, w: [3]*quant.Matrix{wq, wk, wv},
		ends: [3]int{wq.Rows, wq.Rows + wk.Rows, wq.Rows + wk.Rows + wv.Rows}, quantized: quantized{vec, t.vecs, t.formats}}
	t.split(&t.three, t.three.ends[2], 16)
	return true
}

// mulGated sets gate = act(W1·x) ⊙ W3·x, act SiLU or with gelu GELU,
// each product's rows mul's and the activation gate's, on k's threads as
// one split: each thread multiplies its span of both matrices' rows and
// gates that span, so the feed-forward's gating runs on every thread. It
// reports whether it did (not without threads, nor for products too
// small to split).
func (k Kernels) mulGated(gate, up, x []float32, w1, w3 *quant.Matrix, gelu bool, v *quant.Vec) bool {
	t := k.threads
	if !t.take(2 * w1.Rows * w1.Cols) {
		return false
	}
	t.gated = gatedRows{x: x, gate: gate, up: up, w1: w1, w3: w3, gelu: gelu, quantized: quantized{v, t.vecs, t.formats}}
	t.split(&t.gated, w1.Rows, 16)
	return true
}

// attendHeads runs a layer's attention a on k's threads, its heads split
// among them, and reports whether it did: not without threads, nor for
// attention too small to split (attendMin).
func (k Kernels) attendHeads(a attendJob) bool {
	t := k.threads
	l := a.layer
	if !t.takeHeads(2 * l.count * l.positions * l.size) {
		return false
	}
	t.attention = a
	t.split(&t.attention, l.count, 1)
	return true
}

// batchRows is a batched product, out[i] = W·x[i], each x quantized into
// vecs[i] for a quantized W.
type batchRows struct {
	out, x [][]float32
	w      *quant.Matrix
	vecs   []quant.Vec
}

func (b *batchRows) Rows(_, from, to int) {
	eachTile(b.w, from, to, func(span *quant.Matrix, r, end int) {
		for i, x := range b.x {
			if span.Type == quant.F32 {
				matvec.Mul(b.out[i][r:end], x, span.F32, span.Cols, end-r)
			} else {
				span.MulQuantized(b.out[i][r:end], &b.vecs[i])
			}
		}
	})
}

// scoreHeads natively scores every position of every head with package
// matvec's Scores, in AVX2 where the CPU has it: the same bits as
// attend's Go loop.
func (Kernels) scoreHeads(att, q, keys []float32, l heads, sqrtHS float32) int {
	for h := range l.count {
		matvec.Scores(att[h*l.attStride:][:l.positions], q[h*l.size:(h+1)*l.size], keys[l.keyOffset(h):], l.stride, sqrtHS)
	}
	return l.positions
}

// swiglu natively is package matvec's SwiGLU, in AVX2 where the CPU has
// it: the same bits as swigluGo.
func (Kernels) swiglu(gate, up []float32) { matvec.SwiGLU(gate, up) }

// softmaxHeads natively is the Go loop.
func (Kernels) softmaxHeads(att []float32, l heads) { softmaxHeadsGo(att, l) }

// mixHeads natively is the Go loop: package matvec's Mix, in AVX2 where
// the CPU has it.
func (Kernels) mixHeads(out, att, values []float32, l heads) { mixHeadsGo(out, att, values, l) }
