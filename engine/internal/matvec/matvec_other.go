//go:build !amd64 || purego

package matvec

// hasFMA is false: there is no assembly here.
const hasFMA = false

func mulAVX2(out, x, w *float32, stride, cols, rows int) { panic("matvec: no assembly kernel") }
