package quant

import "math/rand/v2"

// Random returns a rows × cols matrix of format t (cols a whole number of
// blocks) filled from rng: random quantized integers, and scales that make
// weights of magnitude up to about limit. It costs exactly what a trained
// matrix costs to multiply, for stand-in models (package randmodel).
func Random(t Type, rows, cols int, limit float32, rng *rand.Rand) Matrix {
	m := Matrix{Type: t, Rows: rows, Cols: cols}
	if t == F32 {
		m.F32 = make([]float32, rows*cols)
		for i := range m.F32 {
			m.F32[i] = (rng.Float32()*2 - 1) * limit
		}
		return m
	}
	m.Q = make([]byte, rows*RowBytes(t, cols))
	for i := range m.Q {
		m.Q[i] = byte(rng.Uint32())
	}
	// The float16 scales, at their offsets in each block, for the largest
	// integer each multiplies.
	type scale struct {
		offset int
		d      float32
	}
	var scales []scale
	switch t {
	case Q8_0:
		scales = []scale{{0, limit / 127}}
	case Q4_0:
		scales = []scale{{0, limit / 8}}
	case Q5_0:
		scales = []scale{{0, limit / 16}}
	case IQ4_NL:
		scales = []scale{{0, limit / 127}}
	case IQ4_XS: // d·(ls−32)·grid with |ls−32| ≤ 32
		scales = []scale{{0, limit / (127 * 32)}}
	case Q5_1: // d·q + m with q < 32: from −limit/2 to limit/2
		scales = []scale{{0, limit / 31}, {2, -limit / 2}}
	case Q2_K: // d·sc·q − dmin·m with sc, m < 16 and q < 4
		scales = []scale{{80, limit / (15 * 3)}, {82, limit / 15 / 2}}
	case Q3_K: // d·(sc−32)·q with |sc−32| ≤ 32 and |q| ≤ 4
		scales = []scale{{108, limit / (32 * 4)}}
	case Q4_K: // d·sc·q − dmin·m with sc, m < 64 and q < 16
		scales = []scale{{0, limit / (63 * 15)}, {2, limit / 63 / 2}}
	case Q5_K: // as Q4_K's with q < 32
		scales = []scale{{0, limit / (63 * 31)}, {2, limit / 63 / 2}}
	case Q6_K: // d·sc·(q−32) with |sc| ≤ 128, |q−32| ≤ 32
		scales = []scale{{q6_KBytes - 2, limit / (128 * 32)}}
	}
	for b := 0; b < len(m.Q); b += t.BlockBytes() {
		for _, s := range scales {
			h := FloatToHalf(s.d)
			m.Q[b+s.offset], m.Q[b+s.offset+1] = byte(h), byte(h>>8)
		}
	}
	return m
}
