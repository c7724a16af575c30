package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeWasm stands for a built app.wasm: the server only serves it.
var fakeWasm = []byte("\x00asm\x01\x00\x00\x00 not a real program")

// testWebDir makes a web folder with a fake app.wasm, its precompressed
// copies (the .br one is only labelled: the server never decodes it), a
// stylesheet, an icon and a model.
func testWebDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(fakeWasm)
	zw.Close()
	for name, data := range map[string][]byte{
		"app.wasm":          fakeWasm,
		"app.wasm.gz":       gz.Bytes(),
		"app.wasm.br":       []byte("brotli bytes"),
		"app.css":           []byte("body { margin: 0; }\n"),
		"icon.svg":          []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>`),
		"models/model.bin":  {1, 2, 3},
		"models/LICENSE.md": []byte("# Models\n"),
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func testServer(t *testing.T, dir string) http.Handler {
	t.Helper()
	h, err := newServer(dir)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// get requests path, with Accept-Encoding (if not empty) and any other
// header given as name, value pairs.
func get(h http.Handler, path, acceptEncoding string, header ...string) *http.Response {
	r := httptest.NewRequest("GET", path, nil)
	if acceptEncoding != "" {
		r.Header.Set("Accept-Encoding", acceptEncoding)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

// body reads a response, decompressing gzip.
func body(t *testing.T, res *http.Response) string {
	t.Helper()
	var r io.Reader = res.Body
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			t.Fatalf("gzip: %v", err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestServeWasm(t *testing.T) {
	dir := testWebDir(t)
	h := testServer(t, dir)
	for _, tc := range []struct {
		path, accept string
		encoding     string // want Content-Encoding
		body         string // want the body, decoded when gzip
	}{
		{"/web/app.wasm", "gzip, deflate, br, zstd", "br", "brotli bytes"},
		{"/web/app.wasm", "gzip", "gzip", string(fakeWasm)},
		{"/web/app.wasm", "br;q=0, gzip;q=0.5", "gzip", string(fakeWasm)},
		{"/web/app.wasm", "", "", string(fakeWasm)},
		{"/web/app.wasm", "identity", "", string(fakeWasm)},
		{"/web/app.wasm", "gzip;q=0", "", string(fakeWasm)},
		{"/app.wasm", "br", "br", "brotli bytes"}, // go-app's old address
	} {
		t.Run(tc.path+" "+tc.accept, func(t *testing.T) {
			res := get(h, tc.path, tc.accept)
			if res.StatusCode != 200 {
				t.Fatalf("status %d", res.StatusCode)
			}
			for name, want := range map[string]string{
				"Content-Type":     "application/wasm",
				"Content-Encoding": tc.encoding,
				"Vary":             "Accept-Encoding",
				"Cache-Control":    "no-cache",
			} {
				if got := res.Header.Get(name); got != want {
					t.Errorf("%s: %q, want %q", name, got, want)
				}
			}
			if got := body(t, res); got != tc.body {
				t.Errorf("body %q, want %q", got, tc.body)
			}
		})
	}

	// brotli gives its copy app.wasm's time in whole seconds; a copy older
	// than that is left over from an earlier build.
	info, err := os.Stat(filepath.Join(dir, "app.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		time     time.Time
		encoding string
	}{
		{info.ModTime().Truncate(time.Second), "br"},
		{info.ModTime().Add(-time.Hour), "gzip"},
	} {
		if err := os.Chtimes(filepath.Join(dir, "app.wasm.br"), tc.time, tc.time); err != nil {
			t.Fatal(err)
		}
		if got := get(h, "/web/app.wasm", "br, gzip").Header.Get("Content-Encoding"); got != tc.encoding {
			t.Errorf("app.wasm.br from %v, app.wasm from %v: Content-Encoding %q, want %q", tc.time, info.ModTime(), got, tc.encoding)
		}
	}
}

// TestServeResponses checks compression and caching of every kind of
// response.
func TestServeResponses(t *testing.T) {
	h := testServer(t, testWebDir(t))
	for _, tc := range []struct {
		path, accept string
		status       int
		encoding     string
		cache        string
		contains     string
	}{
		{"/", "gzip", 200, "gzip", "no-cache", `id="playground"`},
		{"/", "", 200, "", "no-cache", `id="playground"`},
		{"/app.js", "gzip", 200, "gzip", "no-cache", "GOAPP_VERSION"},
		{"/wasm_exec.js", "gzip", 200, "gzip", "no-cache", "Go"},
		{"/manifest.webmanifest", "gzip", 200, "gzip", "no-cache", `"name":"nexttoken"`},
		{"/app-worker.js", "br, gzip", 200, "gzip", "no-cache", "/web/app.wasm"},
		{"/web/app.css", "gzip", 200, "gzip", "no-cache", "margin"},
		{"/web/icon.svg", "gzip", 200, "gzip", "no-cache", "<svg"},
		{"/web/models/model.bin", "gzip", 200, "", "public, max-age=86400", "\x01\x02\x03"},
		{"/web/models/LICENSE.md", "gzip", 200, "gzip", "public, max-age=86400", "# Models"},
		{"/docs/", "gzip", 200, "gzip", "no-cache", `<iframe src="../?embed=1`},
		{"/web/models/", "gzip", 404, "", "", ""},
		{"/web/../app.wasm", "", 404, "", "", ""},
		{"/web/nope.css", "gzip", 404, "", "", ""},
		{"/nope", "gzip", 404, "", "", ""},
	} {
		t.Run(tc.path+" "+tc.accept, func(t *testing.T) {
			res := get(h, tc.path, tc.accept)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.status)
			}
			if got := res.Header.Get("Content-Encoding"); got != tc.encoding {
				t.Errorf("Content-Encoding %q, want %q", got, tc.encoding)
			}
			if tc.status != 200 {
				return
			}
			if got := res.Header.Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control %q, want %q", got, tc.cache)
			}
			if got := body(t, res); !strings.Contains(got, tc.contains) {
				t.Errorf("body lacks %q:\n%.500s", tc.contains, got)
			}
		})
	}
}

