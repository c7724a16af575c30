// Package transformer runs the forward pass of a Llama-2 style language model,
// with the semantics of llama2.c's run.c, in float32.
//
// For a token t at position pos, with x the residual stream of width dim:
//
//	x = embedding[t]                             (× √dim: Gemma's)
//	for each layer l:
//	    xb = rmsnorm(x) ⊙ g_att                      rmsnorm(v) = v / sqrt(mean(v²) + eps)
//	    q, k, v = Wq·xb + bq, Wk·xb + bk, Wv·xb + bv   k and v are stored in the KV cache at pos (biases: Qwen2's)
//	    (each head of q and k RMS-normalised: Qwen3's and Gemma 3's)
//	    rotate q and k by RoPE(pos)                  pairs (v[i], v[i+1]) by pos / base^((i mod hs)/hs) / factor
//	                                                 (pairs (i, i+hs/2) with RoPEHalves; factors: Llama 3's)
//	    for each head h (sharing kv head h / (heads/kv_heads)):
//	        s[t'] = q_h · k_h[t'] / sqrt(hs)          for t' = start..pos (start: 0, or pos+1−window
//	                                                 in a sliding-window layer: Phi-3's, Gemma 2's and 3's)
//	        a[t'] = softmax_t'(cap·tanh(s[t']/cap))  (the soft-cap: Gemma 2's; a[t'] = 0 before start)
//	        xb_h = Σ_t' a[t'] · v_h[t']
//	    x += Wo·xb                                   (Wo·xb RMS-normalised first: Gemma 2's and 3's post-norm)
//	    xb = rmsnorm(x) ⊙ g_ffn
//	    x += W2·(silu(W1·xb) ⊙ W3·xb)                silu(z) = z·σ(z) (Gemma: gelu, ggml's tanh approximation;
//	                                                 post-normed as Wo·xb)
//	h = rmsnorm(x) ⊙ g_final
//	logits = Wcls·h                                  (soft-capped: Gemma 2's)
//
// eps and base are run.c's 1e-5 and 10000 unless the checkpoint's Config sets
// others (a GGUF file may).
//
// A Transformer owns every buffer it needs, so Forward allocates nothing: the
// decode step of a browser playground runs at the speed of its arithmetic.
//
// Beside the cached decode step: Recompute runs a whole sequence without
// the cache's earlier rows (MultiplyAdds and RecomputeMultiplyAdds count
// the two ways' cost), Pass.Lens reads the logit lens of a pass from the
// residual stream it keeps after every layer, and Prefill carries a
// prompt's positions through the layers together, each matrix read once for
// a chunk of them, with Forward's arithmetic: the same bits.
//
// The weight matrices may be float32 or quantized (package quant, from a
// GGUF file). A quantized matrix is multiplied by its format's kernel,
// which quantizes the vector to 8-bit integers first, as llama.cpp does;
// its logits follow llama.cpp's rather than run.c's, and Options.RunC
// concerns only float32 matrices.
//
// The hot loops (the products, attention and SwiGLU) run on the kernels
// that Options.Kernels holds: Go's loops, natively with package matvec's
// and package quant's assembly (on several threads with Threads), or in
// the browser the WebAssembly SIMD kernels
// that LoadKernels loads, each the twin of a Go loop, bit for bit.
//
// Every operation but the matrix products is run.c's, operation for
// operation in float32 with C's expf, sinf, cosf and powf (packages expf and
// sincosf), and no product fused into a sum. The products W·x sum their
// terms in another order than run.c's loop unless Options.RunC asks for
// run.c's, so the logits differ from run.c's in the last bits by default
// and are run.c's bit for bit with RunC (on x86-64 with FMA, whose glibc
// the math functions reproduce).
package transformer

import (
	"fmt"
	"math"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/internal/expf"
	"nexttoken/engine/internal/matvec"
	"nexttoken/engine/internal/sincosf"
	"nexttoken/engine/quant"
	"nexttoken/engine/softmax"
)

// A Module is a kernel module that Kernels.MissingModules says a model
// needs: its file, served in web/kernels beside app.wasm, and the address
// to fetch it by, relative to that folder.
type Module struct{ File, Address string }

