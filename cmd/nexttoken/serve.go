package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken"
	"nexttoken/engine/regularfile"
	"nexttoken/engine/wasmshare"
	"nexttoken/wasm/ui"
)

const serveUsage = `usage: nexttoken serve [flags]

Serves the browser playground: its pages, prerendered, and the web folder
(CSS, icons, models and app.wasm, which "make web/app.wasm" builds).

  nexttoken serve
  nexttoken serve --addr=0.0.0.0:9000

flags:
`

// contentSecurityPolicy lets the go-app page run and nothing else: its
// scripts are files (no inline script), WebAssembly needs 'wasm-unsafe-eval',
// and the components set style attributes (bar widths, CSS variables) but
// never inline <style> elements. frame-ancestors * lets any site embed the
// playground, e.g. a documentation page. connect-src lets a reader's model
// come from any web server that allows it (CORS), such as Hugging Face.
const contentSecurityPolicy = "default-src 'self'; " +
	"script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' https: http:; " +
	"style-src 'self'; style-src-attr 'unsafe-inline'; " +
	"object-src 'none'; base-uri 'self'; form-action 'self'; " +
	"frame-ancestors *"

func serve(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := flags.String("addr", "127.0.0.1:8000", "address to listen on")
	web := flags.String("web", "web", webUsage)
	if help, err := parseFlags(flags, args, serveUsage, stdout); help || err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", flags.Arg(0))
	}

	// Under a flood of requests the heap would grow to twice what it
	// holds before each collection: collect more often instead, so that
	// the server stays within a small machine's memory. GOMEMLIMIT, when
	// set, says otherwise.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(serveMemoryLimit)
	}
	handler, err := newServer(*web)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// Signals are caught before the address is printed, so that whoever
	// waits for it to stop the server gets a clean shutdown. A second signal
	// ends the program at once: stop restores the default handling.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	fmt.Fprintf(stdout, "nexttoken: the playground is at http://%s/\n", ln.Addr())
	return serveUntil(ctx, ln, handler, shutdownGrace, stdout)
}

// serveMemoryLimit is the Go memory the server aims to stay within: the
// page cache (maxPrerendered), one prerendering at a time, and the
// requests in flight take well under it.
const serveMemoryLimit = 40 << 20

// shutdownGrace is how long a stopped server lets requests in flight
// finish: enough for app.wasm (3 MB) over a decent link, and short of the
// 10 s that docker stop and many supervisors wait before they kill.
const shutdownGrace = 5 * time.Second

// serveUntil serves handler on ln until ctx is done. Then it stops
// accepting, lets the requests in flight finish for up to grace, cuts off
// those left and says in one line which it was: a server asked to stop has
// not failed.
func serveUntil(ctx context.Context, ln net.Listener, handler http.Handler, grace time.Duration, stdout io.Writer) error {
	var inFlight atomic.Int64
	srv := httpServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		handler.ServeHTTP(w, r)
	}))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Shutdown closes the listener and idle connections at once and waits
	// for the others to finish their requests.
	graceCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(graceCtx)
	// A stop that comes before Serve has begun leaves the listener to it:
	// Serve then sees the shutdown, closes the listener and returns.
	// Waiting for it means no connection is accepted after this returns.
	defer func() { <-served }()
	if err == nil {
		fmt.Fprintln(stdout, "nexttoken: shut down cleanly")
		return nil
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	cut := inFlight.Load()
	srv.Close()
	requests := "1 request"
	if cut != 1 {
		requests = fmt.Sprintf("%d requests", cut)
	}
	fmt.Fprintf(stdout, "nexttoken: shut down: %s cut off after %v\n", requests, grace)
	return nil
}

// webUsage describes the --web flag of serve and export.
const webUsage = "the web folder: CSS, icons, models and the built app.wasm"

// maxHeaderBytes bounds a request's line and headers: a readable link's
// query may hold 64 KiB, and a static site needs little else.
const maxHeaderBytes = 80 << 10

