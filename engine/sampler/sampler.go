package sampler

import (
	"errors"
	"fmt"

	"nexttoken/engine/softmax"
)

// Stage records what one stage of the choice did. Slices are indexed by
// token id, except Removed and Changed, which list token ids in increasing
// order. They may share memory with Choice.Softmax; treat them as read-only.
type Stage struct {
	Name        string    // "repetition_penalty", "temperature", "top_k", "top_p", "min_p" or "runc_cutoff"
	Removed     []int     // tokens this filter set to probability 0
	RemovedMass float64   // their probability before the stage
	Changed     []int     // tokens whose logit the repetition penalty changed
	Logits      []float64 // logits after the stage (repetition_penalty; temperature: ℓ/T)
	Probs       []float64 // distribution after the stage, renormalised (temperature and filters)
}

// Draw records the random choice among the surviving tokens.
type Draw struct {
	U      float64   // the uniform number drawn, in [0, 1)
	Target float64   // where U points along CDF: U, or U × the kept mass in run.c's top-p
	Order  []int     // candidate tokens in the order the cumulative sum runs
	CDF    []float64 // cumulative probability along Order
	Index  int       // the chosen position: the first i with Target < CDF[i], else the last
}

// Choice is the chosen token and how it was chosen.
type Choice struct {
	Token   int
	Greedy  bool           // chosen by argmax (temperature 0)
	Softmax *softmax.Trace // softmax of the (penalised) logits at the temperature used, 1 when greedy
	Stages  []Stage        // the stages that were switched on, in order
	Draw    *Draw          // nil when greedy
}

// Sample chooses the next token from logits, one per vocabulary token, as
// described in the package documentation. history holds the tokens of the
// context so far, for the repetition penalty; each must be a valid id. rng is advanced by exactly one
// Float32 when the choice is not greedy; on error it is left untouched.
func Sample(s Settings, logits []float64, history []int, rng *RNG) (*Choice, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	for i, id := range history {
		if id < 0 || id >= len(logits) {
			return nil, fmt.Errorf("sampler: history[%d] = %d is not a token of a %d-token vocabulary", i, id, len(logits))
		}
	}
	if s.Mode == RunC {
		return sampleRunC(s, logits, rng)
	}
	return sampleChain(s, logits, history, rng)
}

func sampleChain(s Settings, logits []float64, history []int, rng *RNG) (*Choice, error) {
	c := &Choice{}
	if s.penalised() {
		logits = c.add(penalise(logits, history, s.RepetitionPenalty)).Logits
	}
	if s.Temperature == 0 {
		return greedy(c, logits, logits)
	}

	var err error
	if c.Softmax, err = softmax.Compute(logits, s.Temperature); err != nil {
		return nil, err
	}
	p := c.add(Stage{Name: "temperature", Logits: c.Softmax.Scaled, Probs: c.Softmax.Probs}).Probs
	if s.TopK > 0 {
		p = c.add(topK(p, s.TopK)).Probs
	}
	if s.TopP > 0 && s.TopP < 1 {
		p = c.add(topP(p, s.TopP)).Probs
	}
	if s.MinP > 0 {
		p = c.add(minP(p, s.MinP)).Probs
	}

	order := ranked(p)
	u, err := flip(rng)
	if err != nil {
		return nil, err
	}
	c.Draw = draw(order, cumsum(p, order), u, float64(u))
	c.Token = order[c.Draw.Index]
	return c, nil
}

// add appends st to the stages of c and returns it.
func (c *Choice) add(st Stage) Stage {
	c.Stages = append(c.Stages, st)
	return st
}

// greedy completes c with the first maximum of x, the logits as the mode
// sees them, and the display softmax of logits at temperature 1.
func greedy[F float32 | float64](c *Choice, logits []float64, x []F) (*Choice, error) {
	var err error
	if c.Softmax, err = softmax.Compute(logits, 1); err != nil {
		return nil, err
	}
	c.Token, c.Greedy = argmax(x), true
	return c, nil
}

// flip draws the one uniform number of a sampled token.
func flip(rng *RNG) (float32, error) {
	if rng == nil || rng.State == 0 {
		return 0, errors.New("sampler: sampling needs an RNG with a nonzero state")
	}
	return rng.Float32(), nil
}
