// Package compare runs the sampler chains of different runtimes on the same
// logits and lays them side by side: nexttoken's own chain and run.c's
// (package sampler), llama.cpp's (package llamacpp) and Hugging Face
// generate()'s (package hf).
//
// The runtimes disagree on purpose, not by accident: llama.cpp applies
// min-p before the temperature, so min_p = 0.3 at temperature 2 keeps 2 of
// the logits 2, 1, 0 there and 3 in nexttoken's chain, which divides by the
// temperature first; Hugging Face keeps every token tied with the k-th at
// top-k; top_p = 0 keeps one token in llama.cpp and Hugging Face and is off
// in run.c and here. Run reports each chain's stages in one shape, and
// TotalVariation says how far apart the distributions they draw from are.
//
// Each chain draws with its own runtime's generator where that can be
// reproduced: nexttoken's and run.c's xorshift, llama.cpp's std::mt19937.
// torch.multinomial's cannot (see package hf), so the Hugging Face chain
// draws with the xorshift generator, by the cumulative sum in token-id
// order, and says so.
package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/hf"
	"nexttoken/engine/sampler/llamacpp"
	"nexttoken/engine/softmax"
)

// The chains by name; a llama.cpp letter sequence such as "kpt" is a
// llama.cpp chain with those stages.
const (
	Ours     = string(sampler.Chain)    // nexttoken's chain
	RunC     = string(sampler.RunC)     // llama2.c's run.c sample()
	LlamaCpp = string(sampler.LlamaCpp) // common_sampler's default sequence, edskypmxt
	HF       = string(sampler.HF)       // generate() with do_sample=True

	// llama.cpp with --mirostat 1 or 2: the temperature, then mirostat (v1,
	// m = 100) or mirostat v2, in place of the sequence; tau 5, eta 0.1.
	Mirostat  = "mirostat"
	Mirostat2 = "mirostat2"
)

// Names are the chains' names, in the order the help lists them.
var Names = []string{Ours, RunC, LlamaCpp, Mirostat, Mirostat2, HF}

// Chain is a runtime's chain with its settings. Only the settings of its
// runtime count: Settings for Ours and RunC, Llama for llama.cpp chains,
// HF for Hugging Face, whose draw takes its seed from Settings.Seed.
type Chain struct {
	Name     string
	Settings sampler.Settings
	Llama    llamacpp.Params
	HF       hf.Config
}

// Preset returns the chain called name with its runtime's defaults, and
// seed for its draws: nexttoken's and run.c's at temperature 1 with every
// filter off, llama.cpp's common_params_sampling and Hugging Face's
// GenerationConfig. A llama.cpp letter sequence ("edskypmxt") keeps
// llama.cpp's defaults for the stages it names.
func Preset(name string, seed uint64) (Chain, error) {
	c := Chain{Name: name, Settings: sampler.Settings{Mode: sampler.Mode(name), Temperature: 1, Seed: seed}}
	switch name {
	case Ours, RunC:
		return c, nil
	case HF:
		c.HF = hf.Defaults()
		return c, nil
	}
	c.Llama = llamacpp.Defaults()
	if len(name) > sampler.MaxSequence {
		return Chain{}, fmt.Errorf("chain %.12q…: %d letters, more than the %d stages a chain may have", name, len(name), sampler.MaxSequence)
	}
	switch name {
	case LlamaCpp:
	case Mirostat:
		c.Llama.Mirostat = 1
	case Mirostat2:
		c.Llama.Mirostat = 2
	default:
		stages, err := llamacpp.ParseSequence(name)
		if err != nil {
			return Chain{}, fmt.Errorf("chain %q is none of %s, nor a llama.cpp letter sequence such as edskypmxt: %w", name, strings.Join(Names, ", "), err)
		}
		c.Llama.Samplers = stages
	}
	if seed > math.MaxUint32 {
		return Chain{}, fmt.Errorf("chain %s: seed %d does not fit llama.cpp's 32 bits", name, seed)
	}
	c.Llama.Seed = uint32(seed)
	return c, nil
}