// httpServer serves handler with the limits a static site can afford.
func httpServer(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second, // requests have no body
		WriteTimeout:      2 * time.Minute,  // app.wasm over a slow link
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// parseFlags parses a command's flags. For -h it prints the command's usage
// and flags to stdout and reports help: the command is then done.
func parseFlags(flags *flag.FlagSet, args []string, usage string, stdout io.Writer) (help bool, err error) {
	flags.SetOutput(io.Discard) // errors are reported in one line by the caller
	err = flags.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		flags.SetOutput(stdout)
		fmt.Fprint(stdout, usage)
		flags.PrintDefaults()
		return true, nil
	}
	return false, err
}

// newServer is the playground's HTTP handler over the web folder dir: go-app's
// handler for the pages and its scripts, the folder's files at /web/, text
// compressed with gzip, HEAD answered as GET, and the security headers on
// every response.
func newServer(dir string) (http.Handler, error) {
	h, root, err := newApp(dir)
	if err != nil {
		return nil, err
	}
	h.Resources = webFolder{root}
	// go-app renders a page afresh for each request, at a cost and with its
	// attributes in another order each time, which would defeat gzipCache.
	// Its page changes only with the build, which a server keeps: what
	// changes with the link is the prerendered root put in it.
	shell, err := render(h, "/")
	if err != nil {
		root.Close()
		return nil, err
	}
	pre, err := newPrerenderer(shell.body.Bytes())
	if err != nil {
		root.Close()
		return nil, err
	}
	pre.pages.StepLinks = true // a reader's step before the program is live comes here
	pre.program = programMeta("/web/app.wasm")
	if _, err := root.Stat("shared/app.wasm"); err == nil {
		pre.sharedProgram = programMeta("/web/shared/app.wasm")
	}
	scripts := map[string]*pageWriter{}
	for path, rewrite := range map[string]func(string) (string, error){"/app.js": ui.BootAppJS, "/wasm_exec.js": wasmshare.Loader} {
		if scripts[path], err = rewritten(h, path, rewrite); err != nil {
			root.Close()
			return nil, err
		}
	}
	site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "this site is read-only: GET and HEAD only", http.StatusMethodNotAllowed)
			return
		}
		switch r.URL.Path {
		case "/", "/index.html":
			pre.serve(w, r, shell.header)
			return
		case "/app.js", "/wasm_exec.js":
			js := scripts[r.URL.Path]
			maps.Copy(w.Header(), js.header.Clone())
			http.ServeContent(w, r, r.URL.Path[1:], time.Time{}, bytes.NewReader(js.body.Bytes()))
			return
		}
		if r.URL.Path == "/docs/" {
			serveDocs(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
	return secured(headAsGet(gzipped(site, &gzipCache{}))), nil
}

// render is go-app's page at path and its headers, less Content-Length.
func render(h http.Handler, path string) (*pageWriter, error) {
	r, err := http.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	page := &pageWriter{header: http.Header{}, code: http.StatusOK}
	h.ServeHTTP(page, r)
	if page.code != http.StatusOK {
		return nil, fmt.Errorf("the page at %s did not render: status %d", path, page.code)
	}
	page.header.Del("Content-Length") // of go-app's page, not the one served
	return page, nil
}

// rewritten is go-app's script at path as h serves it, rewritten: app.js
// starting the program through web/boot.js (ui.BootAppJS), wasm_exec.js
// running it on a shared memory too (wasmshare.Loader), as the server's
// pages, cross-origin isolated, do.
func rewritten(h http.Handler, path string, rewrite func(string) (string, error)) (*pageWriter, error) {
	js, err := render(h, path)
	if err != nil {
		return nil, err
	}
	changed, err := rewrite(js.body.String())
	if err != nil {
		return nil, err
	}
	js.body.Reset()
	js.body.WriteString(changed)
	return js, nil
}

// requestOrigin is the scheme and host a request came to, for the page's
// og:url and og:image, which link previews show: go-app knows no host and
// writes "https://".
func requestOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// pageWriter keeps a response to rewrite it.
type pageWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (p *pageWriter) Header() http.Header         { return p.header }
func (p *pageWriter) WriteHeader(code int)        { p.code = code }
func (p *pageWriter) Write(b []byte) (int, error) { return p.body.Write(b) }

// ogTag is one of the page's og:url and og:image tags.
var ogTag = regexp.MustCompile(`<meta [^>]*property="og:(url|image)"[^>]*>`)

// withOrigin sets a page's og:url to origin+path and its og:image to the
// icon on origin; with no origin it removes both, since go-app's "https://"
// would send link previews nowhere.
func withOrigin(page []byte, origin, path string) []byte {
	return ogTag.ReplaceAllFunc(page, func(tag []byte) []byte {
		if origin == "" {
			return nil
		}
		content := origin + path
		if bytes.Contains(tag, []byte("og:image")) {
			content = origin + strings.TrimSuffix(path, "index.html") + "web/icon.png"
		}
		property := string(ogTag.FindSubmatch(tag)[1])
		return []byte(`<meta property="og:` + property + `" content="` + html.EscapeString(content) + `">`)
	})
}

// serveDocs serves the documentation page, index.html, which embeds live
// playgrounds from "../".
func serveDocs(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(nexttoken.IndexHTML))
}

