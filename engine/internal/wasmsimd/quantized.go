package wasmsimd

// A quantized format the kernels multiply by a vector quantized in blocks
// of its own: qBlock values a block (32, ggml's block_q8_0, or 256,
// block_q8_K) with their scales d (a float32 a block) and sums (int32s of
// the vector's q, sumsBytes of them a block: a sum of 32, or sixteen sums
// of 16; Q5_1 reads there instead each block's float32 s, see blockQ5_1).
// minsApart says the kernel sums the blocks' mins apart from their
// products and adds them last, as Go's mulQ5_1 does. The callers of the
// kernels need only this; the generator also needs each format's block
// (quantBlocks), kept apart so that a program calling the kernels does not
// link the generator.
type quantFormat struct {
	blockBytes, qBlock, sumsBytes int32
	minsApart                     bool
}

var (
	q8_0 = quantFormat{blockBytes: 2 + 32, qBlock: 32, sumsBytes: 4}
	q4_0 = quantFormat{blockBytes: 2 + 16, qBlock: 32, sumsBytes: 4}
	q5_0 = quantFormat{blockBytes: 2 + 4 + 16, qBlock: 32, sumsBytes: 4}
	q5_1 = quantFormat{blockBytes: 2 + 2 + 4 + 16, qBlock: 32, sumsBytes: 4, minsApart: true}
	q4_K = quantFormat{blockBytes: 2 + 2 + 12 + 128, qBlock: 256, sumsBytes: 64}
	q5_K = quantFormat{blockBytes: 2 + 2 + 12 + 32 + 128, qBlock: 256, sumsBytes: 64}
	q6_K = quantFormat{blockBytes: 128 + 64 + 16 + 2, qBlock: 256, sumsBytes: 64}
	// IQ4_NL is Q4_0's layout, IQ4_XS a K format of groups of 32.
	iq4_NL = quantFormat{blockBytes: 2 + 16, qBlock: 32, sumsBytes: 4}
	iq4_XS = quantFormat{blockBytes: 2 + 2 + 4 + 128, qBlock: 256, sumsBytes: 64}
	q3_K   = quantFormat{blockBytes: 32 + 64 + 12 + 2, qBlock: 256, sumsBytes: 64}
	q2_K   = quantFormat{blockBytes: 16 + 64 + 2 + 2, qBlock: 256, sumsBytes: 64}
)

// quantBlock emits a format's block: it adds the products of a block of
// each of the four rows with the vector's block (see quantRows) to acc,
// and leaves each r_k at its row's next block.
type quantBlock func(k *quantRows)

// quantRows is what a format's block sees of its kernel: the function
// under construction, the addresses of a block of each of four rows (r)
// and of the vector's block (qp, dp and sp: its q, d and sums), and acc,
// the four rows' float sums, a row a lane; mins, for a format whose mins
// are summed apart (quantFormat.minsApart), their sums, a row a lane.
type quantRows struct {
	f          *body
	r          [4]uint32
	qp, dp, sp uint32
	acc, mins  uint32
}

// vectorScale pushes the vector block's scale d in every lane.
func (k *quantRows) vectorScale() {
	k.f.get(k.dp)
	k.f.f32Load(0)
	k.f.f32x4Splat()
}

// timesScales multiplies the float32 vector on the stack by half(h)·d[b]:
// h's float16s, a row a lane, times the vector block's scale, rounded
// first, as Go's kernels round d·vd·float(sum). bits is scratch.
func (k *quantRows) timesScales(h, bits uint32) {
	halfToFloat(k.f, h, bits)
	k.vectorScale()
	k.f.f32x4Mul()
	k.f.f32x4Mul()
}

// addDots adds to acc the rows' integer sums, [Σ dots_k for each k], as
// float32 times half(h)·d[b] (timesScales; bits is scratch).
func (k *quantRows) addDots(dots [4]uint32, h, bits uint32) {
	f := k.f
	f.get(k.acc)
	transposeSum(f, dots, f.i32x4Add)
	f.f32x4ConvertI32x4S()
	k.timesScales(h, bits)
	f.f32x4Add()
	f.set(k.acc)
}

// addDotsMins is addDots for a K format with mins: it adds to acc
// float([Σ dots_k for each k])·(d·d[b]) − float(mins)·(dmin·d[b]), d and
// dmin the float16s in the low and high halves of local h's lanes, which
// it overwrites.
func (k *quantRows) addDotsMins(dots [4]uint32, mins, h, bits uint32) {
	f := k.f
	f.get(k.acc)
	transposeSum(f, dots, f.i32x4Add)
	f.f32x4ConvertI32x4S()
	k.timesScales(h, bits) // d
	f.get(mins)
	f.f32x4ConvertI32x4S()
	f.get(h)
	f.i32Const(16)
	f.i32x4ShrU()
	f.set(h)
	k.timesScales(h, bits) // dmin
	f.f32x4Sub()
	f.f32x4Add()
	f.set(k.acc)
}

