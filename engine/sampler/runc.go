package sampler

import (
	"fmt"
	"math"
	"slices"

	"nexttoken/engine/softmax"
)

// runC is run.c's sample(), in float32, recording its steps as stages.
func (sc *Scratch) runC(c *Choice, s Settings, logits []float64, rng *RNG, record bool) error {
	x := grow(sc.probs32, len(logits))
	sc.probs32 = x
	for i, l := range logits {
		if x[i] = float32(l); overflows(x[i], l) {
			return fmt.Errorf("sampler: logit %d (%g) overflows float32, which run.c mode uses", i, l)
		}
	}
	t := float32(s.Temperature)
	display := s.Temperature
	if t == 0 {
		display = 1
	}
	if err := sc.distribution(c, logits, display, record); err != nil {
		return err
	}
	if t == 0 {
		c.Token, c.Greedy = Argmax(x), true
		return nil
	}

	for i := range x {
		if x[i] /= t; overflows(x[i], logits[i]) {
			return fmt.Errorf("sampler: logit %d (%g) divided by temperature %g overflows float32", i, logits[i], t)
		}
	}
	temp := Stage{Name: "temperature"}
	if record {
		temp.Logits = widen(x)
	}
	softmax.Float32(x)
	for _, q := range x {
		if q > 0 {
			temp.Survivors++
		}
	}
	if record {
		temp.Probs = widen(x)
	}
	c.add(temp)

	topp := float32(s.TopP)
	if topp <= 0 || topp >= 1 {
		// sample_mult: every token, in id order.
		coin, err := flip(rng)
		if err != nil {
			return err
		}
		d := sc.newDraw(record)
		*d = Draw{U: float64(coin), Target: float64(coin), Index: len(x) - 1, Total: 1}
		var cdf float32
		for i, q := range x {
			lo := cdf
			if cdf += q; coin < cdf || i == len(x)-1 {
				d.Index, d.Lo, d.Hi = i, float64(lo), float64(cdf)
				break
			}
		}
		if record {
			d.Order = make([]int, len(x))
			for i := range d.Order {
				d.Order[i] = i
			}
			d.CDF = widen(cumsum(x, d.Order))
			d.Total = d.CDF[len(d.CDF)-1]
		}
		c.Draw, c.Token = d, d.Index
		return nil
	}

	// sample_topp: tokens below the cutoff cannot be in the nucleus.
	cutoff := (1 - topp) / float32(len(x)-1)
	order := sc.ids[:0]
	pre := Stage{Name: "runc_cutoff"}
	for i, q := range x {
		switch {
		case q >= cutoff:
			order = append(order, i)
		case q > 0:
			pre.Affected++
			pre.RemovedMass += float64(q)
		}
	}
	pre.Survivors = len(order)
	sc.ids = order
	if len(order) == 0 {
		return fmt.Errorf("sampler: run.c's top-p cutoff %g removes every token of %d, where run.c reads out of bounds; raise TopP", cutoff, len(x))
	}
	// run.c's qsort: by descending probability; glibc's merge sort keeps
	// ties in id order.
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case x[a] > x[b]:
			return -1
		case x[a] < x[b]:
			return 1
		}
		return 0
	})
	last := len(order) - 1
	var mass float32
	for i, id := range order {
		if mass += x[id]; mass > topp {
			last = i
			break
		}
	}
	nucleus := order[:last+1]
	var dropped float64
	for _, id := range order[last+1:] {
		dropped += float64(x[id])
	}
	top := Stage{Name: "top_p", Survivors: len(nucleus), Affected: len(order) - len(nucleus), RemovedMass: dropped}
	if record {
		recordFilter(&pre, temp.Probs, order)
		recordFilter(&top, pre.Probs, nucleus)
	}
	c.add(pre)
	c.add(top)

	coin, err := flip(rng)
	if err != nil {
		return err
	}
	target := coin * mass
	d := sc.newDraw(record)
	*d = Draw{U: float64(coin), Target: float64(target), Index: last, Total: float64(mass)}
	var cdf float32
	for i, id := range nucleus {
		lo := cdf
		if cdf += x[id]; target < cdf || i == last {
			d.Index, d.Lo, d.Hi = i, float64(lo), float64(cdf)
			break
		}
	}
	if record {
		d.Order = slices.Clone(nucleus)
		d.CDF = widen(cumsum(x, nucleus))
	}
	c.Draw, c.Token = d, nucleus[d.Index]
	return nil
}

// recordFilter fills the token lists of a filter stage that kept the tokens
// keep of the distribution p: those it removed, and p renormalised over the
// kept ones.
func recordFilter(st *Stage, p []float64, keep []int) {
	st.Probs = make([]float64, len(p))
	var kept float64
	for _, i := range keep {
		st.Probs[i] = p[i]
		kept += p[i]
	}
	st.Removed = []int{}
	for i, q := range p {
		if q > 0 && st.Probs[i] == 0 {
			st.Removed = append(st.Removed, i)
		}
		st.Probs[i] /= kept
	}
}

// cumsum returns the running sums of p along order, accumulated in F.
func cumsum[F float32 | float64](p []F, order []int) []F {
	cdf := make([]F, len(order))
	var sum F
	for i, id := range order {
		sum += p[id]
		cdf[i] = sum
	}
	return cdf
}

// overflows reports whether the finite logit l became infinite as the
// float32 v.
func overflows(v float32, l float64) bool {
	return math.IsInf(float64(v), 0) && !math.IsInf(l, 0)
}
