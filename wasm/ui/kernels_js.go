//go:build js

package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/wasm/jsx"
)

// fetchKernels fetches, in the background, the kernel modules that m's
// formats need and the page's kernels lack (transformer.Kernels'
// MissingModules: those of formats only a model brought by the reader
// has, served in web/kernels so that the first page does not carry them).
// Until a module is in, its formats run on Go's loops, which give the same
// numbers; one that cannot be fetched leaves them there, and says why on
// the console.
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
			if err != nil {
				app.Logf("nexttoken runs Go's kernels where it needs %s: %v", module.File, err)
			}
		}
	})
}
