package ui

import (
	"html"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// linkWarnLength is where links start to break: chat apps and documentation
// tools cut longer ones.
const linkWarnLength = 2000

// Share offers the session as a link and as an embed snippet.
type Share struct {
	app.Compo

	Spec         session.Spec
	View         string           // the view the page shows
	Compare      play.CompareLink // the compare card's choices, for the compare view's embed
	Origin, Path string
	Link         string // the session's share URL, relative

	embedView string         // the view the embed code shows
	open      bool           // the panel is open: the embed is previewed
	heights   map[string]int // each view's height, as its preview reported it
	copied    string         // what the last copy button did
	url, code string         // the link and the embed code on display
	stop      func()         // stops listening to the preview
}

// OnMount listens to the preview's height reports, so that the copied
// snippet starts at the height the view really has.
func (s *Share) OnMount(ctx app.Context) {
	stop, err := onFrameHeight("embed-preview", func(height int) {
		ctx.Dispatch(func(app.Context) {
			if s.heights == nil {
				s.heights = map[string]int{}
			}
			s.heights[s.embedView] = height
		})
	})
	if err == nil {
		s.stop = stop
	}
}

func (s *Share) OnDismount() {
	if s.stop != nil {
		s.stop()
	}
}

func (s *Share) Render() app.UI {
	if s.embedView == "" {
		s.embedView = "softmax"
	}
	url := s.Origin + s.Link
	// The embed's code is written when the panel is open: a step would
	// otherwise write it for nobody.
	var src, code string
	if s.open {
		src = play.EmbedLink(s.Path, s.Spec, s.embedView, s.Compare)
		code = embedCode(s.Origin+src, s.embedView, s.heights[s.embedView])
	}
	s.url, s.code = url, code
	meter := strconv.Itoa(len(url)) + " characters"
	meterClass := "meter"
	if len(url) > linkWarnLength {
		meter += ": longer than " + strconv.Itoa(linkWarnLength) + ", some chat apps and documentation tools will cut it"
		meterClass += " long"
	}
	viewOptions := make([]app.UI, len(play.Views))
	for i, v := range play.Views {
		viewOptions[i] = option(v, v, v == s.embedView)
	}
	var preview app.UI = app.Text("")
	if s.open {
		height := s.heights[s.embedView]
		if height <= 0 {
			height = defaultEmbedHeight
		}
		preview = app.Div().Class("preview").Body(
			app.P().Class("hint").Text("Preview of the embed, at this panel's width; the snippet takes the height it reports."),
			app.IFrame().ID("embed-preview").Src(src).Title("preview of the embed").Style("height", itoa(height)+"px"),
		)
	}
	return app.Details().ID("share").Class("card share").OnToggle(s.onToggle).Body(
		app.Summary().Text("Share or embed this session"),
		app.Div().Class("row").Body(
			app.Input().ID("share-url").ReadOnly(true).Value(url).Attr("aria-label", "link to this session"),
			app.Button().ID("copy-link").Text("Copy link").OnClick(s.copyLink),
		),
		app.P().ID("link-length").Class(meterClass).Text(meter),
		app.Div().Class("row").Body(
			app.Label().Class("field").Body(app.Span().Text("embed view"),
				app.Select().ID("embed-view").Body(viewOptions...).OnChange(s.onEmbedView)),
			app.Button().ID("copy-embed").Text("Copy embed code").OnClick(s.copyEmbed),
		),
		app.Textarea().ID("embed-code").ReadOnly(true).Rows(8).Text(code),
		app.P().ID("copied").Class("hint").Text(s.copied),
		preview,
	)
}

func (s *Share) onToggle(ctx app.Context, e app.Event) {
	s.open = ctx.JSSrc().Get("open").Bool()
}

func (s *Share) onEmbedView(ctx app.Context, e app.Event) {
	s.embedView = ctx.JSSrc().Get("value").String()
	s.copied = ""
}

// embedCode is the snippet a documentation page pastes: the iframe, at the
// view's height when it was measured, and the few lines that let it take
// the height the playground reports.
func embedCode(src, view string, height int) string {
	if height <= 0 {
		height = defaultEmbedHeight
	}
	return `<iframe src="` + html.EscapeString(src) + `" title="nexttoken: ` + view + `" style="width:100%;border:0" height="` + strconv.Itoa(height) + `" loading="lazy"></iframe>
<script>
// nexttoken embeds report their height; size each iframe to fit.
addEventListener("message", (e) => {
  if (!e.data || e.data.context !== "iframe.resize") return;
  for (const f of document.querySelectorAll("iframe"))
    if (f.contentWindow === e.source) f.style.height = e.data.height + "px";
});
</script>`
}

// defaultEmbedHeight is an iframe's height before its view reports one.
const defaultEmbedHeight = 480

// The copy buttons copy what the panel shows when clicked: one handler
// each, not a new one for every step's link.
func (s *Share) copyLink(ctx app.Context, e app.Event)  { s.copy(s.url, "link") }
func (s *Share) copyEmbed(ctx app.Context, e app.Event) { s.copy(s.code, "embed code") }

func (s *Share) copy(text, what string) {
	if err := copyText(text); err != nil {
		s.copied = "Could not copy the " + what + " (" + err.Error() + "): select it above and copy it by hand."
		return
	}
	s.copied = "Copied the " + what + "."
}
