package play

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// runState is Run's: how many steps a Run takes, and while it runs, how
// many are left and when the page began drawing the last batch.
type runState struct {
	on    bool
	n     int
	left  int
	drawn time.Time
	out   bool // a batch is out, and the page may draw the one before meanwhile
}

// DefaultRunSteps is how many steps Run takes unless the reader says.
const DefaultRunSteps = 16

// MaxRun is the most steps one Run takes.
const MaxRun = 4096

// Run steps back to back for a budget, then lets the page draw the newest
// step. The budget is at least runBudget and follows what the last
// drawing took, up to runBudgetMax: when drawing is slow the engine still
// gets half the time, and Stop is read within a tenth of a second.
const (
	runBudget    = 10 * time.Millisecond
	runBudgetMax = 100 * time.Millisecond
)

// Run starts taking the run's steps, one batch an animation frame, or
// stops a run under way. A whole run is one action for Undo. Stop takes
// effect at once, even while a batch is out: that batch is the run's
// last, and its steps are shown when it is answered.
func (c *Controller) Run() {
	if c.run.on {
		c.run.on = false
		c.changed()
		return
	}
	c.flushPrompt()
	c.do("", func() {
		if c.run.on { // a second press that waited for the first
			c.run.on = false
			c.changed()
			return
		}
		if c.sum == nil || c.sum.Next == nil {
			return
		}
		c.remember(c.entry())
		c.clearMessages()
		c.run.on, c.run.left, c.run.drawn = true, c.run.n, time.Time{}
		c.batch()
	})
}

// Running reports whether a run is under way.
func (c *Controller) Running() bool { return c.run.on }

// batch takes steps for the budget, shows the newest, and asks for the
// next batch at the next animation frame, so that the browser paints each
// frame once, between batches, and Stop is read before the next batch.
func (c *Controller) batch() {
	if !c.run.on {
		return
	}
	budget := runBudget
	if !c.run.drawn.IsZero() {
		budget = min(max(budget, c.host.Now().Sub(c.run.drawn)), runBudgetMax)
	}
	r := Request{Op: Step, N: c.run.left, Budget: budget}
	asked := c.askShown(&r)
	c.run.out = true
	c.send(r, func(a Answer) {
		c.run.out = false
		c.take(a.Session)
		c.run.left -= a.Stepped
		if a.Err != nil {
			c.run.on = false
			c.fail("", a.Err)
			return
		}
		c.shown = c.sum.Steps()
		c.takeShown(asked, a)
		if c.run.left <= 0 || c.sum.Next == nil {
			c.run.on = false
		}
		c.changed()
		if !c.run.on {
			return
		}
		c.run.drawn = c.host.Now()
		if concurrent(c.eng) {
			// The engine runs the next batch while the page draws this one.
			c.do("run", c.batch)
			return
		}
		c.host.Frame(func() { c.do("run", c.batch) })
	})
}

// concurrent reports whether eng works on a thread of its own, so that
// the page draws while it runs (Concurrent).
func concurrent(eng Engine) bool {
	c, ok := eng.(interface{ Concurrent() bool })
	return ok && c.Concurrent()
}

// SetRunSteps sets how many steps Run takes, from a number field.
func (c *Controller) SetRunSteps(text string) {
	c.do("", func() {
		n, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil || n < 1 || n > MaxRun {
			c.fail(FieldRun, errors.New("Run takes a whole number of steps from 1 to "+strconv.Itoa(MaxRun)))
			return
		}
		c.run.n = n
		if c.field.Field == FieldRun {
			c.field = FieldError{}
		}
		c.changed()
	})
}
