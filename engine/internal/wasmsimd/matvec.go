package wasmsimd

import "slices"

// Generate returns the kernel modules by file name: matvec.wasm,
// q5_0.wasm, q5_1.wasm, q2_k.wasm, q3_k.wasm, q4_k.wasm, q5_k.wasm, q6_k.wasm, iq4.wasm,
// attention.wasm and swiglu.wasm (go run ./engine/internal/wasmsimd/gen writes them, the
// fetched ones and their hashes too; TestGenerateReproducesModules checks
// that it did). Several
// modules, not one, because Chromium compiles at most maxSyncModule bytes
// synchronously. Each imports the memory it works on as env.mem; they
// export
//
//	matvec_f32(out, x, w, n, d)                   out[i] = Σ_j w[i·n + j]·x[j] for i < d
//	mul_q8_0(out, w, q, d, sums, blocks, rows)    out[i] = row i of Q8_0 w · (q, d) for i < rows
//	mul_q4_0(out, w, q, d, sums, blocks, rows)    the same for Q4_0 w (see mulQuant)
//	mul_q5_0(out, w, q, d, sums, blocks, rows)    the same for Q5_0 w
//	mul_q5_1(out, w, q, d, s, blocks, rows)       the same for Q5_1 w, s block_q8_1's
//	mul_q4_k(out, w, q, d, sums, blocks, rows)    the same for Q4_K w, (q, d, sums) in Q8_K blocks
//	mul_q5_k(out, w, q, d, sums, blocks, rows)    the same for Q5_K w
//	mul_q6_k(out, w, q, d, sums, blocks, rows)    the same for Q6_K w
//	mul_q2_k(out, w, q, d, sums, blocks, rows)    the same for Q2_K w, (q, d, sums) in Q8_K blocks
//	mul_q3_k(out, w, q, d, sums, blocks, rows)    the same for Q3_K w, (q, d) in Q8_K blocks
//	mul_iq4_nl(out, w, q, d, sums, blocks, rows)  the same for IQ4_NL w, (q, d) in Q8_0 blocks
//	mul_iq4_xs(out, w, q, d, sums, blocks, rows)  the same for IQ4_XS w, (q, d) in Q8_K blocks
//
// where out, x, w, q, d and sums are byte offsets in that memory and n, d,
// blocks and rows are counts; attention.wasm exports attention_scores,
// softmax_rows and attention_values (see attentionScores, softmaxRows and
// attentionValues); swiglu.wasm exports swiglu (see swiglu). Every kernel
// has an _args form, matvec_f32_args(p) and so on, that reads its
// arguments from p, p+4, …: a caller that has bound p once
// (Function.bind) then makes the call without passing numbers, which would
// allocate in Go.
func Generate() map[string][]byte {
	return map[string][]byte{
		"matvec.wasm": assemble(
			kernel{"matvec_f32", matvec()},
			kernel{"mul_q8_0", mulQuant(q8_0, block32(q8_0.blockBytes, dotQ8_0, 0, false))},
			kernel{"mul_q4_0", mulQuant(q4_0, block32(q4_0.blockBytes, dotQ4_0, 8, true))}),
		"q5_0.wasm": assemble(kernel{"mul_q5_0", mulQuant(q5_0, block32(q5_0.blockBytes, dotQ5(2), 16, false))}),
		"q5_1.wasm": assemble(kernel{"mul_q5_1", mulQuant(q5_1, blockQ5_1)}),
		"q4_k.wasm": assemble(kernel{"mul_q4_k", mulQuant(q4_K, blockQ4_K)}),
		"q5_k.wasm": assemble(kernel{"mul_q5_k", mulQuant(q5_K, blockQ5_K)}),
		"q6_k.wasm": assemble(kernel{"mul_q6_k", mulQuant(q6_K, blockQ6_K)}),
		"q2_k.wasm": assemble(kernel{"mul_q2_k", mulQuant(q2_K, blockQ2_K)}),
		"q3_k.wasm": assemble(kernel{"mul_q3_k", mulQuant(q3_K, blockQ3_K)}),
		"iq4.wasm": assemble(
			kernel{"mul_iq4_nl", mulQuant(iq4_NL, block32(iq4_NL.blockBytes, dotIQ4_NL, 0, false))},
			kernel{"mul_iq4_xs", mulQuant(iq4_XS, blockIQ4_XS)}),
		"attention.wasm": assemble(
			kernel{"attention_scores", attentionScores()},
			kernel{"softmax_rows", softmaxRows()},
			kernel{"attention_values", attentionValues()}),
		"swiglu.wasm":   assemble(kernel{"swiglu", swiglu()}),
		"quantize.wasm": assemble(kernel{"quantize_q8_0", quantizeQ8_0()}),
	}
}