// Options are the choices of NewWith.
type Options struct {
	// RunC sums every matrix product in run.c's order, row by row from the
	// first term to the last, so that the logits are run.c's bit for bit.
	// The default kernels sum in other orders (BenchmarkMatmul), faster:
	// natively package matvec's AVX2 kernel, in wasm an unrolled loop.
	RunC bool

	// Kernels are the kernels the pass runs with beside Go's loops: the
	// zero Kernels, Go's loops (natively with package matvec's and quant's
	// assembly, chosen by the CPU); in the browser, the WebAssembly SIMD
	// kernels that LoadKernels loads. Each kernel gives its Go loop's
	// results bit for bit, so the choice changes the speed, never the
	// numbers. A program loads them once and gives them to every
	// Transformer it makes.
	Kernels Kernels
}

// Transformer is a model together with its run state: the activations of the
// latest forward pass and the KV cache of every position so far.
type Transformer struct {
	Config   checkpoint.Config
	W        *checkpoint.Weights  // for the RMSNorm gains
	Matrices *checkpoint.Matrices // the weight matrices, float32 or quantized
	Cache    KVCache

	// Pause, when set, is called while Prefill runs: between the layers
	// of the positions it carries together, or between positions. An
	// error it returns stops Prefill with that error, the cache's rows of
	// the positions under way unfinished: drop such a Transformer. A page
	// that prefills on its own thread lets the browser run there.
	Pause func() error

	opts   Options
	matmul func(out, x, w []float32, n, d int) // by opts, for float32 matrices
	kern   Kernels                             // opts.Kernels
	vec    quant.Vec                           // x quantized, for quantized ones

	// Prefill's rows beyond a single position and each one's input to a
	// product, quantized; made on first use.
	prefill   *rows
	chunkRows rows
	vecs      []quant.Vec
	batchFrom int // batchMinBytes, but for the tests

	act   activations  // of the latest Forward
	probe *activations // of the latest Probe, made on first use

	classified int // passes that ended in the classifier, which tests count

	// RoPE's rotation for the current position (computed at the start of
	// every pass): global for every layer, but for the windowed layers
	// when they have their own base (local, else nil).
	global, local *rotary
	eps           float32 // RMSNorm's
}

// activations are the buffers of one forward pass, named as in run.c.
type activations struct {
	x       []float32 // residual stream; after the pass, the final normalised hidden state
	xb      []float32 // normalised input of a sub-layer
	ao      []float32 // attention's output, q_dim wide
	xb2     []float32 // output of Wo or W2, added to x
	hb      []float32 // feed-forward gate, then the gated product
	hb2     []float32 // feed-forward up projection
	q       []float32 // query of the current position
	att     []float32 // layers × heads × attRows: attention weights of the query
	attRows int       // positions att holds per head, growing like the cache
	logits  []float32
	// residuals are x after every layer (layers × dim), before the final
	// RMSNorm: what the logit lens reads. Copying them costs dim floats per
	// layer, nothing beside the layer's matrix products.
	residuals []float32
	pos       int // the position the pass fed

	single rows // the vectors above as one row, for layers
}

func newActivations(c checkpoint.Config) *activations {
	a := &activations{
		x:         make([]float32, c.Dim),
		xb:        make([]float32, c.Dim),
		ao:        make([]float32, c.QDim()),
		xb2:       make([]float32, c.Dim),
		hb:        make([]float32, c.HiddenDim),
		hb2:       make([]float32, c.HiddenDim),
		q:         make([]float32, c.QDim()),
		logits:    make([]float32, c.VocabSize),
		residuals: make([]float32, c.Layers*c.Dim),
	}
	a.single = a.one()
	return a
}

// New prepares a run state for m with the default Options. Its memory is
// dominated by the KV cache, which grows with the positions fed, up to
// 2 × layers × seq_len × kv_dim float32 values.
func New(m *checkpoint.Model) *Transformer { return NewWith(m, Options{}) }

