package sampler

import (
	"math"
	"math/bits"
	"slices"

	"nexttoken/engine/softmax"
)

// penalise applies the repetition penalty r, in place, to the logits of the
// distinct tokens of history: a positive logit is divided by r, any other
// multiplied by it. Recorded, the stage's Logits are logits, which the
// choice reads until it is done.
func (sc *Scratch) penalise(logits []float64, history []int, r float64, record bool) Stage {
	sc.ids = append(sc.ids[:0], history...)
	slices.Sort(sc.ids)
	st := Stage{Name: StageRepetitionPenalty}
	changed := sc.rec.changed[:0]
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
				changed = append(changed, id)
			}
		}
	}
	if record {
		sc.rec.changed = changed
		if len(changed) > 0 { // none is nil, as Sample always gave
			st.Changed = changed
		}
		st.Logits = logits
	}
	return st
}

// ranking puts the tokens of nonzero probability in order, most probable
// first and ties by ascending id, lazily: a counting sort groups them into
// buckets of nearby probability (about one token per bucket, by the bits
// of their float64 probability, which order like the numbers), and a
// bucket is sorted when the ranking first reads into it. A step sorts only
// as far as its stages and its draw read, in time linear in the
// vocabulary, and the order is exactly the one a full sort gives. Every
// filter of the chain keeps a prefix of this one order (renormalising does
// not change it): the first survivors tokens, whose probabilities in p add
// up to mass.
type ranking struct {
	p         []float64 // the distribution the stages start from
	ids       []int     // the tokens of nonzero probability, bucket by bucket
	bucket    []uint16  // scratch: the bucket of each token
	start     []int32   // bucket b is ids[start[b]:start[b+1]]
	cursor    []int32   // scratch of the counting sort
	next      int       // the first bucket not sorted yet
	order     []int     // ids[:start[next]]: the tokens ranked so far
	survivors int
	mass      float64
}

// maxBuckets bounds the buckets of a ranking (and fits a uint16).
const maxBuckets = 1 << 16

func (r *ranking) reset(p []float64) {
	r.p = p
	top, low, n := uint64(0), uint64(math.MaxUint64), 0
	for _, q := range p {
		if q > 0 {
			b := math.Float64bits(q)
			top, low, n = max(top, b), min(low, b), n+1
		}
	}
	// bucket = (top - bits) >> shift < count <= min(n, maxBuckets).
	count := max(min(n, maxBuckets), 1)
	shift := bits.Len64((top - low) / uint64(count))
	if n > 0 {
		count = int((top-low)>>shift) + 1
	}
	r.bucket = grow(r.bucket, len(p))
	r.start = grow(r.start, count+1)
	clear(r.start)
	for i, q := range p {
		if q > 0 {
			b := (top - math.Float64bits(q)) >> shift
			r.bucket[i] = uint16(b)
			r.start[b+1]++
		}
	}
	for b := range count {
		r.start[b+1] += r.start[b]
	}
	r.ids = grow(r.ids, n)
	r.cursor = append(r.cursor[:0], r.start[:count]...)
	for i, q := range p {
		if q > 0 {
			b := r.bucket[i]
			r.ids[r.cursor[b]] = i
			r.cursor[b]++
		}
	}
	r.next, r.order = 0, r.ids[:0]
	// p is a softmax: it sums to 1, up to rounding, which the stages'
	// masses should not show.
	r.survivors, r.mass = n, 1
}

// at is the token at rank i (< the number of nonzero tokens).
func (r *ranking) at(i int) int {
	for len(r.order) <= i {
		r.sortNext()
	}
	return r.order[i]
}

// sortNext sorts the next bucket, which joins the ranked tokens.
func (r *ranking) sortNext() {
	b := r.next
	ids := r.ids[r.start[b]:r.start[b+1]]
	if len(ids) <= 12 {
		// Buckets hold a token or two: sort them by insertion.
		for i := 1; i < len(ids); i++ {
			for j := i; j > 0 && r.before(ids[j], ids[j-1]); j-- {
				ids[j], ids[j-1] = ids[j-1], ids[j]
			}
		}
	} else {
		slices.SortFunc(ids, func(a, b int) int {
			if r.before(a, b) {
				return -1
			}
			return 1
		})
	}
	r.next++
	r.order = r.ids[:r.start[r.next]]
}

// rankAll ranks every token at once: what a recorded choice, which lists
// every survivor, needs.
func (r *ranking) rankAll() {
	for r.next < len(r.start)-1 {
		r.sortNext()
	}
}

// value is the renormalised probability of the token at rank i.
func (r *ranking) value(i int) float64 { return r.p[r.at(i)] / r.mass }

// before reports whether token a ranks before token b.
func (r *ranking) before(a, b int) bool { return softmax.RanksBefore(r.p, a, b) }

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

// stage keeps the first keep survivors and renormalises them; with m, it
// records the stage's lists in m's memory.
func (r *ranking) stage(name StageName, keep int, m *stageMemory) Stage {
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
	if m != nil {
		r.rankAll()
		st.Removed = list(&m.removed, st.Affected)
		for i := keep; i < r.survivors; i++ {
			st.Removed = append(st.Removed, r.at(i))
		}
		slices.Sort(st.Removed)
		st.Probs = zeros(&m.probs, len(r.p))
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
// beyond the total); with rec, it records the order and the cumulative
// sum in rec's memory.
func (r *ranking) draw(d *Draw, u float64, rec *recording) {
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
	if rec != nil {
		d.Order = list(&rec.order, r.survivors)
		d.CDF = list(&rec.cdf, r.survivors)
		cum = 0
		for i := range r.survivors {
			cum += r.value(i)
			d.Order = append(d.Order, r.at(i))
			d.CDF = append(d.CDF, cum)
		}
	}
}

// Argmax returns the index of the largest value, the first one on ties, as
// run.c's sample_argmax: greedy decoding's choice.
func Argmax[F float32 | float64](x []F) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}
