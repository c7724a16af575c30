package ui

import (
	"errors"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/modelfile"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tracefile"
	"nexttoken/wasm/play"
)

// linkWarnLength is where links start to break: chat apps and documentation
// tools cut longer ones.
const linkWarnLength = 2000

// Share offers the session as a link and as an embed snippet, and its
// trace as a file to download.
type Share struct {
	app.Compo

	Spec         session.Spec
	Export       play.Exporting // the export under way, or the last one's outcome
	Do           shareActions
	View         string           // the view the page shows
	Compare      play.CompareLink // the compare card's choices, for the compare view's embed
	Origin, Path string
	Link         string // the session's share URL, relative

	embedView  string         // the view the embed code shows
	embedTheme string         // its theme (play.Themes)
	embedWidth int            // the width of the writer's column, px (parseColumnWidth)
	widthError string         // why the width last typed was refused
	withScript bool           // the snippet includes the resize script's line
	open       bool           // the panel is open: the embed is previewed
	heights    map[string]int // each preview's height (previewKey), as it reported it
	copied     string         // what the last copy button did
	present    bool           // the link opens the session in presentation mode
	cards      string         // the cards the presentation shows, as typed
	url, code  string         // the link and the embed code on display
	stop       func()         // stops listening to the preview
}

// shareActions are what the share panel asks of the controller.
type shareActions interface {
	ExportTrace(f tracefile.Format)
}

