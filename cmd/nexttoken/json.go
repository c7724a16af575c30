package main

import (
	"nexttoken/engine/session"
	"nexttoken/engine/tracefile"
)

// jsonTrace writes a session as tracefile.JSON does, a step at a time as
// the steps are made. With vectors a step carries its full Detail.
//
// With recompute, a step also carries "recompute_max_abs_diff", the largest
// difference between its logits and those of the whole sequence run again
// without the cache, and "multiply_adds" of the step both ways; with lens
// > 0, "lens": the logit lens of the step's pass, each layer's lens most
// probable tokens.
type jsonTrace struct {
	out       tracefile.JSON
	vectors   bool
	recompute bool
	lens      int // tokens per layer of the logit lens; 0 for none

	next tracefile.Extra // what prepare read for the coming step
}

func (j *jsonTrace) wantsDetail() bool { return j.vectors }

// prepare reads the latest pass, whose logits step i samples from: its
// logit lens, and the same logits recomputed without the cache.
func (j *jsonTrace) prepare(s *session.Session, i int) error {
	j.next = tracefile.Extra{}
	if j.lens == 0 && !j.recompute {
		return nil // a --logits trace has no model to read
	}
	if j.lens > 0 {
		lens, err := s.Lens(j.lens)
		if err != nil {
			return err
		}
		j.next.Lens = lens
	}
	if !j.recompute {
		return nil
	}
	r, err := s.Recompute(i)
	if err != nil {
		return err
	}
	j.next.Recomputed = r
	return nil
}

func (j *jsonTrace) start(s *session.Session) error { return j.out.Start(s.Spec(), s.Trace()) }

func (j *jsonTrace) step(s *session.Session, i int, d *session.Detail) error {
	return j.out.Step(s.Trace(), i, d, j.next)
}

func (j *jsonTrace) end(s *session.Session) error { return j.out.End(s.Trace()) }
