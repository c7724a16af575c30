package tracefile

import (
	"fmt"
	"io"

	"nexttoken/engine/session"
)

// Format is a file format of a trace, named by its file name's extension.
type Format string

// The formats.
const (
	JSONFile Format = "json" // WriteJSON's
	CSVFile  Format = "csv"  // WriteCSV's
)

// Formats are the formats, in the order a page offers them.
var Formats = []Format{JSONFile, CSVFile}

// MediaType is the format's media type, for a download.
func (f Format) MediaType() string {
	if f == CSVFile {
		return "text/csv"
	}
	return "application/json"
}

// Writer writes the steps taken of a trace a batch at a time (Write), so
// that a long trace is written in pieces between which a page stays
// responsive: the same bytes as WriteJSON or WriteCSV, which it writes.
type Writer struct {
	steps int
	start func() error
	step  func(i int) error
	end   func() error // nil when nothing follows the steps
	next  int          // the steps written
	begun bool
	done  bool
}

// NewWriter writes trace t of spec to w in format f. The trace must not
// change until the Writer is done.
func NewWriter(f Format, w io.Writer, spec session.Spec, t *session.Trace) (*Writer, error) {
	wr := &Writer{steps: len(t.Steps)}
	switch f {
	case JSONFile:
		j := JSON{W: w}
		wr.start = func() error { return j.Start(spec, t) }
		wr.step = func(i int) error { return j.Step(t, i, nil, Extra{}) }
		wr.end = func() error { return j.End(t) }
	case CSVFile:
		c := newCSV(w, spec, t)
		wr.start, wr.step = c.header, c.step
	default:
		return nil, fmt.Errorf("no trace format %q: want json or csv", f)
	}
	return wr, nil
}

// Write writes up to n more steps, the start before the first and the end
// after the last, and reports whether the trace is written whole.
func (w *Writer) Write(n int) (done bool, err error) {
	if w.done {
		return true, nil
	}
	if !w.begun {
		if err := w.start(); err != nil {
			return false, err
		}
		w.begun = true
	}
	for ; n > 0 && w.next < w.steps; n-- {
		if err := w.step(w.next); err != nil {
			return false, err
		}
		w.next++
	}
	if w.next < w.steps {
		return false, nil
	}
	if w.end != nil {
		if err := w.end(); err != nil {
			return false, err
		}
	}
	w.done = true
	return true, nil
}

// writeAll writes the trace at once.
func writeAll(f Format, w io.Writer, spec session.Spec, t *session.Trace) error {
	wr, err := NewWriter(f, w, spec, t)
	if err != nil {
		return err
	}
	_, err = wr.Write(len(t.Steps))
	return err
}
