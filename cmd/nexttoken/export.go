package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	goapperrors "github.com/maxence-charriere/go-app/v10/pkg/errors"

	"nexttoken"
	"nexttoken/engine/wasmshare"
	"nexttoken/wasm/ui"
)

const exportUsage = `usage: nexttoken export [flags] DIR

Writes the browser playground as a static site into DIR, a new or empty
folder, for any static host or CDN to serve as plain files: the page,
prerendered, go-app's scripts, worker and manifest, a copy of the web
folder (CSS, icons, models and app.wasm, which "make web/app.wasm" builds),
and the documentation page at docs/. If the web folder has app.wasm.lzma
("make web/app.wasm.lzma"), the page fetches that and decodes it itself:
hosts that compress nothing then send 1.9 MB, not app.wasm's 11 MB.
--base is the URL path the site is served at; every URL in it starts there.

  nexttoken export static
  nexttoken export --base=/nexttoken/ static

flags:
`

func export(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("export", flag.ContinueOnError)
	base := flags.String("base", "/", "the URL path the site is served at, such as /nexttoken/")
	web := flags.String("web", "web", webUsage)
	origin := flags.String("origin", "", "the scheme and host the site is served at, such as https://example.org, for link previews (og:url, og:image)")
	if help, err := parseFlags(flags, args, exportUsage, stdout); help || err != nil {
		return err
	}
	switch {
	case flags.NArg() == 0:
		return errors.New("export needs the folder to write: nexttoken export [flags] DIR")
	case flags.NArg() > 1 && strings.HasPrefix(flags.Arg(1), "-"):
		return fmt.Errorf("flag %s after DIR: flags come first", flags.Arg(1))
	case flags.NArg() > 1:
		return fmt.Errorf("unexpected argument %q", flags.Arg(1))
	}
	dir := flags.Arg(0)
	if err := checkOrigin(*origin); err != nil {
		return err
	}
	packed, err := exportSite(*web, dir, *base, *origin)
	if err != nil {
		return err
	}
	if !packed {
		fmt.Fprintf(stdout, "nexttoken: %s has no current app.wasm.lzma (make web/app.wasm.lzma): hosts that do not compress will send app.wasm's full size\n", *web)
	}
	fmt.Fprintf(stdout, "nexttoken: wrote the static site for %s to %s\n", *base, dir)
	return nil
}

// exportSite writes the playground, over the web folder web, into dir as a
// static site served at base, and reports whether the page loads app.wasm
// from its .lzma copy (packWasm).
//
// It writes no 404.html: the playground is one page, and its links differ
// only in the query and fragment, which static hosts ignore.
func exportSite(web, dir, base, origin string) (packed bool, err error) {
	if err := checkBase(base); err != nil {
		return false, err
	}
	h, root, err := newApp(web)
	if err != nil {
		return false, err
	}
	defer root.Close()
	if err := makeEmptyDir(dir); err != nil {
		return false, err
	}
	h.Resources = basePath(base)
	if err := app.GenerateStaticWebsite(dir, h); err != nil {
		return false, cause(err)
	}
	index := filepath.Join(dir, "index.html")
	page, err := os.ReadFile(index)
	if err != nil {
		return false, err
	}
	// The page shows the default session's numbers before the program
	// runs; a link to another session drops them (web/boot.js).
	pre, err := newPrerenderer(page)
	if err != nil {
		return false, err
	}
	first, err := pre.pages.Page("", base)
	if err != nil {
		return false, fmt.Errorf("prerendering the default session: %w", err)
	}
	if err := os.WriteFile(index, withOrigin(pre.page("", first, "", ""), origin, base), 0o644); err != nil {
		return false, err
	}
	if err := rewrite(filepath.Join(dir, "app.js"), ui.BootAppJS); err != nil {
		return false, err
	}
	// app.js instantiates with wasm_exec.js's nexttokenInstantiate, as on
	// serve's pages.
	if err := rewrite(filepath.Join(dir, "wasm_exec.js"), wasmshare.Loader); err != nil {
		return false, err
	}
	// The documentation page reaches the playground and web/ by relative
	// URLs, so it works under any base.
	docs := filepath.Join(dir, "docs")
	if err := os.Mkdir(docs, 0o755); err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(docs, "index.html"), nexttoken.IndexHTML, 0o644); err != nil {
		return false, err
	}
	// go-app makes web/ but leaves it empty.
	if err := copyFolder(root.FS(), filepath.Join(dir, "web")); err != nil {
		return false, err
	}
	return packWasm(dir, h.Resources.Resolve("/web/app.wasm"))
}

// packedWasm is app.wasm's copy that a static site's page fetches and
// decodes itself, with unlzmaJS.
const packedWasm = "app.wasm.lzma"

// unlzmaJS decodes packedWasm in the page (nexttokenUnlzma) and fetches
// it in place of app.wasm (nexttokenFetchWasm).
//
//go:embed unlzma.js
var unlzmaJS string

// packWasm makes the static site in dir, whose app.wasm is at the URL
// wasm, load app.wasm from its packedWasm copy if the site has one (the
// page decodes it, falling back to app.wasm): go-app's app.js fetches the
// copy, and its service worker caches the copy instead of app.wasm. It
// reports whether the site has the copy.
func packWasm(dir, wasm string) (bool, error) {
	web := filepath.Join(dir, "web")
	if _, err := os.Stat(filepath.Join(web, packedWasm)); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	info, err := os.Stat(filepath.Join(web, "app.wasm"))
	if err != nil {
		return false, err
	}
	err = rewrite(filepath.Join(dir, "app.js"), func(js string) (string, error) {
		js, err := ui.PatchScript("app.js", js, fmt.Sprintf(`fetchWithProgress(%q, showProgress)`, wasm),
			fmt.Sprintf(`nexttokenFetchWasm(%q, %d, showProgress)`, wasm, info.Size()))
		return js + unlzmaJS, err
	})
	if err != nil {
		return false, err
	}
	return true, rewrite(filepath.Join(dir, "app-worker.js"), func(worker string) (string, error) {
		return ui.PatchScript("service worker", worker, strconv.Quote(wasm), strconv.Quote(wasm+".lzma"))
	})
}

