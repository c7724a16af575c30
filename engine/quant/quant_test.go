package quant

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// ggmlFile reads a file written by testdata/ggml/blocks.c.
func ggmlFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ggml", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func floats(b []byte) []float32 {
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}

var quantized = []struct {
	t    Type
	file string
}{{Q8_0, "q8_0"}, {Q4_0, "q4_0"}, {Q5_0, "q5_0"}, {Q4_K, "q4_K"}, {Q5_K, "q5_K"}, {Q5_1, "q5_1"}, {Q6_K, "q6_K"}, {IQ4_NL, "iq4_nl"}, {IQ4_XS, "iq4_xs"}}

// TestDequantizeMatchesGGML checks Row against what ggml's
// dequantize_row_* made of the same blocks (testdata/ggml/blocks.c): half
// of them ggml's own quantization of random floats, half random bytes with
// random scales. Every value must be the same float32, bit for bit.
func TestDequantizeMatchesGGML(t *testing.T) {
	for _, tc := range quantized {
		t.Run(tc.t.String(), func(t *testing.T) {
			blocks, want := ggmlFile(t, tc.file+".blocks"), floats(ggmlFile(t, tc.file+".f32"))
			// Four rows, to read rows at their offsets.
			m := Matrix{Type: tc.t, Rows: 4, Cols: len(want) / 4, Q: blocks}
			if err := m.Check(); err != nil {
				t.Fatal(err)
			}
			got := make([]float32, m.Cols)
			for i := range m.Rows {
				m.Row(i, got)
				for j, g := range got {
					if w := want[i*m.Cols+j]; math.Float32bits(g) != math.Float32bits(w) {
						t.Fatalf("row %d, weight %d: %v (%#08x), ggml %v (%#08x)", i, j, g, math.Float32bits(g), w, math.Float32bits(w))
					}
				}
			}
		})
	}
}

// TestQuantizeVecMatchesGGML checks the quantization of activations against
// ggml's quantize_row_q8_0_ref and quantize_row_q8_K_ref on a vector with
// zero blocks and halfway cases (testdata/ggml/blocks.c).
func TestQuantizeVecMatchesGGML(t *testing.T) {
	x := floats(ggmlFile(t, "vec.f32"))
	t.Run("Q8_0", func(t *testing.T) {
		want := ggmlFile(t, "q8_0.vec")
		var v Vec
		v.quantizeQ8_0(x, quantizeQ8_0SIMD)
		for b := range v.d {
			blk := want[b*q8_0Bytes:]
			if h := FloatToHalf(v.d[b]); h != binary.LittleEndian.Uint16(blk) {
				t.Errorf("block %d: d %#04x, ggml %#04x", b, h, binary.LittleEndian.Uint16(blk))
			}
			var sum int32
			for j, q := range v.q[b*32 : b*32+32] {
				if q != int8(blk[2+j]) {
					t.Errorf("block %d, q[%d] = %d, ggml %d (x = %v)", b, j, q, int8(blk[2+j]), x[b*32+j])
				}
				sum += int32(int8(blk[2+j]))
			}
			if v.sums[b] != sum {
				t.Errorf("block %d: sum %d, want %d", b, v.sums[b], sum)
			}
		}
	})
	t.Run("Q8_K", func(t *testing.T) {
		// block_q8_K: float32 d, 256 int8 q, 16 int16 bsums.
		const size = 4 + QK_K + 2*QK_K/16
		want := ggmlFile(t, "q8_K.vec")
		var v Vec
		v.quantizeQ8_K(x)
		for b := range v.d {
			blk := want[b*size:]
			if d := binary.LittleEndian.Uint32(blk); math.Float32bits(v.d[b]) != d {
				t.Errorf("block %d: d %v, ggml %v", b, v.d[b], math.Float32frombits(d))
			}
			for j, q := range v.q[b*QK_K : (b+1)*QK_K] {
				if q != int8(blk[4+j]) {
					t.Errorf("block %d, q[%d] = %d, ggml %d (x = %v)", b, j, q, int8(blk[4+j]), x[b*QK_K+j])
				}
			}
			for g, s := range v.sums[b*16 : b*16+16] {
				if w := int16(binary.LittleEndian.Uint16(blk[4+QK_K+2*g:])); s != int32(w) {
					t.Errorf("block %d, bsums[%d] = %d, ggml %d", b, g, s, w)
				}
			}
		}
	})
}