// TestServeLinkPreviews checks that a page's og:url and og:image are
// absolute on the host asked for (go-app alone writes "https://").
func TestServeLinkPreviews(t *testing.T) {
	h := testServer(t, testWebDir(t))
	for _, tc := range []struct {
		path  string
		proto string
		url   string
		image string
	}{
		{"/", "", "http://example.com/", "http://example.com/web/icon.png"},
		{"/?model=toy", "https", "https://example.com/", "https://example.com/web/icon.png"},
		{"/index.html", "", "http://example.com/index.html", "http://example.com/web/icon.png"},
	} {
		page := body(t, get(h, tc.path, "gzip", "X-Forwarded-Proto", tc.proto))
		for _, want := range []string{
			`<meta property="og:url" content="` + tc.url + `">`,
			`<meta property="og:image" content="` + tc.image + `">`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %s", tc.path, want)
			}
		}
		if strings.Contains(page, `"https://"`) {
			t.Errorf("%s still has an empty https:// link", tc.path)
		}
	}
}

// TestServeRevalidate checks that files revalidate by date and pages by the
// app version.
func TestServeRevalidate(t *testing.T) {
	h := testServer(t, testWebDir(t))
	for _, path := range []string{"/web/app.wasm", "/web/app.css"} {
		res := get(h, path, "br, gzip")
		lastModified := res.Header.Get("Last-Modified")
		if lastModified == "" || res.Header.Get("ETag") != "" {
			t.Errorf("%s: Last-Modified %q, ETag %q: want a date and no ETag", path, lastModified, res.Header.Get("ETag"))
		}
		if res := get(h, path, "br, gzip", "If-Modified-Since", lastModified); res.StatusCode != 304 {
			t.Errorf("%s again: status %d, want 304", path, res.StatusCode)
		}
	}
	etag := get(h, "/", "gzip").Header.Get("ETag")
	if res := get(h, "/", "gzip", "If-None-Match", etag); etag == "" || res.StatusCode != 304 {
		t.Errorf("page again with ETag %q: status %d, want 304", etag, res.StatusCode)
	}
}

