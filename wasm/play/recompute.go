package play

import (
	"time"

	"nexttoken/engine/session"
)

// recomputeState is the cache-versus-recompute card's: the step on
// display recomputed without the cache, and the times measured so far.
type recomputeState struct {
	key     detailKey // what r or err is for
	pending bool
	r       *session.Recomputed
	err     error
	model   *Model   // the model the times were measured on
	times   []Timing // a point per position
}

// Timing is one step's time with the cache and recomputed without it.
type Timing struct {
	Pos                int
	Cached, Recomputed time.Duration
}

// refresh recomputes the step on display when the card asks for it, the
// session has a model, and Run is not stepping (it would run every
// position again for every step shown).
func (st *recomputeState) refresh(c *Controller) {
	if !c.page.Recompute || c.run.on || c.sum.Model.Typed || st.pending {
		return
	}
	key := detailKey{sum: c.sumRev, step: c.detailStep()}
	if key == st.key {
		return
	}
	st.pending = true
	c.send(Request{Op: Recompute, Step: key.step}, func(a Answer) {
		st.pending, st.key, st.r, st.err = false, key, a.Redo, a.Err
		if st.model != c.sum.Model {
			st.model, st.times = c.sum.Model, nil
		}
		if r := a.Redo; r != nil {
			st.measured(Timing{r.Pos, r.CachedTime, r.RecomputedTime})
		}
		c.rev++
		c.dirty = true
	})
}

// measured keeps the latest time measured at a position: the chart draws
// a point per position, in any order.
func (st *recomputeState) measured(t Timing) {
	for i := range st.times {
		if st.times[i].Pos == t.Pos {
			st.times[i] = t
			return
		}
	}
	st.times = append(st.times, t)
}
