package ui

import (
	"html"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/link"
)

// linkWarnLength is where links start to break: chat apps and documentation
// tools cut longer ones.
const linkWarnLength = 2000

// shareURL is the address of this session in the full playground: the page's
// path and the whole state in the fragment. It is relative, so it works on
// any host and under any sub-path. Encoding compresses, so refresh computes
// it once per change into p.link rather than every render.
func (p *Playground) shareURL() string {
	frag, err := link.Encode(link.State{Spec: p.sess.Spec(), View: p.view})
	if err != nil {
		return p.path
	}
	return p.path + "#" + frag
}

// embedURL is the address of an embeddable view of this session: readable
// query parameters when they say everything (documentation writers edit
// them by hand), else the encoded state in the fragment.
func (p *Playground) embedURL(view string) string {
	base := p.path + "?embed=1&view=" + view
	if q, lossy := link.Query(link.State{Spec: p.sess.Spec()}); !lossy {
		if len(q) == 0 {
			return base
		}
		return base + "&" + q.Encode()
	}
	frag, err := link.Encode(link.State{Spec: p.sess.Spec(), View: view})
	if err != nil {
		return base
	}
	return base + "#" + frag
}

// syncAddress makes the address bar follow the session, a moment after the
// last change: a slider drag makes one update, not fifty, and the update
// stays out of the time between a click and the page showing its effect.
func (p *Playground) syncAddress() {
	if !p.live || p.embed || p.sess == nil {
		return
	}
	if p.addressTimer != nil {
		p.addressTimer.Stop()
	}
	link := p.link
	p.addressTimer = time.AfterFunc(addressDelay, func() {
		_ = replaceURL(link) // an old browser without history keeps the old address
	})
}

// addressDelay is how long the address bar waits for the session to settle.
const addressDelay = 100 * time.Millisecond

// renderShare offers the session as a link and as an embed snippet.
func (p *Playground) renderShare() app.UI {
	url := p.origin + p.link
	code := p.embedCode()
	meter := strconv.Itoa(len(url)) + " characters"
	meterClass := "meter"
	if len(url) > linkWarnLength {
		meter += ": longer than " + strconv.Itoa(linkWarnLength) + ", some chat apps and documentation tools will cut it"
		meterClass += " long"
	}
	viewOptions := make([]app.UI, len(views))
	for i, v := range views {
		viewOptions[i] = app.Option().Value(v).Text(v).Selected(v == p.embedView)
	}
	return app.Details().ID("share").Class("card share").Body(
		app.Summary().Text("Share or embed this session"),
		app.Div().Class("row").Body(
			app.Input().ID("share-url").ReadOnly(true).Value(url).Attr("aria-label", "link to this session"),
			app.Button().ID("copy-link").Text("Copy link").OnClick(p.copy(url, "link"), app.EventScope(url)),
		),
		app.P().ID("link-length").Class(meterClass).Text(meter),
		app.Div().Class("row").Body(
			app.Label().Class("field").Body(app.Span().Text("embed view"),
				app.Select().ID("embed-view").Body(viewOptions...).OnChange(func(ctx app.Context, e app.Event) {
					p.embedView = ctx.JSSrc().Get("value").String()
				})),
			app.Button().ID("copy-embed").Text("Copy embed code").OnClick(p.copy(code, "embed code"), app.EventScope(code)),
		),
		app.Textarea().ID("embed-code").ReadOnly(true).Rows(8).Text(code),
		app.P().ID("copied").Class("hint").Text(p.copied),
	)
}

// embedCode is the snippet a documentation page pastes: the iframe, and the
// few lines that let it take the height the playground reports.
func (p *Playground) embedCode() string {
	src := p.origin + p.embedURL(p.embedView)
	return `<iframe src="` + html.EscapeString(src) + `" title="nexttoken: ` + p.embedView + `" style="width:100%;border:0" height="480" loading="lazy"></iframe>
<script>
// nexttoken embeds report their height; size each iframe to fit.
addEventListener("message", (e) => {
  if (!e.data || e.data.context !== "iframe.resize") return;
  for (const f of document.querySelectorAll("iframe"))
    if (f.contentWindow === e.source) f.style.height = e.data.height + "px";
});
</script>`
}

func (p *Playground) copy(text, what string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if err := copyText(text); err != nil {
			p.copied = "Could not copy the " + what + " (" + err.Error() + "): select it above and copy it by hand."
			return
		}
		p.copied = "Copied the " + what + "."
	}
}
