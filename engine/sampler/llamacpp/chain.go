package llamacpp

import (
	"errors"
	"fmt"
	"math"
	"nexttoken/engine/internal/expf"
	"slices"
)

// Token is llama.cpp's llama_token_data: an id with its logit and the
// probability the last softmax left (stale after a stage that changes
// logits without one, as there).
type Token struct {
	ID    int32
	Logit float32
	P     float32
}

// Stage is the candidate array after one sampler of the chain.
type Stage struct {
	Name   string  // llama_sampler_name: "top-k", or "?top-k" for a stage its values switch off
	Tokens []Token // the candidates kept, in llama.cpp's array order
	Sorted bool    // the array's sorted flag: by descending logit

	// XTC only: the chance drawn from its generator (NaN when it drew none)
	// and whether the threshold cut was made.
	Chance  float32
	Removed bool
}

// Result is one step of the chain: each stage, then the final draw.
type Result struct {
	// One per sampler of Params.Samplers, then "dist"; with mirostat
	// "temp" and "mirostat" or "mirostat-v2", whose array is the one it
	// drew from.
	Stages []Stage
	Token  int32 // the chosen token
	Index  int   // its position in the last stage's Tokens

	// The draw of llama_sampler_dist_apply: U uniform in [0, 1), Sum the
	// sum in double of the float32 expf(ℓ − max), and the chosen position
	// is the first whose running sum reaches Target = Sum·U. U is drawn
	// (and the generator advanced) also when one candidate is left; Sum and
	// Target are then 0.
	U, Target, Sum float64
	// CDF is the running sum at each position of the last stage's Tokens,
	// which the draw walks; nil when one candidate is left.
	//
	// Mirostat's draw (std::discrete_distribution) instead normalises the
	// weights first: Sum is 1, Target is U and CDF the normalised running
	// sum, its last set to 1; with one candidate it draws nothing, and U,
	// Target and Sum are 0.
	CDF []float64
}

// Chain is llama.cpp's sampler chain as common_sampler_init builds it
// (common/sampling.cpp) with no grammar, logit bias or adaptive-p: the
// samplers of Params.Samplers in order, then dist; with mirostat 1 or 2,
// temp then mirostat or mirostat v2. It keeps the generators of dist (or
// mirostat, in its place) and XTC, and mirostat's mu, from one Sample to
// the next, as llama.cpp does from token to token. A Chain is not safe
// for concurrent use.
type Chain struct {
	p         Params
	dist, xtc mt19937 // dist is the final draw's: dist's or mirostat's
	mu        float32 // mirostat's
	cur       []Token
	counts    map[int32]int

	// DRY's: the breakers' token sequences by head token, and scratch.
	breakers   map[int32][][]int32
	dryCount   []int
	dryLongest map[int32]int
}

// New checks p and returns its chain, both generators seeded with p.Seed.
// With DRY on and breakers it reads every piece of p.Vocab, as
// llama_sampler_init_dry does, to find the breakers' tokens; without a
// Vocab that is an error.
func New(p Params) (*Chain, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p.Samplers = slices.Clone(p.Samplers)
	p.DryBreakers = slices.Clone(p.DryBreakers)
	c := &Chain{p: p, counts: map[int32]int{}}
	if p.Mirostat == 0 && slices.Contains(p.Samplers, DRY) && p.dryOn() {
		if p.Vocab == nil && slices.ContainsFunc(p.DryBreakers, func(b string) bool { return b != "" }) {
			return nil, errors.New("dry_sequence_breakers: DRY needs the vocabulary's pieces (Params.Vocab) to find its breakers")
		}
		c.breakers, c.dryLongest = dryBreakers(&p), map[int32]int{}
	}
	c.Reset()
	return c, nil
}

// Reset seeds the generators again and puts mirostat's mu back to 2·tau
// (llama_sampler_reset).
func (c *Chain) Reset() {
	c.dist.seed(c.p.Seed)
	c.xtc.seed(c.p.Seed)
	c.mu = 2 * c.p.MirostatTau
}

// State is how far the chain's generators have run since they were seeded
// with Params.Seed: the 32-bit outputs each has given (dist takes two per
// Sample, XTC one when it runs on two candidates or more, mirostat two when
// it draws from two candidates or more, counted in Dist). With the seed
// the two counts are the whole state of both, 16 bytes instead of 2.5 KB
// each. With mirostat, Mu is its mu when HasMu; the zero State, like a
// chain just made or reset, has mu at its start, 2·tau.
type State struct {
	Dist, XTC uint64
	Mu        float32
	HasMu     bool
}

