//go:build !js

package transformer

import (
	"sync"

	"nexttoken/engine/internal/matvec"
	"nexttoken/engine/internal/workers"
	"nexttoken/engine/quant"
)

// splitMin is the fewest multiply-adds a product must have to be split
// among threads: below it, waking the other goroutines costs more than
// they save (BenchmarkThreads: a split costs about 1 µs, and the
// AVX2 kernel does 64 Ki multiply-adds of a matrix in cache in about
// 4 µs).
const splitMin = 1 << 16

// Threads returns the native kernels splitting the rows of every matrix
// product of 64 Ki multiply-adds or more (all of a small model's but the
// smallest) among n threads: the calling goroutine and n−1 others, which
// live as long as the program. Rows are independent, so the logits are
// the same bits on any number of threads. The Kernels may be shared by
// Transformers on several goroutines: a product that finds the threads
// busy runs on its own goroutine. n ≤ 1 gives the zero Kernels.
func Threads(n int) Kernels {
	if n <= 1 {
		return Kernels{}
	}
	return Kernels{&threads{pool: workers.New(n), vecs: make([]quant.Vec, n-1), minSize: splitMin}}
}

// threads are the pool of Threads' Kernels and the product it runs: one
// at a time, under mu.
type threads struct {
	mu    sync.Mutex
	pool  *workers.Pool
	f32   f32Rows     // the float32 product split, or zero
	quant quantRows   // the quantized one, or zero
	batch batchRows   // the batched one, or zero
	vecs  []quant.Vec // x quantized, for the threads but the caller's

	minSize int // splitMin, but for BenchmarkThreads
}

// take reports whether a product of size multiply-adds goes to t, which
// it then holds until split: t exists, the product is large enough and no
// other product holds t.
func (t *threads) take(size int) bool {
	return t != nil && size >= t.minSize && t.mu.TryLock()
}

// split runs the product that take won, job (one of t's), on the pool,
// then lets t go.
func (t *threads) split(job workers.Job, rows int) {
	// Spans of 16 rows keep each thread's outputs to whole cache lines.
	t.pool.Split(job, rows, 16)
	t.f32, t.quant, t.batch = f32Rows{}, quantRows{}, batchRows{}
	t.mu.Unlock()
}

// f32Rows is a float32 product, out = W·x for W of n columns.
type f32Rows struct {
	out, x, w []float32
	n         int
}

func (r *f32Rows) Rows(_, from, to int) {
	matvec.Mul(r.out[from:to], r.x, r.w[from*r.n:to*r.n], r.n, to-from)
}

// quantRows is a quantized product, out = W·x, whose caller's thread
// quantizes x into v. Each other thread quantizes x into a Vec of its own
// (vecs): as long as quant.Matrix.MulVec does, and over as many columns
// as one row of the product has, while the thread shares the rows.
type quantRows struct {
	out, x []float32
	w      *quant.Matrix
	v      *quant.Vec
	vecs   []quant.Vec
}

func (r *quantRows) Rows(thread, from, to int) {
	v := r.v
	if thread > 0 {
		v = &r.vecs[thread-1]
	}
	rows := r.w.Slice(from, to)
	rows.MulVec(r.out[from:to], r.x, v)
}