// dequantized returns v's values, d·q.
func (v *Vec) dequantized() []float64 {
	out := make([]float64, len(v.q))
	block := len(v.q) / len(v.d)
	for j, q := range v.q {
		out[j] = float64(v.d[j/block]) * float64(q)
	}
	return out
}

// TestMulVec checks each kernel against the product, in float64, of the
// dequantized matrix and the dequantized quantization of x: the integer
// sums are exact, so only the few float32 operations per block may differ.
// It also checks that MulVec allocates nothing once its Vec has grown.
func TestMulVec(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range quantized {
		for _, shape := range [][2]int{{3, 256}, {17, 768}} {
			rows, cols := shape[0], shape[1]
			t.Run(fmt.Sprintf("%s/%dx%d", tc.t, rows, cols), func(t *testing.T) {
				m := Random(tc.t, rows, cols, 0.1, rng)
				x := randomX(rng, cols)
				out := make([]float32, rows)
				var v Vec
				m.MulVec(out, x, &v)
				xq := v.dequantized()
				row := make([]float32, cols)
				for i, got := range out {
					m.Row(i, row)
					var want, mag float64
					for j, w := range row {
						want += float64(w) * xq[j]
						mag += math.Abs(float64(w) * xq[j])
					}
					if tc.t == Q5_1 {
						// Its mins multiply block_q8_1's s, the block's
						// sum d·Σq as a half, not Σ d·q.
						for b := range v.d {
							min := float64(half(m.Q[i*RowBytes(Q5_1, cols)+b*q5_1Bytes+2:]))
							want += min * (float64(v.s[b]) - float64(v.d[b])*float64(v.sums[b]))
						}
					}
					// A few float32 roundings per block, each of at most
					// 2^-24 of the terms' magnitude.
					if diff := math.Abs(float64(got) - want); diff > mag*float64(cols)/8*0x1p-24 {
						t.Errorf("row %d: %v, want %v (diff %g, magnitude %g)", i, got, want, diff, mag)
					}
				}
				if n := testing.AllocsPerRun(10, func() { m.MulVec(out, x, &v) }); n != 0 {
					t.Errorf("MulVec allocates %v times a call", n)
				}
			})
		}
	}
}

// randomX is a vector of n values uniform in [−1, 1), a product's input.
func randomX(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for j := range x {
		x[j] = rng.Float32()*2 - 1
	}
	return x
}

// TestMulQuantizedRows checks that x quantized once and shared by
// goroutines each multiplying a span of rows (as prefill's tiles and the
// threads do) gives MulVec's bits, in assembly and in Go.
func TestMulQuantizedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range quantized {
		t.Run(tc.t.String(), func(t *testing.T) {
			rows, cols := 37, 512
			m := Random(tc.t, rows, cols, 0.1, rng)
			x := randomX(rng, cols)
			want := make([]float32, rows)
			var own Vec
			m.MulVec(want, x, &own)

			var v Vec
			m.Quantize(&v, x)
			got := make([]float32, rows)
			var wg sync.WaitGroup
			for from := 0; from < rows; from += 16 {
				to := min(from+16, rows)
				wg.Go(func() {
					span := m.Slice(from, to)
					span.MulQuantized(got[from:to], &v)
				})
			}
			wg.Wait()
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Errorf("row %d: %v, MulVec gives %v", i, got[i], want[i])
				}
			}
		})
	}
}

