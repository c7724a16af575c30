// Package softmax turns logits into probabilities and keeps every
// intermediate value, so that a display can show each step.
//
// For logits ℓ₀ … ℓₙ₋₁ and a temperature T > 0, Compute evaluates, in this
// order,
//
//	sᵢ = ℓᵢ / T          scale
//	m  = maxᵢ sᵢ         the largest scaled logit
//	dᵢ = sᵢ − m ≤ 0      shift
//	eᵢ = exp(dᵢ) ≤ 1     exponentiate (e = 1 at the maximum)
//	Z  = Σᵢ eᵢ ≥ 1       sum, in index order
//	pᵢ = eᵢ / Z          normalise
//
// Mathematically pᵢ = exp(sᵢ) / Σⱼ exp(sⱼ): the factor exp(−m) cancels
// between numerator and denominator. Numerically the shift is what makes the
// computation work: exp(1e4) overflows, exp(0) does not, and since Z ≥ 1 the
// division is safe. Equal logits give exactly equal probabilities 1/n,
// because every dᵢ is 0 and every eᵢ is 1.
//
// Temperature keeps the order of the tokens but reshapes their distribution:
// T < 1 sharpens it towards the argmax, T > 1 flattens it towards uniform.
//
// A logit of −Inf masks its token: dᵢ = −Inf, eᵢ = 0 and pᵢ = 0. The maximum
// is taken over the unmasked tokens, so at least one must remain.
//
// Float32 runs the steps from the maximum on in float32, in place and
// without checks, operation for operation as llama2.c's run.c softmax and
// with C's expf (package expf), for code that must reproduce run.c bit for
// bit.
//
// Top and Rank rank tokens by probability, ties by ascending id: the one
// order that every ranking of the engine follows (the sampler's stages,
// a step's top tokens and rank, the logit lens).
package softmax

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"nexttoken/engine/internal/expf"
)

// Trace is every intermediate value of one softmax, for display.
type Trace struct {
	Logits      []float64 // input ℓ (a copy)
	Temperature float64   // T > 0
	Scaled      []float64 // s = ℓ/T
	Max         float64   // m, the max of Scaled over unmasked tokens
	Shifted     []float64 // d = s − m (≤ 0; −Inf for masked tokens)
	Exp         []float64 // e = exp(d) (0 for masked tokens)
	Sum         float64   // Z = Σ e
	Probs       []float64 // p = e / Z
}

// Compute returns the softmax of logits at the given temperature with all
// its intermediate values. It fails on an empty or all-masked vector, on a
// NaN or +Inf logit, on a temperature that is not positive and finite, and
// on a temperature so small that a finite logit overflows when scaled.
func Compute(logits []float64, temperature float64) (*Trace, error) {
	t := new(Trace)
	if err := t.Compute(logits, temperature); err != nil {
		return nil, err
	}
	return t, nil
}

// Compute makes t the softmax of logits at the given temperature, the
// numbers the function Compute gives, in the memory of t's vectors where
// it is large enough: what a display that shows one softmax after another
// reuses. On an error t holds nothing of use.
func (t *Trace) Compute(logits []float64, temperature float64) error {
	n := len(logits)
	t.Logits = append(t.Logits[:0], logits...)
	t.Temperature = temperature
	t.Scaled, t.Shifted, t.Exp, t.Probs = resize(t.Scaled, n), resize(t.Shifted, n), resize(t.Exp, n), resize(t.Probs, n)
	var err error
	if t.Max, t.Sum, err = exps(t.Exp, logits, temperature); err != nil {
		return err
	}
	for i, l := range logits {
		t.Scaled[i] = l / temperature
		t.Shifted[i] = t.Scaled[i] - t.Max
		t.Probs[i] = t.Exp[i] / t.Sum
	}
	return nil
}