// newApp is go-app's handler for the playground over the web folder dir,
// which it opens as root. The caller sets h.Resources, the URLs of the
// folder's files, and closes root when done with it.
func newApp(dir string) (h *app.Handler, root *os.Root, err error) {
	wasm := filepath.Join(dir, "app.wasm")
	info, err := os.Stat(wasm)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf(`%s is missing: build it with "make web/app.wasm" (or run "make run")`, wasm)
	}
	if err != nil {
		return nil, nil, err
	}
	root, err = os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	version, err := hashFiles(dir, root)
	if err != nil {
		root.Close()
		return nil, nil, err
	}

	ui.Register()
	h = ui.Handler()
	h.Version = version
	// The loader's progress counts decompressed bytes; Content-Length would
	// be the compressed size.
	h.WasmContentLength = strconv.FormatInt(info.Size(), 10)
	return h, root, nil
}

// hashFiles is the app's version: a hash of every file in the web folder
// dir, opened as root, that the page may use, so that go-app's service
// worker, which serves them from its cache, fetches them again whenever one
// changes. Precompressed copies are left out: they follow their originals.
// Reading every file also finds, before the server starts, a link the
// server could not follow, and what is not a file (a named pipe would
// block the reading; a device might never end).
func hashFiles(dir string, root *os.Root) (string, error) {
	sum := sha256.New()
	err := fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || encodingOf(name) != "" {
			return err
		}
		f, _, err := regularfile.OpenIn(root, name)
		var notRegular *regularfile.NotRegularError
		switch {
		case errors.As(err, &notRegular):
			notRegular.Path = filepath.Join(dir, filepath.FromSlash(name))
			return fmt.Errorf("%w: the web folder holds only files and folders (remove it)", notRegular)
		case err != nil && d.Type()&fs.ModeSymlink != 0:
			return linkError(filepath.Join(dir, filepath.FromSlash(name)), dir, err)
		case err != nil:
			return err
		}
		defer f.Close()
		fmt.Fprintf(sum, "%s\x00", name)
		_, err = io.Copy(sum, f)
		return err
	})
	return hex.EncodeToString(sum.Sum(nil)[:8]), err
}

// linkError says why the symbolic link at path in the web folder dir could
// not be opened: os.Root, which keeps requests inside the folder, follows
// no link out of it. err is what os.Root said.
func linkError(path, dir string, err error) error {
	target, rerr := os.Readlink(path)
	if rerr != nil {
		return err
	}
	if _, serr := os.Stat(path); serr != nil {
		return fmt.Errorf("%s is a symbolic link to %s, which does not exist: remove it", path, target)
	}
	return fmt.Errorf("%s is a symbolic link to %s, outside %s: only files inside %s are served (remove the link, or copy the file in)", path, target, dir, dir)
}

// precompressed are the encodings a file may have beside it, made at build
// time (app.wasm.br, app.wasm.gz), best first.
var precompressed = []struct{ coding, ext string }{{"br", ".br"}, {"gzip", ".gz"}}

// encodingOf is the encoding of a precompressed copy, or "".
func encodingOf(name string) string {
	for _, p := range precompressed {
		if strings.HasSuffix(name, p.ext) {
			return p.coding
		}
	}
	return ""
}

// webFolder serves the web folder at /web/. go-app's handler hands it every
// request under /web/ (and /app.wasm), after setting Cache-Control: no-cache
// and an ETag that is the app version.
type webFolder struct{ root *os.Root }

// Resolve keeps /web/… paths as they are. (app.LocalDir(dir) would put dir
// in front of them: only right when the folder is ./web.)
func (webFolder) Resolve(path string) string { return path }

