//go:build js

package ui

import (
	"errors"
	"math"
	"strings"

	"github.com/hack-pad/safejs"

	"nexttoken/wasm/jsx"
)

// The page's surroundings that go-app has no API for: the clipboard, the
// address bar, focus and the parent page of an embed. Every call goes through
// safejs, so a JavaScript failure is an error here, never a dead page.

func global(path ...string) (safejs.Value, error) {
	v := safejs.Global()
	for _, p := range path {
		var err error
		if v, err = v.Get(p); err != nil {
			return v, err
		}
		if v.IsUndefined() || v.IsNull() {
			return v, errors.New(p + " is not available in this browser")
		}
	}
	return v, nil
}

// mark sets a User Timing mark called name (performance.mark), which a
// browser's profiler shows and a timing test reads: where the time between
// a reader's files and the model open goes.
func mark(name string) {
	if markHook != nil {
		markHook(name)
		return
	}
	if perf, err := global("performance"); err == nil {
		_, _ = perf.Call("mark", name)
	}
}

// markHook, when set, takes the marks in place of the User Timing of the
// program's own global: the engine's worker posts them to the page.
var markHook func(name string)

// copyText puts s on the clipboard. Browsers allow it only on a user's
// click and on secure origins; the caller shows s for manual copying too.
func copyText(s string) error {
	clipboard, err := global("navigator", "clipboard")
	if err != nil {
		return err
	}
	_, err = clipboard.Call("writeText", s)
	return err
}

// replaceURL shows url in the address bar without adding a history entry, so
// the address follows the session without one entry per keystroke.
func replaceURL(url string) error {
	history, err := global("history")
	if err != nil {
		return err
	}
	_, err = history.Call("replaceState", safejs.Null(), "", url)
	return err
}

// focusPlayground gives the page the keyboard focus, so the shortcuts work
// before the user has clicked anything.
func focusPlayground() error {
	doc, err := global("document")
	if err != nil {
		return err
	}
	el, err := doc.Call("getElementById", "playground")
	if err != nil || el.IsNull() {
		return err
	}
	_, err = el.Call("focus", map[string]any{"preventScroll": true})
	return err
}

// focusPlaygroundIfFree is focusPlayground unless the focus is somewhere
// already: in a field the reader typed into on the server's page, which
// web/boot.js moves to the live page's.
func focusPlaygroundIfFree() error {
	doc, err := global("document")
	if err != nil {
		return err
	}
	active, err := doc.Get("activeElement")
	if err != nil {
		return err
	}
	body, err := doc.Get("body")
	if err != nil || !(active.IsNull() || active.Equal(body)) {
		return err
	}
	return focusPlayground()
}

// reportHeight tells the page that embeds this one how tall the content is,
// now, whenever it changes, and whenever the frame changes size, with the
// widely used {"context": "iframe.resize", "height": N} message. It sends
// nothing else and reads nothing from the parent. Outside a frame it does
// nothing.
func reportHeight() error {
	win := safejs.Global()
	parent, err := win.Get("parent")
	if err != nil || parent.Equal(win) {
		return err
	}
	// The body's own height, not the document's scroll height: that is at
	// least the frame's height, so a frame could never shrink.
	body, err := global("document", "body")
	if err != nil {
		return err
	}
	last := -1
	report := func() {
		box, err := body.Call("getBoundingClientRect")
		if err != nil {
			return
		}
		h, err := box.Get("height")
		if err != nil {
			return
		}
		f, err := h.Float()
		height := int(math.Ceil(f))
		if err != nil || height == last {
			return
		}
		last = height
		_, _ = parent.Call("postMessage", map[string]any{"context": "iframe.resize", "height": height}, "*")
	}
	changed, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any { report(); return nil })
	if err != nil {
		return err
	}
	// A frame the host resized is told the height again, changed or not:
	// the host may have made it taller than the content.
	resized, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any { last = -1; report(); return nil })
	if err != nil {
		return err
	}
	if _, err := win.Call("addEventListener", "resize", resized.Value()); err != nil {
		return err
	}
	observerType, err := global("ResizeObserver")
	if err != nil {
		return err
	}
	observer, err := observerType.New(changed.Value())
	if err != nil {
		return err
	}
	_, err = observer.Call("observe", body)
	return err
}