// rowScales sets local to the float16 scale at offset in each row's
// block, in the low half of the row's int32 lane, and with pair the
// float16 after it in the high half.
func (k *quantRows) rowScales(local, offset uint32, pair bool) {
	f := k.f
	f.v128Const0()
	for i, r := range k.r {
		f.set(local)
		f.get(r)
		f.get(local)
		if pair {
			f.load32Lane(offset, byte(i))
		} else {
			f.load16Lane(offset, byte(2*i))
		}
	}
	f.set(local)
}

// mulQuant is the body of mul_q8_0, mul_q4_0, mul_q5_0, mul_q5_1,
// mul_q4_k, mul_q5_k and mul_q6_k(out,
// w, q, d, sums, blocks, rows): out[i] for i < rows is row i of w, blocks
// blocks of the format a row, times the vector quantized as q, d and sums
// (see quantFormat). Its results are those of package quant's Go kernels
// (ggml's ggml_vec_dot_*), bit for bit: a block's products are summed in
// integers, exactly, in any order; then, in order of blocks, each row adds
// its block's sums times the scales, rounded as Go rounds them, one lane a
// row. In outline:
//
//	while rows remain:
//	  r_k := row k of the next four (the first again past the last); acc := 0
//	  for each block:
//	    acc += the products of the four rows' blocks and the vector's (block)
//	  acc += mins, where they are summed apart (Q5_1)
//	  store the lanes of acc that are rows
//
// Four rows at a time let one transposition (transposeSum) finish four
// sums and share each load of the vector.
func mulQuant(format quantFormat, block quantBlock) *body {
	f := &body{params: 7}
	const out, w, q, d, sums, blocks, rows = 0, 1, 2, 3, 4, 5, 6
	rowBytes, row, o, outEnd, dEnd := f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32)
	k := &quantRows{f: f, qp: f.local(i32), dp: f.local(i32), sp: f.local(i32), acc: f.local(v128)}
	if format.minsApart {
		k.mins = f.local(v128)
	}
	for i := range k.r {
		k.r[i] = f.local(i32)
	}

	f.get(blocks)
	f.i32Const(format.blockBytes)
	f.i32Mul()
	f.set(rowBytes)
	f.get(w)
	f.set(row)
	f.get(out)
	f.set(o)
	f.get(out)
	f.get(rows)
	f.i32Const(2)
	f.i32Shl()
	f.i32Add()
	f.set(outEnd)
	f.get(d)
	f.get(blocks)
	f.i32Const(2)
	f.i32Shl()
	f.i32Add()
	f.set(dEnd)

	whileLess(f, o, outEnd)
	// r_k := row + k·rowBytes if row k is one, else row
	f.get(row)
	f.set(k.r[0])
	for i := 1; i < len(k.r); i++ {
		f.get(row)
		f.get(rowBytes)
		f.i32Const(int32(i))
		f.i32Mul()
		f.i32Add()
		f.get(row)
		f.get(outEnd)
		f.get(o)
		f.i32Sub()
		f.i32Const(int32(4 * i))
		f.i32GtU()
		f.selectOp()
		f.set(k.r[i])
	}
	f.v128Const0()
	f.set(k.acc)
	if format.minsApart {
		f.v128Const0()
		f.set(k.mins)
	}
	f.get(q)
	f.set(k.qp)
	f.get(d)
	f.set(k.dp)
	f.get(sums)
	f.set(k.sp)

	whileLess(f, k.dp, dEnd)
	block(k)
	addTo(f, k.qp, format.qBlock)
	addTo(f, k.dp, 4)
	addTo(f, k.sp, format.sumsBytes)
	endWhile(f)
	if format.minsApart {
		f.get(k.acc)
		f.get(k.mins)
		f.f32x4Add()
		f.set(k.acc)
	}

	// Store four rows, or the one to three that remain.
	f.block()
	f.block()
	f.get(outEnd)
	f.get(o)
	f.i32Sub()
	f.i32Const(16)
	f.i32LtU()
	f.brIf(0)
	f.get(o)
	f.get(k.acc)
	f.v128Store(0)
	f.br(1)
	f.end()
	for i := range 3 {
		if i > 0 {
			f.get(outEnd)
			f.get(o)
			f.i32Sub()
			f.i32Const(int32(4 * i))
			f.i32LeU()
			f.brIf(0)
		}
		f.get(o)
		f.get(k.acc)
		f.f32x4ExtractLane(byte(i))
		f.f32Store(uint32(4 * i))
	}
	f.end()

	f.get(row)
	f.get(rowBytes)
	f.i32Const(4)
	f.i32Mul()
	f.i32Add()
	f.set(row)
	addTo(f, o, 16)
	endWhile(f)
	return f
}