// TestMatrixCheck checks that malformed matrices are refused with a reason.
func TestMatrixCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    Matrix
		ok   bool
	}{
		{"f32", Matrix{Type: F32, Rows: 2, Cols: 3, F32: make([]float32, 6)}, true},
		{"f32 short", Matrix{Type: F32, Rows: 2, Cols: 3, F32: make([]float32, 5)}, false},
		{"q8_0", Matrix{Type: Q8_0, Rows: 2, Cols: 64, Q: make([]byte, 4*34)}, true},
		{"q8_0 long", Matrix{Type: Q8_0, Rows: 2, Cols: 64, Q: make([]byte, 4*34+1)}, false},
		{"q4_K partial block", Matrix{Type: Q4_K, Rows: 1, Cols: 288, Q: make([]byte, 144)}, false},
		{"q5_0", Matrix{Type: Q5_0, Rows: 1, Cols: 32, Q: make([]byte, 22)}, true},
		{"q5_1", Matrix{Type: Q5_1, Rows: 1, Cols: 32, Q: make([]byte, 24)}, true},
		{"iq2_xxs", Matrix{Type: 16, Rows: 1, Cols: 256, Q: make([]byte, 66)}, false},
		{"no rows", Matrix{Type: Q6_K, Cols: 256}, false},
	} {
		if err := tc.m.Check(); (err == nil) != tc.ok {
			t.Errorf("%s: Check() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// TestHalf checks the float16 conversions on every half and on rounding
// cases.
func TestHalf(t *testing.T) {
	for h := range 1 << 16 {
		x := HalfToFloat(uint16(h))
		exp, mant := h>>10&0x1f, float64(h&0x3ff)
		want := math.Ldexp(mant, -24) // zero or subnormal
		if exp > 0 && exp < 0x1f {
			want = math.Ldexp(1+mant/1024, int(exp)-15)
		}
		if h&0x8000 != 0 {
			want = -want
		}
		if exp < 0x1f && float64(x) != want {
			t.Errorf("HalfToFloat(%#04x) = %v, want %v", h, x, want)
		}
		if math.IsNaN(float64(x)) {
			if back := FloatToHalf(x); back&0x7c00 != 0x7c00 || back&0x3ff == 0 {
				t.Errorf("NaN %#04x came back as %#04x", h, back)
			}
			continue
		}
		if back := FloatToHalf(x); back != uint16(h) {
			t.Errorf("half %#04x = %v came back as %#04x", h, x, back)
		}
	}
	for _, tc := range []struct {
		x    float32
		want uint16
	}{
		{1, 0x3c00},
		{-2, 0xc000},
		{65504, 0x7bff},
		{65520, 0x7c00},                  // halfway to the next: rounds to even, infinity
		{1 + 1.0/2048, 0x3c00},           // halfway between 1 and its successor: even
		{1 + 3.0/2048, 0x3c02},           // halfway, odd below: up
		{float32(math.Ldexp(1, -24)), 1}, // smallest subnormal
		{float32(math.Ldexp(1, -25)), 0}, // half of it: ties to even, zero
		{float32(math.Ldexp(1.5, -25)), 1},
		{float32(math.Ldexp(1, -14)) * (1 - 1.0/4096), 0x0400}, // rounds up into the normals
		{1e-30, 0},
		{float32(math.Inf(-1)), 0xfc00},
	} {
		if got := FloatToHalf(tc.x); got != tc.want {
			t.Errorf("FloatToHalf(%v) = %#04x, want %#04x", tc.x, got, tc.want)
		}
	}
}

func TestTypeNamed(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Type
		ok   bool
	}{{"q8_0", Q8_0, true}, {"Q4_K", Q4_K, true}, {"f32", F32, true}, {"q5_0", Q5_0, true}, {"q5_1", Q5_1, true}, {"iq2_xxs", 0, false}, {"", 0, false}} {
		if got, ok := TypeNamed(tc.name); got != tc.want || ok != tc.ok {
			t.Errorf("TypeNamed(%q) = %v, %v", tc.name, got, ok)
		}
	}
}
