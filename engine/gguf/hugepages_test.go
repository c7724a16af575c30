package gguf

import (
	"slices"
	"testing"
	"unsafe"

	"nexttoken/engine/quant"
)

// TestHugePagesKeepsMemory checks that asking for huge pages, over slices
// smaller than a huge page, larger, and not aligned to one, leaves the
// memory as it was and writable.
func TestHugePagesKeepsMemory(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 2 << 20, 5<<20 + 3} {
		b := make([]byte, n+1)[1:] // not aligned
		for i := range b {
			b[i] = byte(i % 251)
		}
		hugePages(b)
		for i := range b {
			if b[i] != byte(i%251) {
				t.Fatalf("%d bytes: byte %d changed to %d", n, i, b[i])
			}
			b[i]++
		}
		f := make([]float32, n/4)
		hugePages(f)
		for i := range f {
			if f[i] != 0 {
				t.Fatalf("%d float32s: value %d is %v", len(f), i, f[i])
			}
			f[i] = 1
		}
	}
}

// TestModelMatricesInOneArena checks that Model reads a quantized model's
// matrices from a file into one allocation, each at a cache line's start,
// none able to grow into the next: huge pages back whole 2 MiB pages
// only, which one matrix of a small model's layers does not fill.
func TestModelMatricesInOneArena(t *testing.T) {
	q := refModel(t, "q4_k_m").Weights.Quantized // Open, then Model
	if q == nil {
		t.Fatal("the model has no quantized matrices")
	}
	all := []quant.Matrix{q.TokenEmbedding}
	for _, l := range q.Layers {
		all = append(all, l.WQ, l.WK, l.WV, l.WO, l.W1, l.W2, l.W3)
	}
	var starts []uintptr
	ends := map[uintptr]uintptr{}
	for _, x := range all {
		if len(x.Q) == 0 || len(x.Q) != cap(x.Q) {
			t.Fatalf("a %d × %d matrix has %d bytes of capacity %d", x.Rows, x.Cols, len(x.Q), cap(x.Q))
		}
		start := uintptr(unsafe.Pointer(unsafe.SliceData(x.Q)))
		if start%64 != 0 {
			t.Errorf("a %d × %d matrix starts %d bytes into a cache line", x.Rows, x.Cols, start%64)
		}
		starts = append(starts, start)
		ends[start] = start + uintptr(len(x.Q))
	}
	slices.Sort(starts)
	for i := 1; i < len(starts); i++ {
		if gap := starts[i] - ends[starts[i-1]]; gap >= 64 {
			t.Fatalf("matrix %d of %d starts %d bytes after the one before ends: not one arena", i, len(starts), gap)
		}
	}
}