// block32 is the block of Q8_0, Q4_0 and Q5_0 (32 weights of blockBytes,
// their float16 scale first), whose integer products dot sums (see
// dotQ8_0):
//
//	x := the vector's 32 values of q as four int16 vectors of eight
//	p_k := products of r_k's block and x (dot), in four lanes
//	s := [Σp_0 Σp_1 Σp_2 Σp_3] − offset·sums[b] (Q4_0's 8, Q5_0's 16, else 0)
//	acc += float(s) · half(r_k's scale) · d[b]
//
// weightScaleFirst rounds float(s)·half first, then times d[b], as Go's
// mulQ4_0 does, instead of float(s)·(half·d[b]), as mulQ8_0 and mulQ5_0 do.
func block32(blockBytes int32, dot func(f *body, r uint32, x [4]uint32, v, n, p uint32), offset int32, weightScaleFirst bool) quantBlock {
	return func(k *quantRows) {
		f := k.f
		var x, p [4]uint32
		for i := range x {
			x[i], p[i] = f.local(v128), f.local(v128)
		}
		v, n := f.local(v128), f.local(v128)
		for half := range 2 {
			loadInt16(f, k.qp, uint32(16*half), v, x[2*half], x[2*half+1])
		}
		for i, r := range k.r {
			dot(f, r, x, v, n, p[i])
		}

		f.get(k.acc)
		transposeSum(f, p, f.i32x4Add)
		if offset != 0 {
			f.get(k.sp)
			f.i32Load(0)
			f.i32Const(offset)
			f.i32Mul()
			f.i32x4Splat()
			f.i32x4Sub()
		}
		f.f32x4ConvertI32x4S()
		k.rowScales(v, 0, false)
		if weightScaleFirst {
			halfToFloat(f, v, n)
			f.f32x4Mul()
			k.vectorScale()
			f.f32x4Mul()
		} else {
			k.timesScales(v, n)
		}
		f.f32x4Add()
		f.set(k.acc)
		for _, r := range k.r {
			addTo(f, r, blockBytes)
		}
	}
}

// blockQ5_1 is the block of Q5_1 (Q5_0's with a float16 min m after d,
// so qh at 4 and the nibbles at 8), its weights 0–31: block32's with no
// offset, and apart, as Go's mulQ5_1 sums them, mins += half(m)·s[b], s
// the vector's block_q8_1 sums (float32s, in the place of sums).
func blockQ5_1(k *quantRows) {
	f := k.f
	m, bits := f.local(v128), f.local(v128)
	k.rowScales(m, 2, false)
	f.get(k.mins)
	halfToFloat(f, m, bits)
	f.get(k.sp)
	f.v128Load32Splat(0)
	f.f32x4Mul()
	f.f32x4Add()
	f.set(k.mins)
	block32(q5_1.blockBytes, dotQ5(4), 0, false)(k)
}

// loadInt16 sets locals lo and hi to the 16 int8 at local p + offset,
// sign-extended to int16; v is scratch.
func loadInt16(f *body, p, offset, v, lo, hi uint32) {
	f.get(p)
	f.v128Load(offset)
	f.set(v)
	f.get(v)
	f.i16x8ExtendLowI8x16S()
	f.set(lo)
	f.get(v)
	f.i16x8ExtendHighI8x16S()
	f.set(hi)
}

// dotQ8_0 sums the products of the block's weights and x, 16 at a time
// (dot16).
func dotQ8_0(f *body, r uint32, x [4]uint32, v, _, p uint32) {
	for half := range 2 {
		f.get(r)
		f.v128Load(uint32(2 + 16*half))
		f.set(v)
		dot16(f, v, x[2*half], x[2*half+1])
		if half == 1 {
			f.get(p)
			f.i32x4Add()
		}
		f.set(p)
	}
}

// dotQ4_0 takes the low nibbles (weights 0–15, against x[0] and x[1]) and
// the high ones (weights 16–31, against x[2] and x[3]) as dotQ8_0 takes
// its two halves: 0–15 is an int8 as it stands.
func dotQ4_0(f *body, r uint32, x [4]uint32, v, n, p uint32) {
	f.get(r)
	f.v128Load(2)
	f.set(v)
	for half := range 2 {
		f.get(v)
		nibbles(f, half == 1)
		f.set(n)
		dot16(f, n, x[2*half], x[2*half+1])
		if half == 1 {
			f.i32x4Add()
		}
	}
	f.set(p)
}

// dotQ5 returns the dot of Q5_0 (qh at 2) or Q5_1 (qh at 4): dotQ4_0's
// with each weight's fifth bit, bit j of the uint32 at r + qh for weight
// j, made 16 in its byte: qh's bytes spread over the lanes (eight lanes a
// byte), each lane's bit picked by a mask, 16 where it is set. The
// weights are then 0–31; Q5_0's −16 is taken out with the vector's sums
// (block32's offset).
func dotQ5(qh uint32) func(f *body, r uint32, x [4]uint32, v, n, p uint32) {
	return func(f *body, r uint32, x [4]uint32, v, n, p uint32) {
		f.get(r)
		f.v128Load(qh + 4)
		f.set(v)
		var spread, bits [16]byte
		for half := range 2 {
			for j := range 16 {
				spread[j] = byte(2*half + j/8)
				bits[j] = 1 << (j % 8)
			}
			f.i32x4Const(0x10101010)
			f.get(r)
			f.v128Load32Splat(qh)
			f.set(p) // p is scratch until the end
			f.get(p)
			f.get(p)
			f.shuffleBytes(spread)
			f.v128Const(bits)
			f.v128And()
			f.v128Const0()
			f.i8x16Eq()
			f.v128AndNot() // 16 where the bit is set
			f.get(v)
			nibbles(f, half == 1)
			f.v128Or()
			f.set(n)
			dot16(f, n, x[2*half], x[2*half+1])
			if half == 1 {
				f.i32x4Add()
			}
		}
		f.set(p)
	}
}