// TestServeVersion checks that a new build changes the app version, which
// makes go-app's service worker fetch everything again.
func TestServeVersion(t *testing.T) {
	version := regexp.MustCompile(`"GOAPP_VERSION":"([0-9a-f]+)"`)
	dir := testWebDir(t)
	var versions []string
	for _, build := range []string{"first build", "second build"} {
		if err := os.WriteFile(filepath.Join(dir, "app.wasm"), []byte(build), 0o644); err != nil {
			t.Fatal(err)
		}
		m := version.FindStringSubmatch(body(t, get(testServer(t, dir), "/app.js", "")))
		if m == nil {
			t.Fatal("app.js has no GOAPP_VERSION")
		}
		versions = append(versions, m[1])
	}
	if versions[0] == versions[1] {
		t.Errorf("version %s for two builds", versions[0])
	}
}

// TestServeSecurityHeaders checks the headers every response has: the
// security policy, and cross-origin isolation, which lets a page run the
// engine on threads over a shared memory: every page that asks for
// threads, no other page (the documentation's frames embeds, which an
// isolated page may not), and every other response, which an isolated
// page's workers need.
func TestServeSecurityHeaders(t *testing.T) {
	web := testWebDir(t)
	addSharedProgram(t, web)
	h := testServer(t, web)
	for _, path := range []string{"/", "/?threads=2", "/?threads=1", "/docs/", "/app.js", "/wasm_exec.js", "/web/app.wasm", "/web/models/model.bin", "/nope"} {
		res := get(h, path, "gzip")
		isolation := map[bool][2]string{true: {"same-origin", "credentialless"}}[!slices.Contains([]string{"/", "/?threads=1", "/docs/"}, path)]
		for name, want := range map[string]string{
			"X-Content-Type-Options":       "nosniff",
			"Referrer-Policy":              "strict-origin-when-cross-origin",
			"Content-Security-Policy":      contentSecurityPolicy,
			"X-Frame-Options":              "",
			"Cross-Origin-Opener-Policy":   isolation[0],
			"Cross-Origin-Embedder-Policy": isolation[1],
		} {
			if got := res.Header.Get(name); got != want {
				t.Errorf("%s: %s %q, want %q", path, name, got, want)
			}
		}
	}
	for _, want := range []string{"'wasm-unsafe-eval'", "frame-ancestors *"} {
		if !strings.Contains(contentSecurityPolicy, want) {
			t.Errorf("the policy lacks %s", want)
		}
	}
}

// TestServeErrors checks that a bad command line gives one line on stderr and
// a non-zero exit, before listening.
func TestServeErrors(t *testing.T) {
	dir := testWebDir(t)
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "flag provided but not defined"},
		{[]string{"--web=" + dir, "stray"}, `unexpected argument "stray"`},
		{[]string{"--web=" + empty}, filepath.Join(empty, "app.wasm") + ` is missing: build it with "make web/app.wasm"`},
		{[]string{"--web=" + dir, "--addr=127.0.0.1:99999"}, "invalid port"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			failsInOneLine(t, append([]string{"serve"}, tc.args...), tc.want)
		})
	}
	if code, out, _ := runCmd("serve", "-h"); code != 0 || !strings.Contains(out, "-addr") {
		t.Errorf("serve -h: exit %d, output %q", code, out)
	}
}

// TestServeReadOnly: every method but GET and HEAD is refused with 405,
// saying which are allowed, and oversized headers with 431.
func TestServeReadOnly(t *testing.T) {
	h := testServer(t, testWebDir(t))
	for _, method := range []string{"POST", "PUT", "DELETE", "PATCH", "TRACE", "OPTIONS"} {
		for _, path := range []string{"/", "/web/app.css", "/docs/", "/app.js"} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
			if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d, Allow %q", method, path, w.Code, w.Header().Get("Allow"))
			}
		}
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config = httpServer(h)
	srv.Start()
	defer srv.Close()
	req, err := http.NewRequest("GET", srv.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Big", strings.Repeat("x", 200<<10))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("200 KB of headers: status %d, want 431", res.StatusCode)
	}
	// A readable link with a long query still opens.
	res, err = http.Get(srv.URL + "/?prompt=" + strings.Repeat("a", 60<<10))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("a 60 KB query: status %d", res.StatusCode)
	}
}

