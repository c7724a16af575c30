package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/play"
)

// renderEmbed is the compact page shown inside another page's iframe: one
// view, no header, and a link that opens the same session in the full
// playground in a new tab.
func (p *Playground) renderEmbed(s play.Snapshot) app.UI {
	if s.Page.EmbedError != "" {
		return p.embedPage(s, app.P().ID("embed-error").Class("notice").Attr("role", "alert").Text(s.Page.EmbedError))
	}
	d := shownDetail(s)
	step := func(build func() []app.UI) app.UI {
		if d == nil {
			return ended(s, p.ctl)
		}
		return app.Div().Class("views").Body(build()...)
	}
	var body []app.UI
	if stop := s.Page.TourStop(); stop != nil {
		// A stop of the tour: its words and its cards.
		body = []app.UI{tourCard(s, p.ctl), step(func() []app.UI { return p.cards(s, stop.Cards) })}
		return p.embedPage(s, notice(s), p.loadingBanner(), p.filesBanner(), app.Div().Body(body...))
	}
	switch s.Page.View {
	case "softmax":
		body = []app.UI{step(func() []app.UI {
			return []app.UI{logitsCard(s, p.board, p.ctl), softmaxCard(p.board), barsCard(p.board, p.ctl)}
		})}
	case "sampler":
		body = []app.UI{controls(s, p.ctl, p.board), step(func() []app.UI { return []app.UI{samplerCard(s, p.board, p.ctl), barsCard(p.board, p.ctl)} })}
	case "compare":
		body = []app.UI{controls(s, p.ctl, p.board), step(func() []app.UI { return []app.UI{compareCard(s, d, p.ctl)} })}
	case "kv":
		body = []app.UI{controls(s, p.ctl, p.board), kvCard(s, p.board, p.ctl)}
	case "tokens":
		body = []app.UI{p.strip(s), controls(s, p.ctl, p.board)}
	case "tree":
		body = []app.UI{p.strip(s), controls(s, p.ctl, p.board), treeCard(s, p.ctl, true)}
	case "timeline":
		body = []app.UI{controls(s, p.ctl, p.board), &Timeline{Board: p.board, Do: p.ctl, Vocab: len(s.Model().Names)}}
	default:
		body = []app.UI{p.strip(s), controls(s, p.ctl, p.board), stepViews(s, p.ctl, p.board), kvCard(s, p.board, p.ctl)}
	}
	return p.embedPage(s, notice(s), p.loadingBanner(), p.filesBanner(), app.Div().Body(body...))
}

// embedPage is an embed's page around content: the content, then the link
// that opens the session in the full playground.
func (p *Playground) embedPage(s play.Snapshot, content ...app.UI) app.UI {
	return app.Main().ID("playground").Class("embed").DataSet("ready", p.ready()).DataSet("drawn", p.changes).DataSet("view", s.Page.View).
		DataSet("theme", s.Page.Theme).TabIndex(-1).OnKeyDown(p.onKey).Body(
		append(content, app.P().Class("open-full").Body(
			app.A().ID("open-full").Href(p.ctl.ShareLink()).Target("_blank").Attr("rel", "noopener").
				Text("Open in nexttoken ↗"),
		), p.readyMark())...,
	)
}

// cards are the step's cards of the ids given, in their order, for an
// embed of a tour's stop.
func (p *Playground) cards(s play.Snapshot, ids []string) []app.UI {
	var cards []app.UI
	for _, id := range ids {
		switch id {
		case "hidden":
			cards = append(cards, hiddenCard(s, p.board))
		case "logits":
			cards = append(cards, logitsCard(s, p.board, p.ctl))
		case "softmax":
			cards = append(cards, softmaxCard(p.board))
		case "bars":
			cards = append(cards, barsCard(p.board, p.ctl))
		case "sampler":
			cards = append(cards, samplerCard(s, p.board, p.ctl))
		case "kv":
			cards = append(cards, kvCard(s, p.board, p.ctl))
		}
	}
	return cards
}
