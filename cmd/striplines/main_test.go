package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// program exercises what reads the PC/line table: runtime.Caller and
// runtime.Stack (which reads the line tables strictly), a recovered
// panic, and garbage collection, whose stack maps must survive the strip,
// across goroutines with deep stacks.
const program = `package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

type node struct{ next *node; v [8]int }

func deep(n int, done chan int) {
	if n > 0 {
		deep(n-1, done)
		return
	}
	var head *node
	for i := range 20000 {
		head = &node{next: head, v: [8]int{i}}
	}
	runtime.GC()
	sum := 0
	for p := head; p != nil; p = p.next {
		sum += p.v[0]
	}
	done <- sum
}

func main() {
	_, file, line, ok := runtime.Caller(0)
	fmt.Printf("caller %s:%d %v\n", filepath.Base(file), line, ok)
	buf := make([]byte, 1<<16)
	fmt.Println("stack names main.main:", strings.Contains(string(buf[:runtime.Stack(buf, true)]), "main.main"))
	func() {
		defer func() { fmt.Println("recovered:", recover()) }()
		var a []int
		_ = a[len(buf)]
	}()
	done := make(chan int)
	for range 4 {
		go deep(200, done)
	}
	for range 4 {
		fmt.Println("sum", <-done)
	}
}
`

// build compiles program for the browser with the page's flags.
func build(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "prog.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, src)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, msg)
	}
	return out
}

// run runs a js/wasm program under Node.js, as go test -exec does.
func run(t *testing.T, wasm string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("Node.js runs the stripped program: make node installs it")
	}
	cmd := exec.Command("node", "--stack-size=8192", filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec_node.js"), wasm)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", filepath.Base(wasm), err, msg)
	}
	return string(msg)
}

func TestStrippedProgramRuns(t *testing.T) {
	wasm := build(t)
	before := run(t, wasm)
	b, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	size := len(b)
	n, err := strip(b)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || len(b) != size {
		t.Fatalf("strip zeroed %d bytes and left %d of %d: want some zeroed and the length kept", n, len(b), size)
	}
	if err := os.WriteFile(wasm, b, 0o644); err != nil {
		t.Fatal(err)
	}
	after := run(t, wasm)
	t.Logf("before:\n%s\nafter:\n%s", before, after)

	if !strings.Contains(before, "caller main.go:") {
		t.Fatalf("before the strip, runtime.Caller should name the file:\n%s", before)
	}
	want := strings.Replace(before, before[strings.Index(before, "caller "):strings.Index(before, " true\n")], "caller ?:0", 1)
	if after != want {
		t.Errorf("the stripped program printed\n%s\nwant what it printed before, with no file and line:\n%s", after, want)
	}
	for _, line := range []string{"stack names main.main: true", "recovered: runtime error: index out of range", "sum 199990000"} {
		if !strings.Contains(after, line) {
			t.Errorf("the stripped program's output lacks %q:\n%s", line, after)
		}
	}

	// A second strip finds no file or line table left to clear.
	again := bytes.Clone(b)
	if n, err := strip(again); err != nil || n != 0 {
		t.Fatalf("stripping a stripped program cleared %d bytes, %v: want 0, nil", n, err)
	}
	if !bytes.Equal(again, b) {
		t.Error("stripping a stripped program changed it")
	}
}

func TestStripRefuses(t *testing.T) {
	header := []byte("\x00asm\x01\x00\x00\x00")
	for _, tc := range []struct {
		name string
		b    []byte
		err  string
	}{
		{"empty", nil, "not a WebAssembly module"},
		{"text", []byte("<!DOCTYPE html>"), "not a WebAssembly module"},
		{"no sections", header, "no data section"},
		{"cut section", append(bytes.Clone(header), 11, 20, 1), "runs past the end"},
		{"passive segment", append(bytes.Clone(header), 11, 3, 1, 1, 0), "not an active segment"},
		{"not Go", append(bytes.Clone(header), 11, 7, 1, 0, 0x41, 0, 0x0b, 1, 'x'), "found 0 Go 1.20+ PC/line table headers"},
		{"header cut short", append(append(bytes.Clone(header), 11, 14, 1, 0, 0x41, 0, 0x0b, 8), pcHeaderStart...), "cut short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(tc.b)
			_, err := strip(b)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("strip: %v, want an error saying %q", err, tc.err)
			}
			if !bytes.Equal(b, tc.b) {
				t.Error("a refused module was changed")
			}
		})
	}
}