// State returns where the generators are, and mirostat's mu when it has
// left its start.
func (c *Chain) State() State {
	s := State{Dist: c.dist.n, XTC: c.xtc.n}
	if c.p.Mirostat != 0 && math.Float32bits(c.mu) != math.Float32bits(2*c.p.MirostatTau) {
		s.Mu, s.HasMu = c.mu, true
	}
	return s
}

// Restore puts the generators and mu where s says, as if Sample had run
// that far since New or Reset: a generator behind s runs forward, one
// ahead of it is seeded again and runs forward from there.
func (c *Chain) Restore(s State) {
	c.mu = 2 * c.p.MirostatTau
	if s.HasMu {
		c.mu = s.Mu
	}
	for _, g := range []struct {
		m    *mt19937
		want uint64
	}{{&c.dist, s.Dist}, {&c.xtc, s.XTC}} {
		if g.m.n > g.want {
			g.m.seed(c.p.Seed)
		}
		g.m.discard(g.want - g.m.n)
	}
}

// Sample runs the chain on logits, one per token id, and chooses a token.
// history is the context so far, oldest first, as llama_sampler_accept
// would have been given it: the penalties read its last PenaltyLastN
// tokens, DRY its last DryPenaltyLastN. A logit may be −Inf, not NaN or
// +Inf.
func (c *Chain) Sample(logits []float32, history []int32) (*Result, error) {
	if len(logits) == 0 {
		return nil, errors.New("logits: none")
	}
	if len(logits) > math.MaxInt32 {
		return nil, fmt.Errorf("logits: %d are more than llama.cpp's int32 ids", len(logits))
	}
	for i, l := range logits {
		if l != l || math.IsInf(float64(l), 1) {
			return nil, fmt.Errorf("logits: token %d is %v", i, l)
		}
	}
	c.cur = c.cur[:0]
	for i, l := range logits {
		c.cur = append(c.cur, Token{ID: int32(i), Logit: l})
	}
	a := &array{data: c.cur}
	res := &Result{}
	if c.p.Mirostat != 0 {
		if err := c.sampleMirostat(a, len(logits), res); err != nil {
			return nil, err
		}
		return res, nil
	}
	for _, s := range c.p.Samplers {
		st := c.apply(s, a, history)
		if err := overflowed(st.Name, a); err != nil {
			return nil, err
		}
		st.Tokens = slices.Clone(a.data)
		st.Sorted = a.sorted
		res.Stages = append(res.Stages, st)
	}
	c.sampleDist(a, res)
	res.Stages = append(res.Stages, Stage{Name: "dist", Tokens: slices.Clone(a.data), Sorted: a.sorted, Chance: float32(math.NaN())})
	res.Token = a.data[res.Index].ID
	return res, nil
}

// sampleMirostat runs the chain of common_sampler_init (common/sampling.cpp
// at 34af94cd) with mirostat 1 or 2: temp (llama_sampler_init_temp,
// "?temp" when it is 1) and the mirostat stage, which draws; nVocab is the
// number of logits.
func (c *Chain) sampleMirostat(a *array, nVocab int, res *Result) error {
	st := Stage{Name: "?temp", Chance: float32(math.NaN())}
	if c.p.Temp != 1 {
		st.Name = "temp"
		tempImpl(a, c.p.Temp)
		if err := overflowed(st.Name, a); err != nil {
			return err
		}
	}
	st.Tokens, st.Sorted = slices.Clone(a.data), a.sorted
	res.Stages = append(res.Stages, st)
	name := "mirostat"
	if c.p.Mirostat == 1 {
		c.mirostat(a, nVocab, res)
	} else {
		name = "mirostat-v2"
		c.mirostatV2(a, res)
	}
	res.Stages = append(res.Stages, Stage{Name: name, Tokens: slices.Clone(a.data), Sorted: a.sorted, Chance: float32(math.NaN())})
	res.Token = a.data[res.Index].ID
	return nil
}

// overflowed is an error if stage made a logit NaN or +Inf, which
// llama.cpp's float32 arithmetic does for a temperature so small that
// ℓ/T overflows (or a penalty that large): its softmax then takes
// Inf − Inf, and its draw lands anywhere. llama.cpp would go on; a
// playground that shows the draw says why it cannot.
func overflowed(stage string, a *array) error {
	for _, t := range a.data {
		if l := t.Logit; l != l || math.IsInf(float64(l), 1) {
			setting := stage
			if stage == "temp" || stage == "temp-ext" {
				setting = "temperature"
			}
			return fmt.Errorf("%s: token %d's logit became %v in llama.cpp's float32 arithmetic, so its softmax and draw have no numbers to work with; a larger temperature, or 0 for greedy decoding, avoids it", setting, t.ID, l)
		}
	}
	return nil
}

