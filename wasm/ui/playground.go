package ui

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// Playground is the whole page. (Skeleton: views come next.)
type Playground struct {
	app.Compo
	ready bool
}

// OnMount marks the page as running in the browser, so tests can tell a
// live page from the server's prerendered copy.
func (p *Playground) OnMount(ctx app.Context) {
	p.ready = true
}

func (p *Playground) Render() app.UI {
	ready := "false"
	if p.ready {
		ready = "true"
	}
	return app.Main().ID("playground").DataSet("ready", ready).Body(
		app.H1().Text("nexttoken"),
	)
}