// resize returns x with length n, in its own memory when it is large
// enough.
func resize(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

// Probs writes softmax(logits / temperature) into p, which must be as long
// as logits, and returns the maximum m of the scaled logits and the sum Z:
// the same numbers, computed the same way, as Compute's, without keeping
// the intermediate vectors. It is what a sampler runs at every step.
func Probs(p, logits []float64, temperature float64) (m, z float64, err error) {
	if m, z, err = exps(p, logits, temperature); err != nil {
		return 0, 0, err
	}
	for i := range logits {
		p[i] /= z
	}
	return m, z, nil
}

// ErrAllMasked is the error of logits that are all −Inf: every token
// masked, none to choose. The samplers, whose choice starts from the
// softmax, return it as it is, for errors.Is.
var ErrAllMasked = errors.New("every token is masked (every logit is −Inf), so none can be chosen")

// exps writes e^(ℓᵢ/T − m) into e and returns m and their sum Z, in index
// order: the one home of the arithmetic Probs and Compute share, so that
// their numbers are the same bits.
func exps(e, logits []float64, temperature float64) (m, z float64, err error) {
	if !(temperature > 0) || math.IsInf(temperature, 1) {
		return 0, 0, fmt.Errorf("softmax: temperature %g is not positive and finite", temperature)
	}
	if len(logits) == 0 {
		return 0, 0, errors.New("softmax: no logits")
	}
	e = e[:len(logits)]
	m = math.Inf(-1)
	for i, l := range logits {
		switch {
		case math.IsNaN(l):
			return 0, 0, fmt.Errorf("softmax: logit %d is NaN", i)
		case math.IsInf(l, 1):
			return 0, 0, fmt.Errorf("softmax: logit %d is +Inf", i)
		}
		s := l / temperature
		if math.IsInf(s, 0) && !math.IsInf(l, 0) {
			return 0, 0, fmt.Errorf("softmax: logit %d (%g) overflows at temperature %g", i, l, temperature)
		}
		e[i] = s
		m = max(m, s)
	}
	if math.IsInf(m, -1) {
		return 0, 0, ErrAllMasked
	}
	for i, s := range e {
		e[i] = math.Exp(s - m)
		z += e[i]
	}
	return m, z, nil
}

// Float32 overwrites x with softmax(x) computed in float32 exactly as run.c's
// softmax: first the maximum, then expf(xᵢ − m) summed in index order, then
// the division by the sum. expf is expf.Exp, glibc's algorithm, rather than
// math.Exp rounded to float32, which differs from glibc in about one result
// in 12,000 on [−104, 0]. x must not be empty; it is not checked for NaN or
// infinities.
func Float32(x []float32) {
	// The transformer calls this for every head at every position: keep it
	// a plain loop (a generic version with exp as a parameter made the
	// decode step 40% slower).
	m := x[0]
	for _, v := range x[1:] {
		if v > m {
			m = v
		}
	}
	var z float32
	for i, v := range x {
		x[i] = expf.Exp(v - m)
		z += x[i]
	}
	for i := range x {
		x[i] /= z
	}
}

// Entropy is the Shannon entropy of the distribution p, in nats:
//
//	H = −Σᵢ pᵢ ln pᵢ,
//
// with 0 ln 0 = 0, so masked tokens add nothing. It is 0 when one token has
// all the probability and ln n when n tokens share it equally: e^H is how
// many equally likely tokens the model is hesitating between. Divide by
// ln 2 for bits.
func Entropy(p []float64) float64 {
	var h float64
	for _, q := range p {
		if q > 0 {
			h -= q * math.Log(q)
		}
	}
	return h
}

// Widen is x, a model's float32 logits (or any float32 vector), as the
// float64 values this package and the sampler read, in dst's memory when
// it has the room: every float32 is a float64 exactly. Widen(nil, x)
// makes a new slice.
func Widen(dst []float64, x []float32) []float64 {
	dst = slices.Grow(dst[:0], len(x))[:len(x)]
	for i, v := range x {
		dst[i] = float64(v)
	}
	return dst
}
