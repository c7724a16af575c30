package gguf

import "testing"

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
