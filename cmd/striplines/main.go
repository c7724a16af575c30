// Command striplines removes the file and line tables from a Go program
// compiled to WebAssembly, in place:
//
//	striplines web/app.wasm
//
// `-ldflags=-s -w` leaves Go's PC/line table (runtime.pclntab), which the
// runtime needs: the stack maps that garbage collection reads, frame sizes,
// function names. Among it are the tables that map each instruction to its
// source file and line, read only to print them (runtime.Caller, a panic's
// stack trace). striplines sets every function's file and line tables to
// none, which the runtime reads as "no table" (file "?", line 0), and zeroes
// the bytes they held, together with the file names: a tenth of the brotli
// copy of the page's program. Nothing else changes: the file keeps its
// length, every other byte, and so its layout.
//
// It refuses a file that is not what it expects (not WebAssembly, no Go
// 1.20+ PC/line table, a table it cannot read whole) rather than guess, and
// then leaves the file as it was.
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: striplines program.wasm")
		os.Exit(2)
	}
	name := os.Args[1]
	b, err := os.ReadFile(name)
	if err == nil {
		var n int
		if n, err = strip(b); err == nil {
			err = os.WriteFile(name, b, 0o644)
			fmt.Printf("striplines: %s: %d bytes of file and line tables zeroed\n", name, n)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "striplines:", err)
		os.Exit(1)
	}
}

// segment is an active data segment: Len bytes of the module at At, which
// the program finds in its memory at Addr.
type segment struct{ Addr, At, Len int }

// strip rewrites the Go WebAssembly module b in place and returns how many
// bytes of tables it cleared. On an error b is unchanged.
func strip(b []byte) (int, error) {
	segs, err := dataSegments(b)
	if err != nil {
		return 0, err
	}
	// The program's initial memory, in which the runtime's pointers are
	// addresses; gaps between segments are zeros.
	size := 0
	for _, s := range segs {
		size = max(size, s.Addr+s.Len)
	}
	mem := make([]byte, size)
	for _, s := range segs {
		copy(mem[s.Addr:], b[s.At:s.At+s.Len])
	}
	n, err := stripTables(mem)
	if err != nil {
		return 0, err
	}
	for _, s := range segs {
		copy(b[s.At:s.At+s.Len], mem[s.Addr:])
	}
	return n, nil
}

// pcHeaderStart is the start of runtime.pcHeader as Go 1.20 and later
// write it for a 64-bit target whose instructions are one PC apart:
// the magic 0xfffffff1, two zero pads, minLC 1, ptrSize 8.
var pcHeaderStart = []byte{0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8}

// stripTables finds runtime.pcHeader in mem and clears every function's
// file and line tables and the file names.
func stripTables(mem []byte) (int, error) {
	at := indexAll(mem, pcHeaderStart)
	if len(at) != 1 {
		return 0, fmt.Errorf("found %d Go 1.20+ PC/line table headers, want 1: not a Go WebAssembly program, or a Go this tool does not know", len(at))
	}
	h := at[0]
	if h+8+8*8 > len(mem) {
		return 0, errors.New("the PC/line table's header is cut short")
	}
	word := func(i int) int { return int(binary.LittleEndian.Uint64(mem[h+8+8*i:])) }
	nfunc, cuOff, filetabOff, pctabOff, pclnOff := word(0), word(4), word(5), word(6), word(7)
	if nfunc <= 0 || !(0 < cuOff && cuOff <= filetabOff && filetabOff <= pctabOff && pctabOff <= pclnOff && h+pclnOff+8*nfunc <= len(mem)) {
		return 0, errors.New("the PC/line table's header does not add up")
	}
	pctab, funcs := mem[h+pctabOff:h+pclnOff], mem[h+pclnOff:]
	u32 := func(p []byte, i int) uint32 { return binary.LittleEndian.Uint32(p[i:]) }

	// Tables may be shared between functions, and a file or line table
	// with the same bytes as a stack or PC-data table is the same table:
	// only bytes no other table reads are cleared.
	keep := map[uint32]bool{}
	var drop []uint32
	for f := range nfunc {
		fn := int(u32(funcs, 8*f+4))
		if fn+44 > len(funcs) {
			return 0, fmt.Errorf("function %d lies outside the table", f)
		}
		npcdata := int(u32(funcs, fn+28))
		if fn+44+4*npcdata > len(funcs) {
			return 0, fmt.Errorf("function %d's PC data lies outside the table", f)
		}
		keep[u32(funcs, fn+16)] = true // pcsp
		for i := range npcdata {
			keep[u32(funcs, fn+44+4*i)] = true
		}
		for _, field := range []int{fn + 20, fn + 24} { // pcfile, pcln
			if off := u32(funcs, field); off != 0 {
				drop = append(drop, off)
				binary.LittleEndian.PutUint32(funcs[field:], 0)
			}
		}
	}
	slices.Sort(drop)
	drop = slices.Compact(drop)
	n := 0
	for _, off := range drop {
		if keep[off] {
			continue
		}
		l, err := tableLen(pctab, int(off))
		if err != nil {
			return 0, err
		}
		clear(pctab[off : int(off)+l])
		n += l
	}
	names := mem[h+cuOff : h+pctabOff] // cutab and filetab, read only to name a file
	for _, c := range names {
		if c != 0 {
			n++
		}
	}
	clear(names)
	return n, nil
}

