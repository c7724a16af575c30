package hf

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Step records one processor of a Run.
type Step struct {
	Name   string    // the transformers class
	Scores []float32 // the scores after it
	Kept   []int     // the tokens whose score after it is not −Inf, ascending
}

// Result is what a Run did.
type Result struct {
	Steps []Step    // one per processor, in order
	Probs []float32 // softmax of the last scores (of the logits if there is no processor)
}

// Run applies procs to logits in order, as generate()'s
// LogitsProcessorList does, and returns the scores after each one and the
// distribution that torch.multinomial draws from: next_token_scores =
// logits_processor(input_ids, logits); probs = softmax(next_token_scores).
// inputIDs is the whole sequence so far, prompt included, which the
// repetition penalty reads.
//
// Where torch would go on with numbers that make the draw fail
// (torch.multinomial rejects NaN and ±Inf probabilities), Run returns an
// error instead: a NaN or +Inf logit, every logit −Inf, an id outside the
// vocabulary, or a processor that leaves a NaN or +Inf score (temperature
// can overflow float32) or no finite score.
func Run(procs []Processor, logits []float32, inputIDs []int) (Result, error) {
	if len(logits) == 0 {
		return Result{}, errors.New("hf: no logits")
	}
	if err := checkScores(logits, "the logits"); err != nil {
		return Result{}, err
	}
	for i, id := range inputIDs {
		if id < 0 || id >= len(logits) {
			return Result{}, fmt.Errorf("hf: input id %d (at %d) is not a token of a %d-token vocabulary", id, i, len(logits))
		}
	}
	scores := slices.Clone(logits)
	var r Result
	for _, p := range procs {
		scores = p.Process(inputIDs, scores)
		if err := checkScores(scores, "the scores after "+p.Name()); err != nil {
			return Result{}, err
		}
		var kept []int
		for i, s := range scores {
			if s != negInf {
				kept = append(kept, i)
			}
		}
		r.Steps = append(r.Steps, Step{Name: p.Name(), Scores: scores, Kept: kept})
	}
	r.Probs = softmax32(scores)
	return r, nil
}

// checkScores reports a NaN or +Inf score, or no finite one.
func checkScores(scores []float32, what string) error {
	finite := false
	for i, s := range scores {
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 1) {
			return fmt.Errorf("hf: %s have %v for token %d", what, s, i)
		}
		finite = finite || s != negInf
	}
	if !finite {
		return fmt.Errorf("hf: %s are all −Inf", what)
	}
	return nil
}

// Drawn is where a Draw landed on the cumulative distribution.
type Drawn struct {
	Token  int     // the token drawn
	Index  int     // its position among the tokens of positive probability, in id order
	Target float64 // u times Total: where the draw points
	Lo, Hi float64 // the cumulative sum before and after Token: Lo ≤ Target < Hi, but for the last token
	Total  float64 // the sum of every probability, in float64
}

// Draw picks a token from probs with one uniform number u ∈ [0, 1), by the
// cumulative distribution in token-id order: the first token of positive
// probability whose cumulative sum exceeds u times the total, summed in
// float64 (the last such token if rounding leaves u beyond it). It is this
// package's draw for its own generator, not torch's: torch.multinomial with
// one sample draws an Exp(1) variable qᵢ per token from torch's generator
// and returns argmax pᵢ/qᵢ, which no single u reproduces (see the package
// documentation).
func Draw(probs []float32, u float64) (Drawn, error) {
	if !(u >= 0 && u < 1) {
		return Drawn{}, fmt.Errorf("hf: u = %v, must be in [0, 1)", u)
	}
	var d Drawn
	last, n := -1, 0
	for i, p := range probs {
		if math.IsNaN(float64(p)) || p < 0 || math.IsInf(float64(p), 1) {
			return Drawn{}, fmt.Errorf("hf: probability %v for token %d", p, i)
		}
		if p > 0 {
			d.Total += float64(p)
			last, n = i, n+1
		}
	}
	if last < 0 {
		return Drawn{}, errors.New("hf: no token has a positive probability")
	}
	d.Target = u * d.Total
	for i, p := range probs {
		if p > 0 {
			d.Lo, d.Hi, d.Token = d.Hi, d.Hi+float64(p), i
			if d.Target < d.Hi {
				return d, nil
			}
			d.Index++
		}
	}
	d.Index = n - 1 // rounding left the target beyond the sum: the last token
	return d, nil
}
