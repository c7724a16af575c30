//go:build js

package ui

import (
	"syscall/js"
	"time"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/session"
	"nexttoken/wasm/jsx"
)

// fetchKernels fetches, in the background, the kernel modules that m's
// formats need and the page's kernels lack (addKernels). The root element
// says how each module went, as it says which kernels run (data-kernel):
// data-module-q5_k.wasm="" for q5_k.wasm added, or why not, when it could
// not be fetched or is not this build's (its formats then stay on Go's
// loops).
func (p *Playground) fetchKernels(m *session.Model) {
	base := p.ctx.ResolveStaticResource("/web/kernels") + "/"
	p.ctx.Async(func() {
		addKernels(p.engine, m, base, func(attr, said string) {
			// A page always has its root element: syscall/js's calls, which
			// panic on a missing one, cost the first page less than safejs's.
			js.Global().Get("document").Get("documentElement").Call("setAttribute", attr, said)
		})
	})
}

// addKernels fetches from base the kernel modules that m's formats need
// and the kernels opts computes with lack (their MissingModules: those of formats
// only a model brought by the reader has, served in web/kernels so that
// the first page does not carry them), and adds them. Until a module is
// in, its formats run on Go's loops, which give the same numbers. It says
// how each went: attribute data-module-FILE, "" for added, or why not. It
// blocks: call it from a goroutine of its own.
func addKernels(opts session.Options, m *session.Model, base string, say func(attr, said string)) {
	kernels := opts.Kernels
	for _, module := range kernels.MissingModules(m.Checkpoint) {
		bytes, err := jsx.Fetch(base + module.Address)
		if err == nil {
			err = kernels.AddModule(module.File, bytes)
		}
		said := "" // added
		if err != nil {
			said = err.Error()
		}
		say("data-module-"+module.File, said)
	}
}

// StartThreads runs the products of the kernels opts computes with on n
// threads, once it has loaded script (web/kernel-threads.js), and returns
// when they all run. It blocks: call it from a goroutine of its own.
func StartThreads(opts session.Options, script string, n int) error {
	_, err := jsx.Await(safejs.Global().Call("nexttokenScript", script))
	if err == nil {
		err = opts.Kernels.StartThreads(n)
	}
	if err != nil {
		return err
	}
	for opts.Kernels.Threads() < n {
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}