// iq4Grid is ggml's kvalues_iq4nl, the values of IQ4_NL's and IQ4_XS's
// four-bit indices, as bytes.
var iq4Grid = func() (b [16]byte) {
	for i, v := range [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113} {
		b[i] = byte(v)
	}
	return b
}()

// iq4Dot pushes the products of the 32 IQ4 indices at local p + offset
// (weight j's in the low nibble of byte j, weight j+16's in its high
// one) with x, summed in four lanes: each nibble looks its grid value up
// (i8x16.swizzle of local grid, iq4Grid), an int8, as dotQ4_0 takes its
// nibbles. v and n are scratch.
func iq4Dot(f *body, p, offset, grid uint32, x [4]uint32, v, n uint32) {
	f.get(p)
	f.v128Load(offset)
	f.set(v)
	for half := range 2 {
		f.get(grid)
		f.get(v)
		nibbles(f, half == 1)
		f.i8x16Swizzle()
		f.set(n)
		dot16(f, n, x[2*half], x[2*half+1])
		if half == 1 {
			f.i32x4Add()
		}
	}
}

// dotIQ4_NL is dotQ4_0 for IQ4_NL's block, each index's grid value in
// place of its nibble (iq4Dot).
func dotIQ4_NL(f *body, r uint32, x [4]uint32, v, n, p uint32) {
	f.v128Const(iq4Grid)
	f.set(p) // p is the grid until the end
	iq4Dot(f, r, 2, p, x, v, n)
	f.set(p)
}

// blockIQ4_XS is the block of IQ4_XS (package quant's iq4_xs.go: d, a
// uint16 of the eight groups' scales' high two bits, four bytes of their
// low four bits, then 16 bytes of IQ4 indices a group of 32), times a
// Q8_K block, as Go's mulIQ4_XS:
//
//	for each group g:
//	  x := the vector's 32 values at 32g, as int16
//	  for each row k: dots_k += (ls_k[g] − 32) · (r_k's group g · x), in four lanes
//	acc += float([Σ dots_k for each k])·(d·d[b])
//
// ls_k[g] is read with scalar loads: (byte 4 + g/2 >> 4·(g%2) & 15) |
// (uint16 at 2 >> 2g & 3) << 4.
func blockIQ4_XS(k *quantRows) {
	f := k.f
	halves, v, n, grid := f.local(v128), f.local(v128), f.local(v128), f.local(v128)
	var x, dots [4]uint32
	for i := range x {
		x[i], dots[i] = f.local(v128), f.local(v128)
	}
	// g2 = 2g; qc = the vector's group; low = 4 + g/2 − 16g, where r_k is
	// group g's indices less 8, so that r_k + low is the scale's byte;
	// lowShift = 4·(g%2).
	g2, qc, low, lowShift := f.local(i32), f.local(i32), f.local(i32), f.local(i32)

	k.rowScales(halves, 0, false)
	for _, d := range dots {
		f.v128Const0()
		f.set(d)
	}
	f.v128Const(iq4Grid)
	f.set(grid)
	f.i32Const(0)
	f.set(g2)
	f.get(k.qp)
	f.set(qc)
	f.i32Const(4)
	f.set(low)

	f.loop()
	f.get(g2)
	f.i32Const(1)
	f.i32Shl()
	f.i32Const(4)
	f.i32And()
	f.set(lowShift) // 4·(g%2) = (2g << 1) & 4
	for j := range 2 {
		loadInt16(f, qc, uint32(16*j), v, x[2*j], x[2*j+1])
	}
	for i, r := range k.r {
		iq4Dot(f, r, 8, grid, x, v, n)
		// ls − 32
		f.get(r)
		f.get(low)
		f.i32Add()
		f.i32Load8U(0)
		f.get(lowShift)
		f.i32ShrU()
		f.i32Const(15)
		f.i32And()
		f.get(r)
		f.get(low)
		f.i32Add()
		f.get(g2)
		f.i32Const(2)
		f.i32ShrU()
		f.i32Sub()
		f.i32Const(2)
		f.i32Sub() // r_k + low − g/2 − 2: the block's start + 2
		f.i32Load16U(0)
		f.get(g2)
		sixBits(f)
		addScaled(f, dots[i])
		addTo(f, r, 16)
	}
	addTo(f, qc, 32)
	addTo(f, g2, 2)
	// low: +1 every other group (g/2), −16 a group
	f.get(low)
	f.get(lowShift)
	f.i32Const(2)
	f.i32ShrU() // 1 after an odd group
	f.i32Add()
	f.i32Const(16)
	f.i32Sub()
	f.set(low)
	f.get(g2)
	f.i32Const(16)
	f.i32LtU()
	f.brIf(0)
	f.end()

	k.addDots(dots, halves, v)
	for _, r := range k.r {
		addTo(f, r, iq4_XS.blockBytes-128)
	}
}

