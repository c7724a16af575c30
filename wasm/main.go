// Command wasm is the nexttoken playground as a browser program: build it
// with GOOS=js GOARCH=wasm into web/app.wasm (make web/app.wasm). The same
// components are prerendered by the server (cmd/nexttoken serve).
package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/ui"
)

func main() {
	ui.Register()
	ui.RepairAddress()
	app.RunWhenOnBrowser()
}
