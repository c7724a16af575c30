//go:build js

package wasmsimd

import (
	"runtime"
	"unsafe"
)

// QuantizeQ8_0 quantizes the blocks of 32 of x into q, d, s and sums, a
// block of x each, as package quant quantizes a vector for Q8_0 weights
// (quant.BlockQuantizer), bit for bit, and returns how many blocks it
// quantized: it stops before a block whose largest magnitude is infinite,
// NaN, or so small that 127 over it overflows, which quant's Go code
// quantizes, and it quantizes none if the call into JavaScript fails.
func (k *Kernel) QuantizeQ8_0(x []float32, q []int8, d, s []float32, sums []int32) int {
	blocks := len(d)
	if blocks == 0 {
		return 0
	}
	x, q, s, sums = x[:blocks*32], q[:blocks*32], s[:blocks], sums[:blocks]
	k.args[0] = address(unsafe.Pointer(&x[0]))
	k.args[1] = address(unsafe.Pointer(&q[0]))
	k.args[2] = address(unsafe.Pointer(&d[0]))
	k.args[3] = address(unsafe.Pointer(&s[0]))
	k.args[4] = address(unsafe.Pointer(&sums[0]))
	k.args[5] = uint32(blocks)
	k.args[6] = address(unsafe.Pointer(&k.args[7]))
	k.args[7] = 0
	err := k.call(k.quantize)
	runtime.KeepAlive(x)
	runtime.KeepAlive(q)
	runtime.KeepAlive(d)
	runtime.KeepAlive(s)
	runtime.KeepAlive(sums)
	if err != nil {
		return 0
	}
	return int(min(k.args[7], uint32(blocks)))
}
