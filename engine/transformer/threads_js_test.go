//go:build js

package transformer

import (
	"testing"
	"time"

	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

// TestThreadsKeepLogits decodes a model of every format with the SIMD
// kernels on one thread and on two: the logits of every pass are the same
// bits, and a pass allocates nothing. It needs the program on a shared
// memory (engine/internal/wasmsimd/sharedmemory's exec, which make jstest
// runs it under) and skips on go test's plain node loader.
func TestThreadsKeepLogits(t *testing.T) {
	one := loadKernels(t)
	two, err := loadAllKernels()
	if err != nil {
		t.Fatal(err)
	}
	if err := two.StartThreads(2); err != nil {
		t.Skip(err)
	}
	for deadline := time.Now().Add(10 * time.Second); two.Threads() != 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second thread did not start")
		}
	}
	c := smallQuant
	c.SeqLen = 128 // room for forwardDoesNotAllocate's passes
	const steps = 8
	for _, format := range threadFormats {
		t.Run(format, func(t *testing.T) {
			m, _, err := randmodel.BuildNamed(c, 15, format)
			if err != nil {
				t.Fatal(err)
			}
			if format != "F32" && m.Matrices().Classifier.Type == quant.F32 {
				t.Fatalf("%s: the classifier is float32", format)
			}
			randmodel.RandomGains(m, 15)
			compareLogits(t, 2, "", decodeLogits(t, m, one, steps), decodeLogits(t, m, two, steps))
			tr := NewWith(m, Options{Kernels: two})
			forwardDoesNotAllocate(t, tr, tr.Options())
		})
	}
}
