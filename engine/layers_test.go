//go:build !js

package engine

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layer is one row of the table in doc.go.
type layer struct {
	number int
	name   string
}

// Lines of the table: a layer ("1 kernels") and a package in it
// ("  quant  what it is").
var (
	layerLine   = regexp.MustCompile(`^//\t([0-9]+) (.+)$`)
	packageLine = regexp.MustCompile(`^//\t  ([a-z0-9_/]+)( .*)?$`)
)

// readLayers reads the table of doc.go: each package's layer, by its path
// under engine/.
func readLayers(t *testing.T) map[string]layer {
	t.Helper()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	layers := map[string]layer{}
	var current *layer
	in := false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "// # Layers":
			in = true
		case !in:
		case layerLine.MatchString(line):
			m := layerLine.FindStringSubmatch(line)
			n, _ := strconv.Atoi(m[1])
			if current != nil && n != current.number+1 {
				t.Fatalf("doc.go: layer %d follows layer %d", n, current.number)
			}
			current = &layer{n, m[2]}
		case packageLine.MatchString(line):
			path := packageLine.FindStringSubmatch(line)[1]
			if current == nil {
				t.Fatalf("doc.go: package %s comes before the first layer", path)
			}
			if _, twice := layers[path]; twice {
				t.Fatalf("doc.go: package %s is listed twice", path)
			}
			layers[path] = *current
		}
	}
	if len(layers) == 0 {
		t.Fatal("doc.go has no table of layers")
	}
	return layers
}

// goCommand is the go command on the PATH, which go test itself is.
func goCommand(t *testing.T) string {
	path, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to list the packages with: %v", err)
	}
	return path
}

// imports lists every package under engine/ with the packages of the
// module it imports (not its tests'), as go list builds them for env.
func imports(t *testing.T, env ...string) (module string, graph map[string][]string) {
	t.Helper()
	cmd := exec.Command(goCommand(t), "list", "-e", "-f",
		`{{.Module.Path}} {{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{if .Error}} ERROR {{.Error}}{{end}}`, "./...")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", env, err, stderr.Bytes())
	}
	graph = map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if i := slices.Index(f, "ERROR"); i >= 0 {
			t.Fatalf("go list %v: %s: %s", env, f[1], strings.Join(f[i+1:], " "))
		}
		module, graph[f[1]] = f[0], f[2:]
	}
	return module, graph
}

// TestLayers checks the imports of every package under engine/ against the
// layers of doc.go, natively, for js/wasm and without cgo: none goes to a
// layer above, none leaves engine/ for the rest of the module (cmd/, wasm/,
// web/), and every package has a layer. Each failure names the edge.
func TestLayers(t *testing.T) {
	layers := readLayers(t)
	listed := map[string]bool{}
	var problems []string           // in the order found
	builds := map[string][]string{} // problem → the builds that have it
	for _, build := range []struct {
		name string
		env  []string
	}{
		{"native", nil},
		{"js/wasm", []string{"GOOS=js", "GOARCH=wasm"}},
		{"without cgo", []string{"CGO_ENABLED=0"}},
	} {
		module, graph := imports(t, build.env...)
		root := module + "/engine"
		describe := func(rel string) string {
			l := layers[rel]
			return fmt.Sprintf("engine/%s (layer %d, %s)", rel, l.number, l.name)
		}
		report := func(format string, args ...any) {
			p := fmt.Sprintf(format, args...)
			if builds[p] == nil {
				problems = append(problems, p)
			}
			builds[p] = append(builds[p], build.name)
		}
		for _, pkg := range slices.Sorted(maps.Keys(graph)) {
			if pkg == root {
				continue // this package, the table
			}
			rel := strings.TrimPrefix(pkg, root+"/")
			from, ok := layers[rel]
			if !ok {
				report("engine/%s has no layer in doc.go's table", rel)
				continue
			}
			listed[rel] = true
			for _, imp := range graph[pkg] {
				if imp != module && !strings.HasPrefix(imp, module+"/") {
					continue // the standard library and other modules
				}
				to, inEngine := strings.CutPrefix(imp, root+"/")
				switch {
				case !inEngine:
					report("%s imports %s, outside the engine", describe(rel), strings.TrimPrefix(imp, module+"/"))
				case layers[to].number > from.number:
					report("%s imports %s, a layer above", describe(rel), describe(to))
				}
			}
		}
	}
	for _, p := range problems {
		t.Errorf("%s (%s)", p, strings.Join(builds[p], ", "))
	}
	for _, rel := range slices.Sorted(maps.Keys(layers)) {
		if !listed[rel] {
			t.Errorf("doc.go's table lists engine/%s, which is no package", rel)
		}
	}
}
