//go:build !js

package ui

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/link"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/session"
	"nexttoken/wasm/play"
	"nexttoken/web/models"
)

// MaxPrerenderWork bounds the engine's work for one prerendered page, in
// multiply-adds: the model's weights once a position, for every position
// of the session. It is about 120 positions of stories260K, tens of
// milliseconds; a longer session is left to the reader's browser.
const MaxPrerenderWork = 32 << 20

// NotPrerenderedError says why a link's page was not prerendered: the
// server shows the page's placeholder, and the browser computes it.
type NotPrerenderedError struct{ Reason string }

func (e *NotPrerenderedError) Error() string { return "not prerendered: " + e.Reason }

// Prerendering builds pages natively, one at a time: the hot views' paint
// (paint_other.go) and the models it keeps are not safe for two at once.
type Prerendering struct {
	// StepLinks says that the server prerenders every link it is asked
	// for: a page's root then names the link of its session one step on
	// (data-next), which web/boot.js fetches when the reader steps before
	// the program is live. A static site's pages, drawn for one link each,
	// name none.
	StepLinks bool

	models map[string]*session.Model
}

// Page is the playground as the link rawQuery (without its '?') describes
// it, drawn as the browser would draw it: the go-app components with what
// the hot views paint in place, its root marked data-prerendered and
// data-link=rawQuery. A session whose work passes MaxPrerenderWork, or on
// a model the server does not have, is a *NotPrerenderedError.
func (r *Prerendering) Page(rawQuery, path string) (string, error) {
	state, _ := link.Open(rawQuery, "")
	if err := fits(state.Spec); err != nil {
		return "", err
	}
	p := openNatively(rawQuery, "", path, r.models)
	r.models = p.models
	s := p.ctl.Snapshot()
	if s.Session == nil {
		return "", &NotPrerenderedError{"the session did not open"}
	}
	if s.Session.Spec.Model != state.Spec.Model {
		return "", &NotPrerenderedError{"the link's model could not be opened here"}
	}
	clear(painted)
	for _, v := range hotViews(s, p) {
		paintSafely(v, s)
	}
	// go-app writes an unchecked box's checked="false", which HTML reads
	// as checked: the live page sets the property instead.
	page, err := applyPaint(strings.ReplaceAll(compact(app.HTMLString(p)), ` checked="false"`, ""), painted)
	if err != nil {
		return "", err
	}
	// The root says what it is, and is not the live page's: another id,
	// not ready, and nothing drawn (the page's rule for what shows).
	next := ""
	if r.StepLinks {
		next = NextLink(rawQuery, s)
	}
	for _, a := range []struct {
		name, value string
		on          bool
	}{{"data-drawn", "", false}, {"data-ready", "false", true}, {"data-prerendered", "true", true},
		{"data-link", rawQuery, true}, {"data-next", next, next != ""}, {"id", PrerenderedID, true}} {
		if page, err = setAttribute(page, "playground", a.name, a.value, a.on); err != nil {
			return "", err
		}
	}
	return page, nil
}

// NextLink is the link of the session s one step on, as the page's Step
// takes it and shows it, when the query rawQuery, which s was opened from,
// says all of it: rawQuery with steps= one more and no step on display
// (at=), the next one (a session's steps are its sampler's, from its
// seed). It is "" when s has no next step, when rawQuery leaves something
// out, for an embed and for a stop of the tour.
func NextLink(rawQuery string, s play.Snapshot) string {
	if s.Session == nil || s.Session.Next == nil || s.Page.Embed || s.Page.Tour > 0 {
		return ""
	}
	state, dropped := link.Open(rawQuery, "")
	q, err := url.ParseQuery(rawQuery)
	if len(dropped) > 0 || err != nil || state.Spec.Steps != s.Session.Steps() {
		return ""
	}
	for name := range q {
		if strings.EqualFold(name, "steps") || strings.EqualFold(name, "at") {
			delete(q, name)
		}
	}
	q.Set("steps", strconv.Itoa(state.Spec.Steps+1))
	next := q.Encode()
	if after, dropped := link.Open(next, ""); len(dropped) > 0 || after.Spec.Steps != state.Spec.Steps+1 {
		return ""
	}
	return next
}

// PrerenderedID is the id of a prerendered page's root: the live page's is
// "playground".
const PrerenderedID = "prerendered"

// CheckPrerender is Page's check, before any computing, that the link
// rawQuery describes a session the server prerenders: a
// *NotPrerenderedError if not. It is safe to call at any time.
func CheckPrerender(rawQuery string) error {
	state, _ := link.Open(rawQuery, "")
	return fits(state.Spec)
}