// blockQ3_K is the block of Q3_K (package quant's q3_k.go: 32 bytes
// hmask, 64 bytes qs of two-bit low parts, 12 bytes packing sixteen
// six-bit scales, then d), times a Q8_K block, as Go's mulQ3_K (see
// blockGroups16).
func blockQ3_K(k *quantRows) { blockGroups16(k, true) }

// blockQ2_K is the block of Q2_K (package quant's q2_k.go: sixteen bytes
// of four-bit scales, low nibbles, and mins, high ones, 64 bytes qs of
// two-bit weights, then d and dmin), times a Q8_K block, as Go's mulQ2_K
// (see blockGroups16).
func blockQ2_K(k *quantRows) { blockGroups16(k, false) }

// blockGroups16 is the block of Q3_K, or without q3 of Q2_K, whose 256
// weights are sixteen groups of 16 of two-bit parts laid out alike, at
// qs = 32 (Q3_K) or 16 (Q2_K):
//
//	Q2_K: mins := [Σ_g m_k[g]·sums[g] for each k], as blockMinsK's
//	for each group g of 16 (half = g/8, j = g%8/2, second = g%2):
//	  x := the vector's 16 values at 16g, as int16
//	  for each row k:
//	    w := qs[32·half + 16·second + l] >> 2j & 3
//	    Q3_K: w := (w | (hmask[16·second + l] >> (4·half + j) & 1) << 2) − 4
//	    dots_k += s_k[g] · (w · x), in four lanes
//	acc += float([Σ dots_k for each k])·(d·d[b]), Q2_K: − float(mins)·(dmin·d[b])
//
// The scale s[g] is read with scalar loads: Q2_K's the low nibble of byte
// g; Q3_K's (scales[g%8] >> 4·(g/8) & 15) | (scales[8 + g%4] >> 2·(g/4) &
// 3) << 4, minus 32. The rows stay at their blocks' starts; the shifts
// and offsets follow g.
func blockGroups16(k *quantRows, q3 bool) {
	f := k.f
	halves, v, n, lo, hi, mins := f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128)
	var dots [4]uint32
	for i := range dots {
		dots[i] = f.local(v128)
	}
	g, xp, qs, hm, shiftQ, shiftH := f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32)
	// shr pushes local >> by & mask.
	shr := func(local uint32, by, mask int32) {
		f.get(local)
		f.i32Const(by)
		f.i32ShrU()
		f.i32Const(mask)
		f.i32And()
	}
	qsBase := int32(16)
	if q3 {
		qsBase = 32
		k.rowScales(halves, uint32(q3_K.blockBytes-2), false)
	} else {
		k.rowScales(halves, 80, true) // d and dmin
		// The vector's sixteen sums as int16, and each row's mins times them.
		sums := [2]uint32{lo, hi}
		for h, p := range sums {
			f.get(k.sp)
			f.v128Load(uint32(32 * h))
			f.get(k.sp)
			f.v128Load(uint32(32*h + 16))
			f.i16x8NarrowI32x4S()
			f.set(p)
		}
		for i, r := range k.r {
			f.get(r)
			f.v128Load(0)
			f.i32Const(4)
			f.i8x16ShrU()
			f.set(v)
			f.get(v)
			f.i16x8ExtendLowI8x16U()
			f.get(lo)
			f.i32x4DotI16x8S()
			f.get(v)
			f.i16x8ExtendHighI8x16U()
			f.get(hi)
			f.i32x4DotI16x8S()
			f.i32x4Add()
			f.set(dots[i])
		}
		transposeSum(f, dots, f.i32x4Add)
		f.set(mins)
	}
	for _, d := range dots {
		f.v128Const0()
		f.set(d)
	}
	f.i32Const(0)
	f.set(g)
	f.get(k.qp)
	f.set(xp)

	f.loop()
	shr(g, 0, 1)
	f.i32Const(4)
	f.i32Shl()
	f.set(hm) // 16·second
	shr(g, 3, 1)
	f.i32Const(5)
	f.i32Shl()
	f.get(hm)
	f.i32Add()
	f.i32Const(qsBase)
	f.i32Add()
	f.set(qs) // qsBase + 32·half + 16·second
	shr(g, 1, 3)
	f.i32Const(1)
	f.i32Shl()
	f.set(shiftQ) // 2j
	if q3 {
		shr(g, 3, 1)
		f.i32Const(2)
		f.i32Shl()
		shr(g, 1, 3)
		f.i32Add()
		f.set(shiftH) // 4·half + j
	}
	loadInt16(f, xp, 0, v, lo, hi)
	for i, r := range k.r {
		f.get(r)
		f.get(qs)
		f.i32Add()
		f.v128Load(0)
		f.get(shiftQ)
		f.i8x16ShrU()
		f.i32x4Const(0x03030303)
		f.v128And()
		if q3 {
			f.get(r)
			f.get(hm)
			f.i32Add()
			f.v128Load(0)
			f.get(shiftH)
			f.i8x16ShrU()
			f.i32x4Const(0x01010101)
			f.v128And()
			f.i32Const(2)
			f.i8x16Shl()
			f.v128Or()
			f.i32x4Const(0x04040404)
			f.i8x16Sub()
		}
		f.set(n)
		dot16(f, n, lo, hi)
		if q3 { // sc[g] − 32
			f.get(r)
			shr(g, 0, 7)
			f.i32Add()
			f.i32Load8U(96)
			shr(g, 3, 1)
			f.i32Const(2)
			f.i32Shl()
			f.i32ShrU()
			f.i32Const(15)
			f.i32And()
			f.get(r)
			shr(g, 0, 3)
			f.i32Add()
			f.i32Load8U(104)
			shr(g, 2, 3)
			f.i32Const(1)
			f.i32Shl()
			sixBits(f)
		} else { // sc[g]
			f.get(r)
			f.get(g)
			f.i32Add()
			f.i32Load8U(0)
			f.i32Const(15)
			f.i32And()
		}
		addScaled(f, dots[i])
	}
	addTo(f, xp, 16)
	addTo(f, g, 1)
	f.get(g)
	f.i32Const(16)
	f.i32LtU()
	f.brIf(0)
	f.end()

	blockBytes := q3_K.blockBytes
	if q3 {
		k.addDots(dots, halves, v)
	} else {
		blockBytes = q2_K.blockBytes
		k.addDotsMins(dots, mins, halves, v)
	}
	for _, r := range k.r {
		addTo(f, r, blockBytes)
	}
}

