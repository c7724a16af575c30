// Package wasmshare makes a Go program compiled to WebAssembly, the
// modules that share its memory, and Go's loader run on a shared memory
// (a SharedArrayBuffer), which threads can share: Memory rewrites a
// module's memory as a shared import, Loader patches wasm_exec.js. The
// module's code and data are unchanged; only where its memory comes from
// is. A page can have a shared memory when it is cross-origin isolated.
package wasmshare

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Section ids, and an import's kind byte for a memory.
const (
	customSection = 0
	importSection = 2
	memorySection = 5
	importMemory  = 0x02
)

// sharedLimits are the limits of a shared memory import: flag 0x03
// (shared, with a maximum), min pages, and max 65,536 pages (4 GiB, all of
// wasm32), so that any memory from min up fits.
func sharedLimits(min uint32) []byte {
	return append(binary.AppendUvarint([]byte{0x03}, uint64(min)), 0x80, 0x80, 0x04)
}

// PagesSection is the custom section Memory adds: the memory's
// minimum, in 64 KiB pages, as an unsigned LEB128 number. JavaScript can
// read a compiled module's custom sections but not its imports' limits,
// and a loader needs the minimum to make the memory it gives the module.
const PagesSection = "shared-memory-pages"

// Memory returns module with its memory made a shared one that it
// imports as env.mem: a memory it defines (a Go program's) moves to the
// imports, keeping its export, and a memory it imports (a kernel module's)
// becomes shared. Threads that instantiate modules on that one memory
// then all see the Go program's heap. The module's other bytes are copied
// as they are. It fails on a module it cannot read, or with other than one
// memory.
func Memory(module []byte) ([]byte, error) {
	const header = "\x00asm\x01\x00\x00\x00"
	if len(module) < len(header) || string(module[:len(header)]) != header {
		return nil, errors.New("not a WebAssembly module")
	}
	type part struct {
		id   byte
		body []byte
	}
	var sections []part
	for rest := module[len(header):]; len(rest) > 0; {
		id := rest[0]
		size, n, err := readU32(rest[1:])
		if err != nil || uint64(size) > uint64(len(rest)-1-n) {
			return nil, fmt.Errorf("section %d: cut short", id)
		}
		sections = append(sections, part{id, rest[1+n : 1+n+int(size)]})
		rest = rest[1+n+int(size):]
	}
	memories, imported := 0, 0
	var minPages uint32
	for _, s := range sections {
		switch s.id {
		case memorySection:
			count, n, err := readU32(s.body)
			if err != nil || count != 1 || len(s.body) == n {
				return nil, errors.New("memory section: not one memory")
			}
			memories++
			if minPages, _, err = readU32(s.body[n+1:]); err != nil {
				return nil, errors.New("memory section: cut short")
			}
		case importSection:
			entries, err := readImports(s.body)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if e.kind == importMemory {
					imported++
					minPages = e.minPages
				}
			}
			memories += imported
		}
	}
	if memories != 1 {
		return nil, fmt.Errorf("the module has %d memories, not one", memories)
	}
	memoryImport := append(name(name(nil, "env"), "mem"), append([]byte{importMemory}, sharedLimits(minPages)...)...)
	out := []byte(header)
	hasImports := false
	for _, s := range sections {
		if s.id == importSection {
			hasImports = true
		}
	}
	for _, s := range sections {
		if !hasImports && s.id > importSection {
			// An import section goes in its place, before the first
			// section that follows it.
			out = section(out, importSection, vector([][]byte{memoryImport}))
			hasImports = true
		}
		switch {
		case s.id == memorySection:
			continue // now an import
		case s.id == importSection:
			entries, _ := readImports(s.body)
			var items [][]byte
			for _, e := range entries {
				if e.kind == importMemory {
					items = append(items, memoryImport)
				} else {
					items = append(items, e.raw)
				}
			}
			if imported == 0 {
				items = append(items, memoryImport)
			}
			out = section(out, importSection, vector(items))
			continue
		}
		out = section(out, s.id, s.body)
	}
	return section(out, customSection, binary.AppendUvarint(name(nil, PagesSection), uint64(minPages))), nil
}

// anImport is one entry of an import section: its kind and its bytes.
type anImport struct {
	kind     byte
	raw      []byte
	minPages uint32 // a memory's minimum
}

