package ui

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/play"
)

// board is what the page's hot views draw from: the views that change at
// every step (the softmax, the bars, the hidden state, the cache, the
// timeline, the sampler's choice) keep a fixed element that go-app renders
// once, and paint its content from the latest snapshot themselves, in one
// call to the browser, as soon as the controller changes — not at go-app's
// next frame, and without go-app's diff of hundreds of nodes. go-app still
// builds the page's structure around them.
type board struct {
	s       play.Snapshot
	views   []painter
	frame   func(func()) // runs a function before the browser next paints; nil off the page
	pending []painter    // views that paint again at the next frame
}

// rows are the tokens the tables of step d list (play.Detail.Listed).
func (b *board) rows(d *play.Detail) []int { return d.Listed }

// snapshot is the snapshot the hot views show, or none before the first.
func (b *board) snapshot() play.Snapshot {
	if b == nil {
		return play.Snapshot{}
	}
	return b.s
}

// painter is a hot view: it paints its part of a snapshot.
type painter interface {
	paint(s play.Snapshot)
}

// show paints s on every hot view. A bug in a view must not stop the
// program, which would leave a dead page: the view is left as it was and
// the others paint.
func (b *board) show(s play.Snapshot) {
	b.s = s
	for _, v := range b.views {
		paintSafely(v, s)
	}
}

func paintSafely(v painter, s play.Snapshot) {
	defer func() {
		if r := recover(); r != nil {
			println("nexttoken: a view could not paint (please report it):", fmt.Sprint(r))
		}
		flushPaint()
	}()
	v.paint(s)
}

// again paints v once more at the next frame, for a view that left part
// of its drawing for later (a heat map past its budget), the latest
// snapshot then.
func (b *board) again(v painter) {
	if b == nil || b.frame == nil || slices.Contains(b.pending, v) {
		return
	}
	b.pending = append(b.pending, v)
	if len(b.pending) == 1 {
		b.frame(b.paintPending)
	}
}

// paintPending paints the views that asked to paint again, those still on
// the page.
func (b *board) paintPending() {
	pending := b.pending
	b.pending = nil
	for _, v := range pending {
		if slices.Contains(b.views, v) {
			paintSafely(v, b.s)
		}
	}
}

func (b *board) add(v painter) {
	if !slices.Contains(b.views, v) {
		b.views = append(b.views, v)
	}
}

func (b *board) remove(v painter) {
	if b == nil {
		return
	}
	b.views = slices.DeleteFunc(b.views, func(w painter) bool { return w == v })
}

// mount joins the board and paints the view. go-app calls OnMount once
// the update that mounted the view is done, its elements in the page, and
// before the browser draws: the view shows with its numbers at once.
func mount(ctx app.Context, b *board, v painter) {
	if b == nil {
		return
	}
	b.add(v)
	paintSafely(v, b.s)
}

// repaint paints v after go-app rendered it again.
func repaint(ctx app.Context, b *board, v painter) {
	if b != nil {
		ctx.Defer(func(app.Context) { paintSafely(v, b.s) })
	}
}

// esc escapes text for HTML.
func esc(s string) string { return html.EscapeString(s) }

// tag writes an element with text: <name attrs>text</name>, the text
// escaped, the attributes as given (escape their values with esc).
func tag(b *strings.Builder, name, attrs, text string) {
	b.WriteString("<" + name)
	if attrs != "" {
		b.WriteString(" " + attrs)
	}
	b.WriteString(">")
	b.WriteString(esc(text))
	b.WriteString("</" + name + ">")
}
