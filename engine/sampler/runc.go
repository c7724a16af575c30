package sampler

import (
	"fmt"
	"math"
	"sort"

	"nexttoken/engine/softmax"
)

// sampleRunC is run.c's sample(), in float32, recording its steps as stages.
func sampleRunC(s Settings, logits []float64, rng *RNG) (*Choice, error) {
	x := make([]float32, len(logits))
	for i, l := range logits {
		if x[i] = float32(l); overflows(x[i], l) {
			return nil, fmt.Errorf("sampler: logit %d (%g) overflows float32, which run.c mode uses", i, l)
		}
	}
	c := &Choice{}
	t := float32(s.Temperature)
	if t == 0 {
		return greedy(c, logits, x)
	}

	var err error
	if c.Softmax, err = softmax.Compute(logits, s.Temperature); err != nil {
		return nil, err
	}
	for i := range x {
		if x[i] /= t; overflows(x[i], logits[i]) {
			return nil, fmt.Errorf("sampler: logit %d (%g) divided by temperature %g overflows float32", i, logits[i], t)
		}
	}
	scaled := widen(x)
	softmax.Float32(x)
	probs := c.add(Stage{Name: "temperature", Logits: scaled, Probs: widen(x)}).Probs

	var order []int
	topp := float32(s.TopP)
	nucleus := topp > 0 && topp < 1
	if !nucleus {
		// sample_mult: every token, in id order.
		order = make([]int, len(x))
		for i := range order {
			order[i] = i
		}
	} else {
		// sample_topp: tokens below the cutoff cannot be in the nucleus.
		cutoff := (1 - topp) / float32(len(x)-1)
		for i, q := range x {
			if q >= cutoff {
				order = append(order, i)
			}
		}
		if len(order) == 0 {
			return nil, fmt.Errorf("sampler: run.c's top-p cutoff %g removes every token of %d, where run.c reads out of bounds; raise TopP", cutoff, len(x))
		}
		probs = c.add(filter("runc_cutoff", probs, order)).Probs
		byProb(x, order)
	}
	cdf := cumsum(x, order)
	if nucleus {
		last := sort.Search(len(cdf), func(i int) bool { return cdf[i] > topp })
		last = min(last, len(cdf)-1)
		order, cdf = order[:last+1], cdf[:last+1]
		c.add(filter("top_p", probs, order))
	}

	coin, err := flip(rng)
	if err != nil {
		return nil, err
	}
	target := coin
	if nucleus {
		target *= cdf[len(cdf)-1]
	}
	c.Draw = draw(order, cdf, coin, target)
	c.Token = order[c.Draw.Index]
	return c, nil
}

// overflows reports whether the finite logit l became infinite as the
// float32 v.
func overflows(v float32, l float64) bool {
	return math.IsInf(float64(v), 0) && !math.IsInf(l, 0)
}
