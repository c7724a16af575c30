//go:build js

package wasmsimd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"nexttoken/engine/quant"
)

// threaded loads the kernels and starts n threads, waiting until they
// run. It skips where the program's memory is not shared: go test's
// plain node loader. make jstest runs these tests on a shared memory too
// (cmd/wasmshare's exec), where they must run.
func threaded(t *testing.T, n int) *Kernel {
	t.Helper()
	k := loadAll(t)
	if !k.shared {
		t.Skip("the program's memory is not shared (run under cmd/wasmshare/exec)")
	}
	if err := k.StartThreads(n); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); k.Threads() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d threads did not start", n)
		}
	}
	return k
}

// sameBits reports the first row where got and want differ in their bits.
func sameBits(got, want []float32) (int, bool) {
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return i, false
		}
	}
	return 0, true
}

// TestThreadsKeepBits checks that on two and three threads the products
// are one thread's, bit for bit: float32 and every quantized format, rows
// that are and are not a multiple of a share's, products too small to
// split, and that a product on threads allocates nothing.
func TestThreadsKeepBits(t *testing.T) {
	one := loadAll(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{2, 3} {
		k := threaded(t, n)
		for _, c := range []struct{ rows, cols int }{{8, 32}, {64, 32}, {67, 1024}, {301, 288}, {576, 576}} {
			t.Run(fmt.Sprintf("%d threads/f32/%dx%d", n, c.rows, c.cols), func(t *testing.T) {
				w, x := make([]float32, c.rows*c.cols), make([]float32, c.cols)
				for i := range w {
					w[i] = rng.Float32()*2 - 1
				}
				for i := range x {
					x[i] = rng.Float32()*2 - 1
				}
				want, got := make([]float32, c.rows), make([]float32, c.rows+1)
				got[c.rows] = 42
				if err := one.MatVec(want, x, w, c.cols, c.rows); err != nil {
					t.Fatal(err)
				}
				if err := k.MatVec(got[:c.rows], x, w, c.cols, c.rows); err != nil {
					t.Fatal(err)
				}
				if row, ok := sameBits(got, want); !ok || got[c.rows] != 42 {
					t.Errorf("row %d: %v on threads, %v on one (past the end: %v)", row, got[row], want[row], got[c.rows])
				}
				if allocs := testing.AllocsPerRun(5, func() { _ = k.MatVec(got[:c.rows], x, w, c.cols, c.rows) }); allocs != 0 {
					t.Errorf("a product allocates %v times", allocs)
				}
			})
		}
		for _, kernel := range quantKernels {
			for _, c := range []quant.KernelCase{{Rows: 9, Cols: 256}, {Rows: 64, Cols: 288}, {Rows: 70, Cols: 768}, {Rows: 131, Cols: 512}, {Rows: 768, Cols: 288}} {
				if c.Cols%kernel.t.BlockSize() != 0 {
					continue
				}
				t.Run(fmt.Sprintf("%d threads/%s/%dx%d", n, kernel.t, c.Rows, c.Cols), func(t *testing.T) {
					m, x := c.Make(kernel.t, rng)
					var v quant.Vec
					xq := kernel.quantize(&v, x)
					want, got := make([]float32, c.Rows), make([]float32, c.Rows+1)
					got[c.Rows] = 42
					if err := kernel.mul(one, want, m.Q, xq); err != nil {
						t.Fatal(err)
					}
					if err := kernel.mul(k, got[:c.Rows], m.Q, xq); err != nil {
						t.Fatal(err)
					}
					if row, ok := sameBits(got, want); !ok || got[c.Rows] != 42 {
						t.Errorf("row %d: %v on threads, %v on one (past the end: %v)", row, got[row], want[row], got[c.Rows])
					}
					if allocs := testing.AllocsPerRun(5, func() { _ = kernel.mul(k, got[:c.Rows], m.Q, xq) }); allocs != 0 {
						t.Errorf("a product allocates %v times", allocs)
					}
				})
			}
		}
	}
}

// threadedFormats are the formats whose products the threads share
// (threadedKernels).
var threadedFormats = map[quant.Type]bool{quant.Q8_0: true, quant.Q4_0: true, quant.Q5_0: true, quant.Q4_K: true, quant.Q6_K: true}

// TestThreadsBatch checks that products run as one batch on two threads
// are each product's own, bit for bit: products of every threaded kernel
// (more shares than fit at once, so that the batch runs in parts), a
// float32 one, one too small to split, and that a batch allocates
// nothing.
func TestThreadsBatch(t *testing.T) {
	one, k := loadAll(t), threaded(t, 2)
	rng := rand.New(rand.NewPCG(9, 10))
	type product struct {
		run       func(k *Kernel, out []float32) error
		rows      int
		want, got []float32
	}
	var products []product
	w, x := make([]float32, 576*288), make([]float32, 288)
	for i := range w {
		w[i] = rng.Float32()*2 - 1
	}
	for i := range x {
		x[i] = rng.Float32()*2 - 1
	}
	products = append(products, product{run: func(k *Kernel, out []float32) error { return k.MatVec(out, x, w, 288, 576) }, rows: 576})
	_, shares := k.threads.split(576) // the batch's, on k's threads
	for _, kernel := range quantKernels {
		for _, c := range []quant.KernelCase{{Rows: 9, Cols: 256}, {Rows: 576, Cols: 512}} {
			m, x := c.Make(kernel.t, rng)
			xq := kernel.quantize(new(quant.Vec), x)
			products = append(products, product{run: func(k *Kernel, out []float32) error { return kernel.mul(k, out, m.Q, xq) }, rows: c.Rows})
			if k.threads.splits(c.Rows, c.Cols) && threadedFormats[kernel.t] {
				_, n := k.threads.split(c.Rows)
				shares += n
			}
		}
	}
	if shares <= maxShares {
		t.Fatalf("the batch has %d shares, which fit at once (%d)", shares, maxShares)
	}
	for i := range products {
		p := &products[i]
		p.want, p.got = make([]float32, p.rows), make([]float32, p.rows)
		if err := p.run(one, p.want); err != nil {
			t.Fatal(err)
		}
	}
	batch := func() error {
		k.Batch()
		for _, p := range products {
			if err := p.run(k, p.got); err != nil {
				return err
			}
		}
		return k.RunBatch()
	}
	if err := batch(); err != nil {
		t.Fatal(err)
	}
	for i, p := range products {
		if row, ok := sameBits(p.got, p.want); !ok {
			t.Errorf("product %d, row %d: %v in a batch, %v alone", i, row, p.got[row], p.want[row])
		}
	}
	if allocs := testing.AllocsPerRun(5, func() { _ = batch() }); allocs != 0 {
		t.Errorf("a batch allocates %v times", allocs)
	}
}

// TestThreadsShares checks how a product's rows are shared: every row in
// exactly one share, every share but the last a multiple of shareRows, no
// more than sharesPerThread shares a thread, and none empty.
func TestThreadsShares(t *testing.T) {
	for _, n := range []int{2, 3, 4, 8} {
		th := &threads{n: n}
		for rows := minThreadedRows; rows < 700; rows++ {
			per, shares := th.split(rows)
			if shares < 1 || shares > n*sharesPerThread {
				t.Fatalf("%d threads, %d rows: %d shares", n, rows, shares)
			}
			next := 0
			for s := range shares {
				r0, r1 := s*per, min((s+1)*per, rows)
				if r0 != next || r1 <= r0 || (s < shares-1 && (r1-r0)%shareRows != 0) {
					t.Fatalf("%d threads, %d rows: share %d is [%d, %d)", n, rows, s, r0, r1)
				}
				next = r1
			}
			if next != rows {
				t.Fatalf("%d threads, %d rows: the shares end at %d", n, rows, next)
			}
		}
	}
}

// BenchmarkThreads times products of the SmolLM2-135M shape (576 wide,
// 1,536 hidden) and the Qwen2.5-0.5B shape's K-quant feed-forward down
// (896 rows of 4,864) on one thread and on two.
func BenchmarkThreads(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	kernels := map[int]*Kernel{1: loadAll(b)}
	if kernels[1].shared {
		k := loadAll(b)
		if err := k.StartThreads(2); err != nil {
			b.Fatal(err)
		}
		for k.Threads() != 2 {
			time.Sleep(time.Millisecond)
		}
		kernels[2] = k
	}
	for _, c := range []struct {
		t          quant.Type
		rows, cols int
	}{{quant.F32, 1536, 576}, {quant.Q8_0, 1536, 576}, {quant.Q4_K, 896, 4864}, {quant.Q6_K, 896, 4864}} {
		for _, n := range []int{1, 2} {
			k := kernels[n]
			if k == nil {
				continue
			}
			b.Run(fmt.Sprintf("%s/%dx%d/threads=%d", c.t, c.rows, c.cols, n), func(b *testing.B) {
				out := make([]float32, c.rows)
				if c.t == quant.F32 {
					w, x := make([]float32, c.rows*c.cols), make([]float32, c.cols)
					for i := range w {
						w[i] = rng.Float32()
					}
					for b.Loop() {
						_ = k.MatVec(out, x, w, c.cols, c.rows)
					}
					return
				}
				kernel := quantKernels[slices.IndexFunc(quantKernels, func(q quantKernel) bool { return q.t == c.t })]
				m, x := quant.KernelCase{Rows: c.rows, Cols: c.cols}.Make(c.t, rng)
				var v quant.Vec
				xq := kernel.quantize(&v, x)
				for b.Loop() {
					_ = kernel.mul(k, out, m.Q, xq)
				}
			})
		}
	}
}
