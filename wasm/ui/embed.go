package ui

import (
	"errors"
	"slices"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
)

// views are the parts of the playground a documentation page can embed
// alone (?embed=1&view=…); "all" is everything but the page header.
var views = []string{"all", "softmax", "kv", "tokens", "sampler", "compare", "tree", "timeline"}

// themes are the colour schemes an embed can ask for (?theme=…): auto
// follows the reader's system, which a light blog on a dark system may not
// want.
var themes = []string{"auto", "light", "dark"}

// renderEmbed is the compact page shown inside another page's iframe: one
// view, no header, and a link that opens the same session in the full
// playground in a new tab.
func (p *Playground) renderEmbed() app.UI {
	var d *session.Detail
	if p.view != "tokens" && p.view != "tree" && p.view != "timeline" { // the views that show no step's detail
		d = p.shown()
	}
	cards := func(views ...func(*session.Detail) app.UI) app.UI {
		if d == nil {
			return p.ended()
		}
		body := make([]app.UI, len(views))
		for i, v := range views {
			body[i] = v(d)
		}
		return app.Div().Class("views").Body(body...)
	}
	var body []app.UI
	switch p.view {
	case "softmax":
		body = []app.UI{cards(p.logitsCard, p.softmaxCard, p.barsCard)}
	case "sampler":
		body = []app.UI{p.controls(), cards(p.samplerCard, p.barsCard)}
	case "compare":
		body = []app.UI{p.controls(), cards(p.compareCard)}
	case "kv":
		body = []app.UI{p.controls(), p.kvCard(d)}
	case "tokens":
		body = []app.UI{p.strip(), p.controls()}
	case "tree":
		body = []app.UI{p.strip(), p.controls(), p.treeCard()}
	case "timeline":
		body = []app.UI{p.controls(), p.timeline()}
	default:
		body = []app.UI{p.strip(), p.controls(), p.stepViews(d), p.kvCard(d)}
	}
	return app.Main().ID("playground").Class("embed").DataSet("ready", p.ready()).DataSet("view", p.view).
		DataSet("theme", p.theme).TabIndex(-1).OnKeyDown(p.onKey).Body(
		p.renderNotice(),
		p.loadingBanner(),
		p.filesBanner(),
		app.Div().Body(body...),
		app.P().Class("open-full").Body(
			app.A().ID("open-full").Href(p.link).Target("_blank").Attr("rel", "noopener").
				Text("Open in nexttoken ↗"),
		),
	)
}

// checkView says whether v names an embeddable view.
func checkView(v string) error {
	if !slices.Contains(views, v) {
		return errors.New("view: " + quote(v) + " is not one of " + strings.Join(views, ", "))
	}
	return nil
}

// checkTheme says whether t names a theme.
func checkTheme(t string) error {
	if !slices.Contains(themes, t) {
		return errors.New("theme: " + quote(t) + " is not one of " + strings.Join(themes, ", "))
	}
	return nil
}
