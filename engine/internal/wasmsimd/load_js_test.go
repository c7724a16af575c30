//go:build js

package wasmsimd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// misaligned returns n float32s starting skew bytes past a 16-byte
// boundary (WebAssembly loads any address; Go never makes such a slice,
// but the kernel must not depend on that).
func misaligned(n, skew int) []float32 {
	buf := make([]byte, 4*n+32)
	start := (16 - int(uintptr(unsafe.Pointer(&buf[0]))%16)) % 16
	return unsafe.Slice((*float32)(unsafe.Pointer(&buf[start+skew])), n)
}

// TestMatVec checks the kernel against the exact products (float64 sums of
// products that float64 holds exactly) within the error bound of any
// float32 summation order, |ŝ − s| ≤ γ_n Σ_j |w_j·x_j| with
// γ_n = n·u/(1 − n·u) and u = 2⁻²⁴ (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., eq. 3.5), at shapes that are and are not
// multiples of the kernel's four rows and eight columns, at aligned and
// misaligned addresses.
func TestMatVec(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, shape := range [][2]int{{1, 1}, {3, 5}, {4, 4}, {7, 9}, {8, 8}, {16, 3}, {17, 13}, {33, 9}, {64, 172}, {288, 288}, {768, 15}, {0, 3}, {5, 0}} {
		n, d := shape[0], shape[1]
		for _, skew := range []int{0, 4, 1, 2, 3} {
			t.Run(fmt.Sprintf("%dx%d/skew%d", n, d, skew), func(t *testing.T) {
				out, x, w := misaligned(d, skew), misaligned(n, skew), misaligned(n*d, skew)
				for i := range x {
					x[i] = rng.Float32()*2 - 1
				}
				for i := range w {
					w[i] = rng.Float32()*2 - 1
				}
				for i := range out {
					out[i] = float32(math.NaN()) // every row must be written
				}
				if err := k.MatVec(out, x, w, n, d); err != nil {
					t.Fatal(err)
				}
				u := math.Ldexp(1, -24)
				gamma := float64(n) * u / (1 - float64(n)*u)
				for i := range d {
					var exact, magnitude float64
					for j := range n {
						p := float64(w[i*n+j]) * float64(x[j])
						exact += p
						magnitude += math.Abs(p)
					}
					if diff := math.Abs(float64(out[i]) - exact); !(diff <= gamma*magnitude) {
						t.Errorf("row %d: %v, exact %v: off by %.3g, bound %.3g", i, out[i], exact, diff, gamma*magnitude)
					}
				}
			})
		}
	}
}

func TestMatVecRejectsShortSlices(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		out, x, w, n int
		d            int
	}{
		{"out", 3, 4, 16, 4, 4},
		{"x", 4, 3, 16, 4, 4},
		{"w", 4, 4, 15, 4, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("a %s too short did not panic", c.name)
				}
			}()
			_ = k.MatVec(make([]float32, c.out), make([]float32, c.x), make([]float32, c.w), c.n, c.d)
		})
	}
}

func TestMatVecDoesNotAllocate(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	out, x, w := make([]float32, 64), make([]float32, 64), make([]float32, 64*64)
	if allocs := testing.AllocsPerRun(100, func() { _ = k.MatVec(out, x, w, 64, 64) }); allocs != 0 {
		t.Errorf("MatVec allocates %v times per call", allocs)
	}
}