// tableLen is the length of the PC-value table at off, as runtime.step
// reads it: pairs of a value delta and a PC delta, until a zero value
// delta after the function's first instruction.
func tableLen(pctab []byte, off int) (int, error) {
	p, first := off, true
	for {
		v, n := binary.Uvarint(pctab[min(p, len(pctab)):])
		if n <= 0 {
			return 0, fmt.Errorf("the PC-value table at %d runs past the end", off)
		}
		p += n
		if v == 0 && !first {
			return p - off, nil
		}
		pc, n := binary.Uvarint(pctab[min(p, len(pctab)):])
		if n <= 0 {
			return 0, fmt.Errorf("the PC-value table at %d runs past the end", off)
		}
		p += n
		first = first && pc == 0
	}
}

// indexAll is every index of sep in s.
func indexAll(s, sep []byte) []int {
	var at []int
	for i := 0; ; {
		j := bytes.Index(s[i:], sep)
		if j < 0 {
			return at
		}
		at = append(at, i+j)
		i += j + 1
	}
}

// dataSegments reads the module's data section: Go writes active segments
// of memory 0 at constant addresses.
func dataSegments(b []byte) ([]segment, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" || binary.LittleEndian.Uint32(b[4:]) != 1 {
		return nil, errors.New("not a WebAssembly module")
	}
	r := reader{b: b, p: 8}
	for r.p < len(b) {
		id := r.byte()
		size := r.uint()
		end := r.p + size
		if r.err != nil || end > len(b) {
			return nil, errors.New("a section runs past the end of the module")
		}
		if id != 11 {
			r.p = end
			continue
		}
		segs := make([]segment, r.uint())
		for i := range segs {
			if kind := r.uint(); kind != 0 {
				return nil, fmt.Errorf("data segment %d is of kind %d, not an active segment of memory 0", i, kind)
			}
			if r.byte() != 0x41 { // i32.const
				return nil, fmt.Errorf("data segment %d's address is not a constant", i)
			}
			addr := r.sint()
			if r.byte() != 0x0b { // end
				return nil, fmt.Errorf("data segment %d's address is not a constant", i)
			}
			l := r.uint()
			segs[i] = segment{Addr: addr, At: r.p, Len: l}
			r.p += l
			if r.err != nil || addr < 0 || r.p > end {
				return nil, fmt.Errorf("data segment %d runs past its section", i)
			}
		}
		return segs, nil
	}
	return nil, errors.New("the module has no data section")
}

// reader reads the module's LEB128 numbers; the first read past the end
// sets err and reads zeros after it.
type reader struct {
	b   []byte
	p   int
	err error
}

func (r *reader) byte() byte {
	if r.p >= len(r.b) {
		r.err = errors.New("unexpected end of module")
		return 0
	}
	r.p++
	return r.b[r.p-1]
}

func (r *reader) uint() int {
	v, shift := 0, 0
	for shift < 35 {
		c := r.byte()
		v |= int(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
		shift += 7
	}
	r.err = errors.New("a number runs too long")
	return 0
}

func (r *reader) sint() int {
	v, shift := 0, 0
	for shift < 35 {
		c := r.byte()
		v |= int(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			if c&0x40 != 0 {
				v -= 1 << shift
			}
			return v
		}
	}
	r.err = errors.New("a number runs too long")
	return 0
}
