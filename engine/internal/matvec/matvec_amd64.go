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

// scoresAVX2 sets att[0 … 8·groups) as Scores does, for n a multiple of
// 8: eight positions at a time, a lane each.
//
//go:noescape
func scoresAVX2(att, q, keys *float32, n, stride, groups int, scale float32)

// mixAVX2 sets out[0 … n) as Mix does, for n a multiple of 8, over
// positions weights.
//
//go:noescape
func mixAVX2(out, w, values *float32, n, stride, positions int)

// swigluAVX2 sets gate[0 … n) as SwiGLU does, for n a multiple of 8;
// table is expf.Table()'s. It needs AVX2 alone.
//
//go:noescape
func swigluAVX2(gate, up *float32, n int, table *[32]uint64)