// TestServeHead checks over HTTP that a HEAD gets the headers a GET gets,
// Content-Length too, and that a GET's Content-Length is its body's.
func TestServeHead(t *testing.T) {
	h := testServer(t, testWebDir(t))
	srv := httptest.NewUnstartedServer(h)
	srv.Config = httpServer(h)
	srv.Start()
	defer srv.Close()
	paths := []string{"/", "/index.html", "/app.js", "/wasm_exec.js", "/manifest.webmanifest", "/app-worker.js", "/docs/",
		"/web/app.css", "/web/icon.svg", "/web/app.wasm", "/app.wasm", "/web/models/model.bin", "/nope"}
	for _, path := range paths {
		for _, accept := range []string{"gzip", "br, gzip", ""} {
			t.Run(path+" "+accept, func(t *testing.T) {
				get, getBody := fetch(t, "GET", srv.URL+path, accept)
				head, _ := fetch(t, "HEAD", srv.URL+path, accept)
				if get.StatusCode == 200 && get.Header.Get("Content-Length") != strconv.Itoa(len(getBody)) {
					t.Errorf("GET: Content-Length %q, body %d bytes", get.Header.Get("Content-Length"), len(getBody))
				}
				get.Header.Del("Date")
				head.Header.Del("Date")
				if head.StatusCode != get.StatusCode || !reflect.DeepEqual(head.Header, get.Header) {
					t.Errorf("HEAD: %d %v\nGET: %d %v", head.StatusCode, head.Header, get.StatusCode, get.Header)
				}
			})
		}
	}
}

