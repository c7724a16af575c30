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
	temp := Stage{Name: StageTemperature}
	mem := &sc.rec.stages // temperature, runc_cutoff, top_p
	if record {
		mem[0].logits = softmax.Widen(mem[0].logits, x)
		temp.Logits = mem[0].logits
	}
	softmax.Float32(x)
	for _, q := range x {
		if q > 0 {
			temp.Survivors++
		}
	}
	if record {
		mem[0].probs = softmax.Widen(mem[0].probs, x)
		temp.Probs = mem[0].probs
	}
	c.add(temp)

	topp := float32(s.TopP)
	if topp <= 0 || topp >= 1 {
		// sample_mult: every token, in id order.
		coin, err := flip(rng)
		if err != nil {
			return err
		}
		var total float32 // the sum the walk would reach at the last token
		for _, q := range x {
			total += q
		}
		d := sc.newDraw()
		*d = Draw{U: float64(coin), Target: float64(coin), Index: len(x) - 1, Total: float64(total)}
		var cdf float32
		for i, q := range x {
			lo := cdf
			if cdf += q; coin < cdf || i == len(x)-1 {
				d.Index, d.Lo, d.Hi = i, float64(lo), float64(cdf)
				break
			}
		}
		if record {
			d.Order = list(&sc.rec.order, len(x))
			for i := range x {
				d.Order = append(d.Order, i)
			}
			d.CDF = cumsum(&sc.rec.cdf, x, d.Order)
		}
		c.Draw, c.Token = d, d.Index
		return nil
	}

	// sample_topp: tokens below the cutoff cannot be in the nucleus.
	cutoff := (1 - topp) / float32(len(x)-1)
	order := sc.ids[:0]
	pre := Stage{Name: StageRunCCutoff}
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
	top := Stage{Name: StageTopP, Survivors: len(nucleus), Affected: len(order) - len(nucleus), RemovedMass: dropped}
	if record {
		recordFilter(&pre, &mem[1], temp.Probs, order)
		recordFilter(&top, &mem[2], pre.Probs, nucleus)
	}
	c.add(pre)
	c.add(top)

	coin, err := flip(rng)
	if err != nil {
		return err
	}
	target := coin * mass
	d := sc.newDraw()
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
		d.Order = append(list(&sc.rec.order, len(nucleus)), nucleus...)
		d.CDF = cumsum(&sc.rec.cdf, x, nucleus)
	}
	c.Draw, c.Token = d, nucleus[d.Index]
	sc.ranked = order
	return nil
}

// recordFilter fills the token lists of a filter stage that kept the tokens
// keep of the distribution p, in m's memory: those it removed, and p
// renormalised over the kept ones.
func recordFilter(st *Stage, m *stageMemory, p []float64, keep []int) {
	st.Probs = zeros(&m.probs, len(p))
	var kept float64
	for _, i := range keep {
		st.Probs[i] = p[i]
		kept += p[i]
	}
	st.Removed = list(&m.removed, st.Affected)
	for i, q := range p {
		if q > 0 && st.Probs[i] == 0 {
			st.Removed = append(st.Removed, i)
		}
		st.Probs[i] /= kept
	}
	m.removed = st.Removed
}

// cumsum is the running sums of p along order, accumulated in float32 as
// run.c does, widened into *buf.
func cumsum(buf *[]float64, p []float32, order []int) []float64 {
	cdf := grow(*buf, len(order))
	*buf = cdf
	var sum float32
	for i, id := range order {
		sum += p[id]
		cdf[i] = float64(sum)
	}
	return cdf
}

// overflows reports whether the finite logit l became infinite as the
// float32 v.
func overflows(v float32, l float64) bool {
	return math.IsInf(float64(v), 0) && !math.IsInf(l, 0)
}
