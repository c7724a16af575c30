//go:build !amd64 || purego

package swiglu

// hasAVX2 is false: there is no assembly here.
const hasAVX2 = false

func gateAVX2(gate, up *float32, n int, table *[32]uint64) { panic("swiglu: no assembly kernel") }