// fetch makes a request over HTTP, with Accept-Encoding (if not empty),
// and reads the body as sent.
func fetch(t *testing.T, method, url, acceptEncoding string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	// Without DisableCompression the client would ask for gzip itself.
	res, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// TestServeGzip checks that text is sent compressed whole, with its length,
// the same bytes each time, decoding to what an uncompressed request gets;
// that a file edited on disk is compressed afresh, even with its size and
// time unchanged; and that a body too large to keep goes uncompressed.
func TestServeGzip(t *testing.T) {
	dir := testWebDir(t)
	big := bytes.Repeat([]byte("a line of text\n"), maxGzipBody/15+1)
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	h := testServer(t, dir)
	for _, path := range []string{"/", "/index.html", "/app.js", "/wasm_exec.js", "/manifest.webmanifest", "/docs/", "/web/app.css", "/web/icon.svg"} {
		t.Run(path, func(t *testing.T) {
			plain := body(t, get(h, path, ""))
			var first []byte
			for range 3 {
				res := get(h, path, "gzip")
				raw, err := io.ReadAll(res.Body)
				if err != nil {
					t.Fatal(err)
				}
				if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Content-Length") != strconv.Itoa(len(raw)) {
					t.Fatalf("Content-Encoding %q, Content-Length %q for %d bytes", res.Header.Get("Content-Encoding"), res.Header.Get("Content-Length"), len(raw))
				}
				if first == nil {
					first = raw
					res.Body = io.NopCloser(bytes.NewReader(raw))
					if got := body(t, res); got != plain {
						t.Fatalf("decoded %q, want %q", got, plain)
					}
				} else if !bytes.Equal(raw, first) {
					t.Errorf("compressed differently the next time")
				}
			}
		})
	}

	css := filepath.Join(dir, "app.css")
	info, err := os.Stat(css)
	if err != nil {
		t.Fatal(err)
	}
	get(h, "/web/app.css", "gzip")
	edited := strings.Replace("body { margin: 0; }\n", "0", "1", 1)
	if err := os.WriteFile(css, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(css, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := body(t, get(h, "/web/app.css", "gzip")); got != edited {
		t.Errorf("app.css edited: got %q, want %q", got, edited)
	}

	res := get(h, "/web/big.txt", "gzip")
	if got := body(t, res); res.Header.Get("Content-Encoding") != "" || res.Header.Get("Content-Length") != strconv.Itoa(len(big)) || got != string(big) {
		t.Errorf("%d bytes of text: Content-Encoding %q, Content-Length %q, %d bytes back", len(big),
			res.Header.Get("Content-Encoding"), res.Header.Get("Content-Length"), len(got))
	}
}

// TestGzipCache checks that a body is compressed once, by its content, and
// that the cache never holds more than maxGzipCache.
func TestGzipCache(t *testing.T) {
	var c gzipCache
	a, b := []byte("the same text, twice"), []byte("other text")
	first := c.compress(a)
	for _, tc := range []struct {
		body []byte
		same bool // the very bytes of the first compression
	}{
		{a, true},
		{bytes.Clone(a), true},
		{b, false},
	} {
		gz := c.compress(tc.body)
		if got := &gz[0] == &first[0]; got != tc.same {
			t.Errorf("%q: the first compression's bytes %v, want %v", tc.body, got, tc.same)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, tc.body) {
			t.Errorf("%q decodes to %q, %v", tc.body, got, err)
		}
	}

	// Incompressible bodies fill the cache: it starts again, and keeps the
	// newest.
	rng := rand.NewChaCha8([32]byte{})
	for i := range 2 * maxGzipCache / (1 << 20) {
		body := make([]byte, 1<<20)
		rng.Read(body)
		gz := c.compress(body)
		if c.bytes > maxGzipCache {
			t.Fatalf("body %d: %d bytes kept, more than %d", i, c.bytes, maxGzipCache)
		}
		if again := c.compress(body); &again[0] != &gz[0] {
			t.Fatalf("body %d: not kept", i)
		}
	}
}

// TestServeLinks checks that a symbolic link in the web folder is served
// when it stays inside, and otherwise stops the server from starting with
// a message that names it.
func TestServeLinks(t *testing.T) {
	for _, tc := range []struct {
		target string // with UP for the web folder's parent
		want   string // the error, with DIR for the web folder; "" to serve
	}{
		{"app.css", ""},
		{"models/LICENSE.md", ""},
		{"UP/passwd", "DIR/evil is a symbolic link to UP/passwd, outside DIR: only files inside DIR are served (remove the link, or copy the file in)"},
		{"../passwd", "DIR/evil is a symbolic link to ../passwd, outside DIR: only files inside DIR are served"},
		{"nowhere.css", "DIR/evil is a symbolic link to nowhere.css, which does not exist: remove it"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			dir := testWebDir(t)
			up := filepath.Dir(dir)
			if err := os.WriteFile(filepath.Join(up, "passwd"), []byte("root:x:0:0"), 0o644); err != nil {
				t.Fatal(err)
			}
			target := strings.ReplaceAll(tc.target, "UP", up)
			if err := os.Symlink(target, filepath.Join(dir, "evil")); err != nil {
				t.Fatal(err)
			}
			h, err := newServer(dir)
			if tc.want != "" {
				want := strings.NewReplacer("DIR", dir, "UP", up).Replace(tc.want)
				if err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("error %v, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, target))
			if err != nil {
				t.Fatal(err)
			}
			if got := body(t, get(h, "/web/evil", "gzip")); got != string(want) {
				t.Errorf("/web/evil: %q, want %q", got, want)
			}
		})
	}
}

// TestServeShutdown stops a server with downloads in flight: those that
// finish within the grace period are served whole, those that do not are
// cut off after it, and either way the server says so in one line and
// reports no error.
func TestServeShutdown(t *testing.T) {
	for _, tc := range []struct {
		name      string
		downloads []time.Duration // how long each takes; 0: until cut off
		grace     time.Duration
		want      string
	}{
		{"idle", nil, time.Second, "nexttoken: shut down cleanly\n"},
		{"finished", []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, 5 * time.Second, "nexttoken: shut down cleanly\n"},
		{"one cut", []time.Duration{0, 10 * time.Millisecond}, 200 * time.Millisecond, "nexttoken: shut down: 1 request cut off after 200ms\n"},
		{"two cut", []time.Duration{0, 0}, 100 * time.Millisecond, "nexttoken: shut down: 2 requests cut off after 100ms\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan bool)
			download := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				d, err := time.ParseDuration(r.URL.Query().Get("for"))
				if err != nil {
					t.Error(err)
				}
				w.Write([]byte("begun,"))
				w.(http.Flusher).Flush()
				started <- true
				if d == 0 {
					<-r.Context().Done() // the connection is closed
					return
				}
				time.Sleep(d)
				w.Write([]byte("done"))
			})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			url := "http://" + ln.Addr().String() + "/"
			ctx, stop := context.WithCancel(context.Background())
			var out bytes.Buffer
			served := make(chan error)
			go func() { served <- serveUntil(ctx, ln, download, tc.grace, &out) }()

			got := make(chan string, len(tc.downloads))
			for _, d := range tc.downloads {
				go func() {
					res, err := http.Get(url + "?for=" + d.String())
					if err != nil {
						got <- err.Error()
						return
					}
					defer res.Body.Close()
					b, err := io.ReadAll(res.Body)
					if err != nil {
						b = append(b, " cut off"...)
					}
					got <- string(b)
				}()
				<-started
			}
			stop()
			if err := <-served; err != nil {
				t.Errorf("serveUntil: %v", err)
			}
			if out.String() != tc.want {
				t.Errorf("said %q, want %q", out.String(), tc.want)
			}
			if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
				t.Error("still accepting connections")
			}
			var bodies, want []string
			for _, d := range tc.downloads {
				bodies = append(bodies, <-got)
				if d == 0 {
					want = append(want, "begun, cut off")
				} else {
					want = append(want, "begun,done")
				}
			}
			slices.Sort(bodies) // the downloads end in any order
			slices.Sort(want)
			if !slices.Equal(bodies, want) {
				t.Errorf("downloads got %q, want %q", bodies, want)
			}
		})
	}
}

