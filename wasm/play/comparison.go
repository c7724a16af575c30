package play

import (
	"cmp"
	"math"
	"slices"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/softmax"
)

// Comparison is the compare card's run of two runtimes' sampler chains on
// a step's logits (package compare), cut to what the card shows: each
// stage's counts, where u lands, and the tokens it lists.
type Comparison struct {
	U  float64 // the step's draw, or its seed's first (compare.SameU)
	TV float64 // total variation between the final distributions, when both chains ran

	Chains [2]ChainRun
	// Tokens are the tokens the card lists: the CompareRows most probable
	// of either chain's final distribution, most probable in either
	// first; none unless both chains ran.
	Tokens []int
}

// CompareRows is how many of each chain's most probable tokens the
// compare card lists.
const CompareRows = 8

// ChainRun is one chain of a Comparison.
type ChainRun struct {
	Err    error // why the chain cannot run; the rest is empty then
	Stages []ComparedStage
	Landed int     // the token u lands on (compare.Outcome.Land)
	P      float64 // its probability in the final distribution
	Note   string  // what the draw is, where it is not the runtime's own
	Idle   []int   // the places of the stages its values switch off (compare.Outcome.Idle)

	// Final and Drawn are the final probability of each of the
	// comparison's Tokens, and how many of CompareDraws draws took it
	// (nil unless the draws were asked for).
	Final []float64
	Drawn []int
}

// ComparedStage is a stage of a chain: how many tokens it kept and
// removed, the probability it removed, and its most probable tokens after
// it (compare.Stage).
type ComparedStage struct {
	Name          sampler.StageName
	Kept, Removed int
	RemovedMass   float64
	Top           []compare.Shift
}

// compareChains runs the card's chains on logits, read with the session's
// settings used at the step and the tokens before it, for the draw d.
func compareChains(ask CompareChoice, logits []float64, context []int, used sampler.Settings, draw *sampler.Draw) *Comparison {
	c := &Comparison{U: compare.SameU(draw, used.Seed)}
	var outs [2]*compare.Outcome
	for k, name := range ask.Chains {
		ch, err := compare.Preset(name, used.Seed)
		if err == nil {
			ch.Follow(used, func(string) bool { return !ask.Own })
			err = ch.Validate()
		}
		var out compare.Outcome
		if err == nil {
			out, err = compare.Run(ch, logits, context)
		}
		if err != nil {
			c.Chains[k].Err = err
			continue
		}
		outs[k] = &out
		run := &c.Chains[k]
		for _, st := range out.Stages {
			run.Stages = append(run.Stages, ComparedStage{Name: st.Name, Kept: len(st.Kept), Removed: len(st.Removed), RemovedMass: st.RemovedMass, Top: st.Top})
		}
		run.Landed = out.Land(c.U)
		run.P, run.Note, run.Idle = out.Final[run.Landed], out.Note, out.Idle
	}
	if outs[0] == nil || outs[1] == nil {
		return c
	}
	c.TV, _ = compare.TotalVariation(outs[0].Final, outs[1].Final)
	c.Tokens = tableTokens(outs[0], outs[1])
	for k, out := range outs {
		run := &c.Chains[k]
		var draws []int
		if ask.Draws {
			draws = out.Draws(CompareDraws, used.Seed+uint64(k))
			run.Drawn = make([]int, len(c.Tokens))
		}
		run.Final = make([]float64, len(c.Tokens))
		for i, id := range c.Tokens {
			run.Final[i] = out.Final[id]
			if draws != nil {
				run.Drawn[i] = draws[id]
			}
		}
	}
	return c
}

// tableTokens are the tokens the card lists: the most probable of either
// chain's final distribution, most probable in either first.
func tableTokens(a, b *compare.Outcome) []int {
	var ids []int
	for _, out := range []*compare.Outcome{a, b} {
		for _, id := range softmax.Top(out.Final, CompareRows, nil) {
			if out.Final[id] > 0 && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.SortStableFunc(ids, func(x, y int) int {
		return cmp.Compare(math.Max(a.Final[y], b.Final[y]), math.Max(a.Final[x], b.Final[x]))
	})
	return ids
}
