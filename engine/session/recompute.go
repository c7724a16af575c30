package session

import (
	"errors"
	"fmt"
	"math"
	"time"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/transformer"
)

// Recomputed is one step computed both ways: with the KV cache, as the
// session decodes, and without it, the whole context run through the model
// again (transformer.Recompute) — what the cache saves, and the proof that
// it changes nothing. Times are measured on this machine, once each.
type Recomputed struct {
	Pos int // the position the step fed: the recomputation runs Pos+1 positions

	MaxAbsDiff float64 // the largest |cached − recomputed| over the logits
	Identical  bool    // every logit has the same bits both ways

	// Multiply-adds, counted from the model's shape
	// (transformer.MultiplyAdds and RecomputeMultiplyAdds), and the time.
	CachedMultiplyAdds, RecomputedMultiplyAdds int
	CachedTime, RecomputedTime                 time.Duration

	KVBytes int // the cache's memory for positions 0..Pos, which the cached step reads

	// The prompt's prefill, run again as the session ran it
	// (Transformer.Prefill, a position at a time): its tokens,
	// multiply-adds and time, to set per token against a decode step.
	PromptTokens        int
	PrefillMultiplyAdds int
	PrefillTime         time.Duration
}

// MultiplyAdds is the multiply-adds of a step that feeds position pos,
// with the cache and recomputed without it, counted exactly from the
// model's shape (transformer.MultiplyAdds and RecomputeMultiplyAdds); 0
// and 0 for a LogitsModel session.
func (s *Session) MultiplyAdds(pos int) (cached, recomputed int) { return s.model.MultiplyAdds(pos) }

// MultiplyAdds is Session.MultiplyAdds for a session of model m.
func (m *Model) MultiplyAdds(pos int) (cached, recomputed int) {
	if m.Checkpoint == nil {
		return 0, 0
	}
	return ShapeMultiplyAdds(m.Checkpoint.Config, pos)
}

// Shape is a network's configuration, as a page that holds no weights
// keeps it.
type Shape = checkpoint.Config

// ShapeMultiplyAdds is Model.MultiplyAdds for a network of shape c.
func ShapeMultiplyAdds(c Shape, pos int) (cached, recomputed int) {
	return transformer.MultiplyAdds(c, pos), transformer.RecomputeMultiplyAdds(c, pos)
}

// Recompute computes step i (as Detail numbers it) without the cache and
// compares it with the cached pass, which it runs again (Transformer.Probe)
// to time it. The recomputation runs on a second Transformer that the
// session keeps from then on, so that the session's cache stays as it is:
// as much memory again as the model's cache.
func (s *Session) Recompute(i int) (*Recomputed, error) {
	if s.tr == nil {
		return nil, errors.New("a session of hand-typed logits has no model to recompute")
	}
	steps := s.trace.Steps
	if i < 0 || i > len(steps) {
		return nil, fmt.Errorf("step %d does not exist (the session has %d)", i, len(steps))
	}
	pos, input := len(s.tokens)-1, s.tokens[len(s.tokens)-1]
	if i < len(steps) {
		pos, input = steps[i].Pos, steps[i].Input
	}
	if pos+1 > len(s.tokens) || pos >= s.tr.Cache.Len {
		return nil, fmt.Errorf("step %d: position %d is not in the cache (a session that has ended has no next step)", i, pos)
	}
	if s.fresh == nil || s.fresh.Options() != s.tr.Options() {
		s.fresh = transformer.NewWith(s.model.Checkpoint, s.tr.Options())
	}
	r := &Recomputed{Pos: pos, Identical: true, KVBytes: s.tr.Cache.View(pos + 1).Bytes()}
	r.CachedMultiplyAdds, r.RecomputedMultiplyAdds = s.MultiplyAdds(pos)

	// The cached step runs second, as warm as the recomputation: the
	// first run after the page idled pays for waking up.
	start := time.Now()
	again, err := s.fresh.Recompute(s.tokens[:pos+1])
	if err != nil {
		return nil, err
	}
	r.RecomputedTime = time.Since(start)
	start = time.Now()
	pass, err := s.tr.Probe(input, pos)
	if err != nil {
		return nil, err
	}
	r.CachedTime = time.Since(start)
	for k, v := range pass.Logits() {
		r.MaxAbsDiff = max(r.MaxAbsDiff, math.Abs(float64(v)-float64(again[k])))
		r.Identical = r.Identical && math.Float32bits(v) == math.Float32bits(again[k])
	}

	prompt := s.tokens[:len(s.trace.Prompt)]
	r.PromptTokens = len(prompt)
	for p := range prompt { // Prefill is Forward at each position, classifier included, as run.c
		cached, _ := s.MultiplyAdds(p)
		r.PrefillMultiplyAdds += cached
	}
	start = time.Now()
	if _, err := s.fresh.Prefill(prompt, 0); err != nil {
		return nil, err
	}
	r.PrefillTime = time.Since(start)
	return r, nil
}
