package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	goapperrors "github.com/maxence-charriere/go-app/v10/pkg/errors"
)

// quotedPath is an absolute path in quotes, as in an HTML attribute, a
// JavaScript string or JSON; a lone "/" is left out.
var quotedPath = regexp.MustCompile(`["'](/[^"'\s]+)["']`)

// TestExport exports a web folder with a fake app.wasm for the site root and
// for a sub-path: go-app's files name their URLs under the base, nothing in
// them or in the documentation page points outside it, and the web folder is
// copied as it is, its scripts without their comment lines.
func TestExport(t *testing.T) {
	web := testWebDir(t)
	// The program on a shared memory, which the server's isolated pages
	// load and a static site's do not.
	addSharedProgram(t, web)
	version := regexp.MustCompile(`"GOAPP_VERSION":"([0-9a-f]+)"`)
	served := version.FindStringSubmatch(body(t, get(testServer(t, web), "/app.js", "")))
	if served == nil {
		t.Fatal("serve's app.js has no GOAPP_VERSION")
	}
	for _, base := range []string{"/", "/sub/path/"} {
		t.Run(base, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "site")
			code, out, errs := runCmd("export", "--web="+web, "--base="+base, dir)
			if code != 0 || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			if !strings.Contains(out, dir) {
				t.Errorf("output %q does not name %s", out, dir)
			}
			if _, err := os.Stat(filepath.Join(dir, "web", "shared")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the site has web/shared (%v), which its pages never load", err)
			}
			for name, want := range map[string][]string{
				"index.html": {`id="playground"`, `src="` + base + `wasm_exec.js"`, `src="` + base + `app.js"`,
					`href="` + base + `manifest.webmanifest"`, `href="` + base + `web/app.css"`, `href="` + base + `web/icon.svg"`},
				"app.js": {`"GOAPP_ROOT_PREFIX":"` + base + `"`, `"GOAPP_STATIC_RESOURCES_URL":"` + base + `web"`,
					`"` + base + `web/app.wasm"`, `"` + base + `app-worker.js"`, served[0]},
				"app-worker.js":        {`"` + base + `"`, `"` + base + `web/app.wasm"`, `"` + base + `web/app.css"`},
				"manifest.webmanifest": {`"start_url":"` + base + `"`, `"src":"` + base + `web/icon.svg"`},
				"wasm_exec.js":         {"globalThis.Go", "globalThis.nexttokenInstantiate"},
				"app.css":              {".goapp-app-info"},
				"docs/index.html":      {"<iframe"},
			} {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Error(err)
					continue
				}
				for _, w := range want {
					if !bytes.Contains(b, []byte(w)) {
						t.Errorf("%s lacks %s", name, w)
					}
				}
				for _, m := range quotedPath.FindAllSubmatch(b, -1) {
					if !bytes.HasPrefix(m[1], []byte(base)) {
						t.Errorf("%s has %s, outside %s", name, m[1], base)
					}
				}
			}
			sameFiles(t, web, filepath.Join(dir, "web"))
		})
	}
}

// sameFiles checks that folder got has the files of folder want, with the
// same contents and modification times, but for the program on a shared
// memory (shared/), which an export leaves out.
func sameFiles(t *testing.T, want, got string) {
	t.Helper()
	var names []string
	err := filepath.WalkDir(want, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "shared" {
			return fs.SkipDir
		}
		if err != nil || d.IsDir() {
			return err
		}
		name, _ := filepath.Rel(want, path)
		names = append(names, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst, err := os.ReadFile(filepath.Join(got, name))
		if err != nil {
			return err
		}
		if filepath.Ext(name) == ".js" {
			src = []byte(withoutCommentLines(string(src)))
		}
		if !bytes.Equal(dst, src) {
			t.Errorf("%s: the copy differs", name)
		}
		wantInfo, err := d.Info()
		if err != nil {
			return err
		}
		gotInfo, err := os.Stat(filepath.Join(got, name))
		if err != nil {
			return err
		}
		if !gotInfo.ModTime().Equal(wantInfo.ModTime()) {
			t.Errorf("%s: modified %v, want %v", name, gotInfo.ModTime(), wantInfo.ModTime())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatalf("no files in %s", want)
	}
}

// TestExportStaleCopy leaves out a precompressed copy older than its file:
// it is from an earlier build.
// TestExportLinkPreviews: with --origin the exported page's og:url and
// og:image are absolute; without, they are left out rather than wrong.
func TestExportLinkPreviews(t *testing.T) {
	web := testWebDir(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--base=/sub/", "--origin=https://example.org"},
			[]string{`<meta property="og:url" content="https://example.org/sub/">`, `<meta property="og:image" content="https://example.org/sub/web/icon.png">`}},
		{[]string{"--base=/sub/"}, nil},
	} {
		dir := filepath.Join(t.TempDir(), "site")
		if code, _, errs := runCmd(append(append([]string{"export", "--web=" + web}, tc.args...), dir)...); code != 0 {
			t.Fatalf("%v: exit %d, %s", tc.args, code, errs)
		}
		page, err := os.ReadFile(filepath.Join(dir, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !bytes.Contains(page, []byte(w)) {
				t.Errorf("%v: index.html lacks %s", tc.args, w)
			}
		}
		if n := bytes.Count(page, []byte("og:url")) + bytes.Count(page, []byte("og:image")); n != len(tc.want) {
			t.Errorf("%v: %d og:url/og:image tags, want %d", tc.args, n, len(tc.want))
		}
	}
}

func TestExportStaleCopy(t *testing.T) {
	web := testWebDir(t)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(web, "app.wasm.br"), old, old); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := exportSite(web, dir, "/", ""); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"app.wasm": true, "app.wasm.gz": true, "app.wasm.br": false} {
		if _, err := os.Stat(filepath.Join(dir, "web", name)); (err == nil) != want {
			t.Errorf("web/%s exported: %v, want %v", name, err == nil, want)
		}
	}
}

