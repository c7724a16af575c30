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
// live as long as the program. A decode step's query, key and value
// products split as one product of their rows stacked, and the
// feed-forward's gate and up products as one whose threads each gate
// the rows they multiplied; a layer's attention splits its heads (from
// attendMin multiply-adds). Rows and heads are independent, so the
// logits are the same bits on any number of threads. The Kernels may be shared by
// Transformers on several goroutines: a product that finds the threads
// busy runs on its own goroutine. n ≤ 1 gives the zero Kernels.
func Threads(n int) Kernels {
	if n <= 1 {
		return Kernels{}
	}
	return Kernels{&threads{pool: workers.New(n), vecs: make([]quant.Vec, n-1), formats: make([]quant.Type, n),
		minSize: splitMin, headsMin: attendMin, chunks: chunksPerThread}}
}

// threads are the pool of Threads' Kernels and the product it runs: one
// at a time, under mu.
type threads struct {
	mu    sync.Mutex
	pool  *workers.Pool
	f32   f32Rows     // the float32 product split, or zero
	quant quantRows   // the quantized one, or zero
	batch batchRows   // the batched one, or zero
	three threeRows   // the three products of one x, or zero
	gated gatedRows   // the gated feed-forward, or zero
	vecs  []quant.Vec // x quantized, for the threads but the caller's
	// formats are the format each thread's Vec holds x quantized for in
	// the current split (quant.F32: none yet), so that a thread quantizes
	// x once a split whatever the number of its chunks.
	formats []quant.Type

	attention attendJob // the attention split by heads, or zero

	minSize  int // splitMin, but for BenchmarkThreads and the tests
	headsMin int // attendMin, but for the tests
	chunks   int // chunksPerThread, but for the tests
}

// chunksPerThread is how many chunks a product's rows are split in, a
// thread: a thread that starts late (one the operating system ran late,
// or that saw the split after the others) leaves them its chunks, one at
// a time, rather than its whole share; each thread still quantizes x once
// a split (formats). Decoding SmolLM2-135M's shape on two threads, 4
// ran F32 and Q4_0 faster than 1 and as fast on Q4_K_M; 16 ran the
// quantized ones slower.
const chunksPerThread = 4

// attendMin is the fewest multiply-adds (scores and weighted sums) a
// layer's attention must have to split its heads among threads:
// BenchmarkAttendThreads.
const attendMin = 1 << 13

// take reports whether a product of size multiply-adds goes to t, which
// it then holds until split: t exists, the product is large enough and no
// other product holds t.
func (t *threads) take(size int) bool {
	return t != nil && size >= t.minSize && t.mu.TryLock()
}

// takeHeads is take for a layer's attention of size multiply-adds.
func (t *threads) takeHeads(size int) bool {
	return t != nil && size >= t.headsMin && t.mu.TryLock()
}

// split runs the job that take won (one of t's) on the pool, its rows
// in spans of align (a product's spans of 16 rows keep each thread's
// outputs to whole cache lines), then lets t go.
func (t *threads) split(job workers.Job, rows, align int) {
	for i := range t.formats {
		t.formats[i] = quant.F32
	}
	chunks := t.pool.Threads()
	if align > 1 {
		chunks *= t.chunks
	}
	t.pool.SplitIn(job, rows, align, chunks)
	t.f32, t.quant, t.batch, t.three, t.gated = f32Rows{}, quantRows{}, batchRows{}, threeRows{}, gatedRows{}
	t.attention = attendJob{}
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
// (vecs), once a split whatever its chunks (formats): as long as
// quant.Matrix.MulVec does, and over as many columns as one row of the
// product has, while the thread shares the rows.
type quantRows struct {
	out, x []float32
	w      *quant.Matrix
	quantized
}

// quantized is where each thread quantizes x: the caller into v, thread
// k ≥ 1 into vecs[k−1]; formats[k] is the format it last did.
type quantized struct {
	v       *quant.Vec
	vecs    []quant.Vec
	formats []quant.Type // threads.formats
}

// vec is thread's quantized x.
func (q *quantized) vec(thread int) *quant.Vec {
	if thread > 0 {
		return &q.vecs[thread-1]
	}
	return q.v
}

func (r *quantRows) Rows(thread, from, to int) {
	r.formats[thread] = mulSpan(r.out, r.x, r.w, from, to, r.vec(thread), r.formats[thread])
}

// threeRows are the products of one x by three matrices of x's columns,
// out[i] = W[i]·x, whose rows are split as one matrix's: W[0]'s, then
// W[1]'s from ends[0], then W[2]'s from ends[1] to ends[2]. Each thread
// quantizes x for the quantized matrices its span reaches, as quantRows
// does, once for matrices of one format.
type threeRows struct {
	x    []float32
	out  [3][]float32
	w    [3]*quant.Matrix
	ends [3]int
	quantized
}

func (r *threeRows) Rows(thread, from, to int) {
	v := r.vec(thread)
	begin := 0
	for i, end := range r.ends {
		if from < end && to > begin {
			r.formats[thread] = mulSpan(r.out[i], r.x, r.w[i], max(from, begin)-begin, min(to, end)-begin, v, r.formats[thread])
		}
		begin = end
	}
}

// gatedRows is the gated feed-forward of x, gate = act(W1·x) ⊙ W3·x
// (act GELU with gelu, else SiLU): each thread multiplies its span of
// both matrices' rows, then gates that span.
type gatedRows struct {
	x, gate, up []float32
	w1, w3      *quant.Matrix
	gelu        bool
	quantized
}

func (r *gatedRows) Rows(thread, from, to int) {
	v := r.vec(thread)
	r.formats[thread] = mulSpan(r.gate, r.x, r.w1, from, to, v, r.formats[thread])
	r.formats[thread] = mulSpan(r.up, r.x, r.w3, from, to, v, r.formats[thread])
	if r.gelu {
		gegluGo(r.gate[from:to], r.up[from:to])
	} else {
		matvec.SwiGLU(r.gate[from:to], r.up[from:to])
	}
}

// mulSpan sets rows from … to−1 of out = W·x, each row mul's: a float32
// w by package matvec's kernel, a quantized one by its format's, x
// quantized into v first unless v holds it for w's format already
// (quantized, which it returns updated).
func mulSpan(out, x []float32, w *quant.Matrix, from, to int, v *quant.Vec, quantized quant.Type) quant.Type {
	if w.Type == quant.F32 {
		matvec.Mul(out[from:to], x, w.F32[from*w.Cols:to*w.Cols], w.Cols, to-from)
		return quantized
	}
	if w.Type != quantized {
		w.Quantize(v, x)
	}
	rows := w.Slice(from, to)
	rows.MulQuantized(out[from:to], v)
	return w.Type
}
