package nexttoken

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image/png"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"nexttoken/wasm/play"
)

// The documentation people read: the README, the pages under docs/ and
// the notices.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md pages (%v)", err)
	}
	return append([]string{"README.md", "THIRD_PARTY_NOTICES.md"}, pages...)
}

// command is a "$ " line of a fenced code block with the output the
// documentation quotes under it.
type command struct {
	file string
	line int
	text string   // the command, without the "$ " and a trailing "# comment"
	want []string // the quoted output, "…" where lines are left out
}

// commands returns the commands of file's fenced code blocks.
func commands(t *testing.T, file string) []command {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []command
	inBlock, cur := false, -1
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock, cur = !inBlock, -1
		case !inBlock:
		case strings.HasPrefix(line, "$ "):
			out = append(out, command{file: file, line: i + 1, text: stripComment(line[2:])})
			cur = len(out) - 1
		case cur >= 0:
			out[cur].want = append(out[cur].want, line)
		}
	}
	for i := range out {
		out[i].want = trimBlankEnd(out[i].want)
	}
	return out
}

// stripComment removes a shell comment ("   # …") from the end of a
// command outside quotes.
func stripComment(s string) string {
	quote := rune(0)
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && i > 0 && s[i-1] == ' ':
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

func trimBlankEnd(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// TestDocCommands runs every nexttoken command the documentation shows,
// with a binary built from this tree in place of go run, and requires it
// to exit 0 and to print the output quoted under it: the quoted lines in
// order, each run of them contiguous, "…" standing for lines left out. A
// make command must name a target of the Makefile and a go build or go
// install command packages that exist.
func TestDocCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command line")
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "nexttoken"), "./cmd/nexttoken").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/nexttoken: %v\n%s", err, out)
	}
	t.Run("the README's table of commands", func(t *testing.T) {
		checkCommandTable(t, filepath.Join(bin, "nexttoken"))
	})
	targets := makeTargets(t)
	for _, file := range docFiles(t) {
		for _, c := range commands(t, file) {
			t.Run(fmt.Sprintf("%s:%d", file, c.line), func(t *testing.T) {
				checkCommand(t, c, bin, targets)
			})
		}
	}
}

func checkCommand(t *testing.T, c command, bin string, targets map[string]bool) {
	fields := strings.Fields(c.text)
	run := strings.ReplaceAll(c.text, "go run ./cmd/nexttoken ", "nexttoken ")
	switch {
	case fields[0] == "make":
		for _, f := range fields[1:] {
			if !strings.Contains(f, "=") && !targets[f] {
				t.Errorf("%q: the Makefile has no target %q", c.text, f)
			}
		}
		if len(c.want) > 0 {
			t.Errorf("%q: a make command's output is not quoted", c.text)
		}
	case fields[0] == "go" && (fields[1] == "build" || fields[1] == "install"):
		args := append([]string{"list"}, fields[2:]...)
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Errorf("%q: go %s: %v\n%s", c.text, strings.Join(args, " "), err, out)
		}
	case regexp.MustCompile(`(^|\| *)nexttoken `).MatchString(run):
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", run)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s:%d: %q: %v\n%s", c.file, c.line, c.text, err, stderr.String())
		}
		if problem := matchQuoted(c.want, strings.Split(stdout.String(), "\n")); problem != "" {
			t.Errorf("%s:%d: %q prints what the documentation does not quote: %s\nit printed:\n%s",
				c.file, c.line, c.text, problem, stdout.String())
		}
	default:
		t.Errorf("%s:%d: %q: no way to check this command; show nexttoken, make, go build or go install commands only",
			c.file, c.line, c.text)
	}
}