// TestExportPackedWasm: a web folder with a current app.wasm.lzma gives a
// site whose page loads that copy (with app.wasm's size, to decode it
// into) and whose service worker caches it instead of app.wasm; without
// one, or with a stale one, go-app's scripts are left as they are.
func TestExportPackedWasm(t *testing.T) {
	const base = "/sub/"
	packedLoad := fmt.Sprintf(`nexttokenFetchWasm("/sub/web/app.wasm", %d, showProgress)`, len(fakeWasm))
	for _, tc := range []struct {
		name string
		age  time.Duration // of app.wasm.lzma, before app.wasm; -1: none
		want bool
	}{
		{"current", 0, true},
		{"none", -1, false},
		{"stale", time.Hour, false},
	} {
		web := testWebDir(t)
		if tc.age >= 0 {
			name := filepath.Join(web, packedWasm)
			if err := os.WriteFile(name, []byte("lzma bytes"), 0o644); err != nil {
				t.Fatal(err)
			}
			when := time.Now().Add(-tc.age)
			if err := os.Chtimes(name, when, when); err != nil {
				t.Fatal(err)
			}
		}
		dir := t.TempDir()
		packed, err := exportSite(web, dir, base, "")
		if err != nil || packed != tc.want {
			t.Errorf("%s: packed %v, error %v; want packed %v", tc.name, packed, err, tc.want)
			continue
		}
		appJS, err := os.ReadFile(filepath.Join(dir, "app.js"))
		if err != nil {
			t.Fatal(err)
		}
		worker, err := os.ReadFile(filepath.Join(dir, "app-worker.js"))
		if err != nil {
			t.Fatal(err)
		}
		for what, got := range map[string]bool{
			"app.js loads app.wasm.lzma":           strings.Contains(string(appJS), packedLoad),
			"app.js has the decoder":               strings.Contains(string(appJS), "function nexttokenUnlzma("),
			"app.js loads app.wasm":                strings.Contains(string(appJS), `fetchWithProgress("/sub/web/app.wasm", showProgress)`),
			"the worker caches app.wasm.lzma":      strings.Contains(string(worker), `"/sub/web/app.wasm.lzma"`),
			"the worker caches app.wasm":           strings.Contains(string(worker), `"/sub/web/app.wasm"`),
			"the site has a current app.wasm.lzma": fileExists(filepath.Join(dir, "web", packedWasm)),
		} {
			want := tc.want
			if strings.HasSuffix(what, "app.wasm") {
				want = !tc.want
			}
			if got != want {
				t.Errorf("%s: %s: %v, want %v", tc.name, what, got, want)
			}
		}
	}
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// TestExportErrors checks that a bad command line gives one line on stderr
// and a non-zero exit, and writes nothing.
func TestExportErrors(t *testing.T) {
	web := testWebDir(t)
	tmp := t.TempDir()
	fresh := filepath.Join(tmp, "site")
	full := filepath.Join(tmp, "full")
	file := filepath.Join(tmp, "file")
	for name, data := range map[string]string{file: "", filepath.Join(full, "old.html"): "<p>old"} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope", fresh}, "flag provided but not defined"},
		{[]string{"--web=" + web}, "export needs the folder to write"},
		{[]string{"--web=" + web, fresh, "stray"}, `unexpected argument "stray"`},
		{[]string{"--web=" + web, fresh, "--base=/a/"}, "flag --base=/a/ after DIR: flags come first"},
		{[]string{"--web=" + web, "--base=/a b/", fresh}, `--base "/a b/": has ' '`},
		{[]string{"--web=" + web, "--origin=example.org", fresh}, `--origin "example.org": want a scheme and host only`},
		{[]string{"--web=" + web, "--origin=https://example.org/x", fresh}, `want a scheme and host only`},
		{[]string{"--web=" + tmp, fresh}, filepath.Join(tmp, "app.wasm") + ` is missing: build it with "make web/app.wasm"`},
		{[]string{"--web=" + web, full}, full + " is not empty"},
		{[]string{"--web=" + web, file}, "not a directory"},
		{[]string{"--web=" + web, filepath.Join(file, "site")}, "not a directory"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			failsInOneLine(t, append([]string{"export"}, tc.args...), tc.want)
		})
	}
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed export made %s: %v", fresh, err)
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("an export into a full folder changed it: %d entries", len(entries))
	}
	if code, out, _ := runCmd("export", "-h"); code != 0 || !strings.Contains(out, "-base") {
		t.Errorf("export -h: exit %d, output %q", code, out)
	}
}

