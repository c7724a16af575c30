package wasmsimd

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
		m = appendSection(m, s[0], s[1:])
	}
	return m
}

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

// TestShareMemory checks that a module's memory, defined or imported,
// becomes a shared import with its minimum, said in a custom section too,
// that its other sections stay as they were, and that it refuses what is
// not a module of one memory.
func TestShareMemory(t *testing.T) {
	function := append(appendName(appendName(nil, "gojs"), "f"), 0x00, 0x00)
	memory := []byte{memorySection, 1, 0x00, 39} // one memory, min 39 pages
	exports := append([]byte{exportSection}, appendVector(nil, append(appendName(nil, "mem"), 0x02, 0x00))...)
	types := []byte{typeSection, 1, 0x60, 0, 0}
	for _, c := range []struct {
		name     string
		in       []byte
		min      uint32
		err      string
		keepsAll [][]byte // sections that must be in the output as they are
	}{
		{name: "a Go program: its memory defined, other imports", in: module(types, append([]byte{importSection}, appendVector(nil, function)...), memory, exports),
			min: 39, keepsAll: [][]byte{types, exports}},
		{name: "a kernel module: its memory imported", in: matvecModule, min: 0},
		{name: "a memory and no imports", in: module(types, memory, exports), min: 39, keepsAll: [][]byte{types, exports}},
		{name: "not WebAssembly", in: []byte("hello"), err: "not a WebAssembly module"},
		{name: "cut short", in: matvecModule[:40], err: "cut short"},
		{name: "no memory", in: module(types), err: "0 memories"},
		{name: "two memories", in: module(append([]byte{importSection}, appendVector(nil, append(appendName(appendName(nil, "env"), "m"), 0x02, 0x00, 0x01))...), memory), err: "2 memories"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := ShareMemory(c.in)
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
				if !bytes.Contains(out, appendSection(nil, s[0], s[1:])) {
					t.Errorf("section %d is not kept as it was", s[0])
				}
			}
			again, err := ShareMemory(out)
			if err != nil || !bytes.Equal(again[:len(out)], out) {
				t.Errorf("a shared module shared again: %v", err)
			}
		})
	}
}

// TestShareLoader checks that Go's own wasm_exec.js takes the loader's
// changes, each once, and that another loader is refused.
func TestShareLoader(t *testing.T) {
	loader, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	shared, err := ShareLoader(string(loader))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"decoder.decode(buf.slice())", "len).slice())", "crypto.getRandomValues(random)"} {
		if strings.Count(shared, want) != 1 {
			t.Errorf("the shared loader does not have %q once", want)
		}
	}
	if _, err := ShareLoader("console.log(1)"); err == nil {
		t.Error("a loader that is not wasm_exec.js was taken")
	}
}

// FuzzShareMemory checks that ShareMemory never panics, and that what it
// returns it can read again.
func FuzzShareMemory(f *testing.F) {
	f.Add(matvecModule)
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x05\x03\x01\x00\x01"))
	f.Fuzz(func(t *testing.T, m []byte) {
		out, err := ShareMemory(m)
		if err != nil {
			return
		}
		if _, err := ShareMemory(out); err != nil {
			t.Fatalf("its own output: %v", err)
		}
	})
}
