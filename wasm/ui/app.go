// Package ui is the nexttoken playground: go-app components over the engine's
// session traces. Everything shown comes from the engine; the components only
// lay it out. It builds natively too, so the server can prerender pages.
package ui

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// Register routes every page of the playground. Call it before
// app.RunWhenOnBrowser in the browser, and before serving Handler.
func Register() {
	playground := func() app.Composer { return &Playground{} }
	app.Route("/", playground)
	// A static host serves the exported page at /index.html too.
	app.Route("/index.html", playground)
}

// Handler is the go-app handler that serves the playground's pages.
func Handler() *app.Handler {
	return &app.Handler{
		Name:         "nexttoken",
		ShortName:    "nexttoken",
		Title:        "nexttoken — watch a language model choose the next token",
		Description:  "A playground that shows every step of autoregressive decoding: logits, softmax, sampling and the KV cache.",
		Icon:         app.Icon{Default: "/web/icon.png", SVG: "/web/icon.svg"},
		Image:        "/web/icon.png",
		Styles:       []string{"/web/app.css"},
		LoadingLabel: "Loading the playground…",
		ThemeColor:   "#1f2937",
	}
}
