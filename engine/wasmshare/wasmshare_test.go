package wasmshare

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// module builds a module of sections, each an id and its body.
func module(sections ...[]byte) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		m = section(m, s[0], s[1:])
	}
	return m
}

// The sections of the test modules: a type, an imported function, a
// memory of 39 pages, its export, a memory import as the kernel modules
// have (no maximum, min 0) and a code section of one empty function.
var (
	typeSection     = []byte{1, 1, 0x60, 0, 0}
	functionImport  = append([]byte{importSection}, vector([][]byte{append(name(name(nil, "gojs"), "f"), 0x00, 0x00)})...)
	definedMemory   = []byte{memorySection, 1, 0x00, 39}
	memoryExport    = append([]byte{7}, vector([][]byte{append(name(nil, "mem"), 0x02, 0x00)})...)
	importedMemory  = append([]byte{importSection}, vector([][]byte{append(name(name(nil, "env"), "mem"), importMemory, 0x00, 0x00)})...)
	functionSection = []byte{3, 1, 0}
	codeSection     = []byte{10, 1, 2, 0, 0x0b}
)

// memoryOf reads a module's memory: whether it is imported, its limits'
// flag and minimum, and the pages its custom section says.
func memoryOf(t *testing.T, m []byte) (imported bool, flag byte, min uint32, pages uint32, hasPages bool) {
	t.Helper()
	for rest := m[8:]; len(rest) > 0; {
		id := rest[0]
		size, n, err := readU32(rest[1:])
		if err != nil {
			t.Fatal(err)
		}
		body := rest[1+n : 1+n+int(size)]
		rest = rest[1+n+int(size):]
		switch id {
		case memorySection:
			_, n, _ := readU32(body)
			flag = body[n]
			min, _, _ = readU32(body[n+1:])
		case importSection:
			entries, err := readImports(body)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.kind == importMemory {
					imported, min = true, e.minPages
					flag = e.raw[len(e.raw)-len(sharedLimits(e.minPages))]
				}
			}
		case 0:
			l, n, _ := readU32(body)
			if string(body[n:n+int(l)]) == PagesSection {
				pages, _, _ = readU32(body[n+int(l):])
				hasPages = true
			}
		}
	}
	return
}

// TestMemory checks that a module's memory, defined or imported,
// becomes a shared import with its minimum, said in a custom section too,
// that its other sections stay as they were, and that it refuses what is
// not a module of one memory.
func TestMemory(t *testing.T) {
	kernel := module(typeSection, importedMemory, functionSection, codeSection)
	for _, c := range []struct {
		name     string
		in       []byte
		min      uint32
		err      string
		keepsAll [][]byte // sections that must be in the output as they are
	}{
		{name: "a Go program: its memory defined, other imports", in: module(typeSection, functionImport, definedMemory, memoryExport),
			min: 39, keepsAll: [][]byte{typeSection, memoryExport}},
		{name: "a kernel module: its memory imported", in: kernel, min: 0, keepsAll: [][]byte{typeSection, functionSection, codeSection}},
		{name: "a memory and no imports", in: module(typeSection, definedMemory, memoryExport), min: 39, keepsAll: [][]byte{typeSection, memoryExport}},
		{name: "not WebAssembly", in: []byte("hello"), err: "not a WebAssembly module"},
		{name: "cut short", in: kernel[:len(kernel)-3], err: "cut short"},
		{name: "no memory", in: module(typeSection), err: "0 memories"},
		{name: "two memories", in: module(importedMemory, definedMemory), err: "2 memories"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := Memory(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			imported, flag, min, pages, hasPages := memoryOf(t, out)
			if !imported || flag != 0x03 || min != c.min || !hasPages || pages != c.min {
				t.Errorf("memory: imported %v, flag %#x, min %d, pages section %v %d; want a shared import of min %d", imported, flag, min, hasPages, pages, c.min)
			}
			for _, s := range c.keepsAll {
				if !bytes.Contains(out, section(nil, s[0], s[1:])) {
					t.Errorf("section %d is not kept as it was", s[0])
				}
			}
			again, err := Memory(out)
			if err != nil || !bytes.Equal(again[:len(out)], out) {
				t.Errorf("a shared module shared again: %v", err)
			}
		})
	}
}

// TestLoader checks that Go's own wasm_exec.js takes the loader's
// changes, each once, and that another loader is refused.
func TestLoader(t *testing.T) {
	loader, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	shared, err := Loader(string(loader))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"decoder.decode(buf.buffer instanceof ArrayBuffer ? buf : buf.slice())", "len).slice())", "crypto.getRandomValues(random)", "globalThis.nexttokenInstantiate = ", `"` + PagesSection + `"`} {
		if strings.Count(shared, want) != 1 {
			t.Errorf("the shared loader does not have %q once", want)
		}
	}
	if _, err := Loader("console.log(1)"); err == nil {
		t.Error("a loader that is not wasm_exec.js was taken")
	}
}

// FuzzMemory checks that Memory never panics, and that what it
// returns it can read again.
func FuzzMemory(f *testing.F) {
	f.Add(module(typeSection, importedMemory, functionSection, codeSection))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x05\x03\x01\x00\x01"))
	f.Fuzz(func(t *testing.T, m []byte) {
		out, err := Memory(m)
		if err != nil {
			return
		}
		if _, err := Memory(out); err != nil {
			t.Fatalf("its own output: %v", err)
		}
	})
}