// sixBits ends the reading of a six-bit scale (IQ4_XS's, Q3_K's): on the
// stack its low four bits, then the value holding its high two and their
// shift; it leaves the scale less 32.
func sixBits(f *body) {
	f.i32ShrU()
	f.i32Const(3)
	f.i32And()
	f.i32Const(4)
	f.i32Shl()
	f.i32Or()
	f.i32Const(32)
	f.i32Sub()
}

// addScaled adds to local dot the four int32 lanes below the int32 on
// the stack, times it.
func addScaled(f *body, dot uint32) {
	f.i32x4Splat()
	f.i32x4Mul()
	f.get(dot)
	f.i32x4Add()
	f.set(dot)
}

// nibbles turns the 16 bytes on the stack into their low nibbles, or
// their high ones.
func nibbles(f *body, high bool) {
	if high {
		f.i32Const(4)
		f.i8x16ShrU()
		return
	}
	f.i32x4Const(0x0f0f0f0f)
	f.v128And()
}

// dot16 pushes the products of the 16 int8 in local w with the int16 in
// locals lo and hi, summed in four lanes. It sign-extends w to int16 and
// sums the products in pairs (i32x4.dot_i16x8_s, pmaddwd on x86): a
// product of two int8 fits an int16. That beats i16x8.extmul, whose high
// half costs V8 more instructions.
func dot16(f *body, w, lo, hi uint32) {
	f.get(w)
	f.i16x8ExtendLowI8x16S()
	f.get(lo)
	f.i32x4DotI16x8S()
	f.get(w)
	f.i16x8ExtendHighI8x16S()
	f.get(hi)
	f.i32x4DotI16x8S()
	f.i32x4Add()
}

// blockQ4_K is the block of Q4_K (package quant's q4_k.go: d and dmin,
// twelve bytes packing the six-bit scales sc and mins m of eight groups
// of 32, then 128 bytes of nibbles, group 2c in the low ones of bytes 32c
// to 32c+31 and group 2c+1 in their high ones), times a Q8_K block, as
// Go's mulQ4_K (see blockMinsK).
func blockQ4_K(k *quantRows) { blockMinsK(k, false) }

// blockQ5_K is the block of Q5_K (package quant's q5_k.go: Q4_K's with 32
// bytes qh of fifth bits before the nibbles, bit g of byte l for weight l
// of group g), times a Q8_K block, as Go's mulQ5_K (see blockMinsK).
func blockQ5_K(k *quantRows) { blockMinsK(k, true) }

