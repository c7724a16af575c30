package play

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tracefile"
)

// Exporting is an export of the session's trace as Snapshot shows it:
// under way, or what came of the last one.
type Exporting struct {
	Format  tracefile.Format
	Name    string // the file's name
	Steps   int    // the steps it holds
	On      bool   // it is being written
	Message string // once it is over: what was saved, or why not
	Failed  bool   // Message says why not
}

// exportState is ExportTrace's.
type exportState struct {
	Exporting
	w   *tracefile.Writer
	buf bytes.Buffer
}

// exportBudget is how long an export writes before it lets the page
// paint: a frame's share.
const exportBudget = 8 * time.Millisecond

// exportBatch is how many steps an export writes between two looks at
// the clock.
const exportBatch = 25

// ExportTrace writes the session's steps taken as a file of format f, as
// `nexttoken trace --json` writes them (package tracefile), and hands it
// to the page to save (Host.Save). A long session is written a batch an
// animation frame, from a copy of the steps taken when it began, so that
// the page stays responsive and the session may go on meanwhile. It is
// not an action for Undo; an export asked for while one is under way
// replaces it.
func (c *Controller) ExportTrace(f tracefile.Format) {
	c.do("", func() {
		c.export = nil
		if c.sum == nil {
			c.exportDone(&exportState{Exporting: Exporting{Format: f}}, errors.New("there is no session to export yet"))
			return
		}
		e, err := newExport(c.sum, f)
		if err != nil {
			c.exportDone(&exportState{Exporting: Exporting{Format: f}}, err)
			return
		}
		// The page draws that the export began, and then not until it
		// ends: drawing a long session's page again costs more than all
		// the batches between.
		c.export = e
		c.changed()
		c.exportBatch(e)
	})
}

// newExport starts writing sum's trace. The copies stay as they are while
// the session goes on: a step's own lists are never changed once it is
// recorded.
func newExport(sum *Summary, f tracefile.Format) (*exportState, error) {
	spec := sum.Spec
	spec.Changes = slices.Clone(spec.Changes)
	tr := asTraced(sum.Trace)
	e := &exportState{Exporting: Exporting{Format: f, Name: exportName(spec.Model, len(tr.Steps), f), Steps: len(tr.Steps), On: true}}
	var err error
	e.w, err = tracefile.NewWriter(f, &e.buf, spec, &tr)
	return e, err
}

// asTraced is a copy of tr as trace prints it: the page keeps more
// candidates a step (Alternatives, for the popover) than trace lists by
// default, and the file lists trace's, so that trace --json of the
// session's link prints the same bytes.
func asTraced(tr *session.Trace) session.Trace {
	c := *tr
	c.Prompt, c.Steps = slices.Clone(tr.Prompt), slices.Clone(tr.Steps)
	for i := range c.Steps {
		c.Steps[i].Top = c.Steps[i].Top[:min(len(c.Steps[i].Top), session.DefaultTop)]
	}
	return c
}

// exportBatch writes e for the budget, then at the next animation frame
// again, until it is whole.
func (c *Controller) exportBatch(e *exportState) {
	if c.export != e {
		return // replaced by a newer export
	}
	start := c.host.Now()
	for {
		done, err := e.w.Write(exportBatch)
		if done || err != nil {
			if err == nil {
				err = c.host.Save(e.Name, e.Format.MediaType(), e.buf.Bytes())
			}
			c.exportDone(e, err)
			return
		}
		if c.host.Now().Sub(start) >= exportBudget {
			break
		}
	}
	c.host.Frame(func() { c.exportBatch(e) })
}

// exportDone ends export e and says what came of it.
func (c *Controller) exportDone(e *exportState, err error) {
	e.On, e.w, e.Failed = false, nil, err != nil
	if err != nil {
		e.Message = "Could not export the trace: " + Words(err)
	} else {
		e.Message = "Saved " + e.Name + ": " + plural(e.Steps, "step") + ", " + plural(e.buf.Len(), "byte") + "."
	}
	e.buf = bytes.Buffer{}
	c.export = e
	c.changed()
}

// plural is n, its digits grouped, and the word, with an s unless n is 1.
func plural(n int, word string) string {
	if n != 1 {
		word += "s"
	}
	return sampler.Readable(float64(n)) + " " + word
}

// exportName is the file name of a trace of model's steps: the model's
// name without its folders, in letters, digits, '.', '-' and '_'.
func exportName(model string, steps int, f tracefile.Format) string {
	model = model[strings.LastIndexAny(model, `/\`)+1:]
	model = strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, model)
	if model = strings.Trim(model, ".-"); model == "" {
		model = "session"
	}
	word := "-steps."
	if steps == 1 {
		word = "-step."
	}
	return "nexttoken-" + model + "-" + strconv.Itoa(steps) + word + string(f)
}
