package hf

import (
	"fmt"
	"math"
	"slices"
)

// Processor is one of generate()'s logits processors: Process maps the
// scores, one per vocabulary token, to new scores, as the class's __call__
// does, and leaves its arguments unchanged. inputIDs is the whole sequence
// so far, prompt included. Scores passed in must hold no NaN and no +Inf
// and at least one finite value, as Run ensures.
type Processor interface {
	Name() string // the transformers class, e.g. "TopKLogitsWarper"
	Process(inputIDs []int, scores []float32) []float32
}

// checkMinKeep rejects a min_tokens_to_keep below 1, as every HF warper
// does.
func checkMinKeep(class string, n int) error {
	if n < 1 {
		return fmt.Errorf("hf: %s: min_tokens_to_keep = %d, must be at least 1", class, n)
	}
	return nil
}

// bad formats an out-of-range setting, named as in GenerationConfig.
func bad(name string, v float64, rule string) error {
	return fmt.Errorf("hf: %s = %v, must be %s", name, v, rule)
}

type repetitionPenalty struct{ penalty float32 }

// NewRepetitionPenalty follows transformers'
// RepetitionPenaltyLogitsProcessor
// (src/transformers/generation/logits_process.py at aa5108b4). Every
// distinct token of inputIDs has its score s replaced by s·r if s < 0 and by
// s/r otherwise (CTRL, Keskar et al. 2019). HF gathers the scores of all
// ids, penalises them and scatters them back, so a token that occurs n times
// is still penalised once: every copy writes the same value. r > 1 makes
// seen tokens less likely whatever the sign of their score; r < 1 favours
// them. r must be positive and finite (HF also accepts +Inf).
func NewRepetitionPenalty(r float64) (Processor, error) {
	if !(r > 0) || math.IsInf(r, 1) {
		return nil, bad("repetition_penalty", r, "positive and finite")
	}
	return repetitionPenalty{float32(r)}, nil
}

func (repetitionPenalty) Name() string { return "RepetitionPenaltyLogitsProcessor" }

func (p repetitionPenalty) Process(inputIDs []int, scores []float32) []float32 {
	out := slices.Clone(scores)
	for _, id := range inputIDs {
		// Read from scores, not out: a repeated id is penalised once.
		if s := scores[id]; s < 0 {
			out[id] = s * p.penalty
		} else {
			out[id] = s / p.penalty
		}
	}
	return out
}

type temperature struct{ t float32 }

// NewTemperature follows transformers' TemperatureLogitsWarper
// (src/transformers/generation/logits_process.py at aa5108b4): every score
// is divided by T, so softmax(s/T) is sharper for T < 1 and flatter for
// T > 1. torch divides a float32 tensor by a Python float in float32, the
// divisor rounded to float32 first. T must be positive (HF: "set
// do_sample=False" for greedy decoding) and finite (HF accepts +Inf, which
// turns masked tokens' −Inf into NaN).
func NewTemperature(t float64) (Processor, error) {
	if !(t > 0) || math.IsInf(t, 1) {
		return nil, bad("temperature", t, "positive and finite (greedy decoding is do_sample=False, not temperature 0)")
	}
	return temperature{float32(t)}, nil
}

func (temperature) Name() string { return "TemperatureLogitsWarper" }

func (w temperature) Process(_ []int, scores []float32) []float32 {
	out := make([]float32, len(scores))
	for i, s := range scores {
		out[i] = s / w.t
	}
	return out
}

type topK struct{ k int }

// NewTopK follows transformers' TopKLogitsWarper
// (src/transformers/generation/logits_process.py at aa5108b4): with k' =
// min(max(k, minKeep), V), it removes every token whose score is below the
// k'-th largest score. Only that value matters, so every token tied with the
// k'-th is kept: scores 3, 2, 2, 2, 1 with k = 2 keep tokens 0 to 3. k must
// be positive (generate leaves the warper out for top_k = 0).
func NewTopK(k, minKeep int) (Processor, error) {
	if k <= 0 {
		return nil, bad("top_k", float64(k), "a positive whole number")
	}
	if err := checkMinKeep("TopKLogitsWarper", minKeep); err != nil {
		return nil, err
	}
	return topK{max(k, minKeep)}, nil
}

func (topK) Name() string { return "TopKLogitsWarper" }

func (w topK) Process(_ []int, scores []float32) []float32 {
	kth := kthLargest(scores, min(w.k, len(scores)))
	remove := make([]bool, len(scores))
	for i, s := range scores {
		remove[i] = s < kth
	}
	return mask(scores, remove)
}

type topP struct {
	p       float64
	minKeep int
}