// Follow sets c's settings named by given (sampler.Params names:
// "temperature", "top_k", "top_p", "min_p", "repetition_penalty"; and
// for llama.cpp sampler.LlamaParams names but "mirostat", which names a
// chain, not a setting of one) to s's, in c's runtime's terms: a stage s
// switches off is switched off there too, so that top_p 0, off here, is
// top_p 1 for llama.cpp and Hugging Face, where 0 keeps one token. The
// settings of mirostat and DRY follow only when s runs that stage, so
// that a chain of s's mode keeps llama.cpp's defaults for a stage s leaves
// off. The seed is the preset's. For nexttoken's and run.c's chains c
// takes s whole, its mode and what only llama.cpp has aside.
func (c *Chain) Follow(s sampler.Settings, given func(param string) bool) {
	switch c.Runtime() {
	case sampler.Chain, sampler.RunC:
		mode, seed := sampler.Mode(c.Name), c.Settings.Seed
		c.Settings = s
		c.Settings.Mode, c.Settings.Seed, c.Settings.LlamaSettings = mode, seed, sampler.LlamaSettings{}
		return
	case sampler.LlamaCpp:
		c.followLlama(s, given)
	}
	for _, p := range sampler.Params {
		if !given(p.Name) {
			continue
		}
		v, off := p.Get(s), p.IsOff(p.Get(s))
		l, h := &c.Llama, &c.HF
		switch p.Name {
		case "temperature":
			l.Temp, h.Temperature = float32(v), v
		case "top_k":
			l.TopK, h.TopK = int32(v), int(v) // 0 is off in both
		case "top_p":
			if off {
				v = 1
			}
			l.TopP, h.TopP = float32(v), v
		case "min_p":
			l.MinP, h.MinP = float32(v), v // 0 is off in both
		case "repetition_penalty":
			if off {
				v = 1
			}
			l.PenaltyRepeat, h.RepetitionPenalty = float32(v), v
		}
	}
}

// followLlama is Follow for sampler.LlamaParams, onto a llama.cpp chain:
// a setting of a stage s switches off keeps c's (sampler.Param.InPlay).
func (c *Chain) followLlama(s sampler.Settings, given func(param string) bool) {
	l := &c.Llama
	for _, p := range sampler.LlamaParams {
		if !given(p.Name) || !p.InPlay(s) {
			continue
		}
		v := float32(p.Get(s))
		switch p.Name {
		case "mirostat_tau":
			l.MirostatTau = v
		case "mirostat_eta":
			l.MirostatEta = v
		case "dry_multiplier":
			l.DryMultiplier = v
		case "dry_base":
			l.DryBase = v
		case "dry_allowed_length":
			l.DryAllowedLength = int32(v)
		case "dry_penalty_last_n":
			l.DryPenaltyLastN = int32(v)
		}
	}
}

// Validate reports a setting c's runtime cannot run, naming it.
func (c Chain) Validate() error {
	switch c.Runtime() {
	case sampler.Chain, sampler.RunC:
		return c.Settings.Validate()
	case sampler.HF:
		return c.HF.Validate()
	}
	return c.Llama.Validate()
}

// Runtime says which runtime runs c, as the mode of a session that
// samples with it: Chain (for Ours), RunC, LlamaCpp or HF.
func (c Chain) Runtime() sampler.Mode {
	switch c.Name {
	case Ours, RunC, HF:
		return sampler.Mode(c.Name)
	}
	return sampler.LlamaCpp
}

// Stage is one stage of a chain, in the same shape for every runtime.
type Stage struct {
	Name sampler.StageName // as its runtime names it: "min_p", "min-p", "MinPLogitsWarper"

	// Kept is the tokens still drawable after the stage, ascending; Removed
	// the ones the stage took away, and RemovedMass their probability in
	// the softmax of the scores the stage was given.
	Kept        []int
	Removed     []int
	RemovedMass float64

	// Top are the stage's most probable tokens after it (ShownTop of
	// them), with their probability in the softmax of the scores it was
	// given and of the scores it gave: how it reshaped the distribution.
	Top []Shift
}

// Shift is a token's probability before and after a stage.
type Shift struct {
	ID            int
	Before, After float64
}

// ShownTop is how many tokens a Stage's Top holds.
const ShownTop = 3

// shifts is Top for a stage from the distribution before to after.
func shifts(before, after []float64) []Shift {
	ids := softmax.Top(after, ShownTop, nil)
	out := make([]Shift, len(ids))
	for i, id := range ids {
		out[i] = Shift{ID: id, Before: before[id], After: after[id]}
	}
	return out
}

// Outcome is a chain's run on one step's logits.
type Outcome struct {
	Chain  Chain
	Stages []Stage
	Final  []float64 // each token's probability of being drawn, by id
	Order  []int     // the drawable tokens in the order the draw's cumulative sum runs
	Token  int       // the token the chain drew
	U      float64   // the uniform number its draw used
	Note   string    // what the draw is, where it is not the runtime's own

	// Idle are the places, in a llama.cpp chain's sequence of stages, of
	// the stages its values switch off (top-k 0, DRY's multiplier 0, …):
	// they are in the chain, and do nothing.
	Idle []int
}

