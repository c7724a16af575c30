//go:build !js

package main

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestStaticSite exports the playground for /nexttoken/, serves the files
// there as a plain static host would, and uses the page in the browser.
// A model with a chat template starts the template engine from chat.wasm's
// gzip copy, which the engine's worker decompresses itself.
func TestStaticSite(t *testing.T) {
	h := needBrowser(t)
	const base = "/nexttoken/"
	dir := t.TempDir()
	if _, err := exportSite("../../web", dir, base, ""); err != nil {
		t.Fatal(err)
	}
	var asked sync.Map // the paths the browser asked for
	host := staticHost(t, dir, base)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.URL.Path, true)
		host.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	tab := openTab(t, h.browser)
	load, err := loadPage(tab, srv.URL+base)
	if err != nil {
		t.Fatalf("%s did not go live: %v", base, err)
	}
	t.Logf("%s live %.0f ms after navigation", base, load.Ready)
	if got := text(tab, "#choice"); got != "sat" {
		t.Errorf("chosen %q, want sat", got)
	}
	click(tab, "#step")
	waitFor(tab, `document.querySelector('#kv-rows').textContent === '3'`)

	link := base + "?model=toy&prompt=The%20cat&steps=2"
	if _, err := loadPage(tab, srv.URL+link); err != nil {
		t.Fatalf("%s did not go live: %v", link, err)
	}
	if got := evaluate[string](tab, `document.querySelector('#text').textContent`); got != "The cat sat on" {
		t.Errorf("%s: text %q, want %q", link, got, "The cat sat on")
	}

	// Static hosts serve the page at index.html too: it is the playground.
	if _, err := loadPage(tab, srv.URL+base+"index.html?steps=1"); err != nil {
		t.Fatalf("%sindex.html did not go live: %v", base, err)
	}
	if got := evaluate[string](tab, `document.querySelector('#text').textContent`); got != "The cat sat" {
		t.Errorf("%sindex.html?steps=1: text %q, want %q", base, got, "The cat sat")
	}

	chat := chatGGUF(t, readChatTestdata(t, "qwen2.5-instruct.jinja"))
	must(tab, "choose the chat model", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{chat}))
	waitFor(tab, `document.querySelectorAll("#chat-prompt mark.special").length === 5`)
	_, gzip := asked.Load(base + "web/chat.wasm.gz")
	_, raw := asked.Load(base + "web/chat.wasm")
	if !gzip || raw {
		t.Errorf("the engine's worker asked for chat.wasm.gz: %v, for chat.wasm: %v", gzip, raw)
	}
}

// TestStaticFirstPageBytes exports the playground, at the site root and
// at a sub-path, and serves it as a host that compresses nothing does,
// with a Go server and with Python's http.server: the first page costs
// what TestFirstPageBytes allows, as the page fetches app.wasm.lzma and
// decodes it itself, and shows the worked example. A site whose copy is
// damaged still works, from app.wasm.
func TestStaticFirstPageBytes(t *testing.T) {
	h := needBrowser(t)
	if _, err := os.Stat("../../web/" + packedWasm); err != nil {
		t.Fatalf("the static site needs web/%s (make web/%s): %v", packedWasm, packedWasm, err)
	}
	for _, c := range []struct {
		name, base string
		damage     func(web string) error // to the exported web folder
		want       string                 // the file app.wasm came from
		python     bool                   // served by Python's http.server
	}{
		{name: "root", base: "/", want: "web/app.wasm.lzma"},
		{name: "sub-path", base: "/nexttoken/", want: "web/app.wasm.lzma"},
		{name: "root, Python's http.server", base: "/", want: "web/app.wasm.lzma", python: true},
		{name: "sub-path, Python's http.server", base: "/nexttoken/", want: "web/app.wasm.lzma", python: true},
		{name: "damaged copy", base: "/", want: "web/app.wasm",
			damage: func(web string) error {
				name := filepath.Join(web, packedWasm)
				b, err := os.ReadFile(name)
				if err != nil {
					return err
				}
				return os.WriteFile(name, b[:len(b)/2], 0o644)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The site in base's folder of a root that the host serves at /.
			root := t.TempDir()
			dir := filepath.Join(root, filepath.FromSlash(c.base))
			packed, err := exportSite("../../web", dir, c.base, "")
			if err != nil || !packed {
				t.Fatalf("export: packed %v, error %v", packed, err)
			}
			if c.damage != nil {
				if err := c.damage(filepath.Join(dir, "web")); err != nil {
					t.Fatal(err)
				}
			}
			var url string
			if c.python {
				url = pythonHost(t, root)
			} else {
				srv := httptest.NewServer(staticHost(t, dir, c.base))
				t.Cleanup(srv.Close)
				url = srv.URL
			}
			tab, all, total := firstPageBytes(t, h.browser, url+c.base)
			wasm := slices.IndexFunc(all, func(r pageFile) bool { return r.Name == c.base+c.want })
			if wasm < 0 || all[wasm].Bytes < 1e6 || all[wasm].Encoding != "" {
				t.Errorf("%s did not come over the network as it is: %+v", c.want, all)
			}
			if c.want == "web/app.wasm.lzma" {
				if total > firstPageLimit {
					t.Errorf("the first page cost %.0f bytes, more than %d", total, firstPageLimit)
				}
				t.Logf("app.wasm.lzma decoded in %.0f ms", evaluate[float64](tab, `performance.getEntriesByName("app.wasm.lzma decoded")[0].duration`))
			}
			if got, want := text(tab, probCell(2)), displayed(softmaxOf(workedExample)[2]); got != want {
				t.Errorf("p of sat = %q, want %q", got, want)
			}
		})
	}
}

// pythonHost serves the folder root at / with Python's http.server, a host
// that sends files as they are, until the test ends, and returns its URL.
// Without python3 the test is skipped.
func pythonHost(t *testing.T, root string) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("no python3 to serve the site with: %v", err)
	}
	cmd := exec.Command(python, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
	line, err := bufio.NewReader(out).ReadString('\n')
	_, port, ok := strings.Cut(line, " port ")
	port, _, _ = strings.Cut(port, " ")
	if err != nil || !ok {
		t.Fatalf("Python's http.server said %q: %v", line, err)
	}
	go io.Copy(io.Discard, out)
	return "http://127.0.0.1:" + port
}

// serveStatic exports the playground for base and serves it there as a
// plain static host does (staticHost).
func serveStatic(t *testing.T, base string) *httptest.Server {
	t.Helper()
	dir := t.TempDir()
	if _, err := exportSite("../../web", dir, base, ""); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(staticHost(t, dir, base))
	t.Cleanup(srv.Close)
	return srv
}

// staticHost serves the files in dir at base, and nothing else, as a static
// host does (the folder's index.html at base/ and at base/index.html, with
// no redirect). A request for anything else fails the test: the page's
// console shows a 404, but not the service worker's, which caches files on
// its own.
func staticHost(t *testing.T, dir, base string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, base)
		if ok && (name == "" || strings.HasSuffix(name, "/")) {
			name += "index.html"
		}
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(name)))
		if !ok || err != nil {
			t.Errorf("the browser asked for %s, which the static site lacks", r.URL.Path)
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil || info.IsDir() {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, name, info.ModTime(), f)
	})
}