// fits checks that spec's session is one the server prerenders.
func fits(spec session.Spec) error {
	if spec.Model == session.LogitsModel {
		return nil // one softmax of at most link's 1,024 hand-typed logits
	}
	if modelfile.IsRef(spec.Model) {
		return &NotPrerenderedError{"the model is the reader's own file"}
	}
	f, ok := models.Files[spec.Model]
	if !ok {
		return &NotPrerenderedError{fmt.Sprintf("no model called %q here", spec.Model)}
	}
	// A prompt token is at least a byte; 1 for the start token.
	positions := int64(1 + len(spec.Prompt) + spec.Steps)
	for _, b := range spec.Branches {
		positions += int64(b.Steps)
	}
	if work := positions * f.Size / 4; work > MaxPrerenderWork {
		return &NotPrerenderedError{fmt.Sprintf("up to %d positions of %s is more work than a page is prerendered with", positions, spec.Model)}
	}
	return nil
}

// openNatively is the page at path as the link (its raw query and
// fragment) opens it, computed with the native engine; models are models
// already loaded, which it keeps with those it loads.
func openNatively(rawQuery, fragment, path string, models map[string]*session.Model) *Playground {
	p := &Playground{live: true, pagePath: path, board: &board{}, models: models, later: laterParts}
	p.ctl = play.New(&play.Local{Load: p.load}, serverHost{}, path)
	p.ctl.OpenAddress(rawQuery, fragment)
	return p
}

// hotViews are the page's hot views, as the page would mount them for s.
func hotViews(s play.Snapshot, p *Playground) []painter {
	b := p.board
	views := []painter{&StepTitle{Board: b}, &Timeline{Board: b, Vocab: len(s.Model().Names)}}
	for _, v := range []app.UI{controls(s, p.ctl, b), picture(s, b), hiddenCard(s, b), logitsCard(s, b, p.ctl),
		softmaxCard(b), barsCard(b, p.ctl), samplerCard(s, b, p.ctl), kvCard(s, b, p.ctl)} {
		if h, ok := v.(painter); ok {
			views = append(views, h)
		}
		if kv, ok := v.(*KVCard); ok {
			views = append(views, kv.lines()) // a hot view inside the card
		}
	}
	if d := shownDetail(s); d != nil {
		if h, ok := recomputeCard(s, d, p.ctl, b).(painter); ok {
			views = append(views, h)
		}
	}
	return views
}

// compact removes the line breaks and indentation go-app writes between
// nodes (two spaces a level: the next node's depth, or its parent's before
// an end tag), which the live page, built node by node, does not have: a
// fifth of a page's bytes. A text's own spaces stay, and text in <pre> and
// <textarea> as it is.
func compact(page string) string {
	var b strings.Builder
	b.Grow(len(page))
	open := 0 // elements open where page is
	for page != "" {
		i := strings.IndexAny(page, "\n<")
		if i < 0 {
			b.WriteString(page)
			break
		}
		b.WriteString(page[:i])
		page = page[i:]
		if page[0] == '\n' {
			indent := 2 * open
			if strings.HasPrefix(strings.TrimLeft(page[1:], " "), "</") {
				indent = 2 * max(open-1, 0)
			}
			n := len(page[1:]) - len(strings.TrimLeft(page[1:], " "))
			page = page[1+min(n, indent):]
			continue
		}
		end := strings.IndexByte(page, '>')
		if end < 0 {
			b.WriteString(page)
			break
		}
		tag := page[:end+1]
		name := ""
		if f := strings.FieldsFunc(tag[1:], func(r rune) bool { return r == ' ' || r == '>' || r == '/' }); len(f) > 0 {
			name = strings.ToLower(f[0])
		}
		switch {
		case strings.HasPrefix(tag, "</"):
			open = max(open-1, 0) // an end tag without its start is not go-app's, but must not break this
		case strings.HasSuffix(tag, "/>") || voidElements[name]:
		case name == "pre" || name == "textarea":
			close := strings.Index(page, "</"+name+">")
			if close < 0 {
				close = len(page) - len("</"+name+">")
			}
			tag = page[:close+len("</"+name+">")]
		default:
			open++
		}
		b.WriteString(tag)
		page = page[len(tag):]
	}
	return b.String()
}

// voidElements have no end tag.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true}

// serverHost is the controller's page on the server: nothing to draw on,
// and no time passes.
type serverHost struct{}

