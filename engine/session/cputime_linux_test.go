package session_test

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling thread has used (RUSAGE_THREAD),
// user and system.
func threadCPU() time.Duration {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
