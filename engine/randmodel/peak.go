package randmodel

import (
	"fmt"
	"math"
	"math/rand/v2"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
)

// What Peak builds: at most peakPlanes rotation planes in the code; the
// code's norm in the residual stream peakAmplitude times the norm of what
// the random layers add there (each of the 2·layers sub-layers about
// dim·σ² a coordinate, σ² = 0.1²/3 the variance of their weights); the
// gate's input peakGate; the gate's direction in an embedding β² =
// planes/peakGateShare; and the winner's logit peakLogit over the mean.
const (
	peakPlanes    = 48
	peakAmplitude = 8
	peakGate      = 8
	peakGateShare = 4
	peakLogit     = 10
)

// Head is what Peak made of a model: Next[t] is the token that wins after
// token t, and Margin is by how much, in standard deviations of the
// logits, in the model without its random layers: the noise-free head.
type Head struct {
	Next   []int
	Margin float64
}

// Peak gives m, a model of its architecture (Extend first), a peaked
// output head (package doc): every token's embedding becomes its code, the
// last layer's feed-forward turns the code into the next token's, and the
// final norm scales the logits so that the winner leads the mean by 10
// (by half the cap in a model that soft-caps its logits, so that the cap
// bends them little). The embedding, the
// classifier (the embedding's copy where the model has its own) and the
// last layer's feed-forward matrices become float32 in a quantized model
// too; that layer's feed-forward norm, post-norm and the final norm get the
// gains the construction needs.
func Peak(m *checkpoint.Model, seed uint64) (Head, error) {
	c, w := m.Config, &m.Weights
	d, h, v, l := c.Dim, c.HiddenDim, c.VocabSize, c.Layers-1
	planes := min(peakPlanes, (d-2)/4, h/2, (v-1)/2)
	if planes < 4 {
		return Head{}, fmt.Errorf("randmodel: a model of dim %d, hidden %d and %d tokens is too small for a peaked head", d, h, v)
	}
	r := 2 * planes // the code's width: a cosine and a sine per plane
	rng := rand.New(rand.NewPCG(seed, 0x9ea4))
	angles := make([]float64, planes)
	for k, f := range rng.Perm((v - 1) / 2)[:planes] { // frequencies 1 … (v−1)/2, below v/2
		angles[k] = 2 * math.Pi * float64(f+1) / float64(v)
	}
	order := rng.Perm(v) // token t's place in the cycle
	next := make([]int, v)
	byPlace := make([]int, v)
	for t, n := range order {
		byPlace[n] = t
	}
	for t, n := range order {
		next[t] = byPlace[(n+1)%v]
	}

	// Code coordinate i lives in the residual stream as +x at 2i and −x at
	// 2i+1, the gate's direction u likewise at 2r and 2r+1: both have a
	// mean of zero, so LayerNorm (GPT-2's) keeps them as RMSNorm does.
	beta := math.Sqrt(float64(planes) / peakGateShare)
	noise := float64(d) * 0.1 * 0.1 / 3 * math.Sqrt(float64(2*c.Layers*d))
	residual := peakAmplitude * noise / math.Sqrt(float64(planes)+beta*beta) // the code's amplitude in the residual stream
	embed := residual
	if c.ScaleEmbedding {
		embed /= math.Sqrt(float64(d))
	}
	s := math.Sqrt(float64(d) / (float64(planes) + beta*beta)) // a normalised code coordinate over the code's
	put := func(row []float32, i int, x float64) {
		row[2*i], row[2*i+1] = float32(x/math.Sqrt2), float32(-x/math.Sqrt2)
	}

	q := m.Matrices()
	float := func(mat *quant.Matrix) []float32 {
		if mat.Type != quant.F32 || mat.F32 == nil {
			*mat = quant.Matrix{Type: quant.F32, Rows: mat.Rows, Cols: mat.Cols, F32: make([]float32, mat.Rows*mat.Cols)}
		}
		clear(mat.F32)
		return mat.F32
	}
	emb := float(&q.TokenEmbedding)
	for t, n := range order {
		row := emb[t*d : (t+1)*d]
		for k, a := range angles {
			put(row, 2*k, embed*math.Cos(a*float64(n)))
			put(row, 2*k+1, embed*math.Sin(a*float64(n)))
		}
		put(row, r, embed*beta)
	}
	if c.SharedHead && w.Quantized != nil {
		q.Classifier = q.TokenEmbedding
	} else if !c.SharedHead {
		copy(float(&q.Classifier), emb)
	}

	// The last layer's feed-forward adds (R − I)·code, R turning each
	// plane by its angle: the next token's code replaces the token's.
	lm := &q.Layers[l]
	fill(w.RMSFFN[l*d:(l+1)*d], 1)
	if w.NormFFNBias != nil {
		clear(w.NormFFNBias[l*d : (l+1)*d])
	}
	up, down := float(&lm.W3), float(&lm.W2)
	for i := range r {
		put(up[i*d:(i+1)*d], i, 1/s)
	}
	var act, scale float64 // the gate's output, and W2's scale
	if c.Ungated {
		// gelu(peakGate + code) − gelu(peakGate) is the code: BDown
		// takes the constant away.
		act, scale = gelu(peakGate), residual
		for i := range r {
			w.BUp[l*h+i] = peakGate
		}
		clear(w.BUp[l*h+r : (l+1)*h])
	} else {
		gate := float(&lm.W1)
		for i := range r {
			put(gate[i*d:(i+1)*d], r, peakGate/(s*beta))
		}
		act = peakGate / (1 + math.Exp(-peakGate))
		if c.GELU {
			act = gelu(peakGate)
		}
		scale = residual / act
	}
	var turned float64 // |(R − I)·code|², the same for every token
	for k, a := range angles {
		cos, sin := math.Cos(a), math.Sin(a)
		turned += 2 * (1 - cos)
		// Column 2k (the cosine) goes to (cos − 1, sin), column 2k+1 to (−sin, cos − 1).
		for _, e := range []struct {
			out, in int
			x       float64
		}{{2 * k, 2 * k, cos - 1}, {2*k + 1, 2 * k, sin}, {2 * k, 2*k + 1, -sin}, {2*k + 1, 2*k + 1, cos - 1}} {
			down[2*e.out*h+e.in] = float32(scale * e.x / math.Sqrt2)
			down[(2*e.out+1)*h+e.in] = float32(-scale * e.x / math.Sqrt2)
		}
	}
	if c.Ungated {
		for o := range d {
			var sum float64
			for i := range r {
				sum += float64(down[o*h+i])
			}
			w.BDown[l*d+o] = float32(-sum * act)
		}
	}
	if c.PostNorms { // the post-norm brings the output to the amplitude it needs
		fill(w.RMSFFNPost[l*d:(l+1)*d], float32(residual*math.Sqrt(turned/float64(d))))
	}

	// The final norm: logits of the next token's code peakLogit above the
	// mean, none from u.
	top := float64(peakLogit)
	if c.FinalSoftcap > 0 { // below the cap, where it bends the logits least
		top = min(top, float64(c.FinalSoftcap)/2)
	}
	fill(w.RMSFinal, float32(top/(embed*s*float64(planes))))
	w.RMSFinal[2*r], w.RMSFinal[2*r+1] = 0, 0
	if w.NormFinalBias != nil {
		clear(w.NormFinalBias)
	}
	return Head{Next: next, Margin: codeMargin(angles, v)}, nil
}

// codeMargin is by how much the code's own logit leads the largest other,
// in standard deviations of the logits: the logit of the code n places
// away is f(n) = Σ cos(n·angle), whose mean over the v places is 0 and
// whose variance is planes/2.
func codeMargin(angles []float64, v int) float64 {
	second := math.Inf(-1)
	for n := 1; n < v; n++ {
		var f float64
		for _, a := range angles {
			f += math.Cos(a * float64(n))
		}
		second = max(second, f)
	}
	return (float64(len(angles)) - second) / math.Sqrt(float64(len(angles))/2)
}

// gelu is ggml's GELU, the tanh approximation, in float64.
func gelu(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*x*(1+0.044715*x*x)))
}

func fill(x []float32, v float32) {
	for i := range x {
		x[i] = v
	}
}
