//go:build js

package ui

import (
	"errors"
	"time"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/session"
	"nexttoken/wasm/jsx"
)

// prefillAfter is how long a prompt's prefill runs before the page says so.
const prefillAfter = 250 * time.Millisecond

// prefillNotice is the page's session.Progress: once a prefill has run
// prefillAfter, it shows how far it has come (prefillProgress) in a notice
// with a Stop button and lets the browser draw it, at every report (about
// every session.PrefillSlice), then takes the notice away. The prefill
// runs on the page's own thread, in go-app's handler of the action that
// opened the session, so the notice lives outside go-app's tree, written
// straight into the document: go-app draws nothing until the handler
// returns. Ending the page's task at each report (EndTask) lets it paint,
// and run a click on Stop, which stops the prefill at its next report
// (errPrefillStopped): the session is not opened, and the one before
// stays.
func prefillNotice() session.Progress {
	var pace prefillPace
	var n prefillBox
	return func(done, total int) error {
		pace.report(done)
		if n.stopped || done == total {
			stopped := n.stopped
			n.remove()
			pace = prefillPace{} // the next prefill starts afresh
			if stopped {
				return errPrefillStopped
			}
			return nil
		}
		if !pace.shown() {
			return nil
		}
		if !jsx.Truthy(n.el) {
			n.add(func() { n.stopped = true })
		}
		_ = n.text.Set("textContent", prefillProgress(done, total, pace.rate(done)))
		EndTask()
		return nil
	}
}

// prefillPace follows a prefill's reports: when it began, and from
// which position.
type prefillPace struct {
	start      time.Time
	from, last int // the positions done at start, and at the last report
}

// report takes in a report of done positions.
func (p *prefillPace) report(done int) {
	if p.start.IsZero() || done < p.last { // a prefill's first report
		p.start, p.from = time.Now(), done
	}
	p.last = done
}

// shown reports whether the prefill has run long enough to show it
// (prefillAfter).
func (p *prefillPace) shown() bool { return time.Since(p.start) >= prefillAfter }

// rate is the positions a second since it began, done now.
func (p *prefillPace) rate(done int) float64 {
	return float64(done-p.from) / time.Since(p.start).Seconds()
}

// errPrefillStopped is the prefill's error once the reader pressed Stop.
var errPrefillStopped = errors.New("the prompt was not read: you stopped it")

// prefillBox is the prefill's notice in the document: its element, the text
// that says how far the prefill has come, and its Stop button's handler
// and whether it was pressed.
type prefillBox struct {
	el, text safejs.Value
	onStop   safejs.Func
	stopped  bool
}

// add adds the notice to the document; its Stop button calls onStop.
func (n *prefillBox) add(onStop func()) {
	doc, err := global("document")
	if err != nil {
		return
	}
	el, err := doc.Call("createElement", "div")
	if err != nil {
		return
	}
	_ = el.Set("id", "prefill-notice")
	_, _ = el.Call("setAttribute", "role", "status")
	_ = el.Set("className", "notice prefill-notice")
	text, _ := doc.Call("createElement", "span")
	_ = text.Set("className", "prefill-progress")
	stop, _ := doc.Call("createElement", "button")
	_ = stop.Set("type", "button")
	_ = stop.Set("textContent", "Stop")
	n.onStop, err = safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		onStop()
		return nil
	})
	if err == nil {
		_, err = stop.Call("addEventListener", "click", n.onStop.Value())
	}
	if err == nil {
		_, err = el.Call("append", text, " ", stop)
	}
	body, bodyErr := doc.Get("body")
	if err == nil && bodyErr == nil {
		_, err = body.Call("append", el)
	}
	if err != nil || bodyErr != nil {
		return
	}
	n.el, n.text = el, text
}

// remove takes the notice away, if it is there, and forgets Stop.
func (n *prefillBox) remove() {
	if jsx.Truthy(n.el) {
		_, _ = n.el.Call("remove")
		n.onStop.Release()
	}
	*n = prefillBox{}
}