// readImports splits an import section's body into its entries.
func readImports(body []byte) ([]anImport, error) {
	count, n, err := readU32(body)
	if err != nil {
		return nil, errors.New("import section: cut short")
	}
	rest := body[n:]
	var entries []anImport
	for range count {
		var minPages uint32
		start := rest
		for range 2 { // module and field names
			size, n, err := readU32(rest)
			if err != nil || uint64(size) > uint64(len(rest)-n) {
				return nil, errors.New("import section: a name cut short")
			}
			rest = rest[n+int(size):]
		}
		if len(rest) == 0 {
			return nil, errors.New("import section: cut short")
		}
		kind := rest[0]
		rest = rest[1:]
		var skip int
		switch kind {
		case 0x00: // a function: its type index
			_, skip, err = readU32(rest)
		case 0x01: // a table: element type, then limits
			if len(rest) == 0 {
				return nil, errors.New("import section: cut short")
			}
			skip, err = limitsSize(rest[1:])
			skip++
		case importMemory:
			skip, err = limitsSize(rest)
			if err == nil {
				minPages, _, _ = readU32(rest[1:])
			}
		case 0x03: // a global: value type and mutability
			skip = 2
			if len(rest) < 2 {
				err = errors.New("cut short")
			}
		default:
			return nil, fmt.Errorf("import section: an import of unknown kind %d", kind)
		}
		if err != nil {
			return nil, fmt.Errorf("import section: %w", err)
		}
		rest = rest[skip:]
		entries = append(entries, anImport{kind, start[:len(start)-len(rest)], minPages})
	}
	if len(rest) != 0 {
		return nil, errors.New("import section: bytes after its entries")
	}
	return entries, nil
}

// limitsSize is the length of the limits at the start of b.
func limitsSize(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errors.New("limits cut short")
	}
	size := 1
	values := 1
	if b[0]&0x01 != 0 {
		values = 2
	}
	for range values {
		_, n, err := readU32(b[size:])
		if err != nil {
			return 0, err
		}
		size += n
	}
	return size, nil
}

// readU32 reads an unsigned LEB128 number of at most 32 bits: its value
// and length.
func readU32(b []byte) (uint32, int, error) {
	v, n := binary.Uvarint(b[:min(len(b), 5)])
	if n <= 0 || v > math.MaxUint32 {
		return 0, 0, errors.New("a number cut short or longer than 32 bits")
	}
	return uint32(v), n, nil
}

// section appends a section of id and body to b.
func section(b []byte, id byte, body []byte) []byte {
	return append(binary.AppendUvarint(append(b, id), uint64(len(body))), body...)
}

// vector is items after their count.
func vector(items [][]byte) []byte {
	v := binary.AppendUvarint(nil, uint64(len(items)))
	for _, item := range items {
		v = append(v, item...)
	}
	return v
}

// name appends the name s to b: its length, then its bytes.
func name(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// Loader returns wasm_exec.js, Go's loader of its WebAssembly programs,
// made to run a program on a shared memory (Memory): where it reads a
// string or writes random bytes through a view of the memory, it copies,
// because TextDecoder and crypto.getRandomValues refuse views of a
// SharedArrayBuffer. A program on an unshared memory runs as before. And
// it defines nexttokenInstantiate(module, importObject), which
// instantiates a compiled module as WebAssembly.instantiate does, giving
// a module made by Memory the shared memory it imports, of the minimum
// its PagesSection says. It fails on a loader it does not know.
func Loader(loader string) (string, error) {
	for _, p := range [][2]string{
		{`outputBuf += decoder.decode(buf);`, `outputBuf += decoder.decode(buf.buffer instanceof ArrayBuffer ? buf : buf.slice());`},
		{`return decoder.decode(new DataView(this._inst.exports.mem.buffer, saddr, len));`,
			`const buffer = this._inst.exports.mem.buffer;
				return decoder.decode(buffer instanceof ArrayBuffer ? new DataView(buffer, saddr, len) : new Uint8Array(buffer, saddr, len).slice());`},
		{`crypto.getRandomValues(loadSlice(sp + 8));`,
			`{ const bytes = loadSlice(sp + 8), random = new Uint8Array(bytes.length); crypto.getRandomValues(random); bytes.set(random); }`},
	} {
		if strings.Count(loader, p[0]) != 1 {
			return "", fmt.Errorf("wasm_exec.js: %q is not there once", p[0])
		}
		loader = strings.Replace(loader, p[0], p[1], 1)
	}
	return loader + instantiate, nil
}

// instantiate is the JavaScript of nexttokenInstantiate (Loader).
const instantiate = `
globalThis.nexttokenInstantiate = (module, importObject) => {
	const [pages] = WebAssembly.Module.customSections(module, "` + PagesSection + `");
	if (pages) {
		let initial = 0;
		for (const [i, byte] of new Uint8Array(pages).entries()) initial += (byte & 0x7f) * 2 ** (7 * i);
		importObject.env = {mem: new WebAssembly.Memory({initial, maximum: 65536, shared: true})};
	}
	return WebAssembly.instantiate(module, importObject);
};
`
