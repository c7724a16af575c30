//go:build js

package transformer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/randmodel"
)

// TestSIMDMatchesUnrolled checks that the SIMD kernel loads under node and
// gives matmulUnrolled's results bit for bit (the same summation order),
// at shapes that are and are not multiples of its four rows and eight
// columns, and on slices that start off a 16-byte boundary.
func TestSIMDMatchesUnrolled(t *testing.T) {
	simd := loadKernels(t).simd
	rng := rand.New(rand.NewPCG(9, 10))
	for _, shape := range [][2]int{{1, 1}, {3, 5}, {4, 4}, {7, 9}, {9, 7}, {17, 13}, {64, 172}, {288, 288}, {768, 6}} {
		n, d := shape[0], shape[1]
		for _, skew := range []int{0, 1, 2, 3} { // in float32s
			w, x := randomVector(rng, n*d+skew)[skew:], randomVector(rng, n+skew)[skew:]
			got, want := make([]float32, d+skew)[skew:], make([]float32, d)
			if err := simd.MatVec(got, x, w, n, d); err != nil {
				t.Fatal(err)
			}
			matmulUnrolled(want, x, w, n, d)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Errorf("%dx%d skew %d row %d: SIMD %v, unrolled %v", n, d, skew, i, got[i], want[i])
				}
			}
		}
	}
}

// loadedKernels are the WebAssembly SIMD kernels, loaded once for all
// the tests, as a program loads them.
var loadedKernels = sync.OnceValues(LoadKernels)

// loadKernels is the WebAssembly SIMD kernels, failing t if they did not
// load or do not say so: under node they must.
func loadKernels(t testing.TB) Kernels {
	t.Helper()
	k, err := loadedKernels()
	if err != nil {
		t.Fatal(err)
	}
	if k.Name() != "SIMD" {
		t.Fatalf("the loaded kernels are named %q, want SIMD", k.Name())
	}
	return k
}

// benchKernels under js are the WebAssembly SIMD kernels, the page's.
func benchKernels(b testing.TB) Kernels { return loadKernels(b) }

// setSIMD gives opts the WebAssembly SIMD kernels, or Go's loops, for
// TestSIMDKeepsLogits.
func setSIMD(t *testing.T, opts Options, on bool) Options {
	opts.Kernels = Kernels{}
	if on {
		opts.Kernels = loadKernels(t)
	}
	if want := map[bool]string{true: "SIMD", false: "Go"}[on]; opts.Kernels.Name() != want {
		t.Fatalf("the kernels are named %q, want %s", opts.Kernels.Name(), want)
	}
	return opts
}

// BenchmarkMatmulSIMD measures the SIMD kernel and the unrolled Go loop it
// replaces under js/wasm, at every matrix shape of stories260K and
// stories15M (n×d: W is d rows of n).
func BenchmarkMatmulSIMD(b *testing.B) {
	simd := loadKernels(b)
	rng := rand.New(rand.NewPCG(3, 4))
	stories260KConfig := loadModel(b, stories260K).Config
	for _, c := range []checkpoint.Config{stories260KConfig, randmodel.Stories15M} {
		var shapes [][2]int
		for _, s := range [][2]int{{c.Dim, c.Dim}, {c.Dim, c.KVDim()}, {c.Dim, c.HiddenDim}, {c.HiddenDim, c.Dim}, {c.Dim, c.VocabSize}} {
			if !slices.Contains(shapes, s) {
				shapes = append(shapes, s)
			}
		}
		for _, shape := range shapes {
			n, d := shape[0], shape[1]
			w, x, out := randomVector(rng, n*d), randomVector(rng, n), make([]float32, d)
			for _, k := range []struct {
				name string
				f    func(out, x, w []float32, n, d int)
			}{{"simd", simd.matmul}, {"unrolled", matmulUnrolled}} {
				b.Run(fmt.Sprintf("%s/%dx%d", k.name, n, d), func(b *testing.B) {
					for b.Loop() {
						k.f(out, x, w, n, d)
					}
				})
			}
		}
	}
}

// BenchmarkDecodeKernels is BenchmarkDecode with the SIMD kernels and
// with Go's loops, in one run; -bench
// 'DecodeKernels/.*/(stories260K|stories15M-shape)$' picks the default
// arithmetic (run.c's has a kernel of its own).
func BenchmarkDecodeKernels(b *testing.B) {
	for _, k := range []struct {
		name    string
		kernels Kernels
	}{{"simd", loadKernels(b)}, {"go", Kernels{}}} {
		b.Run(k.name, func(b *testing.B) { benchmarkDecode(b, k.kernels) })
	}
}