// OnMount listens to the preview's height reports, so that the copied
// snippet starts at the height the view really has.
func (s *Share) OnMount(ctx app.Context) {
	stop, err := onFrameHeight("embed-preview", func(height int) {
		ctx.Dispatch(func(app.Context) {
			if s.heights == nil {
				s.heights = map[string]int{}
			}
			s.heights[s.previewKey()] = height
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
	if s.embedTheme == "" {
		s.embedTheme = play.Themes[0]
	}
	if s.embedWidth == 0 {
		s.embedWidth = embedWidths[defaultEmbedWidth]
	}
	url, cardsError := s.Origin+s.Link, ""
	if s.present {
		link, err := play.PresentLink(s.Link, s.cards)
		if err != nil {
			cardsError = "The link is not a presentation's: " + err.Error() + "."
		}
		url = s.Origin + link
	}
	// A link names files by their SHA-256, which the browser computes
	// while the session runs.
	pending := modelfile.IsPending(s.Spec.Model)
	// The embed's code is written when the panel is open: a step would
	// otherwise write it for nobody.
	var src, code string
	if s.open && !pending {
		src = play.EmbedLink(s.Path, s.Spec, s.embedView, s.embedTheme, s.Compare)
		code = embedCode(s.Origin+src, s.embedView, s.embedWidth, s.heights[s.previewKey()])
		if s.withScript {
			code += "\n" + embedScript(s.Origin, s.Path)
		}
	}
	meter := strconv.Itoa(len(url)) + " characters"
	meterClass := "meter"
	if len(url) > linkWarnLength {
		meter += ": longer than " + strconv.Itoa(linkWarnLength) + ", some chat apps and documentation tools will cut it"
		meterClass += " long"
	}
	if pending {
		meter, meterClass = "The link names the model's file by its SHA-256, which the browser is still computing: a moment…", "hint"
	}
	s.url, s.code = url, code
	viewOptions := make([]app.UI, len(play.Views))
	for i, v := range play.Views {
		viewOptions[i] = option(v, v, v == s.embedView)
	}
	themeOptions := make([]app.UI, len(play.Themes))
	for i, v := range play.Themes {
		themeOptions[i] = option(v, v, v == s.embedTheme)
	}
	presets := make([]app.UI, len(embedWidths))
	for i, w := range embedWidths {
		presets[i] = app.Button().Value(w).Text(itoa(w)).
			Attr("aria-pressed", strconv.FormatBool(w == s.embedWidth)).OnClick(s.onPresetWidth)
	}
	var preview app.UI = app.Text("")
	if s.open && !pending {
		height := s.heights[s.previewKey()]
		if height <= 0 {
			height = defaultEmbedHeight
		}
		preview = app.Div().Class("preview").Body(
			app.P().Class("hint").Text("Preview of the embed in a column of "+itoa(s.embedWidth)+" px, the snippet's width (it scrolls sideways where the panel is narrower); the snippet takes the height it reports there."),
			// credentialless: a page that runs threads is cross-origin
			// isolated, and may frame an embed, which is not, only so.
			app.IFrame().ID("embed-preview").Src(src).Title("preview of the embed").Attr("credentialless", true).
				Style("width", itoa(s.embedWidth)+"px").Style("height", itoa(height)+"px"),
		)
	}
	return app.Details().ID("share").Class("card share").OnToggle(s.onToggle).Body(
		app.Summary().Text("Share, embed or download this session"),
		s.downloads(),
		app.If(!pending, func() app.UI {
			return app.Div().Class("row").Body(
				app.Input().ID("share-url").ReadOnly(true).Value(url).Attr("aria-label", "link to this session"),
				app.Button().ID("copy-link").Text("Copy link").OnClick(s.copyLink),
			)
		}),
		app.P().ID("link-length").Class(meterClass).Text(meter),
		app.Div().Class("row").Body(
			app.Label().Class("check").Body(
				app.Input().Type("checkbox").ID("share-present").Checked(s.present).OnChange(s.onPresent),
				app.Span().Text("for presenting: larger type, only the cards named")),
			app.Input().ID("share-cards").Type("text").Value(s.cards).Placeholder("softmax,bars (all if empty)").
				Attr("aria-label", "the cards the presentation shows").Attr("aria-describedby", "share-cards-error").OnChange(s.onCards),
			app.If(cardsError != "", func() app.UI {
				return app.Span().ID("share-cards-error").Class("field-error").Attr("role", "alert").Text(cardsError)
			}),
		),
		app.Div().Class("row").Body(
			app.Label().Class("field").Body(app.Span().Text("embed view"),
				app.Select().ID("embed-view").Body(viewOptions...).OnChange(s.onEmbedView)),
			app.Label().Class("field").Body(app.Span().Text("theme"),
				app.Select().ID("embed-theme").Body(themeOptions...).OnChange(s.onEmbedTheme)),
			// A label cannot hold the presets' buttons: it names the field.
			app.Div().Class("field").Body(app.Label().For("embed-width").Text("column width, px"),
				app.Div().Class("setting-row").Body(
					app.Input().ID("embed-width").Type("number").Min(minEmbedWidth).Max(maxEmbedWidth).Value(s.embedWidth).
						Attr("aria-describedby", "embed-width-error").
						Title("the width of your page's column: the preview and the snippet take it when you press Enter or leave the field").
						OnChange(s.onEmbedWidth),
					app.Span().Class("presets").Attr("role", "group").Attr("aria-label", "common column widths, px").Body(presets...)),
				app.If(s.widthError != "", func() app.UI {
					return app.Span().ID("embed-width-error").Class("field-error").Attr("role", "alert").Text(s.widthError)
				})),
			app.Label().Class("check").Body(
				app.Input().Type("checkbox").ID("embed-script").Checked(s.withScript).OnChange(s.onEmbedScript),
				app.Span().Text("include the resize script")),
			disabledIf(app.Button().ID("copy-embed").Text("Copy embed code"), pending).OnClick(s.copyEmbed),
		),
		app.Textarea().ID("embed-code").ReadOnly(true).Rows(8).Text(code),
		app.P().ID("copied").Class("hint").Text(s.copied),
		preview,
	)
}

// downloads offers the session's trace as a file in each format, and says
// how the export goes.
func (s *Share) downloads() app.UI {
	buttons := []app.UI{app.Span().Text("Download the trace:")}
	for _, f := range tracefile.Formats {
		buttons = append(buttons, app.Button().ID("export-"+string(f)).Value(string(f)).
			Text(strings.ToUpper(string(f))).Title(formatTitles[f]).OnClick(s.onExport))
	}
	x := s.Export
	status := x.Message
	if x.On {
		status = "Writing " + x.Name + ", " + sampler.Readable(float64(x.Steps)) + " steps…"
	}
	statusClass := "hint"
	if x.Failed {
		statusClass = "field-error"
	}
	return app.Div().Class("row downloads").Body(
		app.Div().Class("row").Body(buttons...),
		app.P().ID("export-status").Class(statusClass).Attr("role", "status").Text(status),
	)
}

// formatTitles say what each format's file holds.
var formatTitles = map[tracefile.Format]string{
	tracefile.JSONFile: "every step's numbers, as nexttoken trace --json prints them",
	tracefile.CSVFile:  "one row per step, for a spreadsheet",
}

func (s *Share) onExport(ctx app.Context, e app.Event) {
	s.Do.ExportTrace(tracefile.Format(ctx.JSSrc().Get("value").String()))
}

func (s *Share) onToggle(ctx app.Context, e app.Event) {
	s.open = ctx.JSSrc().Get("open").Bool()
}

func (s *Share) onEmbedView(ctx app.Context, e app.Event) {
	s.embedView = ctx.JSSrc().Get("value").String()
	s.copied = ""
}

func (s *Share) onEmbedTheme(ctx app.Context, e app.Event) {
	if v := ctx.JSSrc().Get("value").String(); slices.Contains(play.Themes, v) {
		s.embedTheme = v
	}
	s.copied = ""
}

// onEmbedWidth takes the width typed when the writer commits it (Enter,
// leaving the field, a step of its arrows), not at every keystroke: the
// half-typed "55" of 555 would otherwise re-lay the preview out at a width
// nobody asked for. A width refused leaves the field at the last good one.
func (s *Share) onEmbedWidth(ctx app.Context, e app.Event) {
	field := ctx.JSSrc()
	if !s.setWidth(field.Get("value").String(), field.Get("validity").Get("badInput").Bool()) {
		field.Set("value", itoa(s.embedWidth))
	}
}

func (s *Share) onPresetWidth(ctx app.Context, e app.Event) {
	s.setWidth(ctx.JSSrc().Get("value").String(), false)
}

// setWidth takes the column width typed, or keeps the last good one and
// says why not (badInput: the browser holds text it could not read as a
// number). It reports whether it took it.
func (s *Share) setWidth(text string, badInput bool) bool {
	s.copied = ""
	w, err := parseColumnWidth(text, badInput)
	if err != nil {
		s.widthError = err.Error() + " The last good width, " + itoa(s.embedWidth) + " px, is back."
		return false
	}
	s.embedWidth, s.widthError = w, ""
	return true
}

func (s *Share) onPresent(ctx app.Context, e app.Event) {
	s.present = ctx.JSSrc().Get("checked").Bool()
	s.copied = ""
}

// onCards takes the cards typed, and makes the link a presentation's.
func (s *Share) onCards(ctx app.Context, e app.Event) {
	s.cards, s.present = ctx.JSSrc().Get("value").String(), true
	s.copied = ""
}

func (s *Share) onEmbedScript(ctx app.Context, e app.Event) {
	s.withScript = ctx.JSSrc().Get("checked").Bool()
	s.copied = ""
}

// previewKey names what a preview's height depends on: the view, its
// theme and the column's width.
func (s *Share) previewKey() string {
	return s.embedView + " " + s.embedTheme + " " + itoa(s.embedWidth)
}

// The column widths the panel takes, px: from a phone's narrowest column
// to a wide page.
const (
	minEmbedWidth = 280
	maxEmbedWidth = 1600
)

// embedWidths are the common column widths, one click away, px: a phone,
// a narrow column, a blog column and a wide page.
var embedWidths = []int{360, 480, 600, 720, 960}

// defaultEmbedWidth indexes embedWidths: a typical blog column.
const defaultEmbedWidth = 3

// widthRule is what a column width must be, in the writer's words.
var widthRule = "type your column's width in pixels, a whole number from " + itoa(minEmbedWidth) + " to " + itoa(maxEmbedWidth) + "."

// parseColumnWidth reads a column width typed by a writer: a whole number
// of pixels from minEmbedWidth to maxEmbedWidth. badInput says the field
// held text the browser could not read as a number (it then gives "").
func parseColumnWidth(text string, badInput bool) (int, error) {
	text = strings.TrimSpace(text)
	f, err := strconv.ParseFloat(text, 64)
	typed := tail(text, 16)
	var problem string
	switch {
	case text == "" && !badInput:
		return 0, errors.New(capitalize(widthRule))
	case badInput:
		problem = "That is not a number"
	case err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f):
		problem = strconv.Quote(typed) + " is not a number"
	case f < minEmbedWidth:
		problem = typed + " px is too narrow"
	case f > maxEmbedWidth:
		problem = typed + " px is too wide"
	case f != math.Trunc(f):
		problem = typed + " px is not a whole number"
	default:
		return int(f), nil
	}
	return 0, errors.New(problem + ": " + widthRule)
}

// embedCode is the snippet a documentation page pastes: an iframe that
// works on its own, as wide as the writer's column (narrower if the
// column is) and at the view's height there when it was measured.
func embedCode(src, view string, width, height int) string {
	if height <= 0 {
		height = defaultEmbedHeight
	}
	return `<iframe src="` + html.EscapeString(src) + `" title="nexttoken: ` + view + `" width="` + strconv.Itoa(width) + `" height="` + strconv.Itoa(height) + `" style="max-width:100%;border:0" loading="lazy"></iframe>`
}

// embedScript is the one line that lets every nexttoken frame of a page
// take the height it reports: web/embed.js of the site whose page is at
// path (its folder is the site's base, at the root or under a sub-path).
func embedScript(origin, path string) string {
	base := path[:strings.LastIndex(path, "/")+1]
	return `<script src="` + html.EscapeString(origin+base+"web/embed.js") + `" async></script>`
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
