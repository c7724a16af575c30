//go:build !linux

package session_test

import "time"

// threadCPU is 0 where a thread's CPU time is not read: the benchmarks
// then report wall time only.
func threadCPU() time.Duration { return 0 }
