//go:build js

package wasmsimd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"nexttoken/engine/quant"
)

// quantized is a vector quantized for a kernel: q, d, and sums or s
// where the format reads them.
type quantized struct {
	q    []int8
	d    []float32
	sums []int32
	s    []float32
}

// The vectors the kernels take, as quant.Vec gives them.
func q8_0Vector(v *quant.Vec, x []float32) quantized {
	q, d, sums := v.Q8_0(x)
	return quantized{q: q, d: d, sums: sums}
}

func q8_1Vector(v *quant.Vec, x []float32) quantized {
	q, d, s := v.Q8_1(x)
	return quantized{q: q, d: d, s: s}
}

func q8_KVector(v *quant.Vec, x []float32) quantized {
	q, d, sums := v.Q8_K(x)
	return quantized{q: q, d: d, sums: sums}
}

// A quantKernel is the kernel of a quantized format, called with a vector
// quantized by quantize; sums and s say which of the vector's sums the
// kernel reads (sums: one a block of 32, or one a group of 16).
type quantKernel struct {
	t        quant.Type
	mul      func(k *Kernel, out []float32, w []byte, x quantized) error
	quantize func(v *quant.Vec, x []float32) quantized
	sums, s  bool
}

// quantKernels are the quantized formats' kernels.
var quantKernels = []quantKernel{
	{quant.Q8_0, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulQ8_0(out, w, x.q, x.d)
	}, q8_0Vector, false, false},
	{quant.Q4_0, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulQ4_0(out, w, x.q, x.d, x.sums)
	}, q8_0Vector, true, false},
	{quant.Q5_0, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulQ5_0(out, w, x.q, x.d, x.sums)
	}, q8_0Vector, true, false},
	{quant.Q5_1, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulQ5_1(out, w, x.q, x.d, x.s)
	}, q8_1Vector, false, true},
	{quant.Q4_K, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulQ4_K(out, w, x.q, x.d, x.sums)
	}, q8_KVector, true, false},
	{quant.Q5_K, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulQ5_K(out, w, x.q, x.d, x.sums)
	}, q8_KVector, true, false},
	{quant.Q6_K, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulQ6_K(out, w, x.q, x.d)
	}, q8_KVector, false, false},
	{quant.Q2_K, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulQ2_K(out, w, x.q, x.d, x.sums)
	}, q8_KVector, true, false},
	{quant.Q3_K, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulQ3_K(out, w, x.q, x.d)
	}, q8_KVector, false, false},
	{quant.IQ4_NL, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulIQ4_NL(out, w, x.q, x.d)
	}, q8_0Vector, false, false},
	{quant.IQ4_XS, func(k *Kernel, out []float32, w []byte, x quantized) error {
		return k.MulIQ4_XS(out, w, x.q, x.d)
	}, q8_KVector, false, false},
}