// Land is the token a draw of u, uniform in [0, 1), picks from the final
// distribution, walking it in the chain's own order: the first token whose
// cumulative probability exceeds u times the total. The same u lands on
// different tokens when the chains keep different tokens, weigh them
// differently, or walk them in another order.
func (o Outcome) Land(u float64) int {
	total := 0.0
	for _, id := range o.Order {
		total += o.Final[id]
	}
	target, cum := u*total, 0.0
	for _, id := range o.Order {
		if cum += o.Final[id]; target < cum {
			return id
		}
	}
	return o.Order[len(o.Order)-1]
}

// SameU is the u every chain draws at a step, so that where it lands can be
// compared: the step's own draw's, or, for a step that drew none (greedy,
// forced), the first number its seed's generator gives.
func SameU(draw *sampler.Draw, seed uint64) float64 {
	if draw != nil {
		return draw.U
	}
	rng := sampler.NewRNG(seed)
	return float64(rng.Float32())
}

// Draws draws n tokens from the final distribution, each with a u from
// nexttoken's xorshift generator seeded with seed landing as in Land, and
// counts them by token id: beside Final, a histogram that shows what a
// distribution means in practice, and how far n draws wander from it.
func (o Outcome) Draws(n int, seed uint64) []int {
	// The cumulative sums along Order, searched for each u: Land's walk,
	// in O(log V) a draw.
	cum := make([]float64, len(o.Order))
	total := 0.0
	for i, id := range o.Order {
		total += o.Final[id]
		cum[i] = total
	}
	counts := make([]int, len(o.Final))
	rng := sampler.NewRNG(max(seed, 1))
	for range n {
		target := float64(rng.Float32()) * total
		// The first sum above target (a tie is below it): Land's target < cum.
		i, _ := slices.BinarySearchFunc(cum, target, func(c, t float64) int {
			if c <= t {
				return -1
			}
			return 1
		})
		counts[o.Order[min(i, len(o.Order)-1)]]++
	}
	return counts
}

// Run runs c on logits, one per token id; history is the context so far,
// oldest first, for the penalties. llama.cpp and Hugging Face take the
// logits rounded to float32, as their models give them; a model's logits
// are float32 already.
func Run(c Chain, logits []float64, history []int) (Outcome, error) {
	if c.Runtime() == sampler.Chain || c.Runtime() == sampler.RunC {
		return runOurs(c, logits, history)
	}
	narrow := make([]float32, len(logits))
	for i, l := range logits {
		narrow[i] = float32(l)
	}
	if c.Runtime() == sampler.HF {
		return runHF(c, narrow, history)
	}
	return runLlama(c, narrow, history)
}

func runOurs(c Chain, wide []float64, history []int) (Outcome, error) {
	rng := sampler.NewRNG(c.Settings.Seed)
	ch, err := sampler.Sample(c.Settings, wide, history, &rng)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Chain: c, Token: ch.Token, Order: []int{ch.Token}}
	if ch.Draw != nil {
		out.U, out.Order = ch.Draw.U, ch.Draw.Order
	}
	kept := allTokens(len(wide), func(i int) bool { return !math.IsInf(wide[i], -1) })
	final := ch.Softmax.Probs
	before := distribution(wide)
	for _, st := range ch.Stages {
		if st.Name == sampler.StageRepetitionPenalty || st.Name == sampler.StageTemperature {
			if st.Probs != nil {
				before = st.Probs
			}
			continue // they change logits, not which tokens can be drawn
		}
		out.Stages = append(out.Stages, Stage{Name: st.Name, Removed: st.Removed, RemovedMass: st.RemovedMass,
			Kept: without(kept, st.Removed), Top: shifts(before, st.Probs)})
		kept, final, before = out.Stages[len(out.Stages)-1].Kept, st.Probs, st.Probs
	}
	if ch.Greedy {
		final = make([]float64, len(wide))
		final[ch.Token] = 1
	}
	out.Final = slices.Clone(final)
	// run.c's draw walks every token; those of probability 0 take no part.
	out.Order = slices.DeleteFunc(slices.Clone(out.Order), func(id int) bool { return out.Final[id] == 0 })
	return out, nil
}