// NewWith prepares a run state for m that computes as opts say.
func NewWith(m *checkpoint.Model, opts Options) *Transformer {
	c := m.Config
	hs := c.HeadSize()
	t := &Transformer{
		Config:   c,
		W:        &m.Weights,
		Matrices: m.Matrices(),
		Cache:    newKVCache(c),
		act:      *newActivations(c),
		global:   newRotary(hs, c.Base()),
		opts:     opts,
		matmul:   opts.Kernels.matmul,
		kern:     opts.Kernels,
		eps:      c.Eps(),

		batchFrom: batchMinBytes,
	}
	if opts.RunC {
		t.matmul = matmulRunC
	}
	if c.LocalRoPEBase != 0 {
		t.local = newRotary(hs, c.LocalRoPEBase)
	}
	return t
}

// rotary is RoPE's rotation of each pair within a head: its inverse
// frequencies, and its cosine and sine at the current position, at.
type rotary struct {
	invFreq, cos, sin []float32
	at                int // the position cos and sin are of, or −1
}

func newRotary(hs int, base float32) *rotary {
	r := &rotary{make([]float32, hs/2), make([]float32, hs/2), make([]float32, hs/2), -1}
	for i := range r.invFreq {
		// run.c: 1.0f / powf(10000.0f, head_dim / (float)head_size), in float32.
		r.invFreq[i] = 1 / expf.Pow(base, float32(2*i)/float32(hs))
	}
	return r
}

// rotaryOf is the rotation layer l applies.
func (t *Transformer) rotaryOf(l int) *rotary {
	if t.local != nil && t.Config.Windowed(l) {
		return t.local
	}
	return t.global
}

// Options returns the options t computes with.
func (t *Transformer) Options() Options { return t.opts }

// Forward feeds token at position pos, which must follow the positions already
// in the cache (pos ≤ Cache.Len; a smaller pos rewinds the cache), and returns
// the logits of the next token. The returned slice is owned by t and
// overwritten by the next call.
func (t *Transformer) Forward(token, pos int) ([]float32, error) {
	if err := t.check(token, pos, t.Cache.Len); err != nil {
		return nil, err
	}
	t.Cache.Len = pos + 1
	t.forward(&t.act, token, pos, true)
	return t.act.logits, nil
}

// Probe runs the forward pass of position pos again, for display, without
// changing the cache's length or what Forward returned: pos must be in the
// cache already and token must be the token fed there, so that the pass
// rewrites that position's key and value with the numbers they hold. It
// gives the logits, hidden state and attention that the pass computed when
// the token was fed. The result is overwritten by the next Probe.
func (t *Transformer) Probe(token, pos int) (*Pass, error) {
	if err := t.check(token, pos, t.Cache.Len-1); err != nil {
		return nil, err
	}
	if t.probe == nil {
		t.probe = newActivations(t.Config)
	}
	t.forward(t.probe, token, pos, true)
	return &Pass{t: t, a: t.probe}, nil
}

// Latest is the latest Forward's pass: the logits it returned, its hidden
// state and its attention. It changes with every Forward.
func (t *Transformer) Latest() *Pass { return &Pass{t: t, a: &t.act} }

// Pass is what one forward pass computed besides the cache rows.
type Pass struct {
	t *Transformer
	a *activations
}

// Pos is the position the pass fed.
func (p *Pass) Pos() int { return p.a.pos }

// Logits are the logits of the next token.
func (p *Pass) Logits() []float32 { return p.a.logits }

// Hidden is the final normalised hidden state h: the vector the classifier
// multiplies to give the logits.
func (p *Pass) Hidden() []float32 { return p.a.x }

// Attention returns the weights with which the pass's query of head h in
// layer l attended to positions 0 … Pos (they sum to 1).
func (p *Pass) Attention(l, h int) []float32 {
	c := p.t.Config
	return p.a.att[(l*c.Heads+h)*p.a.attRows:][:p.a.pos+1]
}

func (t *Transformer) check(token, pos, last int) error {
	c := t.Config
	if token < 0 || token >= c.VocabSize {
		return fmt.Errorf("transformer: token %d is outside the vocabulary of %d", token, c.VocabSize)
	}
	if pos < 0 || pos > last || pos >= c.SeqLen {
		return fmt.Errorf("transformer: position %d is not in 0..%d (cache holds %d, context %d)",
			pos, min(last, c.SeqLen-1), t.Cache.Len, c.SeqLen)
	}
	return nil
}