// RepairAddress makes the address bar parseable before go-app reads it:
// go-app stops the program when the address is not a valid URL (a stray
// "%" in a hand-edited link does that), so a broken link would leave a dead
// page instead of a message. Call it before app.RunWhenOnBrowser.
func RepairAddress() {
	href, err := global("location", "href")
	if err != nil {
		return
	}
	s, err := href.String()
	if err != nil {
		return
	}
	if fixed, changed := escapeStrayPercents(s); changed {
		if _, query, ok := strings.Cut(s, "?"); ok {
			repairedQuery, _, _ = strings.Cut(query, "#")
		}
		_ = replaceURL(fixed)
	}
}

// TakeOverSteps tells web/boot.js that the program starts, so that the
// reader's steps wait for the live page from now on, and keeps the steps
// the server's pages took before (prelive). Call it before go-app reads
// the address.
func TakeOverSteps() {
	starting, err := global("nexttokenStarting")
	if err != nil {
		return
	}
	taken, err := starting.Invoke()
	if err != nil || taken.IsUndefined() || taken.IsNull() {
		return
	}
	from, err1 := taken.Get("from")
	steps, err2 := taken.Get("steps")
	if err1 != nil || err2 != nil {
		return
	}
	prelive.from, _ = from.String()
	prelive.steps, _ = steps.Int()
}

// holdHeight keeps the element of the given id at least as tall as it is
// now (hold), or lets it take its own height again: while its parts are
// drawn again, the page keeps its length, and the reader their place in it.
func holdHeight(id string, hold bool) {
	doc, err := global("document")
	if err != nil {
		return
	}
	el, err := doc.Call("getElementById", id)
	if err != nil || !jsx.Truthy(el) {
		return
	}
	style, err := el.Get("style")
	if err != nil {
		return
	}
	height := ""
	if hold {
		h, _ := el.Get("offsetHeight")
		px, _ := h.Int()
		height = itoa(px) + "px"
	}
	_ = style.Set("minHeight", height)
}

// EndTask ends the page's task: it returns in a new one, once the browser
// has run what waited (the reader's input, a frame that was due). Go's
// scheduler gives the thread back to the browser only when every
// goroutine waits on it, and a time.Sleep whose time has passed by then
// does not wait at all, so EndTask waits on the browser itself:
// scheduler.yield, or else a timer. Call it on a goroutine of the
// program's, never inside a JavaScript callback.
func EndTask() {
	if yield() {
		return
	}
	done := make(chan struct{})
	var cb safejs.Func
	cb, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		cb.Release()
		close(done)
		return nil
	})
	if err != nil {
		return
	}
	if _, err := safejs.Global().Call("setTimeout", cb.Value()); err != nil {
		cb.Release()
		return
	}
	<-done
}

// yield lets the page's other tasks run, where the browser has
// scheduler.yield, and otherwise returns at once: a timer would do it too,
// but a tab in the background runs timers once a second at most. It
// reports whether it yielded.
func yield() bool {
	if s, err := global("scheduler"); err == nil {
		if y, err := s.Get("yield"); err == nil && jsx.Truthy(y) {
			_, err = jsx.Await(s.Call("yield"))
			return err == nil
		}
	}
	return false
}

// nextFrame calls f before the browser next paints.
func nextFrame(f func()) error {
	var cb safejs.Func
	cb, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		cb.Release()
		f()
		return nil
	})
	if err != nil {
		return err
	}
	_, err = safejs.Global().Call("requestAnimationFrame", cb.Value())
	return err
}

// drawRows paints RGBA pixels, rows of width w, onto the canvas with the
// given id, starting at row y; the canvas is w × h, made so if it is not
// (which clears it).
func drawRows(id string, w, h, y int, rgba []byte) error {
	doc, err := global("document")
	if err != nil {
		return err
	}
	canvas, err := doc.Call("getElementById", id)
	if err != nil {
		return err
	}
	if canvas.IsNull() || len(rgba) == 0 {
		return errors.New("no canvas " + id)
	}
	for _, side := range []struct {
		name string
		v    int
	}{{"width", w}, {"height", h}} {
		if v, err := jsx.Int(canvas, side.name); err == nil && v != side.v {
			if err := canvas.Set(side.name, side.v); err != nil {
				return err
			}
		}
	}
	ctx, err := canvas.Call("getContext", "2d")
	if err != nil || ctx.IsNull() {
		return errors.New("no 2d context on canvas " + id)
	}
	array, err := safejs.Global().Get("Uint8ClampedArray")
	if err != nil {
		return err
	}
	data, err := array.New(len(rgba))
	if err != nil {
		return err
	}
	if _, err := safejs.CopyBytesToJS(data, rgba); err != nil {
		return err
	}
	imageData, err := safejs.Global().Get("ImageData")
	if err != nil {
		return err
	}
	img, err := imageData.New(data, w, len(rgba)/4/w)
	if err != nil {
		return err
	}
	_, err = ctx.Call("putImageData", img, 0, y)
	return err
}

