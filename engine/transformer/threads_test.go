//go:build !js

package transformer

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

// TestThreadsKeepLogits decodes a model of every format on one, two and
// three threads, and on two threads by two Transformers at once (the one
// that finds the threads busy multiplying alone): the logits of every
// pass are the same bits, and a pass allocates nothing.
func TestThreadsKeepLogits(t *testing.T) {
	if smallQuant.Dim*smallQuant.Dim < splitMin {
		t.Fatalf("the model's %d × %d products are too small to be split", smallQuant.Dim, smallQuant.Dim)
	}
	const steps = threadSteps
	kernels := map[int]Kernels{2: Threads(2), 3: Threads(3)}
	for _, format := range threadFormats {
		t.Run(format, func(t *testing.T) {
			m := threadModel(t, format)
			want := decodeLogits(t, m, Kernels{}, steps)
			for n, k := range kernels {
				compareLogits(t, n, "", want, decodeLogits(t, m, k, steps))
			}
			var wg sync.WaitGroup
			var both [2][][]float32
			for i := range both {
				wg.Go(func() { both[i] = decodeLogits(t, m, kernels[2], steps) })
			}
			wg.Wait()
			for _, got := range both {
				compareLogits(t, 2, ", two Transformers at once", want, got)
			}
			tr := NewWith(m, Options{Kernels: kernels[3]})
			forwardDoesNotAllocate(t, tr, tr.Options())
		})
	}
}

// TestThreadsSplitEverything decodes with every split the threads have
// taken down to the smallest: each product, the query's, key's and value's
// products together (mulThree), the gated feed-forward with its gating
// (mulGated) and attention head by head (attendHeads), on two and three
// threads (and on two in a chunk a thread), in every format and in each
// architecture randmodel extends (soft-caps, sliding windows, GELU,
// biases, query and key norms): the logits are one thread's bits, and a
// pass allocates nothing.
func TestThreadsSplitEverything(t *testing.T) {
	const steps = 24 // past gemma2's and phi3's windows
	kernels := []struct {
		threads int
		how     string
		k       Kernels
	}{{2, ", every split", Threads(2)}, {3, ", every split", Threads(3)}, {2, ", every split, a chunk a thread", Threads(2)}}
	kernels[2].k.threads.chunks = 1
	for _, k := range kernels {
		k.k.threads.minSize, k.k.threads.headsMin = 0, 0
	}
	models := map[string]*checkpoint.Model{}
	for _, format := range threadFormats {
		models[format] = threadModel(t, format)
	}
	for _, arch := range randmodel.Extensions {
		m := threadModel(t, "F32")
		if err := randmodel.Extend(m, arch, 3); err != nil {
			t.Fatal(err)
		}
		models["F32 "+arch] = m
	}
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			want := decodeLogits(t, m, Kernels{}, steps)
			for _, k := range kernels {
				compareLogits(t, k.threads, k.how, want, decodeLogits(t, m, k.k, steps))
			}
			tr := NewWith(m, Options{Kernels: kernels[0].k})
			forwardDoesNotAllocate(t, tr, tr.Options())
		})
	}
}

// BenchmarkAttendThreads times a layer's attention of SmolLM2-135M's
// shape (9 heads of 64, 3 key heads) over growing numbers of positions
// on one and two threads: where splitting its heads starts to pay
// (attendMin).
func BenchmarkAttendThreads(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 9))
	two := Threads(2)
	two.threads.headsMin = 0
	const count, kvHeads, size = 9, 3, 64
	for _, positions := range []int{8, 16, 32, 64, 128, 256} {
		q, out := randomVector(rng, count*size), make([]float32, count*size)
		keys, values := randomVector(rng, positions*kvHeads*size), randomVector(rng, positions*kvHeads*size)
		att := make([]float32, count*positions)
		l := heads{count: count, size: size, kvMul: count / kvHeads, positions: positions, stride: kvHeads * size, attStride: positions}
		job := attendJob{q, keys, values, out, att, att, l, 8, 0, 0}
		for _, k := range []struct {
			name    string
			kernels Kernels
		}{{"one", Kernels{}}, {"two", two}} {
			b.Run(fmt.Sprintf("%d/%s", positions, k.name), func(b *testing.B) {
				for b.Loop() {
					if !k.kernels.attendHeads(job) {
						job.Rows(0, 0, count)
					}
				}
			})
		}
	}
}

// BenchmarkThreads times float32 and Q8_0 products of growing size on one
// and two threads: where splitting starts to pay (splitMin).
func BenchmarkThreads(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	two := Threads(2)
	two.threads.minSize = 0
	for _, shape := range [][2]int{{64, 64}, {64, 256}, {128, 256}, {256, 256}, {256, 512}, {576, 576}, {576, 1536}} {
		n, d := shape[0], shape[1]
		w, x, out := randomVector(rng, n*d), randomVector(rng, n), make([]float32, d)
		q := quant.Random(quant.Q8_0, d, n, 0.1, rng)
		var v quant.Vec
		for _, k := range []struct {
			name    string
			kernels Kernels
		}{{"one", Kernels{}}, {"two", two}} {
			b.Run(fmt.Sprintf("F32/%dx%d/%s", n, d, k.name), func(b *testing.B) {
				for b.Loop() {
					k.kernels.matmul(out, x, w, n, d)
				}
			})
			b.Run(fmt.Sprintf("Q8_0/%dx%d/%s", n, d, k.name), func(b *testing.B) {
				for b.Loop() {
					k.kernels.mulQuantized(out, x, &q, &v)
				}
			})
		}
	}
}

// testKernels natively are Go's loops and assembly, on one thread and on
// two.
func testKernels(testing.TB) []namedKernels {
	return []namedKernels{{"", Kernels{}}, {", 2 threads", Threads(2)}}
}
