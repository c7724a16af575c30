//go:build !js

package transformer

import "nexttoken/engine/quant"

// matmul natively is gonum's assembly SGEMV (BenchmarkMatmul).
func matmul(out, x, w []float32, n, d int) { matmulGonum(out, x, w, n, d) }

// mulQuantized natively is package quant's kernels.
func mulQuantized(out, x []float32, w *quant.Matrix, v *quant.Vec) { w.MulVec(out, x, v) }

// scoreHeads natively scores no position: attend's Go loop scores them all.
func scoreHeads(att, q, keys []float32, l heads, sqrtHS float32) int { return 0 }

// swiglu natively is the Go loop.
func swiglu(gate, up []float32) { swigluGo(gate, up) }

// softmaxHeads natively is the Go loop.
func softmaxHeads(att []float32, l heads) { softmaxHeadsGo(att, l) }

// mixHeads natively is the Go loop.
func mixHeads(out, att, values []float32, l heads) { mixHeadsGo(out, att, values, l) }