func TestCheckBase(t *testing.T) {
	for _, tc := range []struct {
		base string
		want string // in the error; "" for none
	}{
		{"/", ""},
		{"/nexttoken/", ""},
		{"/docs/nexttoken/", ""},
		{"/a.b_c~d-1/", ""},
		{"", `must start and end with "/"`},
		{"nexttoken/", `must start and end with "/"`},
		{"/nexttoken", `must start and end with "/"`},
		{"//evil.example/", `empty segment`},
		{"/a//b/", `empty segment`},
		{"/a/../b/", `has a ".." segment`},
		{"/./", `has a "." segment`},
		{"/a?b=1/", `has '?'`},
		{"/a#b/", `has '#'`},
		{"/a%20b/", `has '%'`},
		{"/a\x00/", `has '\x00'`},
		{"/a\tb/", `has '\t'`},
		{"/café/", `has 'é'`},
		{"/a\"onload=x/", `has '"'`},
	} {
		err := checkBase(tc.base)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("checkBase(%q) = %v, want %q", tc.base, err, tc.want)
		}
	}
}

func TestBasePath(t *testing.T) {
	for _, tc := range []struct {
		base, location, want string
	}{
		{"/", "/", "/"},
		{"/", "/web/app.css", "/web/app.css"},
		{"/sub/path/", "/", "/sub/path/"},
		{"/sub/path/", "/web", "/sub/path/web"},
		{"/sub/path/", "/app-worker.js", "/sub/path/app-worker.js"},
		{"/sub/path/", "", ""},
		{"/sub/path/", "https://example.com/x.png", "https://example.com/x.png"},
		{"/sub/path/", "//cdn.example/x.js", "//cdn.example/x.js"},
		{"/sub/path/", "data:image/png;base64,AAAA", "data:image/png;base64,AAAA"},
		{"/sub/path/", "#softmax", "#softmax"},
	} {
		if got := basePath(tc.base).Resolve(tc.location); got != tc.want {
			t.Errorf("basePath(%q).Resolve(%q) = %q, want %q", tc.base, tc.location, got, tc.want)
		}
	}
}

// TestCause checks that an error from go-app reads as the error it wraps,
// not as go-app's JSON.
func TestCause(t *testing.T) {
	written := &fs.PathError{Op: "open", Path: "site/index.html", Err: fs.ErrPermission}
	other := errors.New("other")
	for _, tc := range []struct {
		err, want error
	}{
		{goapperrors.New("creating file failed").WithTag("path", "/").Wrap(written), written},
		{goapperrors.New("outer").Wrap(goapperrors.New("inner").Wrap(written)), written},
		{other, other},
	} {
		if got := cause(tc.err); got != tc.want {
			t.Errorf("cause(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestScriptsWithoutCommentLines checks that the static site's scripts
// lose only their comment lines, and that no template literal of the
// page's scripts spans lines, where a line that starts with "//" would be
// text.
func TestScriptsWithoutCommentLines(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"// a\nconst a = 1;\n", "const a = 1;\n"},
		{"  // indented\n\t// tab\nf();", "f();"},
		{"g(); // after code\n", "g(); // after code\n"},
		{`const u = "http://x"; // kept` + "\n", `const u = "http://x"; // kept` + "\n"},
		{"/* block */\n// last", "/* block */\n"},
	} {
		if got := withoutCommentLines(c.in); got != c.want {
			t.Errorf("withoutCommentLines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	scripts, err := filepath.Glob("../../web/*.js")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts in web/: %v", err)
	}
	for _, name := range scripts {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Count(line, "`")%2 != 0 {
				t.Errorf("%s:%d: a template literal spans lines", name, i+1)
			}
		}
	}
}
