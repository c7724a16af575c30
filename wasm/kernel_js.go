//go:build js

package main

import (
	"net/url"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/transformer"
)

// chooseKernel turns the engine's SIMD kernel off when the address asks
// for it with simd=0 (to compare, or to step around a broken engine), and
// names the kernel in use on the page's root element, data-kernel="SIMD"
// or "Go". The program chooses its engine; the views only show traces.
// Call it after ui.RepairAddress.
func chooseKernel() {
	loc, err := safejs.Global().Get("location")
	if err != nil {
		return
	}
	href, err := loc.Get("href")
	if err != nil {
		return
	}
	s, err := href.String()
	if err != nil {
		return
	}
	if u, err := url.Parse(s); err == nil && u.Query().Get("simd") == "0" {
		transformer.DisableSIMD()
	}
	doc, err := safejs.Global().Get("document")
	if err != nil {
		return
	}
	root, err := doc.Get("documentElement")
	if err != nil {
		return
	}
	_, _ = root.Call("setAttribute", "data-kernel", transformer.Kernel())
}
