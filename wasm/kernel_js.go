//go:build js

package main

import (
	"net/url"
	"strconv"
	"time"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
	"nexttoken/wasm/ui"
)

// engine loads the engine's WebAssembly SIMD kernels, unless the address
// asks for Go's loops with simd=0 (to compare, or to step around a broken
// engine), and says on the page's root element which kernels run,
// data-kernel="SIMD" or "Go", and, when the SIMD kernels did not load,
// why: data-kernel-error, and on the console. The program chooses its
// engine; the views only show traces. Call it after ui.RepairAddress.
//
// On the page of a link with threads=N, N ≥ 2 (play.ThreadsAsked), which
// the server makes cross-origin isolated and whose program runs on a
// shared memory (web/shared/app.wasm), the kernels' products run on N
// threads once the page is painted and web/kernel-threads.js is in. The
// root says how many once they run, data-threads, and why not when they
// cannot, data-threads-error.
func engine() session.Options {
	var opts session.Options
	var loadErr error
	rawQuery := address()
	query, _ := url.ParseQuery(rawQuery)
	if query.Get("simd") != "0" {
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
		return opts
	}
	n := play.ThreadsAsked(rawQuery)
	if n < 2 || !opts.Kernels.Shared() {
		return opts
	}
	go func() {
		// The threads start once the page is live and painted: their
		// script, their workers and their kernels would take the cores
		// the page's start needs, and until a reader's model opens no
		// product is large enough to split.
		for !painted() {
			time.Sleep(20 * time.Millisecond)
		}
		if err := ui.StartThreads(opts, "/web/kernel-threads.js", n); err != nil {
			_, _ = root.Call("setAttribute", "data-threads-error", err.Error())
			return
		}
		_, _ = root.Call("setAttribute", "data-threads", strconv.Itoa(n))
	}()
	return opts
}

// painted reports whether the live page is painted (its root's
// data-painted, web/boot.js).
func painted() bool {
	doc, err := safejs.Global().Get("document")
	if err != nil {
		return false
	}
	root, err := doc.Call("querySelector", "#playground[data-painted]")
	if err != nil {
		return false
	}
	ok, err := root.Truthy()
	return err == nil && ok
}

// address is the page's address's query, without its "?".
func address() string {
	loc, err := safejs.Global().Get("location")
	if err != nil {
		return ""
	}
	search, err := loc.Get("search")
	if err != nil {
		return ""
	}
	s, err := search.String()
	if err != nil || s == "" {
		return ""
	}
	return s[1:]
}
