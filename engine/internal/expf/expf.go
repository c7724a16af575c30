// Package expf is the float32 exponential of C's expf, with its power
// powf and logarithms logf and log2f, as glibc computes them, for code that
// must agree with llama2.c's run.c or llama.cpp in the last bit of every
// float32.
//
// Write x·32/ln2 = k + r with integer k and |r| ≤ 1/2. Then
//
//	e^x = 2^(k/32) · 2^(r/32)
//
// where 2^(k/32) is a table entry 2^(i/32), i = k mod 32, with ⌊k/32⌋ added
// to its exponent, and 2^(r/32) a cubic polynomial; everything is computed
// in float64 and rounded once to float32. This is the algorithm of Arm's
// optimized-routines, which glibc's expf has used since version 2.27.
//
// On x86-64 CPUs with FMA and AVX2 (all since 2013) glibc 2.36 runs a build
// of it compiled with -mfma, which fuses every a·b + c. Exp evaluates it
// unfused, which is faster in wasm (math.FMA is software there), and
// returns glibc's result at the two inputs where fusing changes the
// rounding: over every float32, Exp equals that build's expf, where
// float32(math.Exp(float64(x))) differs in 170,648 inputs of [-104, 89].
// It is also three times faster than that expression.
package expf

import "math"

// Exp returns e^x rounded to float32, as glibc's expf.
func Exp(x float32) float32 {
	switch {
	case x > Overflow: // e^x > 0x1p128: +Inf, as for x = +Inf
		return float32(math.Inf(1))
	case x < Underflow: // e^x < 0x1p-150: 0, as for x = -Inf
		return 0
	case x != x:
		return x
	}
	switch math.Float32bits(x) {
	case FusedIn0:
		return math.Float32frombits(FusedOut0)
	case FusedIn1:
		return math.Float32frombits(FusedOut1)
	}
	z := float64(InvLn2N * float64(x)) // x·32/ln2, rounded before the sum below
	kd := z + Shift
	ki := math.Float64bits(kd)
	kd -= Shift
	r := z - kd
	s := math.Float64frombits(exp2Table[ki%n] + ki<<(52-5))
	// Each product is rounded before its sum: the conversions stop Go from
	// fusing them, which it does on arm64.
	p := float64(C0*r) + C1
	q := float64(C2*r) + 1
	y := float64(p*float64(r*r)) + q
	return float32(y * s)
}

// The constants of Exp, for kernels that evaluate it elsewhere (package
// wasmsimd's), in the same order of operations, to the same bits.
const (
	Overflow  = 0x1.62e42ep6             // above it e^x rounds to +Inf
	Underflow = -0x1.9fe368p6            // below it e^x rounds to 0
	InvLn2N   = 0x1.71547652b82fep+0 * n // 32/ln2
	Shift     = 0x1.8p+52                // adding it rounds z to an integer, kept in the low bits
	// Minimax coefficients of 2^(r/32), r in [-1/2, 1/2].
	C0 = 0x1.c6af84b912394p-5 / (n * n * n)
	C1 = 0x1.ebfce50fac4f3p-3 / (n * n)
	C2 = 0x1.62e42ff0c52d6p-1 / n
)

// The two inputs (float32 bits) where glibc's fused evaluation rounds the
// other way, found by comparing every float32 with the expf of glibc 2.36
// (x86-64, FMA), and its results there.
const (
	FusedIn0, FusedOut0 = 0xc27c65d9, 0x11fa2993 // -63.09946
	FusedIn1, FusedOut1 = 0x4202422f, 0x56fc9f1c // 32.564632
)

// Table is the table Exp reads (see exp2Table), for kernels that evaluate
// it elsewhere: entry k mod 32, plus k<<47, is 2^(k/32)'s bits.
func Table() *[n]uint64 { return &exp2Table }

// n is the size of exp2Table: 2^(k/32) = 2^⌊k/32⌋ · exp2Table[k mod 32].
const n = 32

// exp2Table[i] is 2^(i/32), correctly rounded to float64, with i<<47
// subtracted from its bits so that adding k<<47 for any k ≡ i (mod 32) also
// sets the exponent to ⌊k/32⌋. These are the bits of glibc's
// __exp2f_data.tab; TestExp2Table derives them again with math/big (five
// square roots of 2^i at 128 bits, exact to the last bit, where math.Exp2
// is off by one unit in six of the 32), which the program need not carry.
var exp2Table = [n]uint64{
	0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b50,
	0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
	0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
	0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
	0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce12,
	0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255c,
	0x3feee89f995ad3ae, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
	0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490d9, 0x3fefd0765b6e4540,
}
