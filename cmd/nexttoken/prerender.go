package main

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"errors"
	"fmt"
	"html"
	"maps"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"nexttoken/wasm/play"
	"nexttoken/wasm/ui"
)

// prerenderer draws the playground's page as a link's query describes it,
// with the native engine, so that the page shows its session's real
// numbers before any WebAssembly runs (web/boot.js and app.css say what
// shows when). Its cost is bounded: ui.MaxPrerenderWork of engine work a
// page, one page at a time, and maxPrerendered bytes of pages kept, the
// least recently asked for going first. A link past the cap, or on a
// model the server does not have, gets the page's placeholder.
type prerenderer struct {
	program       string // the page's program, named in its head (programMeta)
	sharedProgram string // the shared program's, "" when the web folder has none
	shell         []byte // go-app's page, with its placeholder root
	head          int    // where in shell the head's content starts
	at            int    // where in shell a prerendered root goes: after the placeholder's

	mu    sync.Mutex // one page at a time: ui.Prerendering is not safe for two
	pages ui.Prerendering

	cache *pageCache
}

// maxPrerendered bounds the bytes of prerendered roots kept: some hundred
// pages of stories260K.
const maxPrerendered = 8 << 20

// newPrerenderer prerenders into shell, go-app's page, whose root is the
// placeholder <main id="playground">.
func newPrerenderer(shell []byte) (*prerenderer, error) {
	id := bytes.Index(shell, []byte(` id="playground"`))
	start := bytes.LastIndex(shell[:max(id, 0)], []byte("<main"))
	end := bytes.Index(shell[max(start, 0):], []byte("</main>"))
	head := bytes.Index(shell, []byte("<head>"))
	if id < 0 || start < 0 || end < 0 || head < 0 || head > start {
		return nil, errors.New(`the page has no <head> and placeholder <main id="playground"> to prerender after`)
	}
	return &prerenderer{shell: shell, head: head + len("<head>"), at: start + end + len("</main>"),
		cache: newPageCache(maxPrerendered)}, nil
}

