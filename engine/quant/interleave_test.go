package quant

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// TestInterleavedMatchesRows checks that a Q8_0 or Q4_0 matrix with its
// rows interleaved multiplies, on every set of kernels the CPU runs and
// the Go ones, to the bits the row layout gives with the Go kernels (any
// NaN for NaN), whole and in slices at the groups' edges, and gives the
// same rows (Row) and bytes (RowMajor) back.
func TestInterleavedMatchesRows(t *testing.T) {
	if !canInterleave {
		t.Skip("this build reads no interleaved rows")
	}
	defer UseSIMD(true)
	rng := rand.New(rand.NewPCG(21, 22))
	sets := append([]func(){func() { UseSIMD(false) }}, assemblySets()...)
	for _, format := range []Type{Q8_0, Q4_0} {
		for _, c := range append(tailCases, KernelCases...) {
			if c.Rows < groupRows {
				continue
			}
			t.Run(format.String()+"/"+c.String(), func(t *testing.T) {
				m, x := c.Make(format, rng)
				UseSIMD(false)
				var v Vec
				want := make([]float32, m.Rows)
				m.MulVec(want, x, &v)

				in := m
				in.Q = append([]byte(nil), m.Q...)
				interleave(&in)
				if in.groups != m.Rows/groupRows {
					t.Fatalf("%d groups interleaved, want %d", in.groups, m.Rows/groupRows)
				}
				if bytes.Equal(in.Q, m.Q) {
					t.Fatal("interleaving left the bytes as they were")
				}
				if !bytes.Equal(in.RowMajor(), m.Q) {
					t.Error("RowMajor does not give the rows' bytes back")
				}
				got, wantRow := make([]float32, m.Cols), make([]float32, m.Cols)
				for i := range m.Rows {
					m.Row(i, wantRow)
					in.Row(i, got)
					if !sameBits(got, wantRow) {
						t.Fatalf("Row(%d) differs", i)
					}
				}
				for _, use := range sets {
					use()
					spans := [][2]int{{0, m.Rows}, {groupRows, m.Rows}, {0, groupRows}}
					for _, s := range spans {
						part := in.Slice(s[0], s[1])
						out := make([]float32, part.Rows)
						part.MulVec(out, x, &v)
						if !sameBits(out, want[s[0]:s[1]]) {
							t.Errorf("%s, rows %d to %d: %v, want %v", Kernel(), s[0], s[1], out, want[s[0]:s[1]])
						}
					}
				}
			})
		}
	}
}

// TestSliceOfInterleavedRowsRefusesGroupsCut checks that a Slice that
// would cut a group of interleaved rows panics rather than misread them.
func TestSliceOfInterleavedRowsRefusesGroupsCut(t *testing.T) {
	if !canInterleave {
		t.Skip("this build reads no interleaved rows")
	}
	m, _ := KernelCase{Rows: 24, Cols: 64}.Make(Q8_0, rand.New(rand.NewPCG(1, 2)))
	interleave(&m)
	for _, s := range [][2]int{{1, 24}, {0, 12}, {4, 8}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Slice(%d, %d) did not panic", s[0], s[1])
				}
			}()
			m.Slice(s[0], s[1])
		}()
	}
}

// sameBits reports whether a and b hold the same float32 bits, any NaN
// for NaN.
func sameBits(a, b []float32) bool {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}
