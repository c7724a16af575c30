package wasmsimd

// The attention of one layer, all its heads in one call, in two kernels
// with the softmax (Go's, with its bit-exact expf) between them. Both give
// transformer's Go loops bit for bit: each lane of a vector is one
// position's (or one output's) own sum, in the Go loop's order, and
// WebAssembly rounds every product and every sum, as Go's wasm code does.
// Their arguments, with byte offsets and byte strides:
//
//	att          a head's weights at att + h·attStride, one float a position
//	q, out       head h's query (output) at + h·headBytes
//	keys, values position p's key (value) of key head g at + p·stride + g·headBytes
//	heads, kvMul query heads, and query heads per key head (g = h / kvMul)
//	positions    how many positions of the cache each head attends to
//
// headBytes must be a multiple of 16 (a head of a multiple of four floats).

// attentionScores is the body of attention_scores(att, q, keys, positions,
// stride, headBytes, heads, kvMul, attStride, scale): for every head h and
// every position p below positions &^ 3 (the caller scores the last
// positions mod 4 itself),
//
//	att_h[p] = (Σ_i q_h[i]·k_p[i], summed in order of i) / scale
//
// as transformer's dot and attend compute it; scale is a float32's bits.
// Four positions go together, one a lane: four vectors of four products
// of q_h and k_p, transposed, give four vectors of four positions, which
// add to the accumulator in order of i. In outline:
//
//	for each head h:
//	  a := att_h; k := key head g's row at position 0
//	  while a < att_h + 4·(positions &^ 3):
//	    acc := 0
//	    for i in 0, 16, … < headBytes:
//	      P_j := k_j[i…i+3] · q_h[i…i+3] for the rows k_j = k + j·stride, j < 4
//	      acc += column 0 of P; acc += column 1; … column 3
//	    store acc / scale at a
//	    a += 16; k += 4·stride
func attentionScores() *body {
	f := &body{params: 10}
	const att, q, keys, positions, stride, headBytes, heads, kvMul, attStride, scale = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
	h, qh, a, aEnd, i := f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32)
	var k, p, t [4]uint32
	for j := range 4 {
		k[j], p[j], t[j] = f.local(i32), f.local(v128), f.local(v128)
	}
	acc, scales, qv := f.local(v128), f.local(v128), f.local(v128)

	f.get(scale)
	f.f32ReinterpretI32()
	f.f32x4Splat()
	f.set(scales)
	f.i32Const(0)
	f.set(h)
	whileLess(f, h, heads)
	headStart(f, h, q, qh, keys, k[0], att, a, headBytes, kvMul, attStride)
	endOfFours(f, a, positions, aEnd)

	whileLess(f, a, aEnd)
	for j := 1; j < 4; j++ {
		f.get(k[j-1])
		f.get(stride)
		f.i32Add()
		f.set(k[j])
	}
	f.v128Const0()
	f.set(acc)
	f.i32Const(0)
	f.set(i)
	whileLess(f, i, headBytes)
	f.get(qh)
	f.get(i)
	f.i32Add()
	f.v128Load(0)
	f.set(qv)
	for j := range 4 {
		f.get(k[j])
		f.get(i)
		f.i32Add()
		f.v128Load(0)
		f.get(qv)
		f.f32x4Mul()
		f.set(p[j])
	}
	// t_0 = [P0_0 P1_0 P0_1 P1_1], t_1 = the same of P2, P3;
	// t_2 = [P0_2 P1_2 P0_3 P1_3], t_3 the same of P2, P3.
	for j, lanes := range [][4]byte{{0, 4, 1, 5}, {0, 4, 1, 5}, {2, 6, 3, 7}, {2, 6, 3, 7}} {
		f.get(p[2*(j%2)])
		f.get(p[2*(j%2)+1])
		f.shuffle(lanes)
		f.set(t[j])
	}
	f.get(acc)
	for _, pair := range [][2]uint32{{t[0], t[1]}, {t[2], t[3]}} {
		for _, lanes := range [][4]byte{{0, 1, 4, 5}, {2, 3, 6, 7}} {
			f.get(pair[0])
			f.get(pair[1])
			f.shuffle(lanes)
			f.f32x4Add()
		}
	}
	f.set(acc)
	addTo(f, i, 16)
	endWhile(f)

	f.get(a)
	f.get(acc)
	f.get(scales)
	f.f32x4Div()
	f.v128Store(0)
	addTo(f, a, 16)
	f.get(k[3])
	f.get(stride)
	f.i32Add()
	f.set(k[0])
	endWhile(f)

	addTo(f, h, 1)
	endWhile(f)
	return f
}