// array is llama_token_data_array: XTC moves its start, as llama.cpp
// advances the data pointer.
type array struct {
	data   []Token
	sorted bool
}

func (c *Chain) apply(s Sampler, a *array, history []int32) Stage {
	p := &c.p
	st := Stage{Chance: float32(math.NaN())}
	name := func(n string, on bool) string {
		if on {
			return n
		}
		return "?" + n
	}
	switch s {
	case Penalties:
		on := !(p.PenaltyLastN == 0 || p.PenaltyRepeat == 1 && p.PenaltyFreq == 0 && p.PenaltyPresent == 0)
		st.Name = name("penalties", on)
		if on {
			c.penalties(a, history)
		}
	case DRY:
		st.Name = name("dry", p.dryOn())
		if p.dryOn() {
			c.dry(a, history)
		}
	case TopNSigma:
		st.Name = name("top-n-sigma", p.TopNSigma > 0)
		if p.TopNSigma > 0 {
			topNSigma(a, p.TopNSigma)
		}
	case TopK:
		st.Name = name("top-k", p.TopK > 0)
		topK(a, int(p.TopK))
	case Typical:
		st.Name = name("typical", p.TypP < 1)
		if p.TypP < 1 {
			typical(a, p.TypP, int(p.MinKeep))
		}
	case TopP:
		st.Name = name("top-p", p.TopP < 1)
		if p.TopP < 1 {
			topP(a, p.TopP, int(p.MinKeep))
		}
	case MinP:
		st.Name = name("min-p", p.MinP > 0)
		if p.MinP > 0 {
			minP(a, p.MinP, int(p.MinKeep))
		}
	case XTC:
		on := !(p.XTCProbability <= 0 || p.XTCThreshold > 0.5)
		st.Name = name("xtc", on)
		if on {
			st.Chance, st.Removed = xtc(a, &c.xtc, p.XTCProbability, p.XTCThreshold, int(p.MinKeep))
		}
	case Temp:
		on := !(p.Temp == 1 && p.DynatempRange <= 0)
		st.Name = name("temp-ext", on)
		if on {
			tempExt(a, p.Temp, p.DynatempRange, p.DynatempExponent)
		}
	}
	return st
}

// penalties is llama_sampler_penalties_apply (src/llama-sampler.cpp at
// 34af94cd), with the counts that
// llama_sampler_penalties_accept keeps over a ring buffer of the last
// PenaltyLastN tokens.
func (c *Chain) penalties(a *array, history []int32) {
	clear(c.counts)
	for _, t := range history[max(0, len(history)-int(c.p.PenaltyLastN)):] {
		c.counts[t]++
	}
	for i := range a.data {
		t := &a.data[i]
		count, ok := c.counts[t.ID]
		if !ok {
			continue
		}
		if t.Logit <= 0 {
			t.Logit *= c.p.PenaltyRepeat
		} else {
			t.Logit /= c.p.PenaltyRepeat
		}
		// float(count > 0) is 1: a counted token occurs.
		t.Logit -= float32(float32(count)*c.p.PenaltyFreq) + c.p.PenaltyPresent
	}
	a.sorted = false
}

// topNSigma is llama_sampler_top_n_sigma_apply (src/llama-sampler.cpp at
// 34af94cd): the logits more than n
// standard deviations below the maximum become −Inf (the array keeps its
// size). The deviation sums float32 squares computed in double (pow).
func topNSigma(a *array, n float32) {
	d := a.data
	if len(d) <= 1 {
		return
	}
	negInf := float32(math.Inf(-1))
	maxL, sum, valid := d[0].Logit, float32(0), 0
	for _, t := range d {
		if t.Logit != negInf {
			maxL = stdMax(maxL, t.Logit)
			sum += t.Logit
			valid++
		}
	}
	var mean float32
	if valid > 0 {
		mean = sum / float32(valid)
	}
	var acc float32
	for _, t := range d {
		if t.Logit != negInf {
			x := float64(t.Logit - mean)
			acc = float32(float64(acc) + float64(x*x))
		}
	}
	var std float32
	if valid > 0 {
		std = float32(math.Sqrt(float64(acc / float32(valid))))
	}
	for i := range d {
		if d[i].Logit < maxL-float32(n*std) {
			d[i].Logit = negInf
		}
	}
}