// forward is the forward pass of token at pos into a, writing the key and
// value of pos into the cache. Without logits it stops at the residual
// stream, for a position whose next token nobody asks about.
func (t *Transformer) forward(a *activations, token, pos int, logits bool) {
	t.reserve(a, pos)
	t.embed(token, pos, a.x)
	t.layers(a, &a.single, pos, nil)
	if logits {
		t.classify(a)
	}
}

// layers carries the rows r, embedded, of positions start, start+1, …
// through every layer, writing their keys and values into the cache; a
// keeps the attention weights and the residuals after every layer of the
// last of them. A single row is one position's pass, run.c's forward.
// pause (unless nil) is called between layers, and an error it returns
// stops the pass there.
func (t *Transformer) layers(a *activations, r *rows, start int, pause func() error) error {
	c := t.Config
	w := t.W
	dim := c.Dim
	n := len(r.x)

	for l := range c.Layers {
		if pause != nil && l > 0 {
			if err := pause(); err != nil {
				return err
			}
		}
		m := &t.Matrices.Layers[l]
		// Attention: each position's key and value go straight into the cache.
		for i := range n {
			t.norm(r.xb[i], r.x[i], w.RMSAtt, w.NormAttBias, l)
			r.k[i], r.v[i] = t.Cache.row(l, start+i)
		}
		if n > 1 || t.opts.RunC || !t.kern.mulThree(r.q[0], r.k[0], r.v[0], r.xb[0], &m.WQ, &m.WK, &m.WV, &t.vec) {
			t.mulRows(r.q, r.xb, &m.WQ)
			t.mulRows(r.k, r.xb, &m.WK)
			t.mulRows(r.v, r.xb, &m.WV)
		}
		for i := range n {
			q, k, v := r.q[i], r.k[i], r.v[i]
			addBias(q, w.BQ, l)
			addBias(k, w.BK, l)
			addBias(v, w.BV, l)
			t.qkNorm(q, k, l)
			t.ropeAngles(start + i)
			t.rope(q, t.rotaryOf(l))
			t.rope(k, t.rotaryOf(l))
			t.attend(a, l, start+i, q, r.ao[i]) // rows up to start+i are final
		}
		t.mulRows(r.xb2, r.ao, &m.WO)
		for i := range n {
			addBias(r.xb2[i], w.BO, l)
			t.postNorm(r.xb2[i], w.RMSAttPost, l)
			add(r.x[i], r.xb2[i])
			t.norm(r.xb[i], r.x[i], w.RMSFFN, w.NormFFNBias, l)
		}

		// Feed-forward: SwiGLU (GELU's, or no gate: GPT-2's).
		if c.Ungated {
			t.mulRows(r.hb, r.xb, &m.W3)
			for i := range n {
				addBias(r.hb[i], w.BUp, l)
				geluGo(r.hb[i])
			}
		} else if n > 1 || t.opts.RunC || !t.kern.mulGated(r.hb[0], r.hb2[0], r.xb[0], &m.W1, &m.W3, c.GELU, &t.vec) {
			t.mulRows(r.hb, r.xb, &m.W1)
			t.mulRows(r.hb2, r.xb, &m.W3)
			for i := range n {
				t.gate(r.hb[i], r.hb2[i])
			}
		}
		t.mulRows(r.xb2, r.hb, &m.W2)
		for i := range n {
			addBias(r.xb2[i], w.BDown, l)
			t.postNorm(r.xb2[i], w.RMSFFNPost, l)
			add(r.x[i], r.xb2[i])
		}
		copy(a.residuals[l*dim:(l+1)*dim], r.x[n-1])
	}
	return nil
}

// add adds v to x, the residual stream.
func add(x, v []float32) {
	for i := range x {
		x[i] += v[i]
	}
}