func (wf webFolder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/web/")
	f, info, coding, err := wf.open(name, r.Header.Get("Accept-Encoding"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	h := w.Header()
	// Files revalidate with Last-Modified: go-app's ETag would be the same
	// for every file and every encoding.
	h.Del("ETag")
	if strings.HasPrefix(name, "models/") {
		h.Set("Cache-Control", "public, max-age=86400")
	}
	if coding != "" {
		h.Set("Content-Encoding", coding)
		w = lengthWriter{w, info.Size()}
	}
	// The name, not the copy's, gives the Content-Type (application/wasm).
	http.ServeContent(w, r, name, info.ModTime(), f)
}

// lengthWriter gives a whole precompressed copy its Content-Length, which
// ServeContent leaves out when there is a Content-Encoding (in case a
// middleware compresses the body), so that a download shows its progress
// and a HEAD its size. A range or a 304 has no 200 status.
type lengthWriter struct {
	http.ResponseWriter
	size int64
}

func (w lengthWriter) WriteHeader(code int) {
	if code == http.StatusOK {
		w.Header().Set("Content-Length", strconv.FormatInt(w.size, 10))
	}
	w.ResponseWriter.WriteHeader(code)
}

// open opens the file called name, or its best precompressed copy that the
// client accepts and that is not older than the file. Folders are not served.
func (wf webFolder) open(name, acceptEncoding string) (*os.File, fs.FileInfo, string, error) {
	if !fs.ValidPath(name) {
		return nil, nil, "", fs.ErrInvalid
	}
	f, info, err := openFile(wf.root, name)
	if err != nil {
		return nil, nil, "", err
	}
	for _, p := range precompressed {
		if !accepts(acceptEncoding, p.coding) {
			continue
		}
		if cf, cinfo, err := openFile(wf.root, name+p.ext); err == nil {
			if current(cinfo, info) {
				f.Close()
				return cf, cinfo, p.coding, nil
			}
			cf.Close()
		}
	}
	return f, info, "", nil
}

// current reports whether a precompressed copy is of the file as it is now,
// not left over from an earlier build: gzip and brotli give the copy the
// file's time, brotli in whole seconds.
func current(copyInfo, fileInfo fs.FileInfo) bool {
	return !copyInfo.ModTime().Before(fileInfo.ModTime().Truncate(time.Second))
}

// openFile opens a regular file; anything else is not there.
func openFile(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, info, err := regularfile.OpenIn(root, name)
	var notRegular *regularfile.NotRegularError
	if errors.As(err, &notRegular) {
		err = fs.ErrNotExist
	}
	return f, info, err
}

// accepts reports whether an Accept-Encoding header accepts coding
// ("gzip, br;q=1.0"; q=0 refuses).
func accepts(header, coding string) bool {
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(name), coding) {
			continue
		}
		q, found := strings.CutPrefix(strings.TrimSpace(params), "q=")
		if !found {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}

// secured sets the security headers of every response.
func secured(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		// A page is cross-origin isolated, so that it may share memory
		// between threads, only when its link asks for threads
		// (prerenderer.serve): an isolated page may only frame isolated
		// pages, and the documentation's embeds are not. Every other
		// response carries the headers, which an isolated page's workers
		// need.
		if !pagePaths[r.URL.Path] {
			isolate(h)
		}
		next.ServeHTTP(w, r)
	})
}

// pagePaths are the paths of the site's pages.
var pagePaths = map[string]bool{"/": true, "/index.html": true, "/docs/": true}

// isolate sets the headers that make a page cross-origin isolated.
// credentialless still lets a page fetch what other sites send without
// saying it may be embedded (a model's file), without cookies.
func isolate(h http.Header) {
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Embedder-Policy", "credentialless")
}

// headAsGet answers HEAD as GET without the body, so that a HEAD gets the
// headers a GET gets, and above all the Content-Length, which gzipped
// knows only once it has the body.
func headAsGet(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		get := r.Clone(r.Context())
		get.Method = http.MethodGet
		next.ServeHTTP(headWriter{w}, get)
	})
}

// headWriter stops a HEAD's body once its length is in the headers. Before
// that, net/http gets the writes: it sends none of them for a HEAD but
// counts a short body into the Content-Length it sets, as for a GET.
type headWriter struct{ http.ResponseWriter }

