package transformer

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"nexttoken/engine/quant"
)

// prefillChunk is how many positions PrefillBatched multiplies at once:
// enough rows for matrix-matrix products to pay, few enough that the
// chunk's activations stay small (for stories15M, 64 × 2,400 floats).
const prefillChunk = 64

// chunk is the activations of up to prefillChunk positions, a row each,
// row-major, named as in activations.
type chunk struct {
	x, xb, ao, xb2, q, hb, hb2 []float32
}

// PrefillBatched feeds tokens at positions start, start+1, … as Prefill
// does, but a chunk of positions at a time: each weight matrix multiplies
// all the chunk's rows in one matrix-matrix product (gonum's SGEMM, the
// way llama.cpp's prompt processing batches ubatch tokens), rather than
// once per position. Attention stays per position, causal: position p
// reads the cache's rows 0..p, written by the chunks and rows before it.
//
// SGEMM sums in another order than SGEMV, so the logits and the cache rows
// differ from Prefill's in the last bits (TestPrefillBatched bounds it);
// Probe of a position prefilled this way would recompute it with Forward's
// arithmetic and rewrite its row. Quantized matrices and Options.RunC take
// Prefill's path, one position at a time, so that they keep their
// kernels' and run.c's numbers; so do GPT-2's LayerNorm, positions and
// ungated feed-forward, which this path does not compute.
func (t *Transformer) PrefillBatched(tokens []int, start int) ([]float32, error) {
	if c := t.Config; t.opts.RunC || !t.allF32() || c.LayerNorm || c.Positions || c.Ungated {
		return t.Prefill(tokens, start)
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("transformer: nothing to prefill")
	}
	for i, tok := range tokens {
		if err := t.check(tok, start+i, t.Cache.Len+i); err != nil {
			return nil, err
		}
	}
	c := t.Config
	b := &chunk{
		x: make([]float32, prefillChunk*c.Dim), xb: make([]float32, prefillChunk*c.Dim), ao: make([]float32, prefillChunk*c.QDim()),
		xb2: make([]float32, prefillChunk*c.Dim), q: make([]float32, prefillChunk*c.QDim()),
		hb: make([]float32, prefillChunk*c.HiddenDim), hb2: make([]float32, prefillChunk*c.HiddenDim),
	}
	for i := 0; i < len(tokens); i += prefillChunk {
		part := tokens[i:min(i+prefillChunk, len(tokens))]
		t.Cache.Len = start + i + len(part)
		t.runChunk(b, part, start+i, i+len(part) == len(tokens))
	}
	return t.act.logits, nil
}

// allF32 reports whether every matrix PrefillBatched multiplies is float32.
func (t *Transformer) allF32() bool {
	m := t.Matrices
	if m.Classifier.Type != quant.F32 {
		return false
	}
	for _, l := range m.Layers {
		for _, w := range []*quant.Matrix{&l.WQ, &l.WK, &l.WV, &l.WO, &l.W1, &l.W2, &l.W3} {
			if w.Type != quant.F32 {
				return false
			}
		}
	}
	return true
}

// runChunk runs tokens at positions start, start+1, … through every
// layer, a row per position; the last position's pass is left in t.act
// (its attention, residuals and, if last, logits) as Forward leaves it.
func (t *Transformer) runChunk(b *chunk, tokens []int, start int, last bool) {
	c, w, a := t.Config, t.W, &t.act
	n, dim, qDim, kvDim, hidden := len(tokens), c.Dim, c.QDim(), c.KVDim(), c.HiddenDim
	end := start + n - 1
	t.reserve(a, end)
	rows := func(v []float32, width int) func(i int) []float32 {
		return func(i int) []float32 { return v[i*width : (i+1)*width] }
	}
	x, xb, ao, q := rows(b.x, dim), rows(b.xb, dim), rows(b.ao, qDim), rows(b.q, qDim)
	for i, tok := range tokens {
		t.embed(tok, start+i, x(i))
	}

	for l := range c.Layers {
		m := &t.Matrices.Layers[l]
		for i := range n {
			t.norm(xb(i), x(i), w.RMSAtt, nil, l)
		}
		// The chunk's keys and values go straight into the cache's rows.
		keys, values := t.Cache.layer(l)
		gemm(b.q, qDim, b.xb, n, &m.WQ)
		gemm(keys[start*kvDim:], kvDim, b.xb, n, &m.WK)
		gemm(values[start*kvDim:], kvDim, b.xb, n, &m.WV)
		for i := range n {
			key, value := keys[(start+i)*kvDim:][:kvDim], values[(start+i)*kvDim:][:kvDim]
			addBias(q(i), w.BQ, l)
			addBias(key, w.BK, l)
			addBias(value, w.BV, l)
			t.qkNorm(q(i), key, l)
			t.ropeAngles(start + i)
			t.rope(q(i), t.rotaryOf(l))
			t.rope(key, t.rotaryOf(l))
			t.attend(a, l, start+i, q(i), ao(i))
		}
		gemm(b.xb2, dim, b.ao, n, &m.WO)
		for i := range n {
			t.postNorm(b.xb2[i*dim:(i+1)*dim], w.RMSAttPost, l)
		}
		for i := range b.x[:n*dim] {
			b.x[i] += b.xb2[i]
		}

		for i := range n {
			t.norm(xb(i), x(i), w.RMSFFN, nil, l)
		}
		gemm(b.hb, hidden, b.xb, n, &m.W1)
		gemm(b.hb2, hidden, b.xb, n, &m.W3)
		t.gate(b.hb[:n*hidden], b.hb2)
		gemm(b.xb2, dim, b.hb, n, &m.W2)
		for i := range n {
			t.postNorm(b.xb2[i*dim:(i+1)*dim], w.RMSFFNPost, l)
		}
		for i := range b.x[:n*dim] {
			b.x[i] += b.xb2[i]
		}
		copy(a.residuals[l*dim:(l+1)*dim], x(n-1))
	}

	copy(a.x, x(n-1))
	if last {
		t.classify(a)
	}
}

// gemm sets the n rows of out (of stride width) to W·x for each of the n
// rows of x: out = X·Wᵀ, one SGEMM for the whole chunk.
func gemm(out []float32, stride int, x []float32, n int, w *quant.Matrix) {
	blas32.Gemm(blas.NoTrans, blas.Trans, 1,
		blas32.General{Rows: n, Cols: w.Cols, Stride: w.Cols, Data: x[:n*w.Cols]},
		blas32.General{Rows: w.Rows, Cols: w.Cols, Stride: w.Cols, Data: w.F32[:w.Rows*w.Cols]},
		0, blas32.General{Rows: n, Cols: w.Rows, Stride: stride, Data: out[:(n-1)*stride+w.Rows]})
}
