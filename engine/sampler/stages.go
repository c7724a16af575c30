package sampler

import (
	"slices"
	"sort"
)

// penalise is the repetition penalty r applied to the distinct tokens of
// history: a positive logit is divided by r, any other multiplied by it.
func penalise(logits []float64, history []int, r float64) Stage {
	seen := make([]bool, len(logits))
	for _, id := range history {
		seen[id] = true
	}
	st := Stage{Name: "repetition_penalty", Logits: make([]float64, len(logits))}
	for i, l := range logits {
		if seen[i] {
			if l > 0 {
				l /= r
			} else {
				l *= r
			}
		}
		if l != logits[i] {
			st.Changed = append(st.Changed, i)
		}
		st.Logits[i] = l
	}
	return st
}

// topK keeps the k most probable tokens.
func topK(p []float64, k int) Stage {
	order := ranked(p)
	return filter("top_k", p, order[:min(k, len(order))])
}

// topP keeps the shortest most-probable-first prefix whose cumulative
// probability reaches pp.
func topP(p []float64, pp float64) Stage {
	order := ranked(p)
	cdf := cumsum(p, order)
	n := sort.Search(len(cdf), func(i int) bool { return cdf[i] >= pp }) + 1
	return filter("top_p", p, order[:min(n, len(order))])
}

// minP keeps the tokens whose probability is at least m times the largest.
func minP(p []float64, m float64) Stage {
	floor := m * slices.Max(p)
	var keep []int
	for i, q := range p {
		if q > 0 && q >= floor {
			keep = append(keep, i)
		}
	}
	return filter("min_p", p, keep)
}

// filter keeps the tokens in keep, which must have nonzero probability,
// sets the others to 0 and renormalises.
func filter(name string, p []float64, keep []int) Stage {
	st := Stage{Name: name, Probs: make([]float64, len(p))}
	var kept float64
	for _, i := range keep {
		st.Probs[i] = p[i]
		kept += p[i]
	}
	for i, q := range p {
		if q > 0 && st.Probs[i] == 0 {
			st.Removed = append(st.Removed, i)
			st.RemovedMass += q
		}
		st.Probs[i] /= kept
	}
	return st
}

// ranked returns the tokens of nonzero probability, most probable first.
func ranked(p []float64) []int {
	var ids []int
	for i, q := range p {
		if q > 0 {
			ids = append(ids, i)
		}
	}
	byProb(p, ids)
	return ids
}

// byProb sorts token ids by descending probability, ties by ascending id.
// It sorts (probability, id) pairs, like run.c's ProbIndex: comparing pairs
// held side by side is faster than looking each probability up by id.
func byProb[F float32 | float64](p []F, ids []int) {
	type probIndex struct {
		p  F
		id int
	}
	pairs := make([]probIndex, len(ids))
	for i, id := range ids {
		pairs[i] = probIndex{p[id], id}
	}
	slices.SortFunc(pairs, func(a, b probIndex) int {
		switch {
		case a.p > b.p:
			return -1
		case a.p < b.p:
			return 1
		}
		return a.id - b.id
	})
	for i, pair := range pairs {
		ids[i] = pair.id
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

// draw finds target along order: the first position whose cumulative
// probability exceeds it, or the last if rounding leaves target beyond the
// total. cdf is nondecreasing, so a binary search finds what run.c's linear
// scan finds.
func draw[F float32 | float64](order []int, cdf []F, u float32, target F) *Draw {
	i := sort.Search(len(cdf), func(i int) bool { return target < cdf[i] })
	return &Draw{
		U:      float64(u),
		Target: float64(target),
		Order:  order,
		CDF:    widen(cdf),
		Index:  min(i, len(cdf)-1),
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