func runLlama(c Chain, logits []float32, history []int) (Outcome, error) {
	chain, err := llamacpp.New(c.Llama)
	if err != nil {
		return Outcome{}, err
	}
	hist := make([]int32, len(history))
	for i, id := range history {
		hist[i] = int32(id)
	}
	res, err := chain.Sample(logits, hist)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Chain: c, Token: int(res.Token), U: res.U}
	in := softmax.Widen(nil, logits) // the scores each stage is given
	for i, st := range res.Stages {
		if strings.HasPrefix(st.Name, "?") {
			out.Idle = append(out.Idle, i) // switched off by its values
			continue
		}
		scores := llamaScores(st, len(logits))
		out.Stages = append(out.Stages, stageBetween(sampler.StageName(st.Name), in, scores))
		in = scores
	}
	out.Final = make([]float64, len(logits))
	last := res.Stages[len(res.Stages)-1]
	for _, t := range last.Tokens {
		out.Final[t.ID] = float64(t.P)
		out.Order = append(out.Order, int(t.ID))
	}
	if len(last.Tokens) == 1 {
		out.Final[last.Tokens[0].ID] = 1 // dist draws the one candidate without a softmax
	}
	return out, nil
}

// hfNote says what the Hugging Face chain's draw is.
const hfNote = "torch.multinomial's generator cannot be reproduced: drawn with nexttoken's xorshift by the cumulative sum in token-id order"

func runHF(c Chain, logits []float32, history []int) (Outcome, error) {
	procs, err := hf.Processors(c.HF)
	if err != nil {
		return Outcome{}, err
	}
	res, err := hf.Run(procs, logits, history)
	if err != nil {
		return Outcome{}, err
	}
	in := softmax.Widen(nil, logits)
	out := Outcome{Chain: c, Note: hfNote}
	for _, st := range res.Steps {
		scores := softmax.Widen(nil, st.Scores)
		out.Stages = append(out.Stages, stageBetween(sampler.StageName(st.Name), in, scores))
		in = scores
	}
	out.Final = softmax.Widen(nil, res.Probs)
	out.Order = Drawable(out.Final)
	if c.Settings.Seed == 0 {
		return Outcome{}, fmt.Errorf("chain %s: seed 0 (xorshift needs a seed of at least 1)", c.Name)
	}
	rng := sampler.NewRNG(c.Settings.Seed)
	out.U = float64(rng.Float32())
	drawn, err := hf.Draw(res.Probs, out.U)
	if err != nil {
		return Outcome{}, err
	}
	out.Token = drawn.Token
	return out, nil
}

// stageBetween is the stage that turned the scores in into out: the
// tokens it left drawable (a finite score), those it removed, their
// probability in the softmax of in, and its most probable tokens then.
func stageBetween(name sampler.StageName, in, out []float64) Stage {
	p := distribution(in)
	st := Stage{Name: name, Top: shifts(p, distribution(out))}
	for i := range out {
		switch {
		case !math.IsInf(out[i], -1):
			st.Kept = append(st.Kept, i)
		case !math.IsInf(in[i], -1):
			st.Removed = append(st.Removed, i)
			st.RemovedMass += p[i]
		}
	}
	return st
}

// distribution is the softmax of scores in float64, for the removed mass
// and a recorded stage.
func distribution(scores []float64) []float64 {
	hi := math.Inf(-1)
	for _, s := range scores {
		hi = math.Max(hi, s)
	}
	p := make([]float64, len(scores))
	if math.IsInf(hi, -1) {
		return p
	}
	sum := 0.0
	for i, s := range scores {
		p[i] = math.Exp(s - hi)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// TotalVariation is the total variation distance between two
// distributions over the same tokens: half the sum of |p − q|, the largest
// difference in probability the two give any set of tokens.
func TotalVariation(p, q []float64) (float64, error) {
	if len(p) != len(q) {
		return 0, fmt.Errorf("distributions over %d and %d tokens", len(p), len(q))
	}
	d := 0.0
	for i := range p {
		d += math.Abs(p[i] - q[i])
	}
	return d / 2, nil
}

// Drawable is the tokens of nonzero probability in final, ascending.
func Drawable(final []float64) []int {
	return allTokens(len(final), func(i int) bool { return final[i] > 0 })
}

func allTokens(n int, keep func(int) bool) []int {
	var ids []int
	for i := range n {
		if keep(i) {
			ids = append(ids, i)
		}
	}
	return ids
}

// without is the ids of kept not in removed; both ascending.
func without(kept, removed []int) []int {
	out := make([]int, 0, len(kept))
	for _, id := range kept {
		if _, found := slices.BinarySearch(removed, id); !found {
			out = append(out, id)
		}
	}
	return out
}

// llamaScores is a llama.cpp stage's candidates as scores by token id:
// their logits, and −Inf for the tokens the stage no longer holds.
func llamaScores(st llamacpp.Stage, n int) []float64 {
	scores := make([]float64, n)
	for i := range scores {
		scores[i] = math.Inf(-1)
	}
	for _, t := range st.Tokens {
		scores[t.ID] = float64(t.Logit)
	}
	return scores
}