func (serverHost) Changed()                           {}
func (serverHost) After(time.Duration, func()) func() { return func() {} }
func (serverHost) Frame(func())                       {}
func (serverHost) Address(string)                     {}
func (serverHost) Now() time.Time                     { return time.Time{} }
func (serverHost) Missing(error, func()) bool         { return false }
func (serverHost) Save(string, string, []byte) error {
	return errors.New("a page on the server saves no files")
}

// applyPaint writes the hot views' paint (paint_other.go's keys: "id" for
// the content, "id name" for an attribute) into page, the HTML go-app
// wrote, as web/paint.js writes it in the browser. An id the page does not have is left out, as the
// browser's paint leaves it.
func applyPaint(page string, ops map[string]string) (string, error) {
	for key, value := range ops {
		id, name, isAttr := strings.Cut(key, " ")
		var err error
		switch {
		case !isAttr:
			page, err = setContent(page, id, value)
		case name == "hidden" || name == "disabled":
			page, err = setAttribute(page, id, name, "", value == "true")
		default:
			page, err = setAttribute(page, id, name, value, true)
		}
		if err != nil {
			return "", err
		}
	}
	return page, nil
}

// errMalformed is applyPaint's error for HTML it cannot follow: go-app's
// own output is never that.
var errMalformed = errors.New("prerendering: the page's HTML could not be followed")

// startTag finds the start tag of the element whose id is id: its '<',
// the end of its name and the index just past its '>'; at < 0 if there is
// none.
func startTag(page, id string) (at, nameEnd, end int, err error) {
	i := strings.Index(page, ` id="`+id+`"`)
	if i < 0 {
		return -1, 0, 0, nil
	}
	at = strings.LastIndexByte(page[:i], '<')
	gt := strings.IndexByte(page[i:], '>')
	if at < 0 || gt < 0 {
		return 0, 0, 0, errMalformed
	}
	nameEnd = at + 1 + strings.IndexAny(page[at+1:], " >")
	return at, nameEnd, i + gt + 1, nil
}

// setAttribute sets (on) or removes attribute name of the element id.
func setAttribute(page, id, name, value string, on bool) (string, error) {
	at, nameEnd, end, err := startTag(page, id)
	if at < 0 || err != nil {
		return page, err
	}
	tag := page[at:end]
	rest := tag[nameEnd-at : len(tag)-1]
	var attrs []string
	for _, a := range splitAttrs(rest) {
		if n, _, _ := strings.Cut(a, "="); n != name {
			attrs = append(attrs, a)
		}
	}
	if on {
		a := name
		if name != "hidden" && name != "disabled" {
			a += `="` + escAttr(value) + `"`
		}
		attrs = append(attrs, a)
	}
	newTag := page[at:nameEnd]
	for _, a := range attrs {
		newTag += " " + a
	}
	return page[:at] + newTag + ">" + page[end:], nil
}

// splitAttrs splits a start tag's attributes, whose values go-app always
// quotes with '"' and escapes.
func splitAttrs(s string) []string {
	var attrs []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		end := strings.IndexAny(s, ` ="`)
		if end < 0 {
			return append(attrs, s)
		}
		if s[end] == '=' && end+1 < len(s) && s[end+1] == '"' {
			close := strings.IndexByte(s[end+2:], '"')
			if close < 0 {
				return append(attrs, s)
			}
			end += 2 + close + 1
		}
		attrs = append(attrs, s[:end])
		s = s[end:]
	}
	return attrs
}

// setContent replaces the content of the element id with html.
func setContent(page, id, html string) (string, error) {
	at, nameEnd, end, err := startTag(page, id)
	if at < 0 || err != nil {
		return page, err
	}
	name := page[at+1 : nameEnd]
	// The matching end tag: count the same name's tags that open and close.
	depth, i := 1, end
	for depth > 0 {
		j := strings.Index(page[i:], name)
		if j < 0 {
			return "", errMalformed
		}
		j += i
		switch {
		case j >= 2 && page[j-2:j] == "</" && j+len(name) < len(page) && page[j+len(name)] == '>':
			depth--
			if depth == 0 {
				return page[:end] + html + page[j-2:], nil
			}
		case j >= 1 && page[j-1] == '<' && j+len(name) < len(page) && strings.ContainsRune(" >", rune(page[j+len(name)])):
			depth++
		}
		i = j + len(name)
	}
	return "", errMalformed
}

// escAttr escapes an attribute's value.
func escAttr(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;").Replace(s)
}