// clearRows clears rows y to y+h of the canvas with the given id.
func clearRows(id string, y, h int) error {
	doc, err := global("document")
	if err != nil {
		return err
	}
	canvas, err := doc.Call("getElementById", id)
	if err != nil || canvas.IsNull() {
		return errors.New("no canvas " + id)
	}
	ctx, err := canvas.Call("getContext", "2d")
	if err != nil || ctx.IsNull() {
		return errors.New("no 2d context on canvas " + id)
	}
	w, err := jsx.Int(canvas, "width")
	if err != nil {
		return err
	}
	_, err = ctx.Call("clearRect", 0, y, w, h)
	return err
}

// prefersDark reports whether the reader's system asks for dark colours.
func prefersDark() bool {
	match, err := safejs.Global().Call("matchMedia", "(prefers-color-scheme: dark)")
	if err != nil {
		return false
	}
	dark, err := match.Get("matches")
	if err != nil {
		return false
	}
	b, err := dark.Bool()
	return err == nil && b
}

// onFrameHeight calls f with each height that the iframe with the given id
// reports, as the playground's embeds do (reportHeight), and returns a
// function that stops listening.
func onFrameHeight(id string, f func(height int)) (stop func(), err error) {
	doc, err := global("document")
	if err != nil {
		return nil, err
	}
	listener, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) == 0 {
			return nil
		}
		height, ok := frameHeight(doc, id, args[0])
		if ok {
			f(height)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	win := safejs.Global()
	if _, err := win.Call("addEventListener", "message", listener.Value()); err != nil {
		listener.Release()
		return nil, err
	}
	return func() {
		_, _ = win.Call("removeEventListener", "message", listener.Value())
		listener.Release()
	}, nil
}

// frameHeight reads a message event: the height the iframe id reports.
func frameHeight(doc safejs.Value, id string, event safejs.Value) (int, bool) {
	frame, err := doc.Call("getElementById", id)
	if err != nil || frame.IsNull() {
		return 0, false
	}
	window, err := frame.Get("contentWindow")
	if err != nil {
		return 0, false
	}
	source, err := event.Get("source")
	if err != nil || !source.Equal(window) {
		return 0, false
	}
	data, err := event.Get("data")
	if err != nil || data.IsNull() || data.IsUndefined() {
		return 0, false
	}
	context, err := data.Get("context")
	if err != nil {
		return 0, false
	}
	if c, err := context.String(); err != nil || c != "iframe.resize" {
		return 0, false
	}
	height, err := data.Get("height")
	if err != nil {
		return 0, false
	}
	h, err := height.Float()
	if err != nil || h <= 0 || h > 1e5 {
		return 0, false
	}
	return int(h), true
}

// savedURL is the Blob URL of the last file saved, which the next save
// revokes: revoked at once, a browser may not have read it yet. nil
// before the first.
var savedURL *safejs.Value

// saveFile offers data as a download called name: a Blob of the media
// type, through a link with the download attribute, clicked.
func saveFile(name, mediaType string, data []byte) error {
	doc, err := global("document")
	if err != nil {
		return err
	}
	urls, err := global("URL")
	if err != nil {
		return err
	}
	array, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return err
	}
	bytes, err := array.New(len(data))
	if err != nil {
		return err
	}
	if _, err := safejs.CopyBytesToJS(bytes, data); err != nil {
		return err
	}
	blobType, err := global("Blob")
	if err != nil {
		return err
	}
	blob, err := blobType.New([]any{bytes}, map[string]any{"type": mediaType})
	if err != nil {
		return err
	}
	url, err := urls.Call("createObjectURL", blob)
	if err != nil {
		return err
	}
	if savedURL != nil {
		_, _ = urls.Call("revokeObjectURL", *savedURL)
	}
	savedURL = &url
	a, err := doc.Call("createElement", "a")
	if err != nil {
		return err
	}
	for attr, v := range map[string]any{"href": url, "download": name} {
		if err := a.Set(attr, v); err != nil {
			return err
		}
	}
	body, err := global("document", "body")
	if err != nil {
		return err
	}
	if _, err := body.Call("appendChild", a); err != nil {
		return err
	}
	_, err = a.Call("click")
	_, _ = a.Call("remove")
	return err
}