// root is the prerendered root for rawQuery, or "" for the placeholder.
func (p *prerenderer) root(rawQuery string) string {
	if root, ok := p.cache.get(rawQuery); ok {
		return root
	}
	if ui.CheckPrerender(rawQuery) != nil {
		return "" // refused at once, not after the pages in the queue
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if root, ok := p.cache.get(rawQuery); ok { // drawn while this one waited
		return root
	}
	root, err := p.pages.Page(rawQuery, "/")
	var refused *ui.NotPrerenderedError
	if err != nil && !errors.As(err, &refused) {
		// A bug in a view or the engine: the browser draws the page.
		fmt.Printf("nexttoken: prerendering %q failed (please report it): %v\n", rawQuery, err)
	}
	p.cache.put(rawQuery, root)
	return root
}

// nextStep is the root of root's session one step on (its data-next,
// ui.NextLink) in a template, or "": web/boot.js puts it in the root's
// place when the reader steps before the program is live, at once, in the
// click's own task, since the page's thread is busy while the program
// loads and would read a fetch's answer only when it is done.
func (p *prerenderer) nextStep(root string) string {
	next := nextLinkOf(root)
	if next == "" {
		return ""
	}
	after := p.root(next)
	if after == "" {
		return ""
	}
	return `<template id="next-step" data-link="` + html.EscapeString(next) + `">` + after + `</template>`
}

// nextLinkOf is the data-next of a prerendered root, "" if it has none.
func nextLinkOf(root string) string {
	tag, _, _ := strings.Cut(root, ">") // the root's start tag: its values escape '>'
	_, next, ok := strings.Cut(tag, ` data-next="`)
	if !ok {
		return ""
	}
	next, _, _ = strings.Cut(next, `"`)
	return html.UnescapeString(next)
}

// rootEnd is the id of the last element in a prerendered root, an empty
// one, which the page's first frame waits for (page).
const rootEnd = "prerendered-end"

// page is the shell with root, a prerendered root or "" drawn for link,
// after its placeholder, then after (nextStep's template), and with head
// first in its head. A prerendered page says so in its head too (a meta
// tag naming the link), so that its CSS hides the placeholder from the
// first frame, before the parser has reached the root: a frame drawn in
// between showed the placeholder, and the root moved up when it went.
//
// Its first frame waits for the whole root (rel=expect, in Chromium): a
// frame drawn while the root was parsed laid out the first card alone, as
// wide as the views, and it moved and folded its columns when the others
// came. The link names an element at the root's end, since Chromium
// unblocks at an element's start. after is not waited for: a step asked
// for before the parser reaches it waits for it.
func (p *prerenderer) page(head, root, after, link string) []byte {
	if root != "" {
		head += `<meta name="nexttoken-prerendered" content="` + html.EscapeString(link) + `">` +
			`<link rel="expect" href="#` + rootEnd + `" blocking="render">`
		root = strings.TrimSuffix(root, "</main>") + `<i id="` + rootEnd + `" hidden></i></main>`
	}
	return slices.Concat(p.shell[:p.head], []byte(head), p.shell[p.head:p.at], []byte(root), []byte(after), p.shell[p.at:])
}

// serve serves the page for r's query, with the headers go-app gave its
// page and its og:url and og:image on the request's host (requestOrigin),
// gzipped for a client that takes it: compressed here, at gzip's best
// speed, since every link has a page of its own.
func (p *prerenderer) serve(w http.ResponseWriter, r *http.Request, header http.Header) {
	// The playground's own page starts its program at once: its head
	// names it first (programMeta), and web/boot.js, in the head too,
	// fetches and compiles it while the page is parsed, not once the
	// page's scripts run. An embed's waits for the reader.
	//
	// A link that asks for threads (play.ThreadsAsked) gets a cross-origin
	// isolated page, which loads the program on a shared memory; any other
	// page is not isolated (secured).
	head, isolated := p.program, play.ThreadsAsked(r.URL.RawQuery) >= 2 && p.sharedProgram != ""
	if isolated {
		head = p.sharedProgram
	}
	if play.Embedded(r.URL.RawQuery) {
		head = ""
	}
	root := p.root(r.URL.RawQuery)
	page := withOrigin(p.page(head, root, p.nextStep(root), r.URL.RawQuery), requestOrigin(r), r.URL.Path)
	maps.Copy(w.Header(), header.Clone())
	if isolated {
		isolate(w.Header())
	}
	if accepts(r.Header.Get("Accept-Encoding"), "gzip") {
		var gz bytes.Buffer
		compressing <- struct{}{}
		zw := gzipWriters.Get().(*gzip.Writer)
		zw.Reset(&gz)
		zw.Write(page)
		zw.Close()
		gzipWriters.Put(zw)
		<-compressing
		w.Header().Set("Content-Encoding", "gzip")
		w = lengthWriter{w, int64(gz.Len())}
		page = gz.Bytes()
	}
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(page))
}

// programMeta names the page's program at path, which web/boot.js fetches
// and compiles in a worker as soon as the page's head is parsed, off the
// page's thread (a preload would hand its bytes to the page's thread):
// /web/app.wasm, or, on a page that is cross-origin isolated,
// /web/shared/app.wasm, the program on a shared memory.
func programMeta(path string) string {
	return `<meta name="nexttoken-program" content="` + path + `">`
}

// gzipWriters are writers at gzip's best speed: a prerendered page is
// compressed for each request, in about a millisecond, as many at once as
// there are processors (compressing), since a writer holds a megabyte.
var (
	compressing = make(chan struct{}, runtime.GOMAXPROCS(0))
	gzipWriters = sync.Pool{New: func() any {
		zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed) // the level is valid
		return zw
	}}
)

// pageCache keeps prerendered roots by link up to a number of bytes, links
// counted, dropping the least recently used.
type pageCache struct {
	mu     sync.Mutex
	max    int
	bytes  int
	order  *list.List // of *cached, most recent first
	byLink map[string]*list.Element
}

type cached struct{ link, root string }

func newPageCache(max int) *pageCache {
	return &pageCache{max: max, order: list.New(), byLink: map[string]*list.Element{}}
}

func (c *pageCache) get(link string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byLink[link]
	if !ok {
		return "", false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).root, true
}

// put keeps root for link; a root larger than the whole cache is not kept.
func (c *pageCache) put(link, root string) {
	size := len(link) + len(root)
	if size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byLink[link]; ok {
		return
	}
	for c.bytes+size > c.max {
		last := c.order.Back()
		old := c.order.Remove(last).(*cached)
		delete(c.byLink, old.link)
		c.bytes -= len(old.link) + len(old.root)
	}
	c.byLink[link] = c.order.PushFront(&cached{strings.Clone(link), root})
	c.bytes += size
}