// kernel is a function a module exports: its name and its body, whose
// parameters are all i32.
type kernel struct {
	name string
	body *body
}

// assemble returns the module of the kernels, each followed by its _args
// form (callWithArgs), with one function type per number of parameters.
func assemble(kernels ...kernel) []byte {
	var types, functions, exports, code [][]byte
	typeOf := map[int]byte{}
	typeIndex := func(params int) []byte {
		t, ok := typeOf[params]
		if !ok {
			t = byte(len(types))
			typeOf[params] = t
			types = append(types, funcType(slices.Repeat([]byte{i32}, params)...))
		}
		return []byte{t}
	}
	for _, k := range kernels {
		fn := uint32(len(functions))
		functions = append(functions, typeIndex(k.body.params), typeIndex(1))
		exports = append(exports,
			append(appendName(nil, k.name), 0x00, byte(fn)),
			append(appendName(nil, k.name+"_args"), 0x00, byte(fn+1)))
		code = append(code, k.body.encode(), callWithArgs(fn, k.body.params).encode())
	}
	m := []byte{0x00, 'a', 's', 'm', 1, 0, 0, 0}
	m = appendSection(m, typeSection, appendVector(nil, types...))
	memory := []byte{0x02, 0x00, 0x00} // a memory with limits {min 0, no max}: any size fits
	m = appendSection(m, importSection, appendVector(nil,
		append(appendName(appendName(nil, "env"), "mem"), memory...)))
	m = appendSection(m, functionSection, appendVector(nil, functions...))
	m = appendSection(m, exportSection, appendVector(nil, exports...))
	return appendSection(m, codeSection, appendVector(nil, code...))
}

// chunksPerStep was tuned under node (V8) at stories15M's shapes: two
// vectors a step beat one and four (288×288: 4.5 µs, against 4.7 and
// 6.5), and blocks of four rows beat blocks of eight, 12 or 16 (5.7–18
// µs: V8 then spills accumulators to the stack).
const chunksPerStep = 2