// rewrite rewrites the file called name with edit.
func rewrite(name string, edit func(string) (string, error)) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	s, err := edit(string(b))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return os.WriteFile(name, []byte(s), 0o644)
}

// checkOrigin accepts "" or a scheme and host with nothing after them.
func checkOrigin(origin string) error {
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf(`--origin %q: want a scheme and host only, such as https://example.org`, origin)
	}
	return nil
}

// checkBase accepts a URL path that starts and ends with "/" and whose
// segments need no escaping anywhere go-app writes them (HTML, JavaScript,
// JSON), nor decoding before go-app compares them with the page's path.
func checkBase(base string) error {
	if !strings.HasPrefix(base, "/") || !strings.HasSuffix(base, "/") {
		return fmt.Errorf(`--base %q: must start and end with "/", such as /nexttoken/`, base)
	}
	if base == "/" {
		return nil
	}
	for seg := range strings.SplitSeq(base[1:len(base)-1], "/") {
		switch seg {
		case "":
			return fmt.Errorf(`--base %q: has an empty segment ("//")`, base)
		case ".", "..":
			return fmt.Errorf(`--base %q: has a %q segment`, base, seg)
		}
		for _, r := range seg {
			if !unreserved(r) {
				return fmt.Errorf(`--base %q: has %q: only letters, digits, "-", ".", "_" and "~" may come between the slashes`, base, r)
			}
		}
	}
	return nil
}

// unreserved reports whether URLs carry r as it is (RFC 3986).
func unreserved(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~", r)
}

// basePath resolves the URLs of a site served at a base path such as
// "/nexttoken/": go-app passes through Resolve every local URL it writes
// (the page's links and scripts, app.wasm and the worker in app.js, the
// worker's files to cache, the manifest's icons and start URL), and the
// browser program routes a page's path with Resolve("/") taken off
// (GOAPP_ROOT_PREFIX). app.GitHubPages, by contrast, resolves "/" to the base
// without its final slash: an address static hosts redirect, outside the
// service worker's scope, as the start URL and as a file to cache.
type basePath string

func (b basePath) Resolve(location string) string {
	if !strings.HasPrefix(location, "/") || strings.HasPrefix(location, "//") {
		return location // another site's, a data: URL, or none
	}
	return string(b) + location[1:]
}

// makeEmptyDir makes dir, or checks that it is empty: an export adds no
// file to an earlier one, which would leave files of another build around.
func makeEmptyDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s is not empty: export into a new or empty folder", dir)
	}
	return nil
}

// copyFolder copies the folder fsys into dir, keeping the files' modification
// times, which static hosts send as Last-Modified. A precompressed or
// packed copy older than its file is left out, as serve ignores it: it is
// from an earlier build.
func copyFolder(fsys fs.FS, dir string) error {
	return fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		if d.IsDir() && name == "shared" {
			// The program on a shared memory runs where the server sends
			// cross-origin isolation's headers; a static site's page
			// loads app.wasm, on one thread.
			return fs.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if path.Ext(name) == ".go" {
			// web/models embeds the models with Go code, which a static
			// site has no use for (and which would make the export a Go
			// package inside the module).
			return nil
		}
		info, err := fs.Stat(fsys, name)
		if err != nil {
			return err
		}
		if encodingOf(name) != "" || path.Base(name) == packedWasm {
			file, err := fs.Stat(fsys, strings.TrimSuffix(name, path.Ext(name)))
			if err == nil && !current(info, file) {
				return nil
			}
		}
		if path.Ext(name) == ".js" {
			return copyScript(fsys, name, target, info.ModTime())
		}
		return copyFile(fsys, name, target, info.ModTime())
	})
}

// copyScript copies the script name without its comment lines
// (withoutCommentLines): a static host may send files as they are, and
// the page's own scripts are a third comments.
func copyScript(fsys fs.FS, name, target string, modTime time.Time) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return err
	}
	if err := os.WriteFile(target, []byte(withoutCommentLines(string(b))), 0o644); err != nil {
		return err
	}
	return os.Chtimes(target, time.Time{}, modTime)
}

// withoutCommentLines is the script js without the lines that are only a
// comment ("//" after spaces). Such a line is a comment in our scripts,
// whose template literals never span lines (TestScriptsWithoutCommentLines).
func withoutCommentLines(js string) string {
	var b strings.Builder
	for line := range strings.SplitAfterSeq(js, "\n") {
		if !strings.HasPrefix(strings.TrimLeft(line, " \t"), "//") {
			b.WriteString(line)
		}
	}
	return b.String()
}

func copyFile(fsys fs.FS, name, target string, modTime time.Time) error {
	src, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(target)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Chtimes(target, time.Time{}, modTime) // the zero time leaves the access time
}

// cause is the error that go-app's errors wrap, such as a file that could
// not be written: go-app's errors print as JSON.
func cause(err error) error {
	for {
		e, ok := err.(goapperrors.Error)
		if !ok || e.WrappedErr == nil {
			return err
		}
		err = e.WrappedErr
	}
}
