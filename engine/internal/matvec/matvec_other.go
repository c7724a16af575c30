//go:build !amd64 || purego

package matvec

// hasFMA is false: there is no assembly here.
const hasFMA = false

func mulAVX2(out, x, w *float32, stride, cols, rows int) { panic("matvec: no assembly kernel") }

func scoresAVX2(att, q, keys *float32, n, stride, groups int, scale float32) {
	panic("matvec: no assembly kernel")
}

func mixAVX2(out, w, values *float32, n, stride, positions int) { panic("matvec: no assembly kernel") }

func swigluAVX2(gate, up *float32, n int, table *[32]uint64) { panic("matvec: no assembly kernel") }
