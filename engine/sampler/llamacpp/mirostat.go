package llamacpp

import (
	"math"

	"nexttoken/engine/internal/expf"
)

// mirostatM is the m of llama_sampler_init_mirostat that
// common_sampler_init passes: the tokens over which s is estimated.
const mirostatM = 100

// mirostat is llama_sampler_mirostat_apply (src/llama-sampler.cpp at
// 34af94cd), mirostat 1.0: from the Zipf exponent s estimated over the
// best m tokens and the target mu, a k for top-k, then the draw; mu moves
// by eta times the error of the chosen token's surprise against tau.
// nVocab is llama_vocab_n_tokens, the number of logits.
func (c *Chain) mirostat(a *array, nVocab int, res *Result) {
	softmax(a, true)
	d := a.data
	var sumTiBi, sumTiSq float32
	for i := 0; i < mirostatM-1 && i < len(d)-1; i++ {
		ti := expf.Log(float32(i+2) / float32(i+1))
		bi := expf.Log(d[i].P / d[i+1].P)
		sumTiBi += float32(ti * bi)
		sumTiSq += float32(ti * ti)
	}
	sHat := sumTiBi / sumTiSq
	eps := sHat - 1
	k := expf.Pow(float32(eps*expf.Pow(2, c.mu))/(1-expf.Pow(float32(nVocab), -eps)), 1/sHat)
	topK(a, int(max(cvttss2si(k), 1)))
	softmax(a, true)
	c.mirostatDraw(a, res)
}

// mirostatV2 is llama_sampler_mirostat_v2_apply (src/llama-sampler.cpp
// at 34af94cd), mirostat 2.0: the tokens, best first, up to the first
// whose surprise −log₂ p exceeds mu (at least one), then the draw and
// mu's update as in mirostat.
func (c *Chain) mirostatV2(a *array, res *Result) {
	softmax(a, true)
	n := len(a.data)
	for i, t := range a.data {
		if -expf.Log2(t.P) > c.mu {
			n = i
			break
		}
	}
	a.data = a.data[:max(n, 1)]
	softmax(a, true)
	c.mirostatDraw(a, res)
}

// mirostatDraw is the end of both mirostat stages: llama_sample_dist on
// the final generator, then mu −= eta·(−log₂ p − tau) for the chosen p.
func (c *Chain) mirostatDraw(a *array, res *Result) {
	res.Index, res.U, res.CDF = discreteDraw(a.data, &c.dist)
	if res.CDF != nil {
		res.Target, res.Sum = res.U, 1
	}
	e := -expf.Log2(a.data[res.Index].P) - c.p.MirostatTau
	c.mu -= float32(c.p.MirostatEta * e)
}

// discreteDraw is llama_sample_dist (src/llama-sampler.cpp at 34af94cd):
// libstdc++'s (GCC 12) std::discrete_distribution<int> over the float
// probabilities of d, drawn once. Its weights are doubles normalised by
// their double sum, cp their running sum with the last set to 1, and the
// result std::lower_bound(cp, u) for one canonical double u. With fewer
// than two weights it returns 0 and draws nothing (u 0, cp nil).
func discreteDraw(d []Token, rng *mt19937) (idx int, u float64, cp []float64) {
	if len(d) < 2 {
		return 0, 0, nil
	}
	var sum float64
	for _, t := range d {
		sum += float64(t.P)
	}
	cp = make([]float64, len(d))
	var run float64
	for i, t := range d {
		run += float64(t.P) / sum
		cp[i] = run
	}
	cp[len(cp)-1] = 1
	u = rng.canonical64()
	first, n := 0, len(cp)
	for n > 0 { // std::lower_bound, step for step (it matters for NaN)
		half := n >> 1
		if cp[first+half] < u {
			first += half + 1
			n -= half + 1
		} else {
			n = half
		}
	}
	return first, u, cp
}

// cvttss2si is C's conversion of a float to int on x86-64 (the
// instruction of that name): truncation, and for NaN or a value out of
// int32's range the "integer indefinite" INT_MIN.
func cvttss2si(x float32) int32 {
	if !(x > -0x1p31 && x < 0x1p31) {
		return math.MinInt32
	}
	return int32(x)
}
