//go:build amd64 && !purego

package matvec

// hasFMA reports whether the CPU runs mulAVX2: AVX2 and FMA, with an
// operating system that saves the YMM registers.
var hasFMA = avx2FMA()

// avx2FMA asks CPUID and XGETBV whether the CPU has AVX2 and FMA and the
// operating system saves the SSE and AVX state.
func avx2FMA() bool

// mulAVX2 sets out[i] to the sum over the first cols values of row i of
// w (rows of stride values) times x, for i < rows; cols is a multiple of 8.
//
//go:noescape
func mulAVX2(out, x, w *float32, stride, cols, rows int)
