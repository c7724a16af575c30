package wasmsimd

import (
	"encoding/binary"
	"math"

	"nexttoken/engine/internal/expf"
)

// softmaxRows is the body of softmax_rows(att, positions, heads,
// attStride, table): for every head h, att_h := softmax(att_h[0 …
// positions−1]) in place, with att_h at att + h·attStride (bytes), as
// package softmax's Float32 computes it, bit for bit, for positions ≥ 4;
// table is expf.Table's address. Float32 takes the maximum m, then
// e_i = expf(x_i − m) summed in order of i, then e_i / Σe. Here:
//
//	tail := positions mod 4; mask := lanes ≥ 4 − tail
//	for each head:
//	  m := the maximum of the four-lane maxima of x in fours, and of its last four
//	  for each four: e := expf(x − m) (expf4); store e; z += e's lanes in order
//	  last four: e := expf(x − m); store e in the masked lanes; z += masked e's lanes in order
//	  x /= z, in fours, and in the masked lanes of the last four
//
// The last four overlap the fours before them when tail > 0, which the
// mask keeps out. Adding the masked lanes' zeros to z changes no bit (z,
// a sum of exponentials, is never −0). f32x4.pmax keeps the running
// maximum where a lane is NaN, as Float32's v > m does, and the largest
// value does not depend on the order, but for the sign of a zero, which
// x − m does not carry into expf.
func softmaxRows() *body {
	f := &body{params: 5}
	const att, positions, heads, attStride, table = 0, 1, 2, 3, 4
	h, row, i, end, last := f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32)
	mask, m4, v, e := f.local(v128), f.local(v128), f.local(v128), f.local(v128)
	m, t, z := f.local(f32), f.local(f32), f.local(f32)
	scratch := expScratch{f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128)}

	f.v128Const(i32x4Bytes(0, 1, 2, 3))
	f.i32Const(4)
	f.get(positions)
	f.i32Const(3)
	f.i32And()
	f.i32Sub()
	f.i32x4Splat()
	f.i32x4GeS()
	f.set(mask)
	f.get(att)
	f.set(row)
	f.i32Const(0)
	f.set(h)
	whileLess(f, h, heads)
	endOfFours(f, row, positions, end)
	f.get(row)
	f.get(positions)
	f.i32Const(2)
	f.i32Shl()
	f.i32Add()
	f.i32Const(-16)
	f.i32Add()
	f.set(last)

	// The maximum.
	f.get(row)
	f.v128Load32Splat(0)
	f.set(m4)
	forFours(f, row, i, end, func() {
		f.get(m4)
		f.get(i)
		f.v128Load(0)
		f.f32x4Pmax()
		f.set(m4)
	})
	f.get(m4)
	f.get(last)
	f.v128Load(0)
	f.f32x4Pmax()
	f.set(m4)
	f.get(m4)
	f.f32x4ExtractLane(0)
	f.set(m)
	for lane := byte(1); lane < 4; lane++ {
		f.get(m4)
		f.f32x4ExtractLane(lane)
		f.set(t)
		f.get(t)
		f.get(m)
		f.get(m)
		f.get(t)
		f.f32Lt()
		f.selectOp()
		f.set(m)
	}
	f.get(m)
	f.f32x4Splat()
	f.set(m4)

	// The exponentials and their sum.
	f.i32Const(0)
	f.f32ReinterpretI32()
	f.set(z)
	addLanes := func() {
		for lane := range byte(4) {
			f.get(z)
			f.get(e)
			f.f32x4ExtractLane(lane)
			f.f32Add()
			f.set(z)
		}
	}
	forFours(f, row, i, end, func() {
		f.get(i)
		f.v128Load(0)
		f.get(m4)
		f.f32x4Sub()
		f.set(v)
		expf4(f, v, table, scratch)
		f.set(e)
		f.get(i)
		f.get(e)
		f.v128Store(0)
		addLanes()
	})
	f.get(last)
	f.v128Load(0)
	f.set(v)
	f.get(v)
	f.get(m4)
	f.f32x4Sub()
	f.set(e)
	expf4(f, e, table, scratch)
	f.set(e)
	f.get(last)
	f.get(e)
	f.get(v)
	f.get(mask)
	f.v128Bitselect()
	f.v128Store(0)
	f.get(e)
	f.get(mask)
	f.v128And()
	f.set(e)
	addLanes()

	// The division by the sum.
	f.get(z)
	f.f32x4Splat()
	f.set(m4)
	forFours(f, row, i, end, func() {
		f.get(i)
		f.get(i)
		f.v128Load(0)
		f.get(m4)
		f.f32x4Div()
		f.v128Store(0)
	})
	f.get(last)
	f.v128Load(0)
	f.set(v)
	f.get(last)
	f.get(v)
	f.get(m4)
	f.f32x4Div()
	f.get(v)
	f.get(mask)
	f.v128Bitselect()
	f.v128Store(0)

	f.get(row)
	f.get(attStride)
	f.i32Add()
	f.set(row)
	addTo(f, h, 1)
	endWhile(f)
	return f
}

// forFours runs body for i := from, from+16, … < end.
func forFours(f *body, from, i, end uint32, body func()) {
	f.get(from)
	f.set(i)
	whileLess(f, i, end)
	body()
	addTo(f, i, 16)
	endWhile(f)
}

// expScratch are the v128 locals expf4 works in.
type expScratch struct{ z, kd, ki, r, y, low uint32 }