// matvec is the body of matvec_f32, whose sums are those of
// transformer's matmulUnrolled, bit for bit: each row sums its products in
// four lanes, lane k taking j ≡ k (mod 4) in order of j (one f32x4
// accumulator per row); the last n mod 4 products go to lane 0 in order;
// then (lane0 + lane1) + (lane2 + lane3). WebAssembly rounds every
// f32x4.mul and f32x4.add (there is no fused multiply-add), as Go's wasm
// code does, so the same order is the same result. The speed comes from
// taking four rows at a time, each with its own accumulator, so that four
// sums proceed independently and each load of x serves them all, and from
// unrolling the loop over j by chunksPerStep vectors of four.
//
// In outline:
//
//	nb := 4n; row := w; o := out; outEnd := out + 4d
//	for R in 4, 1:                     // rows at a time, while R rows remain
//	  while outEnd - o ≥ 4R:
//	    r_k := row + k·nb; acc_k := 0 for k < R
//	    j := 0
//	    while j < nb &^ (16·chunksPerStep − 1): chunksPerStep vectors into each acc_k
//	                                            (R = 4: and prefetch two lines ahead)
//	    while j < nb &^ 15:                     one vector into each acc_k
//	    t_k := acc_k[0]; while j < nb: t_k += w_k[j]·x[j]; acc_k[0] = t_k
//	    store (acc_k[0] + acc_k[1]) + (acc_k[2] + acc_k[3]) at o + 4k
//	    row += R·nb; o += 4R
func matvec() *body {
	f := &body{params: 5}
	const out, x, w, n, d = 0, 1, 2, 3, 4
	nb, row, o, outEnd, j := f.local(i32), f.local(i32), f.local(i32), f.local(i32), f.local(i32)
	last, ahead, pf := f.local(i32), f.local(i32), f.local(i32)
	xv, xs := f.local(v128), f.local(f32)
	var r, t, acc [4]uint32
	for k := range 4 {
		r[k], t[k], acc[k] = f.local(i32), f.local(f32), f.local(v128)
	}

	f.get(n)
	f.i32Const(2)
	f.i32Shl()
	f.set(nb)
	f.get(w)
	f.set(row)
	f.get(out)
	f.set(o)
	f.get(out)
	f.get(d)
	f.i32Const(2)
	f.i32Shl()
	f.i32Add()
	f.set(outEnd)
	// last := the address of w's last float; ahead := prefetchGroups groups of four rows
	f.get(w)
	f.get(nb)
	f.get(d)
	f.i32Mul()
	f.i32Add()
	f.i32Const(-4)
	f.i32Add()
	f.set(last)
	f.get(nb)
	f.i32Const(4 * prefetchGroups)
	f.i32Mul()
	f.set(ahead)

	// whileBelow opens a loop that runs while local a < (nb &^ mask),
	// unsigned; endWhile closes it.
	whileBelow := func(a uint32, mask int32) {
		f.block()
		f.loop()
		f.get(a)
		f.get(nb)
		f.i32Const(^mask)
		f.i32And()
		f.i32GeU()
		f.brIf(1)
	}

	// multiplyAdd loads xt := x[j+offset…] (a vector of four when wide,
	// else a float) and adds r_k[j+offset…]·xt to sums[k] for k < rows.
	multiplyAdd := func(rows int, sums [4]uint32, xt, offset uint32, wide bool) {
		load, mul, add := f.f32Load, f.f32Mul, f.f32Add
		if wide {
			load, mul, add = f.v128Load, f.f32x4Mul, f.f32x4Add
		}
		f.get(x)
		f.get(j)
		f.i32Add()
		load(offset)
		f.set(xt)
		for k := range rows {
			f.get(sums[k])
			f.get(r[k])
			f.get(j)
			f.i32Add()
			load(offset)
			f.get(xt)
			mul()
			add()
			f.set(sums[k])
		}
	}

	for _, rows := range []int{4, 1} {
		// while outEnd - o ≥ 4·rows
		f.block()
		f.loop()
		f.get(outEnd)
		f.get(o)
		f.i32Sub()
		f.i32Const(int32(4 * rows))
		f.i32LtU()
		f.brIf(1)

		for k := range rows {
			f.get(row)
			if k > 0 {
				f.get(nb)
				f.i32Const(int32(k))
				f.i32Mul()
				f.i32Add()
			}
			f.set(r[k])
			f.v128Const0()
			f.set(acc[k])
		}
		f.i32Const(0)
		f.set(j)

		for _, chunks := range []int{chunksPerStep, 1} {
			whileBelow(j, int32(16*chunks-1))
			if rows == 4 && chunks == chunksPerStep {
				prefetch(f, row, ahead, j, last, pf)
			}
			for c := range chunks {
				multiplyAdd(rows, acc, xv, uint32(16*c), true)
			}
			addTo(f, j, int32(16*chunks))
			endWhile(f)
		}

		// The last n mod 4 products, into lane 0.
		for k := range rows {
			f.get(acc[k])
			f.f32x4ExtractLane(0)
			f.set(t[k])
		}
		whileBelow(j, 0)
		multiplyAdd(rows, t, xs, 0, false)
		addTo(f, j, 4)
		endWhile(f)
		for k := range rows {
			f.get(acc[k])
			f.get(t[k])
			f.f32x4ReplaceLane(0)
			f.set(acc[k])
		}

		if rows == 1 {
			f.get(o)
			f.get(acc[0])
			f.f32x4ExtractLane(0)
			f.get(acc[0])
			f.f32x4ExtractLane(1)
			f.f32Add()
			f.get(acc[0])
			f.f32x4ExtractLane(2)
			f.get(acc[0])
			f.f32x4ExtractLane(3)
			f.f32Add()
			f.f32Add()
			f.f32Store(0)
		} else {
			storeRowSums(f, o, acc)
		}

		f.get(row)
		f.get(nb)
		f.i32Const(int32(rows))
		f.i32Mul()
		f.i32Add()
		f.set(row)
		addTo(f, o, int32(4*rows))
		f.br(0)
		f.end()
		f.end()
	}
	return f
}