// attentionValues is the body of attention_values(out, att, values,
// positions, stride, headBytes, heads, kvMul, attStride): for every head
// h and every i below headBytes/4,
//
//	out_h[i] = Σ_p att_h[p]·v_p[i], summed in order of p from 0
//
// as transformer's attend computes it. Four outputs go together, a lane
// each, and each position's weight is loaded as a vector of four. In
// outline:
//
//	for each head h:
//	  for o := out_h, … < out_h + headBytes, in steps of 16, v := value head g's row at position 0:
//	    acc := 0; a := att_h
//	    for each position: acc += [a a a a] · v[0…3]; a += 4; v += stride
//	    store acc at o; v := next 16 bytes of position 0's row
func attentionValues() *body {
	f := &body{params: 9}
	const out, att, values, positions, stride, headBytes, heads, kvMul, attStride = 0, 1, 2, 3, 4, 5, 6, 7, 8
	h, o, oEnd, vh, ah, a, aEnd, v := f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32)
	acc := f.local(v128)

	f.i32Const(0)
	f.set(h)
	whileLess(f, h, heads)
	headStart(f, h, out, o, values, vh, att, ah, headBytes, kvMul, attStride)
	f.get(o)
	f.get(headBytes)
	f.i32Add()
	f.set(oEnd)
	f.get(ah)
	f.get(positions)
	f.i32Const(2)
	f.i32Shl()
	f.i32Add()
	f.set(aEnd)

	whileLess(f, o, oEnd)
	f.v128Const0()
	f.set(acc)
	f.get(ah)
	f.set(a)
	f.get(vh)
	f.set(v)
	whileLess(f, a, aEnd)
	f.get(acc)
	f.get(a)
	f.v128Load32Splat(0)
	f.get(v)
	f.v128Load(0)
	f.f32x4Mul()
	f.f32x4Add()
	f.set(acc)
	addTo(f, a, 4)
	f.get(v)
	f.get(stride)
	f.i32Add()
	f.set(v)
	endWhile(f)
	f.get(o)
	f.get(acc)
	f.v128Store(0)
	addTo(f, o, 16)
	addTo(f, vh, 16)
	endWhile(f)

	addTo(f, h, 1)
	endWhile(f)
	return f
}

// headStart sets head h's addresses: x_h := x + h·headBytes (its query or
// output), cache_h := cache + (h / kvMul)·headBytes (its key or value head
// at position 0) and att_h := att + h·attStride (its weights).
func headStart(f *body, h, x, xh, cache, cacheH, att, attH, headBytes, kvMul, attStride uint32) {
	f.get(x)
	f.get(h)
	f.get(headBytes)
	f.i32Mul()
	f.i32Add()
	f.set(xh)
	f.get(cache)
	f.get(h)
	f.get(kvMul)
	f.i32DivU()
	f.get(headBytes)
	f.i32Mul()
	f.i32Add()
	f.set(cacheH)
	f.get(att)
	f.get(h)
	f.get(attStride)
	f.i32Mul()
	f.i32Add()
	f.set(attH)
}

// endOfFours sets local end to base + 4·(positions &^ 3): the end of the
// float32s at base that come four at a time.
func endOfFours(f *body, base, positions, end uint32) {
	f.get(base)
	f.get(positions)
	f.i32Const(-4)
	f.i32And()
	f.i32Const(2)
	f.i32Shl()
	f.i32Add()
	f.set(end)
}

// whileLess opens a loop that runs while local a < local limit, unsigned;
// endWhile closes it.
func whileLess(f *body, a, limit uint32) {
	f.block()
	f.loop()
	f.get(a)
	f.get(limit)
	f.i32GeU()
	f.brIf(1)
}

// endWhile closes a loop opened by whileLess (or as it opens one): back
// to its test.
func endWhile(f *body) {
	f.br(0)
	f.end()
	f.end()
}