// blockMinsK is the block of Q4_K, or with fifth of Q5_K, whose weight
// l of group g has its fifth bit, 16, from bit g of qh[l]:
//
//	P := the vector's sums over its groups of 32, as int16 (|P| ≤ 32·127)
//	S_k := r_k's sc and m, unpacked as ggml's get_scale_min_k4 does, all eight groups at once
//	mins := [Σ_g m_k[g]·P[g] for each k]
//	for each chunk c of 64 weights, the groups 2c (low nibbles) and 2c+1 (high):
//	  for each row k: dots_k += sc_k[g] · (r_k's group g · the vector's), in four lanes
//	acc += float([Σ dots_k for each k])·(d·d[b]) − float(mins)·(dmin·d[b])
func blockMinsK(k *quantRows, fifth bool) {
	f := k.f
	pairs, halves, mins, v, t, s, n := f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128)
	var x, dots [4]uint32
	for i := range x {
		x[i], dots[i] = f.local(v128), f.local(v128)
	}
	var sc [2]uint32 // the scales of rows 0 and 1, and of rows 2 and 3, eight bytes a row
	sc[0], sc[1] = f.local(v128), f.local(v128)
	qc, qEnd := f.local(i32), f.local(i32)
	nibbleBytes := uint32(16)
	var back, shift uint32 // Q5_K: qh is at r_k − back, its bit for group 2c is bit shift = 2c
	if fifth {
		nibbleBytes = 16 + 32
		back, shift = f.local(i32), f.local(i32)
	}

	// P, narrowed twice: the sixteen sums of 16 to int16, added in pairs.
	for h := range 2 {
		f.get(k.sp)
		f.v128Load(uint32(32 * h))
		f.get(k.sp)
		f.v128Load(uint32(32*h + 16))
		f.i16x8NarrowI32x4S()
		f.i32x4ExtaddPairwiseI16x8S()
	}
	f.i16x8NarrowI32x4S()
	f.set(pairs)
	k.rowScales(halves, 0, true) // d and dmin

	// S = [u0 u1 u2 ·], the scale bytes as int32s, becomes
	// [u0&k1, (u2&k2) | (u0>>6&k3)<<4, u1&k1, (u2>>4&k2) | (u1>>6&k3)<<4]
	// with ggml's kmask1, 2 and 3: bytes 0–7 the scales, 8–15 the mins.
	for i, r := range k.r {
		f.get(r)
		f.v128Load(4)
		f.set(v)
		f.get(v)
		f.get(v)
		f.shuffle([4]byte{0, 0, 1, 1})
		f.set(t) // [u0 u0 u1 u1]
		f.get(v)
		f.get(v)
		f.i32Const(4)
		f.i32x4ShrU()
		f.shuffle([4]byte{0, 2, 0, 6})
		f.i32x4Const(0x0f0f0f0f)
		f.v128And() // lanes 1 and 3: u2&k2 and u2>>4&k2
		f.get(t)
		f.i32Const(6)
		f.i32x4ShrU()
		f.i32x4Const(0x03030303)
		f.v128And()
		f.i32Const(4)
		f.i32x4Shl()
		f.v128Or()
		f.get(t)
		f.i32x4Const(0x3f3f3f3f)
		f.v128And()
		f.shuffle([4]byte{4, 1, 6, 3})
		f.set(v)
		// The mins, as int16, times P: row k's mins in four lanes.
		f.get(v)
		f.i16x8ExtendHighI8x16U()
		f.get(pairs)
		f.i32x4DotI16x8S()
		f.set(dots[i])
		if i%2 == 0 {
			f.get(v)
			f.set(s)
		} else {
			f.get(s)
			f.get(v)
			f.shuffle([4]byte{0, 1, 4, 5})
			f.set(sc[i/2])
		}
	}
	transposeSum(f, dots, f.i32x4Add)
	f.set(mins)
	for _, d := range dots {
		f.v128Const0()
		f.set(d)
	}

	f.get(k.qp)
	f.set(qc)
	f.get(k.qp)
	f.i32Const(256)
	f.i32Add()
	f.set(qEnd)
	for _, r := range k.r {
		addTo(f, r, int32(nibbleBytes))
	}
	if fifth {
		f.i32Const(32)
		f.set(back)
		f.i32Const(0)
		f.set(shift)
	}
	f.loop()
	for h := range 2 { // the low nibbles, group 2c, then the high ones, 2c+1
		for j := range 2 {
			loadInt16(f, qc, uint32(32*h+16*j), v, x[2*j], x[2*j+1])
		}
		for i, r := range k.r {
			for j := range 2 {
				f.get(r)
				f.v128Load(uint32(16 * j))
				nibbles(f, h == 1)
				if fifth { // | (qh[l] >> (2c + h) & 1) << 4
					f.get(r)
					f.get(back)
					f.i32Sub()
					f.v128Load(uint32(16 * j))
					f.get(shift)
					if h == 1 {
						f.i32Const(1)
						f.i32Add()
					}
					f.i8x16ShrU()
					f.i32Const(4)
					f.i8x16Shl()
					f.i32x4Const(0x10101010)
					f.v128And()
					f.v128Or()
				}
				f.set(n)
				dot16(f, n, x[2*j], x[2*j+1])
				if j == 1 {
					f.i32x4Add()
				}
			}
			f.get(sc[i/2])
			f.i8x16ExtractLaneU(byte(8*(i%2) + h))
			addScaled(f, dots[i])
		}
	}
	// The next chunk's scales to bytes 0, 1, 8 and 9.
	for _, s := range sc {
		f.get(s)
		f.get(s)
		f.shuffleBytes([16]byte{2, 3, 4, 5, 6, 7, 0, 0, 10, 11, 12, 13, 14, 15, 0, 0})
		f.set(s)
	}
	for _, r := range k.r {
		addTo(f, r, 32)
	}
	if fifth {
		addTo(f, back, 32)
		addTo(f, shift, 2)
	}
	addTo(f, qc, 64)
	f.get(qc)
	f.get(qEnd)
	f.i32LtU()
	f.brIf(0)
	f.end()

	k.addDotsMins(dots, mins, halves, v)
}

