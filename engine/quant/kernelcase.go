package quant

import (
	"fmt"
	"math/rand/v2"
)

// KernelCase is a product on which a kernel other than the Go one (the
// amd64 assembly here, package wasmsimd's) is checked against MulVec, bit
// for bit, where such kernels go wrong: row counts that are and are not
// multiples of their four rows, rows that start anywhere (a GGUF file's
// tensors need not be aligned), weights of −128, block scales of every
// mantissa (whose products round differently in another order) and, with
// Special, float16 subnormals, zeros of either sign, infinities and NaN,
// which a kernel's half-to-float conversion must turn into HalfToFloat's
// values; with Large, integer sums of 15–17 bits, more than a float32
// holds once multiplied by a scale, so that the order of the two
// multiplications by scales shows.
type KernelCase struct {
	Rows, Cols     int
	Skew           int // bytes before the matrix in its allocation
	Special, Large bool
}

// KernelCases are the cases the kernel tests run; a format takes those
// whose Cols are whole blocks of it.
var KernelCases = func() []KernelCase {
	var all []KernelCase
	for _, c := range []KernelCase{
		{Rows: 1, Cols: 32}, {Rows: 2, Cols: 64}, {Rows: 3, Cols: 64}, {Rows: 4, Cols: 32},
		{Rows: 5, Cols: 96}, {Rows: 7, Cols: 288}, {Rows: 8, Cols: 256}, {Rows: 13, Cols: 768},
		{Rows: 64, Cols: 288}, {Rows: 768, Cols: 288},
		{Rows: 9, Cols: 64, Special: true}, {Rows: 16, Cols: 288, Special: true},
		{Rows: 64, Cols: 288, Large: true}, {Rows: 6, Cols: 1536, Large: true},
		{Rows: 1, Cols: 256}, {Rows: 3, Cols: 512}, {Rows: 70, Cols: 768},
		{Rows: 5, Cols: 512, Special: true}, {Rows: 9, Cols: 256, Large: true},
	} {
		for _, skew := range []int{0, 1, 3} {
			c.Skew = skew
			all = append(all, c)
		}
	}
	return all
}()

func (c KernelCase) String() string {
	return fmt.Sprintf("%dx%d/skew%d/special=%v/large=%v", c.Rows, c.Cols, c.Skew, c.Special, c.Large)
}

// Make draws the case's matrix, of format t, and vector from rng.
func (c KernelCase) Make(t Type, rng *rand.Rand) (Matrix, []float32) {
	specialScales := []uint16{0x0001, 0x03ff, 0x8001, 0x0000, 0x8000, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e01, 0x7c01}
	m := Random(t, c.Rows, c.Cols, 0.5, rng)
	for i := range m.Q {
		if c.Large {
			m.Q[i] = 0xcc | byte(rng.IntN(4)*0x11) // nibbles and int8s of large magnitude
		} else if rng.IntN(50) == 0 {
			m.Q[i] = 0x80 // an int8 of −128
		}
	}
	// Where each format keeps its float16 scales (Q5_1: d and m; Q2_K, Q4_K,
	// Q5_K: d and dmin).
	offsets := map[Type][]int{Q8_0: {0}, Q4_0: {0}, Q5_0: {0}, Q5_1: {0, 2}, Q4_K: {0, 2}, Q5_K: {0, 2}, Q6_K: {q6_KBytes - 2}, Q3_K: {q3_KBytes - 2}, Q2_K: {q2_KBytes - 4, q2_KBytes - 2}, IQ4_NL: {0}, IQ4_XS: {0}}[t]
	for b := 0; b < len(m.Q); b += t.BlockBytes() {
		for _, off := range offsets {
			h := FloatToHalf(rng.Float32() / 64)
			if c.Special && rng.IntN(3) == 0 {
				h = specialScales[rng.IntN(len(specialScales))]
			}
			m.Q[b+off], m.Q[b+off+1] = byte(h), byte(h>>8)
		}
	}
	m.Q = append(make([]byte, c.Skew), m.Q...)[c.Skew:]
	x := make([]float32, c.Cols)
	for j := range x {
		x[j] = rng.Float32()*2 - 1
		if c.Large {
			x[j] = 0.5 + rng.Float32()/2
		}
	}
	return m, x
}
