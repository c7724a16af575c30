//go:build !amd64 || purego

package quant

// Without assembly kernels every row goes to the Go ones.

// UseSIMD does nothing: there are no assembly kernels to turn on.
func UseSIMD(bool) {}

// prepare has nothing to derive: the Go kernels read v's blocks alone.
func (v *Vec) prepare(Type) {}

// Kernel names the kernels MulVec uses: the Go ones.
func Kernel() string { return "Go" }

func mulQ8_0SIMD([]float32, []byte, *Vec) int { return 0 }

func mulQ4_0SIMD([]float32, []byte, *Vec) int { return 0 }

func mulQ5_0SIMD([]float32, []byte, *Vec) int { return 0 }

func mulQ5_1SIMD([]float32, []byte, *Vec) int { return 0 }

func mulIQ4_NLSIMD([]float32, []byte, *Vec) int { return 0 }

func mulQ4_KSIMD([]float32, []byte, *Vec) int { return 0 }

func mulQ5_KSIMD([]float32, []byte, *Vec) int { return 0 }

func mulQ6_KSIMD([]float32, []byte, *Vec) int { return 0 }

func mulQ3_KSIMD([]float32, []byte, *Vec) int { return 0 }

func mulQ2_KSIMD([]float32, []byte, *Vec) int { return 0 }

func mulIQ4_XSSIMD([]float32, []byte, *Vec) int { return 0 }

func quantizeQ8_0SIMD([]float32, []int8, []float32, []float32, []int32) int { return 0 }

// canInterleave is false: no kernel here reads interleaved rows, and the
// code that reads them is left out of the build (app.wasm's bytes).
const canInterleave = false

// Interleave does nothing: no kernel here reads interleaved rows.
func Interleave(*Matrix) {}

func mulGroupsSIMD(Type, []float32, []byte, *Vec) bool { return false }