// stdMax is std::max(a, b): b only when a < b.
func stdMax(a, b float32) float32 {
	if a < b {
		return b
	}
	return a
}

// topK is llama_sampler_top_k_impl (src/llama-sampler.cpp at 34af94cd).
func topK(a *array, k int) {
	if k <= 0 {
		return
	}
	k = min(k, len(a.data))
	if !a.sorted {
		partialSortInPlace(a, k)
	}
	a.data = a.data[:k]
}

// softmax is llama_sampler_softmax_impl (src/llama-sampler.cpp at
// 34af94cd): expf(ℓ − max) in float32, summed
// in float32, each divided by the sum.
func softmax(a *array, sortFirst bool) {
	if sortFirst && !a.sorted {
		partialSortInPlace(a, len(a.data))
	}
	d := a.data
	maxL := maxLogit(a)
	var sum float32
	for i := range d {
		d[i].P = expf.Exp(d[i].Logit - maxL)
		sum += d[i].P
	}
	for i := range d {
		d[i].P /= sum
	}
}

// maxLogit is the largest logit of a: its first when a is sorted, else
// found with std::max, as llama.cpp does.
func maxLogit(a *array) float32 {
	maxL := a.data[0].Logit
	if !a.sorted {
		for _, t := range a.data[1:] {
			maxL = stdMax(maxL, t.Logit)
		}
	}
	return maxL
}

// typical is llama_sampler_typical_apply (src/llama-sampler.cpp at
// 34af94cd), locally typical sampling: the
// tokens by how far −log p is from the entropy, kept until their mass
// exceeds p.
func typical(a *array, p float32, minKeep int) {
	softmax(a, true)
	d := a.data
	var entropy float32
	for _, t := range d {
		entropy += float32(-t.P * expf.Log(t.P))
	}
	shifted := make([]float32, len(d))
	for i, t := range d {
		shifted[i] = float32(math.Abs(float64(-expf.Log(t.P) - entropy)))
	}
	idx := make([]int, len(d))
	for i := range idx {
		idx[i] = i
	}
	stdSort(idx, func(x, y int) bool { return shifted[x] < shifted[y] })
	var cum float32
	last := len(idx)
	for i, j := range idx {
		cum += d[j].P
		if cum > p && (minKeep == 0 || i >= minKeep-1) {
			last = i + 1
			break
		}
	}
	kept := make([]Token, last)
	for i := range kept {
		kept[i] = d[idx[i]]
	}
	copy(d, kept)
	a.data = d[:last]
	a.sorted = false
}

// topP is llama_sampler_top_p_apply (src/llama-sampler.cpp at 34af94cd): sorted by logit, the shortest prefix
// whose float32 cumulative probability reaches p, with at least min_keep.
// An unsorted array over 1,024 tokens is first sorted only as far as its
// best 256 (bucket sort), and fully when the sum runs past them.
func topP(a *array, p float32, minKeep int) {
	softmax(a, false)
	d := a.data
	k := len(d)
	pdata := d
	var buf []Token
	if !a.sorted && len(d) > 1024 {
		k = min(256, len(d))
		buf = partialSort(d, k)
		pdata = buf
	} else if !a.sorted {
		partialSortInPlace(a, k)
	}
	var cum float32
	last := len(d)
	for i := range d {
		cum += pdata[i].P
		if cum >= p && i+1 >= minKeep {
			last = i + 1
			break
		}
		if !a.sorted && i == k-1 {
			k = len(d)
			buf = partialSort(d, k)
			pdata = buf
		}
	}
	if !a.sorted {
		copy(d, buf[:last])
		a.sorted = true
	}
	a.data = d[:last]
}

// minP is llama_sampler_min_p_apply (src/llama-sampler.cpp at 34af94cd): the tokens whose logit is at least
// max + expf.Log(p), i.e. p_i ≥ p·p_max. Unsorted, a filter in array order
// (when it keeps at least min_keep); otherwise sorted and cut.
func minP(a *array, p float32, minKeep int) {
	d := a.data
	if len(d) == 0 {
		return
	}
	if !a.sorted {
		maxL := float32(-math.MaxFloat32)
		for _, t := range d {
			maxL = stdMax(maxL, t.Logit)
		}
		minL := maxL + expf.Log(p)
		n := 0
		for _, t := range d {
			if t.Logit >= minL {
				n++
			}
		}
		if n > 0 && n >= minKeep {
			kept := d[:0]
			for _, t := range d {
				if t.Logit >= minL {
					kept = append(kept, t) // never overtakes the reading
				}
			}
			a.data = kept
			return
		}
		partialSortInPlace(a, len(d))
		d = a.data
	}
	minL := d[0].Logit + expf.Log(p)
	i := 1
	for ; i < len(d); i++ {
		if d[i].Logit < minL && i >= minKeep {
			break
		}
	}
	a.data = d[:i]
}