// NewTopP follows transformers' TopPLogitsWarper
// (src/transformers/generation/logits_process.py at aa5108b4) (nucleus
// sampling). It sorts the scores ascending, takes the softmax of the sorted
// scores and its cumulative sum c, and removes the tokens with c ≤ 1 − p:
// the least probable tokens whose total is at most 1 − p. What is left is
// the smallest set of most probable tokens whose probability is at least p,
// except that the last minKeep positions (the most probable) are always
// kept. Hence p = 0 keeps minKeep tokens, not none, and p = 1 removes only
// tokens of probability 0 (generate leaves the warper out for p = 1).
//
// In float32 as torch: 1 − p is computed in float64 and rounded to float32
// for the comparison, and c is summed in float64 with each prefix rounded to
// float32 (torch's CPU cumsum). The order of equal scores in torch.sort is
// unspecified; here the lower id sorts later, so it is the one kept when a
// tie straddles the cut. The kept set depends on that order only when tied
// tokens straddle the cut; with p = 0 that happens whenever the highest
// score is tied.
func NewTopP(p float64, minKeep int) (Processor, error) {
	if !(p >= 0 && p <= 1) {
		return nil, bad("top_p", p, "in [0, 1]")
	}
	if err := checkMinKeep("TopPLogitsWarper", minKeep); err != nil {
		return nil, err
	}
	return topP{p, minKeep}, nil
}

func (topP) Name() string { return "TopPLogitsWarper" }

func (w topP) Process(_ []int, scores []float32) []float32 {
	order := descending(scores)
	slices.Reverse(order) // ascending, ties by descending id
	sorted := make([]float32, len(order))
	for j, id := range order {
		sorted[j] = scores[id]
	}
	cum := cumsum32(softmax32(sorted))
	threshold := float32(1 - w.p)
	remove := make([]bool, len(scores))
	for j, id := range order {
		remove[id] = cum[j] <= threshold && j < len(order)-w.minKeep
	}
	return mask(scores, remove)
}

type minP struct {
	m       float32
	minKeep int
}

// NewMinP follows transformers' MinPLogitsWarper
// (src/transformers/generation/logits_process.py at aa5108b4) (Nguyen et al.
// 2024): with p = softmax(scores), it removes the tokens with pᵢ < m · maxⱼ
// pⱼ, a cut relative to the most probable token, then keeps the minKeep
// highest-scoring tokens whatever their probability. The product is
// float32(m) · max p in float32. The most probable token always survives (m
// ≤ 1), so with minKeep = 1 the kept set never depends on the order of ties;
// with minKeep > 1 tokens tied at the minKeep-th score are kept by ascending
// id (HF's argsort leaves their order open).
func NewMinP(m float64, minKeep int) (Processor, error) {
	if !(m >= 0 && m <= 1) {
		return nil, bad("min_p", m, "in [0, 1]")
	}
	if err := checkMinKeep("MinPLogitsWarper", minKeep); err != nil {
		return nil, err
	}
	return minP{float32(m), minKeep}, nil
}

func (minP) Name() string { return "MinPLogitsWarper" }

func (w minP) Process(_ []int, scores []float32) []float32 {
	probs := softmax32(scores)
	scaled := w.m * slices.Max(probs)
	remove := make([]bool, len(scores))
	for i, p := range probs {
		remove[i] = p < scaled
	}
	for _, id := range descending(scores)[:min(w.minKeep, len(scores))] {
		remove[id] = false
	}
	return mask(scores, remove)
}

type typical struct {
	mass    float32
	minKeep int
}

// NewTypical follows transformers' TypicalLogitsWarper
// (src/transformers/generation/logits_process.py at aa5108b4) (locally
// typical sampling, Meister et al. 2022). With log-probabilities ℓᵢ =
// log_softmax(scores) and the entropy H = −Σ pᵢℓᵢ (NaN terms of masked
// tokens skipped, as nansum), each token's distance from typical is dᵢ =
// |−ℓᵢ − H|. Tokens are sorted by ascending d and the cumulative probability
// c of that order is taken; with j the number of positions where c < mass,
// every token whose d exceeds the d at position j is removed, and the first
// minKeep positions are kept. So the most typical tokens are kept until
// their mass reaches typical_p, and the most probable token can be removed.
//
// The cut is a value of d, so tokens tied in d are kept or removed together.
// The order of ties still shapes c, but only inside the tied group: the
// count j reaches the group in every order, so with minKeep = 1 the kept set
// does not depend on it (in exact arithmetic; float32 sums of the group
// taken in different orders can differ in the last bit). Ties here sort by
// ascending id. mass must be in (0, 1) (generate leaves the warper out for
// typical_p = 1).
func NewTypical(mass float64, minKeep int) (Processor, error) {
	if !(mass > 0 && mass < 1) {
		return nil, bad("typical_p", mass, "in (0, 1)")
	}
	if err := checkMinKeep("TypicalLogitsWarper", minKeep); err != nil {
		return nil, err
	}
	return typical{float32(mass), minKeep}, nil
}

