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
var views = []string{"all", "softmax", "kv", "tokens", "sampler"}

// renderEmbed is the compact page shown inside another page's iframe: one
// view, no header, and a link that opens the same session in the full
// playground in a new tab.
func (p *Playground) renderEmbed(step *session.Detail, index int) app.UI {
	var body []app.UI
	switch p.view {
	case "softmax":
		body = []app.UI{p.embedCards(step, index, func() []app.UI {
			return []app.UI{p.renderLogits(step, index), p.renderSoftmax(step), p.renderBars(step, index)}
		})}
	case "sampler":
		body = []app.UI{p.renderControls(), p.embedCards(step, index, func() []app.UI {
			return []app.UI{p.renderSampler(step), p.renderBars(step, index)}
		})}
	case "kv":
		body = []app.UI{p.renderControls(), p.renderKVCache()}
	case "tokens":
		body = []app.UI{p.renderStrip(), p.renderControls()}
	default:
		body = []app.UI{p.renderStrip(), p.renderControls(), p.renderStepViews(step, index), p.renderKVCache()}
	}
	return app.Main().ID("playground").Class("embed").DataSet("ready", "true").DataSet("view", p.view).
		TabIndex(-1).OnKeyDown(p.onKey).Body(
		p.renderNotice(),
		app.Div().Body(body...),
		app.P().Class("open-full").Body(
			app.A().ID("open-full").Href(p.link).Target("_blank").Attr("rel", "noopener").
				Text("Open in nexttoken ↗"),
		),
	)
}

// embedCards lays out some of a step's cards, or says the session ended.
func (p *Playground) embedCards(step *session.Detail, index int, cards func() []app.UI) app.UI {
	if step == nil {
		return p.renderStepViews(nil, index)
	}
	return app.Div().Class("views").Body(cards()...)
}

// checkView says whether v names an embeddable view.
func checkView(v string) error {
	if !slices.Contains(views, v) {
		return errors.New("view: " + quote(v) + " is not one of " + strings.Join(views, ", "))
	}
	return nil
}
