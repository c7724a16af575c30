package transformer

import (
	"fmt"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
)

// prefillRows is how many positions Prefill carries through the layers
// together: each weight matrix is then read from memory once for them
// all, not once a position, while their activations stay small (for a
// model of Qwen2.5-1.5B's shape, 32 × 100 KB).
const prefillRows = 32

// batchMinBytes is the size of the layers' matrices from which Prefill
// carries positions through the layers together: a smaller model stays
// in a core's caches from one position to the next, and the rows' upkeep
// would cost more than they save (BenchmarkPrefill: the toy's 64
// positions took 0.43× as long one at a time).
const batchMinBytes = 4 << 20

// tileBytes is about how much of a matrix a batched product multiplies
// by every position before going on: a tile that stays in a core's
// second-level cache (1 MiB on the machines measured) while it is read
// once a position.
const tileBytes = 256 << 10

// rows are the activations of the positions a pass carries through the
// layers together, one row each, named as in activations; k and v are the
// cache rows of the layer being computed.
type rows struct {
	x, xb, ao, xb2, hb, hb2, q, k, v [][]float32
}

// newRows makes n rows of their own for c's activations.
func newRows(c checkpoint.Config, n int) *rows {
	r := &rows{}
	for _, vec := range []struct {
		rows  *[][]float32
		width int
	}{{&r.x, c.Dim}, {&r.xb, c.Dim}, {&r.ao, c.QDim()}, {&r.xb2, c.Dim}, {&r.hb, c.HiddenDim}, {&r.hb2, c.HiddenDim}, {&r.q, c.QDim()}} {
		all := make([]float32, n*vec.width)
		for i := range n {
			*vec.rows = append(*vec.rows, all[i*vec.width:(i+1)*vec.width])
		}
	}
	r.k, r.v = make([][]float32, n), make([][]float32, n)
	return r
}

// one is a's vectors as a single row.
func (a *activations) one() rows {
	return rows{
		x: [][]float32{a.x}, xb: [][]float32{a.xb}, ao: [][]float32{a.ao}, xb2: [][]float32{a.xb2},
		hb: [][]float32{a.hb}, hb2: [][]float32{a.hb2}, q: [][]float32{a.q},
		k: make([][]float32, 1), v: make([][]float32, 1),
	}
}

// chunk returns n rows of t's prefill rows, the last of them a's own
// vectors when lastIsA: the pass of that position is then left in a as
// forward leaves it.
func (t *Transformer) chunk(a *activations, n int, lastIsA bool) *rows {
	if t.prefill == nil {
		t.prefill = newRows(t.Config, prefillRows)
		t.vecs = make([]quant.Vec, prefillRows)
	}
	own, r := t.prefill, &t.chunkRows
	for _, v := range []struct {
		to  *[][]float32
		own [][]float32
		a   []float32
	}{
		{&r.x, own.x, a.x}, {&r.xb, own.xb, a.xb}, {&r.ao, own.ao, a.ao}, {&r.xb2, own.xb2, a.xb2},
		{&r.hb, own.hb, a.hb}, {&r.hb2, own.hb2, a.hb2}, {&r.q, own.q, a.q},
	} {
		*v.to = append((*v.to)[:0], v.own[:n]...)
		if lastIsA {
			(*v.to)[n-1] = v.a
		}
	}
	r.k, r.v = own.k[:n], own.v[:n]
	return r
}

// Prefill feeds tokens at positions start, start+1, … and returns the
// logits after the last one; only the last position goes through the
// classifier (the others' logits would be overwritten unread). It carries
// up to prefillRows positions through the layers together, so that each
// matrix is read from memory once for them all (mulRows), the way
// llama.cpp's prompt processing batches its tokens; attention stays per
// position, causal, position p reading the cache's rows up to p. Every
// position's arithmetic is Forward's, the same kernels on the same rows:
// the cache, the last pass and the logits are Forward's bit for bit. It
// calls Pause, if set, between layers or positions.
func (t *Transformer) Prefill(tokens []int, start int) ([]float32, error) {
	if len(tokens) == 0 {
		return nil, fmt.Errorf("transformer: nothing to prefill")
	}
	for i, tok := range tokens {
		if err := t.check(tok, start+i, t.Cache.Len+i); err != nil {
			return nil, err
		}
	}
	a := &t.act
	if t.layerBytes() < t.batchFrom {
		for i, tok := range tokens {
			if t.Pause != nil && i > 0 {
				if err := t.Pause(); err != nil {
					return nil, err
				}
			}
			t.Cache.Len = start + i + 1
			t.forward(a, tok, start+i, i == len(tokens)-1)
		}
		return a.logits, nil
	}
	for i := 0; i < len(tokens); i += prefillRows {
		part, pos := tokens[i:min(i+prefillRows, len(tokens))], start+i
		last := i+len(part) == len(tokens)
		r := &a.single
		if len(part) > 1 {
			r = t.chunk(a, len(part), last)
		}
		t.Cache.Len = pos + len(part)
		t.reserve(a, pos+len(part)-1)
		for j, tok := range part {
			t.embed(tok, pos+j, r.x[j])
		}
		if err := t.layers(a, r, pos, t.Pause); err != nil {
			return nil, err
		}
		if last {
			t.classify(a)
		}
	}
	return a.logits, nil
}

// layerBytes is the size of the layers' matrices, which a pass reads.
func (t *Transformer) layerBytes() int {
	n := 0
	for l := range t.Matrices.Layers {
		m := &t.Matrices.Layers[l]
		for _, w := range []*quant.Matrix{&m.WQ, &m.WK, &m.WV, &m.WO, &m.W1, &m.W2, &m.W3} {
			n += w.Bytes()
		}
	}
	return n
}

// mulRows sets out[i] = W·x[i] for every row i, each row's product the
// one mul computes.
func (t *Transformer) mulRows(out, x [][]float32, w *quant.Matrix) {
	if len(x) == 1 {
		t.mul(out[0], x[0], w)
		return
	}
	if w.Type == quant.F32 && t.opts.RunC {
		for i := range x {
			t.matmul(out[i], x[i], w.F32, w.Cols, w.Rows)
		}
		return
	}
	t.kern.mulBatch(out, x, w, t.vecs[:len(x)])
}

// quantizeRows quantizes each x into vecs as a quantized w multiplies it
// (k.quantize), once for every tile of a batched product; a float32 w
// needs nothing.
func (k Kernels) quantizeRows(w *quant.Matrix, x [][]float32, vecs []quant.Vec) {
	if w.Type == quant.F32 {
		return
	}
	for i := range x {
		k.quantize(w, &vecs[i], x[i])
	}
}

// eachTile calls f with w's rows from … to−1 a tile at a time (tileRows):
// the tile as a matrix and its first and end rows in w.
func eachTile(w *quant.Matrix, from, to int, f func(span *quant.Matrix, r, end int)) {
	tile := tileRows(w)
	for r := from; r < to; r += tile {
		end := min(r+tile, to)
		span := w.Slice(r, end)
		f(&span, r, end)
	}
}

// tileRows is how many rows of w a batched product multiplies by every
// position at a time: about tileBytes of them, a multiple of 16, so that
// a tile starts where a thread's span may (threads.split) and every row
// goes through the same kernel as in a product of the whole matrix.
func tileRows(w *quant.Matrix) int {
	rowBytes := 4 * w.Cols
	if w.Type != quant.F32 {
		rowBytes = quant.RowBytes(w.Type, w.Cols)
	}
	return max(16, tileBytes/rowBytes&^15)
}
