//go:build !js

package transformer

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"nexttoken/engine/quant"
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
