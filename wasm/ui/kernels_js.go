//go:build js

package ui

import (
	"syscall/js"

	"nexttoken/engine/session"
	"nexttoken/wasm/jsx"
)

// fetchKernels fetches, in the background, the kernel modules that m's
// formats need and the page's kernels lack (transformer.Kernels'
// MissingModules: those of formats only a model brought by the reader
// has, served in web/kernels so that the first page does not carry them).
// Until a module is in, its formats run on Go's loops, which give the same
// numbers. The root element says how each module went, as it says which
// kernels run (data-kernel): data-module-q5_k.wasm="" for q5_k.wasm added,
// or why not, when it could not be fetched or is not this build's (its
// formats then stay on Go's loops).
func (p *Playground) fetchKernels(m *session.Model) {
	kernels := p.engine.Kernels
	missing := kernels.MissingModules(m.Checkpoint)
	if len(missing) == 0 {
		return
	}
	urls := make([]string, len(missing))
	for i, module := range missing {
		urls[i] = p.ctx.ResolveStaticResource("/web/kernels/" + module.Address)
	}
	p.ctx.Async(func() {
		for i, module := range missing {
			bytes, err := jsx.Fetch(urls[i])
			if err == nil {
				err = kernels.AddModule(module.File, bytes)
			}
			said := "" // added
			if err != nil {
				said = err.Error()
			}
			// A page always has its root element: syscall/js's calls, which
			// panic on a missing one, cost the first page less than safejs's.
			js.Global().Get("document").Get("documentElement").Call("setAttribute", "data-module-"+module.File, said)
		}
	})
}