// xtc is llama_sample_xtc_apply (src/llama-sampler.cpp at 34af94cd),
// exclude top choices: with the
// probability drawn from its own generator, the tokens at or above the
// threshold but the last of them are removed.
func xtc(a *array, rng *mt19937, prob, threshold float32, minKeep int) (chance float32, removed bool) {
	if len(a.data) < 2 {
		return float32(math.NaN()), false
	}
	chance = rng.canonical32()
	if chance > prob {
		return chance, false
	}
	softmax(a, true)
	d := a.data
	last := 0
	for i, t := range d {
		if !(t.P >= threshold) { // NaN (all logits −Inf) stops it too
			break
		}
		last = i
	}
	if len(d)-last >= minKeep && last > 0 {
		a.data = d[last:]
		return chance, true
	}
	return chance, false
}

// tempImpl is llama_sampler_temp_impl (src/llama-sampler.cpp at 34af94cd): ℓ/T, or for T ≤ 0 every logit but
// the first maximum set to −Inf.
func tempImpl(a *array, temp float32) {
	d := a.data
	if len(d) == 0 {
		return
	}
	if temp <= 0 {
		maxI, maxL := 0, d[0].Logit
		for i := 1; i < len(d); i++ {
			if d[i].Logit > maxL {
				d[maxI].Logit = float32(math.Inf(-1))
				maxI, maxL = i, d[i].Logit
			} else {
				d[i].Logit = float32(math.Inf(-1))
			}
		}
		return
	}
	for i := range d {
		d[i].Logit /= temp
	}
}

// tempExt is llama_sampler_temp_ext_apply (src/llama-sampler.cpp at
// 34af94cd): plain temperature, or with a
// range δ > 0 the dynamic temperature of the normalised entropy H/log n,
// T_min + (T_max − T_min)·(H/log n)^exponent, after which the
// probabilities are recomputed with double exp.
func tempExt(a *array, temp, delta, exponent float32) {
	if !(delta > 0) {
		tempImpl(a, temp)
		return
	}
	minT, maxT := stdMax(0, temp-delta), temp+delta
	if len(a.data) <= 1 {
		return
	}
	maxEntropy := -expf.Log(1 / float32(len(a.data)))
	softmax(a, true)
	d := a.data
	var entropy float32
	for _, t := range d {
		if t.P > 0 {
			entropy -= float32(t.P * expf.Log(t.P))
		}
	}
	dynT := minT + float32((maxT-minT)*expf.Pow(entropy/maxEntropy, exponent))
	tempImpl(a, dynT)
	maxL := float64(d[0].Logit)
	var sum float64
	for i := range d {
		e := math.Exp(float64(d[i].Logit) - maxL)
		d[i].P = float32(e)
		sum += e
	}
	for i := range d {
		d[i].P = float32(float64(d[i].P) / sum)
	}
}

// sampleDist is llama_sampler_dist_apply (src/llama-sampler.cpp at
// 34af94cd): the float32 expf(ℓ − max) summed
// in double, one uniform double U, and the first position whose running
// sum reaches U times the total; the probabilities are left normalised.
func (c *Chain) sampleDist(a *array, res *Result) {
	d := a.data
	if len(d) == 1 {
		res.U = c.dist.canonical64()
		d[0].P = 1
		return
	}
	maxL := maxLogit(a)
	var sum float64
	for i := range d {
		d[i].P = expf.Exp(d[i].Logit - maxL)
		sum += float64(d[i].P)
	}
	res.U = c.dist.canonical64()
	res.Sum, res.Target = sum, sum*res.U
	res.CDF = make([]float64, len(d))
	var run float64
	found := false
	for i := range d {
		run += float64(d[i].P) // past the chosen one too, for the record: llama.cpp stops there
		res.CDF[i] = run
		if !found && run >= res.Target {
			res.Index, found = i, true
		}
		d[i].P = float32(float64(d[i].P) / sum)
	}
	if !found {
		res.Index = len(d) - 1
	}
}
