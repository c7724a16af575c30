//go:build js

package ui

import "github.com/hack-pad/safejs"

// focusPlayground gives the page the keyboard focus, so the shortcuts work
// before the user has clicked anything. A failure only costs that.
func focusPlayground() {
	doc, err := safejs.Global().Get("document")
	if err != nil {
		return
	}
	el, err := doc.Call("getElementById", "playground")
	if err != nil || el.IsNull() {
		return
	}
	_, _ = el.Call("focus")
}
