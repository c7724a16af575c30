//go:build js

package ui

import (
	"github.com/hack-pad/safejs"
)

// What the hot views wrote last, by element id and kind of write: a write
// of the same value to the same element is skipped, so that a view that
// did not change costs the browser nothing. (The page's security policy
// allows no eval, so the writes are plain calls, not one script.)
var (
	document  safejs.Value
	lastPaint = map[string]paintedValue{}
)

type paintedValue struct {
	el safejs.Value
	v  any
}

func init() {
	document, _ = safejs.Global().Get("document")
}

// paintTo writes v to the element with the given id with write, unless the
// last write of kind to that very element wrote v.
func paintTo(id, kind string, v any, write func(el safejs.Value) error) {
	el, err := document.Call("getElementById", id)
	if err != nil || el.IsNull() || el.IsUndefined() {
		return
	}
	key := id + " " + kind
	if last, ok := lastPaint[key]; ok && last.v == v && el.Equal(last.el) {
		return
	}
	if write(el) == nil {
		lastPaint[key] = paintedValue{el, v}
	}
}

// setHTML makes html the content of the element with the given id.
func setHTML(id, html string) {
	paintTo(id, "html", html, func(el safejs.Value) error { return el.Set("innerHTML", html) })
}

// setStyle makes css the inline style of the element with the given id.
func setStyle(id, css string) {
	paintTo(id, "style", css, func(el safejs.Value) error {
		style, err := el.Get("style")
		if err != nil {
			return err
		}
		return style.Set("cssText", css)
	})
}

// setVisible shows or hides the element with the given id.
func setVisible(id string, visible bool) {
	paintTo(id, "hidden", visible, func(el safejs.Value) error { return el.Set("hidden", !visible) })
}

// setDisabled enables or disables the control with the given id.
func setDisabled(id string, disabled bool) {
	paintTo(id, "disabled", disabled, func(el safejs.Value) error { return el.Set("disabled", disabled) })
}

// setAttr sets an attribute of the element with the given id.
func setAttr(id, name, value string) {
	paintTo(id, "attr "+name, value, func(el safejs.Value) error {
		_, err := el.Call("setAttribute", name, value)
		return err
	})
}