// reserve readies the cache and a's attention weights for a pass at pos.
func (t *Transformer) reserve(a *activations, pos int) {
	a.pos = pos
	t.Cache.reserve(pos + 1)
	if a.attRows < pos+1 {
		a.attRows = t.Cache.rows
		a.att = make([]float32, t.Config.Layers*t.Config.Heads*a.attRows)
	}
}

// attend sets out to layer l's attention of the query q at pos over the
// cache's positions start..pos (0, or the window's first in a windowed
// layer), keeping each head's weights in a.att, zero before start. Under
// js, scoreHeads and mixHeads take most of the work, a layer a call, in
// SIMD: the same sums in the same order as the Go loops, so the same bits.
func (t *Transformer) attend(a *activations, l, pos int, q, out []float32) {
	c := t.Config
	kvDim, hs := c.KVDim(), c.HeadSize()
	sqrtHS := float32(math.Sqrt(float64(hs))) // run.c divides by sqrtf(head_size)
	start := 0
	if c.Windowed(l) {
		start = max(0, pos+1-c.Window)
	}
	keys, values := t.Cache.layer(l)
	keys, values = keys[start*kvDim:], values[start*kvDim:]
	layer := heads{count: c.Heads, size: hs, kvMul: c.Heads / c.KVHeads, positions: pos + 1 - start, stride: kvDim, attStride: a.attRows}
	layerAtt := a.att[l*c.Heads*a.attRows:][:c.Heads*a.attRows]
	window := layerAtt[start:] // head h's weights of start..pos at h·attRows
	if t.kern.attendHeads(attendJob{q, keys, values, out, window, layerAtt, layer, sqrtHS, c.AttnSoftcap, start}) {
		return
	}
	scored := t.kern.scoreHeads(window, q, keys, layer, sqrtHS)
	for h := range c.Heads {
		qh := q[h*hs : (h+1)*hs]
		att := window[h*a.attRows:][:layer.positions]
		off := layer.keyOffset(h)
		if scored < len(att) {
			matvec.Scores(att[scored:], qh, keys[scored*kvDim+off:], kvDim, sqrtHS)
		}
		softcap(att, c.AttnSoftcap)
		clear(layerAtt[h*a.attRows:][:start])
	}
	t.kern.softmaxHeads(window, layer)
	t.kern.mixHeads(out, window, values, layer)
}

// attendJob is one layer's attention of a query (attend's), head by
// head: Rows does heads from … to−1 with attend's kernels natively, each
// head's scores, soft-cap, softmax and weighted sum in attend's order, so
// that heads split among threads give attend's bits.
type attendJob struct {
	q, keys, values, out, window, layerAtt []float32
	layer                                  heads
	sqrtHS, softcap                        float32
	start                                  int
}

func (a *attendJob) Rows(_, from, to int) {
	l := a.layer
	for h := from; h < to; h++ {
		att := a.window[h*l.attStride:][:l.positions]
		off := l.keyOffset(h)
		matvec.Scores(att, a.q[h*l.size:(h+1)*l.size], a.keys[off:], l.stride, a.sqrtHS)
		softcap(att, a.softcap)
		clear(a.layerAtt[h*l.attStride:][:a.start])
		softmax.Float32(att)
		matvec.Mix(a.out[h*l.size:(h+1)*l.size], att, a.values[off:], l.stride)
	}
}

// softcap sets each x to limit·tanh(x/limit), as ggml computes it (a
// scale by 1/limit, tanh, a scale by limit): Gemma 2's soft-capping of
// attention scores and logits, which keeps them within ±limit. A limit
// of 0 is none.
func softcap(x []float32, limit float32) {
	if limit == 0 {
		return
	}
	inv := 1 / limit
	for i, v := range x {
		x[i] = limit * float32(math.Tanh(float64(v*inv)))
	}
}

// softmaxHeadsGo turns each head's scores into its attention weights.
func softmaxHeadsGo(att []float32, l heads) {
	for h := range l.count {
		softmax.Float32(att[h*l.attStride:][:l.positions])
	}
}

// heads lays out one layer's attention, in float32s: head h's query and
// output at h·size, position p's key and value rows at p·stride, key head
// g's part of them at g·size, and head h's weights at h·attStride.
type heads struct {
	count, size int
	kvMul       int // query heads per key head: h's is h / kvMul
	positions   int // attended to, from 0
	stride      int
	attStride   int
}