// checkCommandTable checks that the README's table of commands lists
// the commands nexttoken -h lists, each once.
func checkCommandTable(t *testing.T, nexttoken string) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]int{}
	for _, m := range regexp.MustCompile("(?m)^\\| `nexttoken ([a-z]+)[^`]*` \\|").FindAllStringSubmatch(string(readme), -1) {
		listed[m[1]]++
	}
	help, err := exec.Command(nexttoken, "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("nexttoken -h: %v\n%s", err, help)
	}
	_, commandsPart, _ := strings.Cut(string(help), "commands:")
	offered := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z]+) `).FindAllStringSubmatch(commandsPart, -1) {
		offered[m[1]] = true
		if listed[m[1]] != 1 {
			t.Errorf("README.md's table of commands lists nexttoken %s %d times, want once", m[1], listed[m[1]])
		}
	}
	if len(offered) == 0 {
		t.Fatalf("nexttoken -h lists no commands:\n%s", help)
	}
	for c := range listed {
		if !offered[c] {
			t.Errorf("README.md's table of commands lists nexttoken %s, which nexttoken -h does not", c)
		}
	}
}

// matchQuoted says how the output got differs from the quoted want, or
// "" when every quoted line is there: runs of lines between "…" lines
// appear contiguous and in order, the first at the start of the output
// unless "…" comes before it, the last at its end unless "…" follows.
func matchQuoted(want, got []string) string {
	got = trimBlankEnd(slices.Clone(got))
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	var runs [][]string
	run := []string{}
	for _, w := range want {
		if t := strings.TrimSpace(w); t == "…" || t == "..." {
			runs = append(runs, run)
			run = []string{}
			continue
		}
		run = append(run, strings.TrimRight(w, " "))
	}
	runs = append(runs, run)
	at := 0
	for i, r := range runs {
		if len(r) == 0 {
			continue
		}
		found := -1
		for j := at; j+len(r) <= len(got); j++ {
			if slices.Equal(got[j:j+len(r)], r) {
				found = j
				break
			}
			if i == 0 {
				break // the first run is the output's start
			}
		}
		if found < 0 {
			return fmt.Sprintf("these lines are not printed (in this order, after what comes before):\n%s", strings.Join(r, "\n"))
		}
		at = found + len(r)
		if i == len(runs)-1 && at != len(got) {
			return fmt.Sprintf("the output goes on after\n%s\nwith no \"…\" to say so", strings.Join(r, "\n"))
		}
	}
	return ""
}

// makeTargets returns the targets the Makefile defines.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rule := regexp.MustCompile(`^([A-Za-z0-9_./ -]+):([^=]|$)`)
	targets := map[string]bool{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		if m := rule.FindStringSubmatch(s.Text()); m != nil && !strings.HasPrefix(m[1], ".") {
			for _, name := range strings.Fields(m[1]) {
				targets[name] = true
			}
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return targets
}

// TestDocMakeTargets checks that every `make TARGET` the documentation
// names in inline code is a target of the Makefile.
func TestDocMakeTargets(t *testing.T) {
	targets := makeTargets(t)
	span := regexp.MustCompile("`make ([^`]+)`")
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range span.FindAllStringSubmatch(string(data), -1) {
			for _, f := range strings.Fields(m[1]) {
				if !strings.Contains(f, "=") && !targets[f] {
					t.Errorf("%s: `make %s`: the Makefile has no target %q", file, m[1], f)
				}
			}
		}
	}
}

// TestLayoutTable checks that the README's layout table lists every
// package of the module once, those built for the browser only too, and
// nothing else.
func TestLayoutTable(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no ## Layout section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	listed := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		listed[m[1]]++
	}
	packages := map[string]bool{}
	for _, goos := range []string{"", "js"} {
		cmd := exec.Command("go", "list", "./...")
		if goos != "" {
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=wasm")
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list ./... (GOOS=%s): %v", goos, err)
		}
		for _, p := range strings.Fields(string(out)) {
			dir := strings.TrimPrefix(strings.TrimPrefix(p, "nexttoken"), "/")
			if dir == "" {
				dir = "."
			}
			packages[dir] = true
		}
	}
	for _, p := range slices.Sorted(maps.Keys(packages)) {
		switch listed[p] {
		case 0:
			t.Errorf("README.md's layout table leaves out package %s: add a row | `%s` | … |", p, p)
		case 1:
		default:
			t.Errorf("README.md's layout table lists %s %d times", p, listed[p])
		}
	}
	for _, p := range slices.Sorted(maps.Keys(listed)) {
		if !packages[p] {
			t.Errorf("README.md's layout table lists %s, which go list ./... does not: remove its row or fix its path", p)
		}
	}
}