func (typical) Name() string { return "TypicalLogitsWarper" }

func (w typical) Process(_ []int, scores []float32) []float32 {
	logp := logSoftmax32(scores)
	var h float64
	for _, l := range logp {
		// float32(...) rounds the product before the sum, as torch does,
		// and stops Go fusing the two.
		if t := float32(l * exp32(l)); !math.IsNaN(float64(t)) {
			h += float64(t)
		}
	}
	ent := -float32(h)
	d := make([]float32, len(scores))
	for i, l := range logp {
		d[i] = float32(math.Abs(float64(-l - ent)))
	}
	order := ascending(d)
	sorted := make([]float32, len(order))
	for j, id := range order {
		sorted[j] = scores[id]
	}
	cum := cumsum32(softmax32(sorted))
	last := 0
	for _, c := range cum {
		if c < w.mass {
			last++
		}
	}
	cut := d[order[min(last, len(order)-1)]]
	remove := make([]bool, len(scores))
	for j, id := range order {
		remove[id] = d[id] > cut && j >= w.minKeep
	}
	return mask(scores, remove)
}

type epsilon struct {
	eps     float32
	minKeep int
}

// NewEpsilon follows transformers' EpsilonLogitsWarper
// (src/transformers/generation/logits_process.py at aa5108b4) (Hewitt et al.
// 2022): it removes the tokens of probability below ε, except those whose
// score is at least the minKeep-th largest score (a value, so ties there are
// all kept). ε must be in (0, 1) (generate leaves the warper out otherwise).
func NewEpsilon(eps float64, minKeep int) (Processor, error) {
	if !(eps > 0 && eps < 1) {
		return nil, bad("epsilon_cutoff", eps, "in (0, 1)")
	}
	if err := checkMinKeep("EpsilonLogitsWarper", minKeep); err != nil {
		return nil, err
	}
	return epsilon{float32(eps), minKeep}, nil
}

func (epsilon) Name() string { return "EpsilonLogitsWarper" }

func (w epsilon) Process(_ []int, scores []float32) []float32 {
	return belowCutoff(scores, softmax32(scores), w.eps, w.minKeep)
}

// belowCutoff removes the tokens with probs < cutoff whose score is below
// the minKeep-th largest, the rule Epsilon and Eta share.
func belowCutoff(scores, probs []float32, cutoff float32, minKeep int) []float32 {
	kth := kthLargest(scores, min(minKeep, len(scores)))
	remove := make([]bool, len(scores))
	for i, p := range probs {
		remove[i] = p < cutoff && scores[i] < kth
	}
	return mask(scores, remove)
}

type eta struct {
	eps     float32
	minKeep int
}

// NewEta follows transformers' EtaLogitsWarper
// (src/transformers/generation/logits_process.py at aa5108b4) (Hewitt et al.
// 2022): like epsilon sampling with the cutoff η = min(ε, √ε · e^(−H)),
// where H is the entropy of softmax(scores): a flat, high-entropy
// distribution gets a lower cutoff. As torch: ε is a float32 tensor, √ε and
// e^(−H) float32, and H is torch.distributions.Categorical's entropy, −Σ pᵢ
// · max(ℓᵢ, −FLT_MAX) with ℓ = scores − logsumexp(scores) and p = softmax(ℓ)
// (the clamp makes masked tokens add 0, not NaN). ε must be in (0, 1)
// (generate leaves the warper out otherwise).
func NewEta(eps float64, minKeep int) (Processor, error) {
	if !(eps > 0 && eps < 1) {
		return nil, bad("eta_cutoff", eps, "in (0, 1)")
	}
	if err := checkMinKeep("EtaLogitsWarper", minKeep); err != nil {
		return nil, err
	}
	return eta{float32(eps), minKeep}, nil
}

func (eta) Name() string { return "EtaLogitsWarper" }

func (w eta) Process(_ []int, scores []float32) []float32 {
	lse := logSumExp32(scores)
	logits := make([]float32, len(scores))
	for i, s := range scores {
		logits[i] = s - lse
	}
	p := softmax32(logits)
	var h float64
	for i, l := range logits {
		h += float64(float32(max(l, -math.MaxFloat32) * p[i]))
	}
	ent := -float32(h)
	sqrtEps := float32(math.Sqrt(float64(w.eps)))
	cutoff := min(w.eps, sqrtEps*exp32(-ent))
	return belowCutoff(scores, softmax32(scores), cutoff, w.minKeep)
}