// keyOffset is where head h's key (and value) head starts in a cache row.
func (l heads) keyOffset(h int) int { return (h / l.kvMul) * l.size }

// mixHeadsGo sets each head's output to the sum of the value rows weighted
// by its attention, out_h[i] = Σ_p att_h[p]·v_p[i], summed in order of p:
// package matvec's Mix a head.
func mixHeadsGo(out, att, values []float32, l heads) {
	for h := range l.count {
		matvec.Mix(out[h*l.size:(h+1)*l.size], att[h*l.attStride:][:l.positions], values[l.keyOffset(h):], l.stride)
	}
}

// swigluGo sets gate to silu(gate) ⊙ up, silu(z) = z·σ(z).
func swigluGo(gate, up []float32) {
	for i, g := range gate {
		gate[i] = g * (1 / (1 + expf.Exp(-g))) * up[i]
	}
}

// classify ends a's pass: the final RMSNorm of its residual stream, then
// the logits.
func (t *Transformer) classify(a *activations) {
	t.classified++
	t.norm(a.x, a.x, t.W.RMSFinal, t.W.NormFinalBias, 0)
	t.logitsOf(a.logits, a.x)
}

// logitsOf sets logits to the classifier's product with the final hidden
// state h, soft-capped when the model caps them (Gemma 2's).
func (t *Transformer) logitsOf(logits, h []float32) {
	t.mul(logits, h, &t.Matrices.Classifier)
	softcap(logits, t.Config.FinalSoftcap)
}

// mul sets out = W·x: a float32 W through t.matmul (run.c's order or the
// kernels' fastest), a quantized one through the kernels' mulQuantized
// (its format's kernel, in SIMD where there is one).
func (t *Transformer) mul(out, x []float32, w *quant.Matrix) {
	if w.Type == quant.F32 {
		t.matmul(out, x, w.F32, w.Cols, w.Rows)
		return
	}
	t.kern.mulQuantized(out, x, w, &t.vec)
}

// embed sets x to token's embedding at pos: times √dim when the model
// scales it (Gemma's, in float32 as ggml_scale multiplies by
// sqrtf(n_embd)), plus pos's learned embedding when it has them (GPT-2's).
func (t *Transformer) embed(token, pos int, x []float32) {
	t.Matrices.TokenEmbedding.Row(token, x)
	if t.Config.ScaleEmbedding {
		s := float32(math.Sqrt(float64(t.Config.Dim)))
		for i := range x {
			x[i] *= s
		}
	}
	if t.Config.Positions {
		for i, p := range t.W.PosEmbedding[pos*len(x):][:len(x)] {
			x[i] += p
		}
	}
}

// norm sets out to layer l's norm of x (l is 0 for the final norm, whose
// gain and bias are the whole slices): RMSNorm with gain, or with
// Config.LayerNorm LayerNorm with gain and bias.
func (t *Transformer) norm(out, x, gain, bias []float32, l int) {
	n := len(x)
	gain = gain[l*n:][:n]
	if !t.Config.LayerNorm {
		rmsnorm(out, x, gain, t.eps)
		return
	}
	layernorm(out, x, gain, bias[l*n:][:n], t.eps)
}

// gate sets gate to act(gate) ⊙ up, the feed-forward layer's gated
// product: SiLU (SwiGLU, on the kernels), or GELU (Gemma's).
func (t *Transformer) gate(gate, up []float32) {
	if t.Config.GELU {
		gegluGo(gate, up)
		return
	}
	t.kern.swiglu(gate, up)
}

// postNorm RMS-normalises v, a sub-layer's output, with layer l's gains
// (Gemma 2's and 3's post-norms; none without Config.PostNorms).
func (t *Transformer) postNorm(v, gain []float32, l int) {
	if t.Config.PostNorms {
		rmsnorm(v, v, gain[l*len(v):][:len(v)], t.eps)
	}
}

