// Package wasmsimd gives the browser engine WebAssembly SIMD kernels, which
// the Go compiler does not emit: small companion modules (matvec.wasm,
// q4_k.wasm, q6_k.wasm and attention.wasm, written by Generate with a
// hand-made encoder, see matvec.go) that work directly on the Go program's
// own linear memory. Each imports the Go instance's exported memory, so a
// Go slice's address is a valid offset into it: Go's heap does not move,
// and when Go grows its memory the modules see the growth, as all hold the
// same WebAssembly.Memory.
//
// Under js, Load instantiates the modules and Kernel.MatVec (float32),
// Kernel.MulQ8_0, MulQ4_0, MulQ5_0, MulQ4_K and MulQ6_K (quantized weights times a
// vector quantized to 8 bits, as package quant multiplies them) call them,
// once per matrix, and Kernel.AttentionScores, Kernel.Softmax (with
// package expf's exponential) and Kernel.AttentionValues once per layer,
// and Kernel.SwiGLU once per feed-forward. The bytes are embedded in the Go program rather than
// served next to it: they are 10 KB, there is then no second request,
// cache entry or version to keep in step with app.wasm, and tests under
// node load them as the browser does.
package wasmsimd

import _ "embed"

//go:generate go run ./gen .

// The modules, Generate's output.
var (
	//go:embed matvec.wasm
	matvecModule []byte
	//go:embed q5_0.wasm
	q5_0Module []byte
	//go:embed q5_1.wasm
	q5_1Module []byte
	//go:embed q4_k.wasm
	q4_KModule []byte
	//go:embed q5_k.wasm
	q5_KModule []byte
	//go:embed q6_k.wasm
	q6_KModule []byte
	//go:embed attention.wasm
	attentionModule []byte
	//go:embed swiglu.wasm
	swigluModule []byte
)

// maxSyncModule is the largest module Chromium compiles synchronously on
// the main thread (new WebAssembly.Module); larger ones need the
// asynchronous WebAssembly.compile, which a Go call cannot wait for.
const maxSyncModule = 4096
