//go:build js

package transformer

import (
	"fmt"
	"testing"
	"time"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/randmodel"
)

// TestThreadsKeepLogits decodes a model of every format with the SIMD
// kernels on one thread and on two: the logits of every pass are the same
// bits, and a pass allocates nothing. It needs the program on a shared
// memory (cmd/wasmshare's exec, which make jstest
// runs it under) and skips on go test's plain node loader.
func TestThreadsKeepLogits(t *testing.T) {
	one, two := loadKernels(t), twoThreads(t)
	for _, format := range threadFormats {
		t.Run(format, func(t *testing.T) {
			m := threadModel(t, format)
			compareLogits(t, 2, "", decodeLogits(t, m, one, threadSteps), decodeLogits(t, m, two, threadSteps))
			tr := NewWith(m, Options{Kernels: two})
			forwardDoesNotAllocate(t, tr, tr.Options())
		})
	}
}

// TestThreadsPrefill feeds prompts through Prefill with the SIMD kernels on
// two threads, whose tiles of rows each split among them: the cache and
// the last pass are Forward's bits (comparePrefill), in every format.
func TestThreadsPrefill(t *testing.T) {
	two := twoThreads(t)
	for _, format := range threadFormats {
		comparePrefill(t, format+", 2 threads", threadModel(t, format), Options{Kernels: two})
	}
}

// twoThreads is the SIMD kernels, every fetched module added, running
// their products on two threads. It skips where the program's memory is
// not shared.
func twoThreads(tb testing.TB) Kernels {
	tb.Helper()
	two, err := loadAllKernels()
	if err != nil {
		tb.Fatal(err)
	}
	if err := two.StartThreads(2); err != nil {
		tb.Skip(err)
	}
	for deadline := time.Now().Add(10 * time.Second); two.Threads() != 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatal("the second thread did not start")
		}
	}
	return two
}

// BenchmarkThreadsDecode decodes 32 greedy tokens of the SmolLM2-135M
// shape in Q8_0 and of the Qwen2.5-0.5B shape in Q4_K_M, random weights,
// with the SIMD kernels on one thread and on two (on a shared memory:
// cmd/wasmshare's exec).
func BenchmarkThreadsDecode(b *testing.B) {
	one, two := loadKernels(b), twoThreads(b)
	const tokens = 32
	for _, c := range []struct {
		name   string
		config checkpoint.Config
		format string
	}{{"SmolLM2-135M-shape-Q8_0", randmodel.SmolLM2, "Q8_0"}, {"Qwen2.5-0.5B-shape-Q4_K_M", randmodel.Qwen25_05B, "Q4_K_M"}} {
		m, _, err := randmodel.BuildNamed(c.config, 15, c.format)
		if err != nil {
			b.Fatal(err)
		}
		for _, k := range []struct {
			threads int
			kernels Kernels
		}{{1, one}, {2, two}} {
			b.Run(fmt.Sprintf("%s/threads=%d", c.name, k.threads), func(b *testing.B) {
				tr := NewWith(m, Options{Kernels: k.kernels})
				for b.Loop() {
					decodeGreedy(b, tr, tokens)
				}
				b.ReportMetric(float64(tokens*b.N)/b.Elapsed().Seconds(), "tok/s")
			})
		}
	}
}
