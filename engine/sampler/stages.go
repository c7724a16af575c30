package sampler

import (
	"slices"
)

// penalise applies the repetition penalty r, in place, to the logits of the
// distinct tokens of history: a positive logit is divided by r, any other
// multiplied by it.
func (sc *Scratch) penalise(logits []float64, history []int, r float64, record bool) Stage {
	sc.ids = append(sc.ids[:0], history...)
	slices.Sort(sc.ids)
	st := Stage{Name: "repetition_penalty"}
	for _, id := range slices.Compact(sc.ids) {
		l := logits[id]
		if l > 0 {
			logits[id] = l / r
		} else {
			logits[id] = l * r
		}
		if logits[id] != l {
			st.Affected++
			if record {
				st.Changed = append(st.Changed, id)
			}
		}
	}
	if record {
		st.Logits = slices.Clone(logits)
	}
	return st
}

// ranking puts the tokens of nonzero probability in order, most probable
// first and ties by ascending id, lazily: a binary heap yields the next token
// in O(log n), so a step sorts only as far as its stages and its draw read.
// Every filter of the chain keeps a prefix of this one order (renormalising
// does not change it): the first survivors tokens, whose probabilities in p
// add up to mass.
type ranking struct {
	p         []float64 // the distribution the stages start from
	heap      []int     // tokens not ranked yet
	order     []int     // tokens ranked so far
	survivors int
	mass      float64
}

func (r *ranking) reset(p []float64) {
	r.p, r.heap, r.order = p, r.heap[:0], r.order[:0]
	for i, q := range p {
		if q > 0 {
			r.heap = append(r.heap, i)
		}
	}
	for i := len(r.heap)/2 - 1; i >= 0; i-- {
		r.down(i)
	}
	// p is a softmax: it sums to 1, up to rounding, which the stages'
	// masses should not show.
	r.survivors, r.mass = len(r.heap), 1
}

// at is the token at rank i (< the number of nonzero tokens).
func (r *ranking) at(i int) int {
	for len(r.order) <= i {
		n := len(r.heap) - 1
		r.order = append(r.order, r.heap[0])
		r.heap[0] = r.heap[n]
		r.heap = r.heap[:n]
		r.down(0)
	}
	return r.order[i]
}

// rankAll ranks every token at once, with one sort rather than a heap pop
// each: what a recorded choice, which lists every survivor, needs.
func (r *ranking) rankAll() {
	slices.SortFunc(r.heap, func(a, b int) int {
		if r.before(a, b) {
			return -1
		}
		return 1
	})
	r.order = append(r.order, r.heap...)
	r.heap = r.heap[:0]
}

// value is the renormalised probability of the token at rank i.
func (r *ranking) value(i int) float64 { return r.p[r.at(i)] / r.mass }

// before reports whether token a ranks before token b.
func (r *ranking) before(a, b int) bool { return ranksBefore(r.p, a, b) }

// ranksBefore is the order of every ranking: descending probability, ties
// by ascending id, so that every result is deterministic.
func ranksBefore(p []float64, a, b int) bool {
	return p[a] > p[b] || p[a] == p[b] && a < b
}

// Top puts the n most probable tokens of p (those of nonzero probability,
// if fewer) into ids, most probable first and ties by ascending id, and
// returns it. It reads p once and keeps only n tokens: O(len(p)) for a
// small n.
func Top(p []float64, n int, ids []int) []int {
	ids = ids[:0]
	for i, q := range p {
		if q <= 0 || n == 0 || len(ids) == n && !ranksBefore(p, i, ids[n-1]) {
			continue
		}
		if len(ids) < n {
			ids = append(ids, i)
		} else {
			ids[n-1] = i
		}
		for j := len(ids) - 1; j > 0 && ranksBefore(p, ids[j], ids[j-1]); j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}

func (r *ranking) down(i int) {
	h := r.heap
	for {
		best, left := i, 2*i+1
		if left < len(h) && r.before(h[left], h[best]) {
			best = left
		}
		if right := left + 1; right < len(h) && r.before(h[right], h[best]) {
			best = right
		}
		if best == i {
			return
		}
		h[i], h[best] = h[best], h[i]
		i = best
	}
}

// nucleus is how many tokens top-p keeps: the shortest prefix of the
// survivors whose renormalised probability reaches pp.
func (r *ranking) nucleus(pp float64) int {
	var cum float64
	for i := range r.survivors {
		if cum += r.value(i); cum >= pp {
			return i + 1
		}
	}
	return r.survivors
}

// aboveMin is how many tokens min-p keeps: those whose probability is at
// least m times the largest.
func (r *ranking) aboveMin(m float64) int {
	floor := m * r.value(0)
	n := 1
	for n < r.survivors && r.value(n) >= floor {
		n++
	}
	return n
}

// stage keeps the first keep survivors and renormalises them.
func (r *ranking) stage(name string, keep int, record bool) Stage {
	st := Stage{Name: name, Survivors: keep, Affected: r.survivors - keep}
	prev := r.mass
	if keep < r.survivors {
		var kept float64
		for i := range keep {
			kept += r.p[r.at(i)]
		}
		st.RemovedMass = (prev - kept) / prev
		r.mass = kept
	}
	if record {
		r.rankAll()
		st.Removed = make([]int, 0, st.Affected)
		for i := keep; i < r.survivors; i++ {
			st.Removed = append(st.Removed, r.at(i))
		}
		slices.Sort(st.Removed)
		st.Probs = make([]float64, len(r.p))
		for i := range keep {
			id := r.at(i)
			st.Probs[id] = r.p[id] / r.mass
		}
	}
	r.survivors = keep
	return st
}

// draw walks the survivors, most probable first, to the first whose
// cumulative probability exceeds u (the last one, if rounding leaves u
// beyond the total).
func (r *ranking) draw(d *Draw, u float64, record bool) {
	*d = Draw{U: u, Target: u, Total: 1, Index: r.survivors - 1}
	var cum float64
	for i := range r.survivors {
		lo := cum
		cum += r.value(i)
		if u < cum || i == r.survivors-1 {
			d.Index, d.Lo, d.Hi = i, lo, cum
			break
		}
	}
	if record {
		d.Order = slices.Clone(r.order[:0])
		cum = 0
		for i := range r.survivors {
			cum += r.value(i)
			d.Order = append(d.Order, r.at(i))
			d.CDF = append(d.CDF, cum)
		}
	}
}

// argmax returns the index of the largest value, the first one on ties, as
// run.c's sample_argmax.
func argmax[F float32 | float64](x []F) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// widen converts to float64 for display.
func widen[F float32 | float64](x []F) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}