// TestServeSignal stops nexttoken serve as a supervisor or Ctrl-C does:
// it exits 0, saying so in one line after the one with its address.
func TestServeSignal(t *testing.T) {
	dir := testWebDir(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			stdout := make(lines, 4)
			var stderr bytes.Buffer
			code := make(chan int)
			go func() { code <- run([]string{"serve", "--web=" + dir, "--addr=127.0.0.1:0"}, nil, stdout, &stderr) }()
			if line := stdout.next(t); !strings.HasPrefix(line, "nexttoken: the playground is at http://127.0.0.1:") {
				t.Fatalf("first line %q", line)
			}
			// serve catches the signal from before it prints its address.
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			if line := stdout.next(t); line != "nexttoken: shut down cleanly\n" {
				t.Errorf("then %q", line)
			}
			select {
			case c := <-code:
				if c != 0 || stderr.Len() > 0 {
					t.Errorf("exit %d, stderr %q", c, stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("serve did not return")
			}
		})
	}
}

// lines hands on each write it gets: a line, from serve's fmt.Fprint*.
type lines chan string

func (l lines) Write(b []byte) (int, error) {
	l <- string(b)
	return len(b), nil
}

// next is the next line written, waiting for it up to 10 s.
func (l lines) next(t *testing.T) string {
	t.Helper()
	select {
	case line := <-l:
		return line
	case <-time.After(10 * time.Second):
		t.Fatal("no line written in 10 s")
		return ""
	}
}

// TestServeSharedProgram checks that the page of a link that asks for
// threads names the program on a shared memory where the web folder
// has it, and app.wasm where it does not, as every other page does, and
// that the page's loader runs a program on a shared memory
// (wasmshare.Loader).
func TestServeSharedProgram(t *testing.T) {
	for _, shared := range []bool{false, true} {
		dir := testWebDir(t)
		want := `content="/web/app.wasm"`
		if page := body(t, get(testServer(t, dir), "/", "")); !strings.Contains(page, `<meta name="nexttoken-program" `+want) {
			t.Errorf("the playground's page does not name its program %s", want)
		}
		if shared {
			addSharedProgram(t, dir)
			want = `content="/web/shared/app.wasm"`
		}
		h := testServer(t, dir)
		if page := body(t, get(h, "/?threads=2", "")); !strings.Contains(page, `<meta name="nexttoken-program" `+want) {
			t.Errorf("shared program %v: the page that asks for threads does not name its program %s", shared, want)
		}
		if loader := body(t, get(h, "/wasm_exec.js", "")); !strings.Contains(loader, "globalThis.nexttokenInstantiate") {
			t.Error("the page's wasm_exec.js is not made for a shared memory")
		}
	}
}

// addSharedProgram adds the program on a shared memory to the web folder
// dir, as make does.
func addSharedProgram(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shared", "app.wasm"), fakeWasm, 0o644); err != nil {
		t.Fatal(err)
	}
}