// blockQ6_K is the block of Q6_K (package quant's q6_k.go: 128 bytes ql
// of low four bits, 64 bytes qh of high two bits, 16 int8 scales sc, then
// d), times a Q8_K block, as Go's mulQ6_K. Its four quarters of 64
// weights, j = 2n + g, each take 16 bytes of ql at 64n + 16g and at
// 64n + 16g + 32 and 16 of qh at 32n + 16g, for the weights at
// 128n + 16g + 32q, q < 4, whose scale is sc[8n + g + 2q]:
//
//	for each quarter:
//	  for each q < 4:
//	    x := the vector's 16 values at 128n + 16g + 32q, as int16
//	    for each row k: w := q's six bits from ql and qh, minus 32 (an int8)
//	      dots_k += sc[8n + g + 2q] · (w · x), in four lanes
//	acc += float([Σ dots_k for each k])·(d·d[b])
//
// Taking 32 off each weight, exactly, replaces the Go kernel's −32·Σx.
func blockQ6_K(k *quantRows) {
	f := k.f
	halves, v, n, lo, hi, low4, high2, offset32 := f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128), f.local(v128)
	var dots [4]uint32
	for i := range dots {
		dots[i] = f.local(v128)
	}
	j, ql, qh, scales, y := f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32)

	k.rowScales(halves, 208, false)
	for _, d := range dots {
		f.v128Const0()
		f.set(d)
	}
	f.i32x4Const(0x0f0f0f0f)
	f.set(low4)
	f.i32x4Const(0x30303030)
	f.set(high2)
	f.i32x4Const(0x20202020)
	f.set(offset32)
	f.i32Const(0)
	f.set(j)

	f.loop()
	// With g16 = 16·(j&1) and n = j>>1: ql = 64n + g16, qh = 128 + 32n +
	// g16, scales = 192 + 8n + (j&1), y = qp + 128n + g16.
	quarter := func(local uint32, base, nShift, gShift int32) {
		f.get(j)
		f.i32Const(1)
		f.i32ShrU()
		f.i32Const(nShift)
		f.i32Shl()
		f.get(j)
		f.i32Const(1)
		f.i32And()
		f.i32Const(gShift)
		f.i32Shl()
		f.i32Add()
		f.i32Const(base)
		f.i32Add()
		f.set(local)
	}
	quarter(ql, 0, 6, 4)
	quarter(qh, 128, 5, 4)
	quarter(scales, 192, 3, 0)
	quarter(y, 0, 7, 4)
	f.get(y)
	f.get(k.qp)
	f.i32Add()
	f.set(y)
	for q := range 4 {
		loadInt16(f, y, uint32(32*q), v, lo, hi)
		for i, r := range k.r {
			// The low four bits: ql's low nibbles for q = 0 and 1, high for
			// 2 and 3, from ql + 32 for odd q.
			f.get(r)
			f.get(ql)
			f.i32Add()
			f.v128Load(uint32(32 * (q % 2)))
			if q < 2 {
				f.get(low4)
				f.v128And()
			} else {
				f.i32Const(4)
				f.i8x16ShrU()
			}
			// The high two bits: bits 2q and 2q+1 of qh, moved to 4 and 5.
			f.get(r)
			f.get(qh)
			f.i32Add()
			f.v128Load(0)
			switch q {
			case 0:
				f.i32Const(4)
				f.i8x16Shl()
			case 1:
				f.i32Const(2)
				f.i8x16Shl()
			case 3:
				f.i32Const(2)
				f.i8x16ShrU()
			}
			f.get(high2)
			f.v128And()
			f.v128Or()
			f.get(offset32)
			f.i8x16Sub()
			f.set(n)
			dot16(f, n, lo, hi)
			f.get(r)
			f.get(scales)
			f.i32Add()
			f.i32Load8S(uint32(2 * q))
			addScaled(f, dots[i])
		}
	}
	addTo(f, j, 1)
	f.get(j)
	f.i32Const(4)
	f.i32LtU()
	f.brIf(0)
	f.end()

	k.addDots(dots, halves, v)
	for _, r := range k.r {
		addTo(f, r, q6_K.blockBytes)
	}
}

// halfToFloat pushes the float32 values of the IEEE half-precision numbers
// in the low 16 bits of local h's int32 lanes, as quant.HalfToFloat gives
// them; it overwrites local bits. Moving a half's exponent and mantissa to
// float32's places, unbiased, gives a float32 2¹¹² times too small, and
// multiplying by 2¹¹² makes it exact, subnormal halves included
// (WebAssembly keeps float32 subnormals); an infinity or NaN instead takes
// float32's top exponent.
func halfToFloat(f *body, h, bits uint32) {
	f.get(h)
	f.i32x4Const(0x7fff)
	f.v128And()
	f.i32Const(13)
	f.i32x4Shl()
	f.get(h)
	f.i32x4Const(0x8000)
	f.v128And()
	f.i32Const(16)
	f.i32x4Shl()
	f.v128Or()
	f.set(bits)

	f.get(bits)
	f.i32x4Const(0x7f800000) // infinity or NaN
	f.v128Or()
	f.get(bits)
	f.i32x4Const(0x77800000) // 2¹¹²
	f.f32x4Mul()
	f.get(h)
	f.i32x4Const(0x7c00)
	f.v128And()
	f.i32x4Const(0x7c00)
	f.i32x4Eq()
	f.v128Bitselect()
}
