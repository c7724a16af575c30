//go:build amd64 && !purego

package swiglu

// hasAVX2 reports whether the CPU runs gateAVX2: AVX2, with an operating
// system that saves the YMM registers.
var hasAVX2 = avx2()

// avx2 asks CPUID and XGETBV whether the CPU has AVX and AVX2 and the
// operating system saves the SSE and AVX state.
func avx2() bool

// gateAVX2 sets gate[0 … n) as Gate does, for n a multiple of 8; table
// is expf.Table()'s.
//
//go:noescape
func gateAVX2(gate, up *float32, n int, table *[32]uint64)
