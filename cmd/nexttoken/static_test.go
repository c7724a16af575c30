//go:build !js

package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStaticSite exports the playground for /nexttoken/, serves the files
// there as a plain static host would, and uses the page in the browser.
func TestStaticSite(t *testing.T) {
	h := needBrowser(t)
	const base = "/nexttoken/"
	dir := t.TempDir()
	if err := exportSite("../../web", dir, base, ""); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(staticHost(t, dir, base))
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
