//go:build js

package ui

import (
	"time"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/session"
	"nexttoken/wasm/jsx"
)

// prefillAfter is how long a prompt's prefill runs before the page says so.
const prefillAfter = 250 * time.Millisecond

// prefillNotice is the page's session.Progress: once a prefill has run
// prefillAfter, it shows how far it has come (prefillProgress) in a notice and lets the
// browser draw it, after every chunk, then takes the notice away. The
// prefill runs on the page's own thread, in go-app's handler of the action
// that opened the session, so the notice lives outside go-app's tree,
// written straight into the document: go-app draws nothing until the
// handler returns. Pausing a millisecond a chunk lets the browser paint.
func prefillNotice() session.Progress {
	var start time.Time
	var from int // the positions done at start
	var notice safejs.Value
	return func(done, total int) error {
		if done <= session.PrefillChunk {
			start, from = time.Now(), done
		}
		if done == total {
			if jsx.Truthy(notice) {
				_, _ = notice.Call("remove")
				notice = safejs.Undefined()
			}
			return nil
		}
		if time.Since(start) < prefillAfter {
			return nil
		}
		if !jsx.Truthy(notice) {
			notice = newNotice()
		}
		_ = notice.Set("textContent", prefillProgress(done, total, float64(done-from)/time.Since(start).Seconds()))
		time.Sleep(time.Millisecond)
		return nil
	}
}

// newNotice adds the prefill's notice to the document.
func newNotice() safejs.Value {
	doc, err := global("document")
	if err != nil {
		return safejs.Undefined()
	}
	el, err := doc.Call("createElement", "div")
	if err != nil {
		return safejs.Undefined()
	}
	_ = el.Set("id", "prefill-notice")
	_, _ = el.Call("setAttribute", "role", "status")
	_ = el.Set("className", "notice prefill-notice")
	body, err := doc.Get("body")
	if err == nil {
		_, err = body.Call("append", el)
	}
	if err != nil {
		return safejs.Undefined()
	}
	return el
}
