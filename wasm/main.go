// Command wasm is the nexttoken playground as a browser program: build it
// with GOOS=js GOARCH=wasm into web/app.wasm (make web/app.wasm). The same
// components are prerendered by the server (cmd/nexttoken serve).
package main

import (
	"runtime/debug"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/ui"
)

func main() {
	if ui.InEngineWorker() {
		ui.ServeEngineWorker() // the engine's worker: the page runs in another instance
		return
	}
	ui.MarkStart()
	// Go's collector in WebAssembly has no threads: every collection stops
	// the page. Each interaction allocates a new view tree; collecting a
	// quarter as often keeps pauses out of most interactions for a few MB
	// more memory (make timing measures it).
	debug.SetGCPercent(400)
	ui.TakeOverSteps()
	ui.RepairAddress()
	// The runtime's and the packages' start, the kernels' and go-app's
	// each hold the page's thread tens of milliseconds: each is a task of
	// its own, so that the browser can paint and read the reader's input
	// between them.
	ui.EndTask()
	ui.RegisterWith(engine())
	ui.EndTask()
	app.RunWhenOnBrowser()
}
