package transformer

import (
	"math"
	"sync"

	"nexttoken/engine/quant"
)

// geluTable is ggml's GELU (ggml_table_gelu_f16, which its CPU backend
// reads for every GELU it computes in float32): for each half-precision
// bit pattern h, the half-precision GELU of the number h is. Made on first
// use: only GELU models (Gemma) read it.
var geluTable = sync.OnceValue(func() *[1 << 16]uint16 {
	var t [1 << 16]uint16
	for h := range t {
		t[h] = quant.FloatToHalf(geluTanh(quant.HalfToFloat(uint16(h))))
	}
	return &t
})

// geluTanh is GELU's tanh approximation as ggml_gelu_f32 computes it, in
// float32: 0.5·x·(1 + tanh(√(2/π)·x·(1 + 0.044715·x²))).
func geluTanh(x float32) float32 {
	const a, sqrt2OverPi = float32(0.044715), float32(0.79788456080286535587989211986876)
	inner := float32(float32(sqrt2OverPi*x) * (1 + float32(float32(a*x)*x)))
	return float32(float32(0.5*x) * (1 + float32(math.Tanh(float64(inner)))))
}

// gelu is ggml_vec_gelu_f32 with GGML_GELU_FP16, as llama.cpp's CPU
// backend runs it: 0 below −10, x above 10, else the table's GELU of x
// rounded to half precision.
func gelu(x float32) float32 {
	switch {
	case x <= -10:
		return 0
	case x >= 10:
		return x
	}
	return quant.HalfToFloat(geluTable()[quant.FloatToHalf(x)])
}

// geluGo sets x to gelu(x): GPT-2's feed-forward, which has no gate.
func geluGo(x []float32) {
	for i, v := range x {
		x[i] = gelu(v)
	}
}

// gegluGo sets gate to gelu(gate) ⊙ up: a GELU feed-forward (Gemma's).
func gegluGo(gate, up []float32) {
	up = up[:len(gate)]
	for i, g := range gate {
		gate[i] = gelu(g) * up[i]
	}
}