// TestNoMachinePaths checks that no file of the repository but the tests
// names a folder of one machine: a temporary or home folder, or the
// folders it was written in.
func TestNoMachinePaths(t *testing.T) {
	paths := regexp.MustCompile(`(^|[^A-Za-z0-9_.$-])/(work|tmp|home|root)/`)
	skip := map[string]bool{".git": true, "static": true, "test-artifacts": true}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip[path] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // a worktree's .git file
		}
		if d.IsDir() {
			return nil
		}
		if strings.HasSuffix(path, "_test.go") || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 4<<20 {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			return err // binary files: models, kernels, builds
		}
		for i, line := range strings.Split(string(data), "\n") {
			if paths.MatchString(line) {
				t.Errorf("%s:%d names a machine's folder: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestREADMEFigures checks that every measured figure the README quotes —
// a time, a size, a speed — is one that a page under docs/ gives, where it
// stands with the command that measures it: the README has no figures of
// its own to go stale.
func TestREADMEFigures(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var docs strings.Builder
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	figure := regexp.MustCompile(`\b\d[\d,.]*(\s|&nbsp;)?(minutes?|min|seconds?|s|ms|µs|[KMG]i?B|bytes|tok/s)\b`)
	// A figure may wrap onto the next line in either file.
	oneLine := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	given := oneLine(docs.String())
	for _, f := range figure.FindAllString(oneLine(string(data)), -1) {
		if !strings.Contains(given, f) {
			t.Errorf("README.md quotes %q, which no page under docs/ gives with its command", f)
		}
	}
}

// TestScreenshotFile checks that the README's picture is in the
// repository as a PNG (make screenshot takes it; the browser test
// TestScreenshot checks it has the page's size).
func TestScreenshotFile(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("](docs/screenshot.png)")) {
		t.Error("README.md does not show docs/screenshot.png")
	}
	f, err := os.Open("docs/screenshot.png")
	if err != nil {
		t.Fatalf("%v (make screenshot takes it)", err)
	}
	defer f.Close()
	if _, err := png.DecodeConfig(f); err != nil {
		t.Errorf("docs/screenshot.png is not a PNG: %v", err)
	}
}

// TestWasmSourcesComplete checks that the Makefile's WASM_SOURCES, what
// web/app.wasm and web/chat.wasm are rebuilt from, holds every file of
// this module that the browser programs compile or embed.
func TestWasmSourcesComplete(t *testing.T) {
	out, err := exec.Command("make", "-p", "-n", "-f", "Makefile", "--no-print-directory", "check").Output()
	if err != nil {
		t.Skipf("make: %v", err) // no make: nothing to check the Makefile with
	}
	var sources map[string]bool
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "WASM_SOURCES := "); ok {
			sources = map[string]bool{}
			for _, f := range strings.Fields(rest) {
				sources[filepath.Clean(f)] = true
			}
		}
	}
	if sources == nil {
		t.Fatal("the Makefile sets no WASM_SOURCES")
	}
	list := exec.Command("go", "list", "-deps", "-f",
		`{{if and .Module (eq .Module.Path "nexttoken")}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}} {{end}}{{range .SFiles}}{{$d}}/{{.}} {{end}}{{range .EmbedFiles}}{{$d}}/{{.}} {{end}}{{end}}`,
		"./wasm", "./wasm/chat")
	list.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	files, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps ./wasm ./wasm/chat: %v", err)
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(files)) {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		if !sources[rel] {
			t.Errorf("the browser programs are built from %s, which the Makefile's WASM_SOURCES leaves out", rel)
		}
	}
}

// TestKernelSizesDocumented checks the sizes docs/performance.md gives for
// the SIMD kernels' modules against the files.
func TestKernelSizesDocumented(t *testing.T) {
	page, err := os.ReadFile("docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	err = filepath.WalkDir("engine", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".wasm" {
			return err
		}
		info, err := d.Info()
		if err == nil {
			sizes[d.Name()] = info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-z0-9_]+\\.wasm)` \\| ([0-9,]+) \\|").FindAllStringSubmatch(string(page), -1)
	documented := map[string]bool{}
	for _, r := range rows {
		documented[r[1]] = true
		size, ok := sizes[r[1]]
		if !ok {
			t.Errorf("docs/performance.md gives the size of %s, which is not under engine/", r[1])
			continue
		}
		if got := strings.ReplaceAll(r[2], ",", ""); got != fmt.Sprint(size) {
			t.Errorf("docs/performance.md says %s is %s bytes; it is %d", r[1], r[2], size)
		}
	}
	for name := range sizes {
		if !documented[name] {
			t.Errorf("docs/performance.md does not give the size of %s", name)
		}
	}
}

// TestDocPaths checks that every path of the repository the documentation
// names in inline code — a package's folder, a file, a glob — is there.
func TestDocPaths(t *testing.T) {
	ignored := buildOutputs(t)
	span := regexp.MustCompile("`([^`\\s]+)`")
	repoPath := regexp.MustCompile(`^(engine|cmd|wasm|web|docs|\.ci)(/[A-Za-z0-9_.*-]+)*/?$`)
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range span.FindAllStringSubmatch(string(data), -1) {
			p := strings.TrimPrefix(m[1], "./")
			if !repoPath.MatchString(p) || slices.ContainsFunc(ignored, func(pattern string) bool {
				ok, _ := filepath.Match(pattern, p)
				return ok
			}) {
				continue
			}
			if matches, err := filepath.Glob(strings.TrimSuffix(p, "/")); err != nil || len(matches) == 0 {
				t.Errorf("%s names %s, which is not in the repository", file, m[1])
			}
		}
	}
}

// buildOutputs returns the .gitignore's patterns of paths from the top of
// the repository: what the build writes, which the documentation may name.
func buildOutputs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "/"); ok {
			patterns = append(patterns, strings.TrimSuffix(p, "/"))
		}
	}
	return patterns
}

// TestDocsPageViews checks that the docs page names every embed view the
// page has (play.Views), each as <code>view</code>.
func TestDocsPageViews(t *testing.T) {
	page, err := os.ReadFile("index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range play.Views {
		if !strings.Contains(string(page), "<code>"+v+"</code>") {
			t.Errorf("index.html does not name the view %q", v)
		}
	}
}