// prefetchGroups is how many groups of four rows ahead matvec touches
// the rows it will read.
const prefetchGroups = 2

// prefetch touches, with loads whose values it drops, the two cache lines
// at row + ahead + 4j and 64 bytes on (each kept to last, the matrix's
// last float, so as never to read outside it): a step of the four-row
// loop reads 32 bytes of each row, 128 bytes, so this runs ahead of the
// reads at their pace. WebAssembly has no prefetch instruction, and
// without it the 288 × 32,000 classifier streamed at about 15–19 GB/s
// under node against 32 GB/s for gonum's SGEMV natively.
func prefetch(f *body, row, ahead, j, last, pf uint32) {
	f.get(row)
	f.get(ahead)
	f.i32Add()
	f.get(j)
	f.i32Const(2)
	f.i32Shl()
	f.i32Add()
	f.set(pf)
	for _, offset := range []int32{0, 64} {
		f.get(pf)
		if offset != 0 {
			f.i32Const(offset)
			f.i32Add()
		}
		f.get(last)
		f.get(pf)
		if offset != 0 {
			f.i32Const(offset)
			f.i32Add()
		}
		f.get(last)
		f.i32LtU()
		f.selectOp()
		f.i32Load(0)
		f.drop()
	}
}

// storeRowSums stores at o the sums (a0 + a1) + (a2 + a3) of the
// lanes of each of the four float32 accumulators a, b, c, e.
func storeRowSums(f *body, o uint32, acc [4]uint32) {
	f.get(o)
	transposeSum(f, acc, f.f32x4Add)
	f.v128Store(0)
}

// transposeSum pushes [a, b, c, e], the sums (a0 + a1) + (a2 + a3) of
// the lanes of each of the four vectors acc (added by add, f32x4 or i32x4),
// by a transposition; it overwrites acc[0] and acc[2]:
//
//	s = [a0 b0 a2 b2] + [a1 b1 a3 b3] = [a01 b01 a23 b23]
//	u = [c0 e0 c2 e2] + [c1 e1 c3 e3] = [c01 e01 c23 e23]
//	[a01 b01 c01 e01] + [a23 b23 c23 e23]
func transposeSum(f *body, acc [4]uint32, add func()) {
	shuffleAdd(f, acc[0], acc[1], [4]byte{0, 4, 2, 6}, [4]byte{1, 5, 3, 7}, add)
	f.set(acc[0]) // s
	shuffleAdd(f, acc[2], acc[3], [4]byte{0, 4, 2, 6}, [4]byte{1, 5, 3, 7}, add)
	f.set(acc[2]) // u
	shuffleAdd(f, acc[0], acc[2], [4]byte{0, 1, 4, 5}, [4]byte{2, 3, 6, 7}, add)
}

// shuffleAdd pushes the lanes first of the vectors a and b plus their
// lanes second (see body.shuffle).
func shuffleAdd(f *body, a, b uint32, first, second [4]byte, add func()) {
	f.get(a)
	f.get(b)
	f.shuffle(first)
	f.get(a)
	f.get(b)
	f.shuffle(second)
	add()
}

// addTo adds step to the i32 local.
func addTo(f *body, local uint32, step int32) {
	f.get(local)
	f.i32Const(step)
	f.i32Add()
	f.set(local)
}

// callWithArgs is the body of an _args form: it loads n i32 arguments
// from p, p+4, … and calls function fn with them.
func callWithArgs(fn uint32, n int) *body {
	f := &body{params: 1}
	for i := range n {
		f.get(0)
		f.i32Load(uint32(4 * i))
	}
	f.call(fn)
	return f
}
