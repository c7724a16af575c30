//go:build js

package transformer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
// the tests, as a program loads them, with every fetched module added
// (read from web/kernels, where the page fetches them).
var loadedKernels = sync.OnceValues(loadAllKernels)

// loadAllKernels loads the kernels with every fetched module added.
func loadAllKernels() (Kernels, error) {
	k, err := LoadKernels()
	if err != nil {
		return k, err
	}
	files, err := os.ReadDir(kernelModules)
	for _, f := range files {
		var module []byte
		if module, err = os.ReadFile(filepath.Join(kernelModules, f.Name())); err == nil {
			err = k.AddModule(f.Name(), module)
		}
		if err != nil {
			break
		}
	}
	return k, err
}

// kernelModules is the folder of the fetched kernel modules.
const kernelModules = "../../web/kernels"

// TestMissingModules checks that the kernels list the fetched modules a
// model's formats need until they are added, each once: Q5_K_M's, Q5_K and
// Q5_1 (in rows of 64), and none for Q4_K_M's or float32 matrices.
func TestMissingModules(t *testing.T) {
	narrow := checkpoint.Config{Dim: 64, HiddenDim: 256, Layers: 2, Heads: 4, KVHeads: 2, VocabSize: 400, SeqLen: 32}
	k, err := LoadKernels()
	if err != nil {
		t.Fatal(err)
	}
	f32, _, err := randmodel.Build(narrow, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		model *checkpoint.Model
		want  []string
	}{
		{"F32", f32, nil},
		{"Q4_K_M", quantModel(t, narrow, randmodel.Q4_K_M(narrow)), nil},
		{"Q5_K_M", quantModel(t, narrow, randmodel.Q5_K_M(narrow)), []string{"q5_1.wasm", "q5_k.wasm"}},
	} {
		var got []string
		for _, m := range k.MissingModules(c.model) {
			got = append(got, m.File)
			if !strings.HasPrefix(m.Address, m.File+"?v=") {
				t.Errorf("%s: %s's address is %s", c.name, m.File, m.Address)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: missing %q, want %q", c.name, got, c.want)
		}
	}
	q5 := quantModel(t, narrow, randmodel.Q5_K_M(narrow))
	for _, m := range k.MissingModules(q5) {
		module, err := os.ReadFile(filepath.Join(kernelModules, m.File))
		if err != nil {
			t.Fatal(err)
		}
		if err := k.AddModule(m.File, module); err != nil {
			t.Fatal(err)
		}
	}
	if missing := k.MissingModules(q5); missing != nil {
		t.Errorf("once added, %v are still missing", missing)
	}
}

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

// testKernels under js are the WebAssembly SIMD kernels: Go's loops are
// the native build's, tested there.
func testKernels(t testing.TB) []namedKernels { return []namedKernels{{", SIMD", loadKernels(t)}} }

// TestSIMDForwardDoesNotAllocate checks that a step of quantized models
// with the SIMD kernels allocates nothing: the kernels' calls and the
// quantizer's (a method value that Quantize does not keep).
func TestSIMDForwardDoesNotAllocate(t *testing.T) {
	quantizedForwardDoesNotAllocate(t, loadKernels(t))
}

// TestThreadsForwardDoesNotAllocate is TestSIMDForwardDoesNotAllocate on
// two threads: their runs allocate nothing either.
func TestThreadsForwardDoesNotAllocate(t *testing.T) {
	quantizedForwardDoesNotAllocate(t, twoThreads(t))
}

func quantizedForwardDoesNotAllocate(t *testing.T, k Kernels) {
	formats := quantFormats(smallQuant)
	for _, name := range []string{"Q8_0", "Q4_0", "Q4_K_M"} {
		tr, pos := NewWith(quantModel(t, smallQuant, formats[name]), Options{Kernels: k}), 0
		allocs := testing.AllocsPerRun(20, func() { // 21 steps: smallQuant's context is 32
			if _, err := tr.Forward(1, pos); err != nil {
				t.Fatal(err)
			}
			pos++
		})
		if allocs != 0 {
			t.Errorf("%s, %d threads: Forward allocates %v times per call", name, k.Threads(), allocs)
		}
	}
}
