package quant

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMulVec measures each format's product at the shapes of
// stories15M's layers with dim 256 (the K formats need rows of whole
// 256-weight blocks): W1 (768 × 256), W2 (256 × 768) and the classifier
// (32000 × 256); at SmolLM2-135M's shapes (dim 576, hidden 1536, vocabulary
// 49,152), whose larger matrices stream from memory; and, for Q8_0 and Q4_0, the alternative of multiplying in
// float32 without quantizing x (floatQ8_0, floatQ4_0), and with their
// rows interleaved (interleave.go); each with the
// assembly kernels and with the Go ones, where there are both. Run it
// natively and under js/wasm.
func BenchmarkMulVec(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	kernels := []struct {
		name        string
		t           Type
		mul         func(m *Matrix, out, x []float32, v *Vec) // nil: MulVec
		interleaved bool
	}{
		{name: "Q8_0", t: Q8_0},
		{name: "Q4_0", t: Q4_0},
		{name: "Q8_0-interleaved", t: Q8_0, interleaved: true},
		{name: "Q4_0-interleaved", t: Q4_0, interleaved: true},
		{name: "Q5_0", t: Q5_0},
		{name: "Q5_1", t: Q5_1},
		{name: "Q4_K", t: Q4_K},
		{name: "Q5_K", t: Q5_K},
		{name: "Q6_K", t: Q6_K},
		{name: "Q2_K", t: Q2_K},
		{name: "Q3_K", t: Q3_K},
		{name: "IQ4_NL", t: IQ4_NL},
		{name: "IQ4_XS", t: IQ4_XS},
		{name: "floatQ8_0", t: Q8_0, mul: func(m *Matrix, out, x []float32, _ *Vec) { floatQ8_0(out, m.Q, x) }},
		{name: "floatQ4_0", t: Q4_0, mul: func(m *Matrix, out, x []float32, _ *Vec) { floatQ4_0(out, m.Q, x) }},
	}
	for _, shape := range [][2]int{{768, 256}, {256, 768}, {32000, 256}, {1536, 576}, {576, 1536}, {49152, 576}} {
		rows, cols := shape[0], shape[1]
		x := randomX(rng, cols)
		out := make([]float32, rows)
		for _, k := range kernels {
			if cols%k.t.BlockSize() != 0 || k.interleaved && !canInterleave {
				continue // 576 is not whole blocks of the K formats; no interleaved rows without their kernels
			}
			mul := k.mul
			if mul == nil {
				mul = (*Matrix).MulVec
			}
			m := Random(k.t, rows, cols, 0.1, rng)
			if k.interleaved {
				interleave(&m)
			}
			var v Vec
			for _, asm := range []bool{true, false} {
				UseSIMD(asm)
				if asm && Kernel() == "Go" {
					continue // no assembly: the Go kernels once
				}
				b.Run(fmt.Sprintf("%s/%dx%d/%s", k.name, rows, cols, Kernel()), func(b *testing.B) {
					UseSIMD(asm)
					b.SetBytes(int64(m.Bytes()))
					for b.Loop() {
						mul(&m, out, x, &v)
					}
				})
			}
			UseSIMD(true)
		}
	}
}

// floatQ8_0 multiplies Q8_0 rows by x in float32: per block, Σ q·x, times
// d. The alternative to quantizing x that BenchmarkMulVec measures.
func floatQ8_0(out []float32, w []byte, x []float32) {
	rowBytes := len(x) / 32 * q8_0Bytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b := range len(x) / 32 {
			blk := (*[q8_0Bytes]byte)(row[b*q8_0Bytes:])
			xs := (*[32]float32)(x[b*32:])
			var s0, s1, s2, s3 float32
			for j := 0; j < 32; j += 4 {
				s0 += float32(int8(blk[2+j])) * xs[j]
				s1 += float32(int8(blk[3+j])) * xs[j+1]
				s2 += float32(int8(blk[4+j])) * xs[j+2]
				s3 += float32(int8(blk[5+j])) * xs[j+3]
			}
			sum += ((s0 + s1) + (s2 + s3)) * half(blk[:])
		}
		out[i] = sum
	}
}

// floatQ4_0 is floatQ8_0 for Q4_0 rows.
func floatQ4_0(out []float32, w []byte, x []float32) {
	rowBytes := len(x) / 32 * q4_0Bytes
	for i := range out {
		row := w[i*rowBytes : (i+1)*rowBytes]
		var sum float32
		for b := range len(x) / 32 {
			blk := (*[q4_0Bytes]byte)(row[b*q4_0Bytes:])
			lo := (*[16]float32)(x[b*32:])
			hi := (*[16]float32)(x[b*32+16:])
			var s0, s1 float32
			for j, q := range blk[2:] {
				s0 += float32(int32(q&0xf)-8) * lo[j]
				s1 += float32(int32(q>>4)-8) * hi[j]
			}
			sum += (s0 + s1) * half(blk[:])
		}
		out[i] = sum
	}
}

// BenchmarkInterleave measures laying out the rows of SmolLM2-135M's
// classifier (49,152 × 576) interleaved, in Q8_0 and Q4_0: work a model's
// load adds natively.
func BenchmarkInterleave(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, t := range []Type{Q8_0, Q4_0} {
		m := Random(t, 49152, 576, 0.1, rng)
		b.Run(t.String(), func(b *testing.B) {
			b.SetBytes(int64(m.Bytes()))
			for b.Loop() {
				m.groups = 0
				interleave(&m)
			}
		})
	}
}
