//go:build js

package wasmsimd

import (
	"errors"
	"math"
	"runtime"
	"syscall/js"
	"unsafe"

	"nexttoken/engine/internal/expf"
)

// Heads lays out one layer's attention in float32s, as package
// transformer keeps it: head h's query and output at h·Size, position p's
// key and value rows at p·Stride with key head g at g·Size, and head h's
// weights at h·AttStride.
type Heads struct {
	Count     int // query heads
	Size      int // floats a head: a multiple of 4
	KVMul     int // query heads per key head: h's is h / KVMul
	Positions int // the positions each head attends to, from 0
	Stride    int // floats from one position's key (value) row to the next
	AttStride int // floats from one head's weights to the next, at least Positions
}

// The errors for what the attention kernels do not take. They are values
// made once: the caller's decode step falls back to its Go loops on them
// (a toy model's heads of 2 floats, every layer of every step) and must
// not allocate.
var (
	errLayout    = errors.New("the attention kernels do not take this layout")
	errTooLarge  = errors.New("the attention layout spans more memory than wasm32 has")
	errShortRows = errors.New("the softmax kernel takes rows of at least 4 positions")
)

// check returns an error for a layout the kernels do not take, and the
// floats a query (or output), a layer's key (or value) rows and the
// weights span.
func (l Heads) check() (heads, cache, weights int, err error) {
	if l.Count < 1 || l.Size < 4 || l.Size%4 != 0 || l.KVMul < 1 || l.Count%l.KVMul != 0 ||
		l.Positions < 1 || l.Stride < l.Count/l.KVMul*l.Size || l.AttStride < l.Positions {
		return 0, 0, 0, errLayout
	}
	if l.Positions*l.Stride > math.MaxInt32 || l.Count*l.AttStride > math.MaxInt32 {
		return 0, 0, 0, errTooLarge
	}
	return l.Count * l.Size, (l.Positions-1)*l.Stride + l.Count/l.KVMul*l.Size, (l.Count-1)*l.AttStride + l.Positions, nil
}

// AttentionScores sets att_h[p] = (q_h · k_p) / scale for every head h and
// every position p below l.Positions &^ 3, the dot product summed in
// order of the index, as transformer's Go loop sums it: the same bits. The
// caller scores the last l.Positions mod 4 positions of each head itself.
// Short slices panic; an error means a layout the kernel does not take, or
// that the call into JavaScript failed.
func (k *Kernel) AttentionScores(att, q, keys []float32, l Heads, scale float32) error {
	heads, cache, weights, err := l.check()
	if err != nil {
		return err
	}
	att, q, keys = att[:weights], q[:heads], keys[:cache]
	return k.attention(k.scores, att, q, keys, l, math.Float32bits(scale))
}

// Softmax sets each head's weights att_h[0 … l.Positions−1] to their
// softmax, as package softmax's Float32 computes it: the same bits. It
// takes l.Positions ≥ 4 (the caller computes shorter rows itself). Short
// slices panic; an error means a layout the kernel does not take, or that
// the call into JavaScript failed.
func (k *Kernel) Softmax(att []float32, l Heads) error {
	_, _, weights, err := l.check()
	if err != nil {
		return err
	}
	if l.Positions < 4 {
		return errShortRows
	}
	att = att[:weights]
	k.args[0] = address(unsafe.Pointer(&att[0]))
	k.args[1] = uint32(l.Positions)
	k.args[2] = uint32(l.Count)
	k.args[3] = uint32(4 * l.AttStride)
	k.args[4] = address(unsafe.Pointer(expf.Table()))
	err = k.call(k.softmax)
	runtime.KeepAlive(att)
	return err
}

// SwiGLU sets gate[i] = silu(gate[i])·up[i], silu(g) = g·(1 / (1 +
// expf(−g))), as transformer's feed-forward computes it, the same bits,
// for i below len(gate) &^ 3, and returns how many it set: the caller
// computes the rest. Short slices panic; an error means that the call
// into JavaScript failed.
func (k *Kernel) SwiGLU(gate, up []float32) (int, error) {
	n := len(gate) &^ 3
	if n == 0 {
		return 0, nil
	}
	up = up[:n]
	k.args[0] = address(unsafe.Pointer(&gate[0]))
	k.args[1] = address(unsafe.Pointer(&up[0]))
	k.args[2] = uint32(n)
	k.args[3] = address(unsafe.Pointer(expf.Table()))
	err := k.call(k.swiglu)
	runtime.KeepAlive(gate)
	runtime.KeepAlive(up)
	return n, err
}

// AttentionValues sets out_h[i] = Σ_p att_h[p]·v_p[i] for every head h,
// summed in order of p from 0, as transformer's Go loop sums it: the same
// bits. Short slices panic; an error means a layout the kernel does not
// take, or that the call into JavaScript failed.
func (k *Kernel) AttentionValues(out, att, values []float32, l Heads) error {
	heads, cache, weights, err := l.check()
	if err != nil {
		return err
	}
	out, att, values = out[:heads], att[:weights], values[:cache]
	return k.attention(k.values, out, att, values, l, 0)
}

// attention calls attention_scores (a, b, c = att, q, keys) or
// attention_values (out, att, values): their arguments differ only in
// the first three and in the scale, which attention_values does not read.
func (k *Kernel) attention(kernel js.Value, a, b, c []float32, l Heads, scale uint32) error {
	k.args[0] = address(unsafe.Pointer(&a[0]))
	k.args[1] = address(unsafe.Pointer(&b[0]))
	k.args[2] = address(unsafe.Pointer(&c[0]))
	k.args[3] = uint32(l.Positions)
	k.args[4] = uint32(4 * l.Stride)
	k.args[5] = uint32(4 * l.Size)
	k.args[6] = uint32(l.Count)
	k.args[7] = uint32(l.KVMul)
	k.args[8] = uint32(4 * l.AttStride)
	k.args[9] = scale
	err := k.call(kernel)
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	return err
}