// expf4 pushes expf.Exp of the four lanes of local x, bit for bit: each
// pair of lanes in float64 (f64x2), in Exp's order of operations, every
// product and sum rounded as Go's wasm rounds them (WebAssembly has no
// fused multiply-add); then Exp's special cases, chosen lane by lane.
func expf4(f *body, x, table uint32, s expScratch) {
	for half := range 2 {
		f.get(x)
		if half == 1 {
			f.get(x)
			f.shuffle([4]byte{2, 3, 2, 3})
		}
		f.f64x2PromoteLowF32x4()
		f.f64x2Const(expf.InvLn2N)
		f.f64x2Mul()
		f.set(s.z)
		f.get(s.z)
		f.f64x2Const(expf.Shift)
		f.f64x2Add()
		f.set(s.ki) // kd's bits
		f.get(s.ki)
		f.f64x2Const(expf.Shift)
		f.f64x2Sub()
		f.set(s.kd)
		f.get(s.z)
		f.get(s.kd)
		f.f64x2Sub()
		f.set(s.r)
		// s := table[ki mod 32] + ki<<47, as float64 bits
		for lane := range byte(2) {
			if lane == 1 {
				f.get(s.y)
			}
			f.get(table)
			f.get(s.ki)
			f.i64x2ExtractLane(lane)
			f.i32WrapI64()
			f.i32Const(31)
			f.i32And()
			f.i32Const(3)
			f.i32Shl()
			f.i32Add()
			f.i64Load(0)
			if lane == 0 {
				f.i64x2Splat()
			} else {
				f.i64x2ReplaceLane(1)
			}
			f.set(s.y)
		}
		f.get(s.y)
		f.get(s.ki)
		f.i32Const(52 - 5)
		f.i64x2Shl()
		f.i64x2Add()
		f.set(s.kd) // s
		// y := (c0·r + c1)·(r·r) + (c2·r + 1); y·s
		f.f64x2Const(expf.C0)
		f.get(s.r)
		f.f64x2Mul()
		f.f64x2Const(expf.C1)
		f.f64x2Add()
		f.get(s.r)
		f.get(s.r)
		f.f64x2Mul()
		f.f64x2Mul()
		f.f64x2Const(expf.C2)
		f.get(s.r)
		f.f64x2Mul()
		f.f64x2Const(1)
		f.f64x2Add()
		f.f64x2Add()
		f.get(s.kd)
		f.f64x2Mul()
		f.f32x4DemoteF64x2Zero()
		if half == 0 {
			f.set(s.low) // lanes 0 and 1
		}
	}
	f.set(s.r) // lanes 2 and 3, in lanes 0 and 1
	f.get(s.low)
	f.get(s.r)
	f.shuffle([4]byte{0, 1, 4, 5})
	// Exp's special cases: +Inf above Overflow, 0 below Underflow, NaN as
	// it is, and the two fused inputs.
	f.set(s.y)
	choose := func(value func(), cond func()) {
		value()
		f.get(s.y)
		cond()
		f.v128Bitselect()
		f.set(s.y)
	}
	choose(func() { f.f32x4Const(float32(math.Inf(1))) }, func() {
		f.get(x)
		f.i32x4Const(math.Float32bits(expf.Overflow))
		f.f32x4Gt()
	})
	choose(func() { f.f32x4Const(0) }, func() {
		f.get(x)
		f.i32x4Const(math.Float32bits(expf.Underflow))
		f.f32x4Lt()
	})
	choose(func() { f.get(x) }, func() {
		f.get(x)
		f.get(x)
		f.f32x4Ne()
	})
	for _, fused := range [][2]uint32{{expf.FusedIn0, expf.FusedOut0}, {expf.FusedIn1, expf.FusedOut1}} {
		choose(func() { f.i32x4Const(fused[1]) }, func() {
			f.get(x)
			f.i32x4Const(fused[0])
			f.i32x4Eq()
		})
	}
	f.get(s.y)
}

// i32x4Bytes is the vector of four int32 lanes.
func i32x4Bytes(lanes ...int32) [16]byte {
	var b [16]byte
	for k, l := range lanes {
		binary.LittleEndian.PutUint32(b[4*k:], uint32(l))
	}
	return b
}

// swiglu is the body of swiglu(gate, up, n, table): gate[i] := silu(gate[i])
// · up[i] for i < n &^ 3 (the caller takes the last n mod 4), silu(g) =
// g · (1 / (1 + expf(−g))), as transformer's swiglu computes it, in that
// order, the same bits; table is expf.Table's address.
func swiglu() *body {
	f := &body{params: 4}
	const gate, up, n, table = 0, 1, 2, 3
	g, u, end := f.local(i32), f.local(i32), f.local(i32)
	x, e := f.local(v128), f.local(v128)
	scratch := expScratch{f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128)}
	endOfFours(f, gate, n, end)
	f.get(up)
	f.set(u)
	forFours(f, gate, g, end, func() {
		f.get(g)
		f.v128Load(0)
		f.set(x)
		f.get(x)
		f.f32x4Neg()
		f.set(e)
		expf4(f, e, table, scratch)
		f.set(e)
		f.get(g)
		f.get(x)
		f.f32x4Const(1)
		f.f32x4Const(1)
		f.get(e)
		f.f32x4Add()
		f.f32x4Div()
		f.f32x4Mul()
		f.get(u)
		f.v128Load(0)
		f.f32x4Mul()
		f.v128Store(0)
		addTo(f, u, 16)
	})
	return f
}