func (w headWriter) Write(b []byte) (int, error) {
	if w.Header().Get("Content-Length") != "" {
		return 0, http.ErrBodyNotAllowed
	}
	return w.ResponseWriter.Write(b)
}

// maxGzipBody is the largest response gzipped compresses: the site's text
// is tens of kilobytes, and a larger body passes through as it is rather
// than be held in memory.
const maxGzipBody = 4 << 20

// gzipped compresses text responses (pages, scripts, CSS, JSON, SVG) for
// clients that accept gzip, whole, so that they have a Content-Length, and
// once for each content (gzipCache). A response that already has an
// encoding, such as a precompressed app.wasm, passes through.
func gzipped(next http.Handler, cache *gzipCache) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		if !accepts(r.Header.Get("Accept-Encoding"), "gzip") {
			next.ServeHTTP(w, r)
			return
		}
		gw := &gzipWriter{ResponseWriter: w, cache: cache}
		next.ServeHTTP(gw, r)
		gw.finish()
	})
}

// gzipWriter decides at WriteHeader whether to compress the response, and
// if so keeps the body until the handler is done.
type gzipWriter struct {
	http.ResponseWriter
	cache       *gzipCache
	body        *bytes.Buffer // nil: the body passes through
	wroteHeader bool
}

func (w *gzipWriter) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	h := w.Header()
	if code == http.StatusOK && h.Get("Content-Encoding") == "" && compressible(h.Get("Content-Type")) {
		w.body = new(bytes.Buffer)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *gzipWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.body == nil {
		return w.ResponseWriter.Write(b)
	}
	if w.body.Len()+len(b) <= maxGzipBody {
		return w.body.Write(b)
	}
	// Too large to keep: what is kept and the rest go as they are, with the
	// handler's Content-Length and ranges.
	kept := w.body
	w.body = nil
	w.ResponseWriter.WriteHeader(http.StatusOK)
	if _, err := w.ResponseWriter.Write(kept.Bytes()); err != nil {
		return 0, err
	}
	return w.ResponseWriter.Write(b)
}

// finish sends a kept body compressed.
func (w *gzipWriter) finish() {
	if w.body == nil {
		return
	}
	gz := w.cache.compress(w.body.Bytes())
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.Itoa(len(gz)))
	h.Del("Accept-Ranges") // ranges would count compressed bytes
	w.ResponseWriter.WriteHeader(http.StatusOK)
	w.ResponseWriter.Write(gz)
}

// maxGzipCache bounds the compressed bytes a gzipCache holds: the site's
// own text takes well under a megabyte.
const maxGzipCache = 16 << 20

// gzipCache holds the gzip of each body it compressed, by the body's
// SHA-256, so that a page, script or file is compressed once and then sent
// from memory while it stays the same, whatever path or host it was asked
// for; a file edited on disk has another hash and is compressed afresh.
// When full it starts again empty: bodies that vary without end (a page
// per host) cost compressing, never memory.
type gzipCache struct {
	mu    sync.Mutex
	gz    map[[sha256.Size]byte][]byte
	bytes int // in gz
}

// compress returns the gzip of body, which the caller must not change.
func (c *gzipCache) compress(body []byte) []byte {
	key := sha256.Sum256(body)
	c.mu.Lock()
	gz, ok := c.gz[key]
	c.mu.Unlock()
	if ok {
		return gz
	}
	// Compressed once, so with the best compression.
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression) // the level is valid
	zw.Write(body)
	zw.Close()
	gz = b.Bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.gz[key]; ok { // compressed meanwhile by another request
		return gz
	}
	if c.gz == nil || c.bytes+len(gz) > maxGzipCache {
		c.gz, c.bytes = map[[sha256.Size]byte][]byte{}, 0
	}
	c.gz[key] = gz
	c.bytes += len(gz)
	return gz
}

// compressible reports whether a Content-Type is text that gzip shrinks.
func compressible(contentType string) bool {
	t, _, _ := strings.Cut(contentType, ";")
	switch t = strings.TrimSpace(t); t {
	case "application/javascript", "application/json", "application/manifest+json", "image/svg+xml":
		return true
	}
	return strings.HasPrefix(t, "text/")
}
