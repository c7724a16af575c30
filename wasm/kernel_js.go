//go:build js

package main

import (
	"net/url"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/session"
)

// engine loads the engine's WebAssembly SIMD kernels, unless the address
// asks for Go's loops with simd=0 (to compare, or to step around a broken
// engine), and says on the page's root element which kernels run,
// data-kernel="SIMD" or "Go", and, when the SIMD kernels did not load,
// why: data-kernel-error, and on the console. The program chooses its
// engine; the views only show traces. Call it after ui.RepairAddress.
func engine() session.Options {
	var opts session.Options
	var loadErr error
	if !addressAsksForGo() {
		opts, loadErr = session.LoadSIMD()
	}
	root, err := safejs.Global().Get("document")
	if err == nil {
		root, err = root.Get("documentElement")
	}
	if err != nil {
		return opts
	}
	_, _ = root.Call("setAttribute", "data-kernel", opts.KernelName())
	if loadErr != nil {
		_, _ = root.Call("setAttribute", "data-kernel-error", loadErr.Error())
		if console, err := safejs.Global().Get("console"); err == nil {
			_, _ = console.Call("warn", "nexttoken runs Go's kernels: "+loadErr.Error())
		}
	}
	return opts
}

// addressAsksForGo reports whether the page's address says simd=0.
func addressAsksForGo() bool {
	loc, err := safejs.Global().Get("location")
	if err != nil {
		return false
	}
	href, err := loc.Get("href")
	if err != nil {
		return false
	}
	s, err := href.String()
	if err != nil {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Query().Get("simd") == "0"
}