// loadAll loads the kernels with the fetched modules added, read from
// web/kernels.
func loadAll(tb testing.TB) *Kernel {
	k, err := Load()
	if err != nil {
		tb.Fatal(err)
	}
	for _, file := range FetchedFiles() {
		module, err := os.ReadFile(filepath.Join(fetchedDir, file))
		if err == nil {
			err = k.AddModule(file, module)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	return k
}

// TestAddModule checks that a fetched module's kernels are missing until
// AddModule adds the module, their formats' products then failing, without
// allocating, so that Go's loops take them; that Missing names the file
// and its version; and that AddModule refuses another file or other bytes.
func TestAddModule(t *testing.T) {
	k, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, missing := k.Missing(quant.Q4_K); missing {
		t.Error("Q4_K's kernel, embedded, is missing")
	}
	// mul multiplies a matrix of format by a vector, with its kernel.
	mul := func(format quant.Type) error {
		rows, blocks := 4, 1
		out, w := make([]float32, rows), make([]byte, rows*blocks*format.BlockBytes())
		x := quantized{make([]int8, blocks*format.BlockSize()), make([]float32, blocks), make([]int32, format.BlockSize()/16), make([]float32, blocks)}
		kernel := quantKernels[slices.IndexFunc(quantKernels, func(c quantKernel) bool { return c.t == format })]
		if allocs := testing.AllocsPerRun(10, func() { _ = kernel.mul(k, out, w, x) }); allocs != 0 {
			t.Errorf("%s: a product allocates %v times", format, allocs)
		}
		return kernel.mul(k, out, w, x)
	}
	for _, file := range FetchedFiles() {
		var formats []quant.Type
		for _, f := range fetchedKernels {
			if f.file == file {
				formats = append(formats, f.format)
			}
		}
		for _, format := range formats {
			got, address, missing := k.Missing(format)
			if !missing || got != file || address != fmt.Sprintf("%s?v=%016x", file, fetchedHashes[file]) {
				t.Errorf("%s: Missing gives %q, %q, %v before the module is added", format, got, address, missing)
			}
			if err := mul(format); !errors.Is(err, errMissing) {
				t.Errorf("%s: a product before the module is added gives %v", format, err)
			}
		}
		module, err := os.ReadFile(filepath.Join(fetchedDir, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := k.AddModule("q9_k.wasm", module); err == nil {
			t.Errorf("%s: AddModule took a file no kernel is in", file)
		}
		other := slices.Clone(module)
		other[len(other)-1] ^= 1
		if err := k.AddModule(file, other); err == nil {
			t.Errorf("%s: AddModule took bytes other than the module's", file)
		}
		if err := k.AddModule(file, module); err != nil {
			t.Fatal(err)
		}
		for _, format := range formats {
			if _, _, missing := k.Missing(format); missing {
				t.Errorf("%s: the kernel is missing after AddModule", format)
			}
			if err := mul(format); err != nil {
				t.Errorf("%s: %v", format, err)
			}
		}
	}
}

// TestMulQuantMatchesGo checks that the quantized kernels give package
// quant's MulVec (the Go kernels) bit for bit on every quant.KernelCase
// of whole blocks (any NaN for NaN), writing every row and no more.
func TestMulQuantMatchesGo(t *testing.T) {
	k := loadAll(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, kernel := range quantKernels {
		for _, c := range quant.KernelCases {
			if c.Cols%kernel.t.BlockSize() != 0 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", kernel.t, c), func(t *testing.T) {
				m, x := c.Make(kernel.t, rng)
				want := make([]float32, c.Rows)
				var v quant.Vec
				m.MulVec(want, x, &v)

				got := make([]float32, c.Rows+1)
				for i := range got {
					got[i] = float32(math.NaN()) // every row must be written
				}
				got[c.Rows] = 42 // and no more
				var v2 quant.Vec
				if err := kernel.mul(k, got[:c.Rows], m.Q, kernel.quantize(&v2, x)); err != nil {
					t.Fatal(err)
				}
				if got[c.Rows] != 42 {
					t.Errorf("the kernel wrote past the last row")
				}
				for i := range want {
					same := math.Float32bits(got[i]) == math.Float32bits(want[i])
					if !same && !(c.Special && isNaN(got[i]) && isNaN(want[i])) {
						t.Errorf("row %d: SIMD %v, Go %v", i, got[i], want[i])
					}
				}
			})
		}
	}
}

// isNaN: a NaN's payload is not specified across WebAssembly operations.
func isNaN(f float32) bool { return f != f }

func TestMulQuantRejectsShortSlices(t *testing.T) {
	k := loadAll(t)
	const rows, blocks = 4, 2
	for _, kernel := range quantKernels {
		size, values := rows*blocks*kernel.t.BlockBytes(), blocks*kernel.t.BlockSize()
		sums := values / 16 // one a group of 16 (Q8_K's)
		if kernel.t.BlockSize() == 32 {
			sums = blocks // one a block of 32 (Q8_0's)
		}
		cases := []struct {
			name          string
			w, q, sums, s int
		}{
			{"w", size - 1, values, sums, blocks},
			{"q", size, values - 1, sums, blocks},
		}
		if kernel.sums {
			cases = append(cases, struct {
				name          string
				w, q, sums, s int
			}{"sums", size, values, sums - 1, blocks})
		}
		if kernel.s {
			cases = append(cases, struct {
				name          string
				w, q, sums, s int
			}{"s", size, values, sums, blocks - 1})
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%s", kernel.t, c.name), func(t *testing.T) {
				defer func() {
					if recover() == nil {
						t.Errorf("a %s too short did not panic", c.name)
					}
				}()
				_ = kernel.mul(k, make([]float32, rows), make([]byte, c.w), quantized{make([]int8, c.q), make([]float32, blocks), make([]int32, c.sums), make([]float32, c.s)})
			})
		}
	}
}

func TestMulQuantDoesNotAllocate(t *testing.T) {
	k := loadAll(t)
	for _, kernel := range quantKernels {
		out, w := make([]float32, 64), make([]byte, 64*2*kernel.t.BlockBytes())
		x := quantized{make([]int8, 2*kernel.t.BlockSize()), make([]float32, 2), make([]int32, 2*kernel.t.BlockSize()/16), make([]float32, 2)}
		if allocs := testing.AllocsPerRun(100, func() { _ = kernel.mul(k, out, w, x) }); allocs != 0 {
			t.Errorf("%s: the kernel allocates %v times per call", kernel.t, allocs)
		}
	}
}

// BenchmarkMulQuant measures the quantized kernels and the Go kernels they
// replace (quant's MulVec; both quantize x first) at stories15M's shapes,
// rows × cols of WQ, W1, W2 and the classifier, and for the K formats,
// whose rows are whole blocks of 256, at those shapes with 256 for 288.
func BenchmarkMulQuant(b *testing.B) {
	k := loadAll(b)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kernel := range quantKernels {
		dim := 288
		if kernel.t.BlockSize() == quant.QK_K {
			dim = 256 // rows of whole blocks
		}
		for _, shape := range [][2]int{{dim, dim}, {768, dim}, {dim, 768}, {32000, dim}} {
			rows, cols := shape[0], shape[1]
			x, out := make([]float32, cols), make([]float32, rows)
			for j := range x {
				x[j] = rng.Float32()*2 - 1
			}
			m := quant.Random(kernel.t, rows, cols, 0.1, rng)
			var v quant.Vec
			for _, impl := range []struct {
				name string
				mul  func()
			}{
				{"simd", func() {
					if err := kernel.mul(k, out, m.Q, kernel.quantize(&v, x)); err != nil {
						b.Fatal(err)
					}
				}},
				{"go", func() { m.MulVec(out, x, &v) }},
			} {
				b.Run(fmt.Sprintf("%s/%s/%dx%d", kernel.t, impl.name, rows, cols), func(b *testing.B) {
					b.SetBytes(int64(m.Bytes()))
					for b.Loop() {
						impl.mul()
					}
				})
			}
		}
	}
}