// qkNorm RMS-normalises each head of the query q and key k with layer
// l's gains (Qwen3's and Gemma 3's; none when the model has none).
func (t *Transformer) qkNorm(q, k []float32, l int) {
	w := t.W
	if w.QNorm == nil {
		return
	}
	hs := t.Config.HeadSize()
	for _, v := range []struct{ x, gain []float32 }{{q, w.QNorm}, {k, w.KNorm}} {
		gain := v.gain[l*hs:][:hs]
		for h := 0; h < len(v.x); h += hs {
			rmsnorm(v.x[h:h+hs], v.x[h:h+hs], gain, t.eps)
		}
	}
}

// addBias adds layer l's biases b (nil: the model has none) to v, a
// query, key or value (Qwen2's).
func addBias(v, b []float32, l int) {
	if b == nil {
		return
	}
	for i, x := range b[l*len(v):][:len(v)] {
		v[i] += x
	}
}

// ropeAngles computes the rotations of every pair within a head for pos.
func (t *Transformer) ropeAngles(pos int) {
	if t.Config.Positions {
		return // no RoPE: positions are learned embeddings
	}
	for _, r := range []*rotary{t.global, t.local} {
		if r != nil {
			r.angles(pos, t.W.RoPEFactors)
		}
	}
}

// angles sets r's cosines and sines for pos, unless they are pos's
// already (every layer of a pass rotates at the same position).
func (r *rotary) angles(pos int, factors []float32) {
	if r.at == pos {
		return
	}
	r.at = pos
	for i, f := range r.invFreq {
		angle := float32(pos) * f
		if factors != nil { // Llama 3's: ggml_rope_ext divides the angle by them
			angle /= factors[i]
		}
		r.cos[i] = sincosf.Cos(angle)
		r.sin[i] = sincosf.Sin(angle)
	}
}

// rope rotates the pairs of v by r, head by head: adjacent pairs (2j,
// 2j+1), or with Config.RoPEHalves the pairs (j, j+hs/2). Here and below
// the float32 conversions keep each product rounded before its sum, as in
// run.c: Go may otherwise fuse them (it does on arm64).
func (t *Transformer) rope(v []float32, r *rotary) {
	if t.Config.Positions {
		return
	}
	cos, sin := r.cos, r.sin
	half := len(cos)
	if t.Config.RoPEHalves {
		for h := 0; h < len(v); h += 2 * half {
			for j := range half {
				v0, v1 := v[h+j], v[h+j+half]
				v[h+j] = float32(v0*cos[j]) - float32(v1*sin[j])
				v[h+j+half] = float32(v0*sin[j]) + float32(v1*cos[j])
			}
		}
		return
	}
	for i := 0; i < len(v); i += 2 {
		j := (i % (2 * half)) / 2
		v0, v1 := v[i], v[i+1]
		v[i] = float32(v0*cos[j]) - float32(v1*sin[j])
		v[i+1] = float32(v0*sin[j]) + float32(v1*cos[j])
	}
}

// layernorm sets out = (x − mean(x)) / sqrt(var(x) + eps) ⊙ gain + bias,
// as ggml_norm computes it (the sums in float64) and llama.cpp then
// multiplies and adds; out may be x.
func layernorm(out, x, gain, bias []float32, eps float32) {
	var sum float64
	for _, v := range x {
		sum += float64(v)
	}
	mean := float32(sum / float64(len(x)))
	var sum2 float64
	for i, v := range x {
		d := v - mean
		out[i] = d
		sum2 += float64(d * d)
	}
	scale := 1 / float32(math.Sqrt(float64(float32(sum2/float64(len(x)))+eps)))
	for i, v := range out[:len(x)] {
		out[i] = float32(float32(v*scale)*gain[i]) + bias[i]
	}
}

// rmsnorm sets out = x / sqrt(mean(x²) + eps) ⊙ gain; out may be x.
func rmsnorm(out, x, gain []float32, eps float32) {
	var ss float32
	for _, v := range x {
		ss += float32(v * v)
	}
	ss = ss/float32(len(x)) + eps
	inv := 1 / float32(math.Sqrt(float64(ss)))
	for i := range out {
		out[i] = gain[i] * (inv * x[i])
	}
}
