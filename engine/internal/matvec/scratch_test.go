package matvec

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var scratchKernel = Mul

func BenchmarkScratch(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, s := range [][2]int{{288, 64000}, {288, 32000}, {768, 288}} {
		n, d := s[0], s[1]
		w, x, out := make([]float32, n*d), make([]float32, n), make([]float32, d)
		for i := range w {
			w[i] = float32(i%7) * 0.1
		}
		for i := range x {
			x[i] = float32(i) * 0.01
		}
		b.Run(fmt.Sprintf("%dx%d", n, d), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start := threadCPU()
			for b.Loop() {
				scratchKernel(out, x, w, n, d)
			}
			cpu := threadCPU() - start
			b.ReportMetric(float64(4*n*d)*float64(b.N)/cpu.Seconds()/1e9, "cpuGB/s")
		})
	}
}
