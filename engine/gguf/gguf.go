// Package gguf reads GGUF files, the single-file model format of ggml and
// llama.cpp, and turns those of the llama architecture into the engine's
// checkpoint and tokenizer.
//
// # File format
//
// GGUF (ggml's docs/gguf.md) is little-endian here (a big-endian variant
// exists; this package refuses it):
//
//	magic             "GGUF"
//	version           uint32: 2 or 3 (1, with 32-bit counts, is refused)
//	tensor_count      uint64
//	metadata_count    uint64
//	metadata_count × key/value:
//	    key           string (uint64 length, then UTF-8 bytes)
//	    value_type    uint32
//	    value         by type: uint8 int8 uint16 int16 uint32 int32 float32
//	                  bool (one byte, 0 or 1) string uint64 int64 float64, or
//	                  an array: uint32 element type, uint64 count, elements
//	                  (arrays may nest)
//	tensor_count × tensor info:
//	    name          string of at most 64 bytes
//	    n_dims        uint32, 1 to 4
//	    dims          n_dims × uint64, fastest-varying first (ggml's ne)
//	    type          uint32, a Type
//	    offset        uint64, from the start of the data section
//	padding           zeros up to a multiple of the alignment
//	data section      each tensor's bytes at its offset, itself a multiple
//	                  of the alignment
//
// The alignment is the metadata value general.alignment (a uint32 power of
// two) or 32. A matrix of dims [n, m] is m rows of n elements: ggml's ne[0]
// is the length of a row, so a llama2.c matrix of shape (out, in) is a GGUF
// tensor of dims [in, out] with the same bytes.
//
// # Bounds
//
// A file is untrusted input. Read checks every count, length and offset
// against the bytes left in the file before it reads on, and grows what it
// holds as entries are parsed, never up front from a count: a hostile file
// costs memory in proportion to the bytes actually read, not to what its
// header claims. Counts are also bounded by what a real file needs, so
// that a file of zeros that claims the most entries its size allows is
// refused at once, by its count:
//
//   - at most 65,536 metadata pairs (real files have a few dozen) and
//     65,536 tensors (the largest models have a few thousand);
//   - at most 4,194,304 array elements in all the file's metadata: a
//     vocabulary of 262,144 tokens takes four arrays of that length (tokens,
//     scores, types, merges), a quarter of it, and nothing else in a real
//     file comes near. An array of empty strings costs 16 bytes of memory
//     an element for 8 in the file, so this bounds such a flood to 64 MiB;
//   - arrays nest one level: an array may hold arrays, of at most 65,536
//     elements in all, but those hold no arrays. llama.cpp's gguf.cpp
//     refuses every array of arrays; the specification allows them, and
//     gguf-py writes a list of lists as one; no key of either nests deeper.
//
// Tensors are checked to lie inside the file without overlapping one another;
// their data is read only on demand.
package gguf

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"

	"nexttoken/engine/regularfile"
)

// Limits beyond the format's own. They are far above what real files hold.
const (
	maxKeyBytes  = 1<<16 - 1 // the specification's bound on a key
	maxNameBytes = 64        // the specification's bound on a tensor name
	maxDims      = 4         // ggml's GGML_MAX_DIMS
	// The bounds on counts that the package documentation explains.
	maxMetadata      = 1 << 16
	maxTensors       = 1 << 16
	maxArrayElements = 1 << 22 // in all the file's arrays
	maxInnerArrays   = 1 << 16 // arrays inside arrays, in all the file
	maxDepth         = 2       // an array inside an array inside an array is refused
	// DefaultAlignment is the alignment of a file without general.alignment.
	DefaultAlignment = 32
)

// File is the header of a GGUF file, read by Read: its metadata and tensor
// infos, and where its data is. Tensor data is read on demand.
type File struct {
	Version    uint32
	Metadata   Metadata
	Tensors    []TensorInfo
	Alignment  int64 // general.alignment, or DefaultAlignment
	DataOffset int64 // start of the data section in the file

	r    io.ReaderAt
	size int64
	data []byte // the whole file, when ReadBytes read it from memory
	// arena is where tensorBytes reads tensors from r, while reserve has
	// set it: one allocation for a model's matrices, whose whole 2 MiB
	// pages can be huge pages, as a matrix smaller than one's cannot.
	arena []byte
}

// Size is the size in bytes of the file f was read from.
func (f *File) Size() int64 { return f.size }

// TensorInfo describes one tensor: its name, shape, type and where its bytes
// are.
type TensorInfo struct {
	Name   string
	Dims   []int64 // fastest-varying first: a row has Dims[0] elements
	Type   Type
	Offset int64 // in the data section
	// Elements and Bytes follow from Dims and Type; Read checked that they
	// fit the file.
	Elements, Bytes int64
}

// Tensor returns the info of the tensor called name.
func (f *File) Tensor(name string) (*TensorInfo, bool) {
	for i := range f.Tensors {
		if f.Tensors[i].Name == name {
			return &f.Tensors[i], true
		}
	}
	return nil, false
}

// TensorData reads the bytes of t, a tensor of f, whole.
func (f *File) TensorData(t *TensorInfo) ([]byte, error) {
	b := make([]byte, t.Bytes)
	hugePages(b)
	if _, err := f.r.ReadAt(b, f.DataOffset+t.Offset); err != nil {
		return nil, fmt.Errorf("gguf: reading tensor %s: %w", t.Name, err)
	}
	return b, nil
}

// Open reads the header of the GGUF file at path, a regular file (package
// regularfile). The file stays open for reading tensors until Close.
func Open(path string) (*File, io.Closer, error) {
	fd, info, err := regularfile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := Read(fd, info.Size())
	if err != nil {
		fd.Close()
		return nil, nil, err
	}
	return f, fd, nil
}

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// Read reads the header of a GGUF file of size bytes held by r: the
// metadata and tensor infos, checked against each other and the size. It
// reads no tensor data; TensorData and Model read it from r later.
func Read(r io.ReaderAt, size int64) (*File, error) {
	d := &decoder{r: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10), size: size,
		elements: maxArrayElements, innerArrays: maxInnerArrays}
	f, err := d.file()
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	f.r, f.size = r, size
	return f, nil
}

// ReadBytes is Read of a file held whole in data. Model then keeps a
// quantized tensor's bytes where they are in data, rather than a copy:
// opening a model of a gigabyte in a page makes no second gigabyte. data
// must not change while the model is in use.
func ReadBytes(data []byte) (*File, error) {
	f, err := Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	f.data = data
	return f, nil
}

// Held is f, the header Read read from a file's first bytes, for the
// whole file now held in data, as ReadBytes(data) would read it but
// without reading the header again: Model then keeps quantized tensors'
// bytes in place in data. data must be the file f was read from, whose
// first f.DataOffset bytes the caller has compared with those Read read;
// Held checks only its size.
func (f *File) Held(data []byte) (*File, error) {
	if int64(len(data)) != f.size {
		return nil, fmt.Errorf("gguf: %d bytes held, but the header was read from a file of %d", len(data), f.size)
	}
	g := *f
	g.r, g.data = bytes.NewReader(data), data
	return &g, nil
}

// reserve sets aside one arena for the bytes of ts, which tensorBytes
// then reads into it, each at a cache line's start, when f reads from r.
func (f *File) reserve(ts []*TensorInfo) {
	if f.data != nil {
		return
	}
	var n int64
	for _, t := range ts {
		n += roundUp(t.Bytes)
	}
	f.arena = make([]byte, n)
	hugePages(f.arena)
	f.arena = f.arena[:0]
}

// release forgets the arena: its tensors keep it alive.
func (f *File) release() { f.arena = nil }

// roundUp is n rounded up to a whole number of cache lines.
func roundUp(n int64) int64 { return (n + 63) &^ 63 }

// tensorBytes is t's bytes: in place when f is held in memory (ReadBytes),
// and otherwise read whole (TensorData).
func (f *File) tensorBytes(t *TensorInfo) ([]byte, error) {
	if f.data == nil {
		n := int64(len(f.arena))
		if n+t.Bytes > int64(cap(f.arena)) {
			return f.TensorData(t)
		}
		b := f.arena[n : n+t.Bytes : n+t.Bytes]
		f.arena = f.arena[:n+roundUp(t.Bytes)]
		if _, err := f.r.ReadAt(b, f.DataOffset+t.Offset); err != nil {
			return nil, fmt.Errorf("gguf: reading tensor %s: %w", t.Name, err)
		}
		return b, nil
	}
	// Read checked that every tensor lies inside the file.
	from := f.DataOffset + t.Offset
	return f.data[from : from+t.Bytes : from+t.Bytes], nil
}

// decoder reads the header sequentially, knowing how many bytes are left.
type decoder struct {
	r    *bufio.Reader
	off  int64 // bytes read so far
	size int64
	buf  [8]byte
	// What is left of the bounds on array elements and inner arrays.
	elements, innerArrays int
}

func (d *decoder) left() int64 { return d.size - d.off }

// bytes reads n bytes into d.buf; n ≤ 8.
func (d *decoder) bytes(n int, what string) ([]byte, error) {
	return d.namedBytes(n, func() string { return what })
}

// namedBytes is bytes for a part whose name is formatted only for an error.
func (d *decoder) namedBytes(n int, what func() string) ([]byte, error) {
	if int64(n) > d.left() {
		return nil, fmt.Errorf("file ends at byte %d inside %s", d.size, what())
	}
	if _, err := io.ReadFull(d.r, d.buf[:n]); err != nil {
		return nil, fmt.Errorf("reading %s at byte %d: %w", what(), d.off, err)
	}
	d.off += int64(n)
	return d.buf[:n], nil
}

func (d *decoder) u32(what string) (uint32, error) {
	b, err := d.bytes(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64(what string) (uint64, error) {
	b, err := d.bytes(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a uint64 count of items of at least min bytes each and checks
// that so many fit in the rest of the file, and that there are at most most
// of them, the bound that limit describes.
func (d *decoder) count(what string, min int64, most int, limit func() string) (int, error) {
	n, err := d.u64(what)
	if err != nil {
		return 0, err
	}
	if n > uint64(d.left()/min) {
		return 0, fmt.Errorf("%s is %d, but the %d bytes left hold at most %d (%d bytes each)", what, n, d.left(), d.left()/min, min)
	}
	if n > uint64(most) {
		return 0, fmt.Errorf("%s is %d, more than %s", what, n, limit())
	}
	return int(n), nil
}

// firstCap is the most room a slice is given before its entries are read:
// past it, a slice grows as they are.
const firstCap = 1024

// room returns s with room for one more of the n entries it will hold once
// all are read: its capacity doubles each time it fills (append's growth of
// a quarter would allocate five times the final size in all, not two).
func room[T any](s []T, n int) []T {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, min(max(len(s), firstCap), n-len(s)))
}

// str reads a string of at most max bytes.
func (d *decoder) str(what string, max int64) (string, error) {
	return d.namedStr(func() string { return what }, max)
}

// namedStr is str for a string whose name is formatted only for an error.
func (d *decoder) namedStr(what func() string, max int64) (string, error) {
	b, err := d.namedBytes(8, func() string { return what() + "'s length" })
	if err != nil {
		return "", err
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(max) {
		return "", fmt.Errorf("%s is %d bytes long, more than the %d allowed", what(), n, max)
	}
	if n > uint64(d.left()) {
		return "", fmt.Errorf("%s is %d bytes long, but only %d bytes are left", what(), n, d.left())
	}
	if n == 0 {
		return "", nil
	}
	s := make([]byte, n)
	if _, err := io.ReadFull(d.r, s); err != nil {
		return "", fmt.Errorf("reading %s at byte %d: %w", what(), d.off, err)
	}
	d.off += int64(n)
	return string(s), nil
}

func (d *decoder) file() (*File, error) {
	if d.size < 4 {
		return nil, fmt.Errorf("a %d-byte file is too short for the magic %q", d.size, Magic)
	}
	magic, _ := d.bytes(4, "the magic")
	if string(magic) != Magic {
		return nil, fmt.Errorf("not a GGUF file: it starts with %q, not %q", magic, Magic)
	}
	f := &File{Alignment: DefaultAlignment}
	var err error
	if f.Version, err = d.u32("the version"); err != nil {
		return nil, err
	}
	// A big-endian file's version reads as 2 or 3 with its bytes reversed.
	switch swapped := bits.ReverseBytes32(f.Version); {
	case f.Version == 1:
		return nil, errors.New("version 1 (32-bit counts) is not supported; versions 2 and 3 are")
	case swapped == 2 || swapped == 3:
		return nil, errors.New("the file is big-endian; only little-endian GGUF is supported")
	case f.Version != 2 && f.Version != 3:
		return nil, fmt.Errorf("version %d is not supported; versions 2 and 3 are", f.Version)
	}
	// A tensor info takes at least 8+4+8+4+8 bytes (empty name, one dim), a
	// key/value at least 8+4+1.
	nTensors, err := d.count("the tensor count", 32, maxTensors, func() string {
		return "the 65536 tensors a file may have (the largest models have a few thousand)"
	})
	if err != nil {
		return nil, err
	}
	nKV, err := d.count("the metadata count", 13, maxMetadata, func() string {
		return "the 65536 keys a file may have (real files have a few dozen)"
	})
	if err != nil {
		return nil, err
	}
	var md Metadata
	seen := make(map[string]bool)
	for i := range nKV {
		key, err := d.namedStr(func() string { return fmt.Sprintf("metadata key %d", i) }, maxKeyBytes)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("metadata key %q appears twice", key)
		}
		seen[key] = true
		typ, err := d.u32(fmt.Sprintf("the type of %s", key))
		if err != nil {
			return nil, err
		}
		v, err := d.value(ValueType(typ), key, 0)
		if err != nil {
			return nil, err
		}
		md = append(room(md, nKV), KV{key, v})
	}
	f.Metadata = md
	if v, ok := f.Metadata.Lookup("general.alignment"); ok {
		a, ok := v.raw.(uint32)
		if !ok || a == 0 || a&(a-1) != 0 {
			return nil, fmt.Errorf("general.alignment is %s, want a uint32 power of two", v)
		}
		f.Alignment = int64(a)
	}
	if f.Tensors, err = d.tensorInfos(nTensors, f.Alignment); err != nil {
		return nil, err
	}
	f.DataOffset = alignUp(d.off, f.Alignment)
	return f, checkData(f.Tensors, d.size-f.DataOffset)
}

// alignUp rounds off up to a multiple of a; off and a are far below 2^62.
func alignUp(off, a int64) int64 { return (off + a - 1) / a * a }

func (d *decoder) tensorInfos(n int, alignment int64) ([]TensorInfo, error) {
	var ts []TensorInfo
	names := make(map[string]bool)
	for i := range n {
		ts = append(room(ts, n), TensorInfo{})
		t := &ts[i]
		var err error
		if t.Name, err = d.namedStr(func() string { return fmt.Sprintf("the name of tensor %d", i) }, maxNameBytes); err != nil {
			return nil, err
		}
		if names[t.Name] {
			return nil, fmt.Errorf("two tensors are called %q", t.Name)
		}
		names[t.Name] = true
		nDims, err := d.u32("the dimension count of tensor " + t.Name)
		if err != nil {
			return nil, err
		}
		if nDims < 1 || nDims > maxDims {
			return nil, fmt.Errorf("tensor %s has %d dimensions, want 1 to %d", t.Name, nDims, maxDims)
		}
		t.Dims = make([]int64, nDims)
		elements := uint64(1)
		for j := range t.Dims {
			n, err := d.u64("a dimension of tensor " + t.Name)
			if err != nil {
				return nil, err
			}
			hi, lo := bits.Mul64(elements, n)
			if n == 0 || hi != 0 || lo > math.MaxInt64 {
				return nil, fmt.Errorf("tensor %s: dimension %d is %d: the dimensions must be positive and their product below 2^63", t.Name, j, n)
			}
			t.Dims[j], elements = int64(n), lo
		}
		typ, err := d.u32("the type of tensor " + t.Name)
		if err != nil {
			return nil, err
		}
		t.Type = Type(typ)
		if !t.Type.Known() {
			return nil, fmt.Errorf("tensor %s has unknown type %d", t.Name, typ)
		}
		bs := uint64(t.Type.BlockSize())
		if uint64(t.Dims[0])%bs != 0 {
			return nil, fmt.Errorf("tensor %s is %s, whose blocks hold %d elements, but its rows have %d", t.Name, t.Type, bs, t.Dims[0])
		}
		hi, bytes := bits.Mul64(elements/bs, uint64(t.Type.BlockBytes()))
		if hi != 0 || bytes > math.MaxInt64 {
			return nil, fmt.Errorf("tensor %s: %d elements of %s overflow a 64-bit size", t.Name, elements, t.Type)
		}
		t.Elements, t.Bytes = int64(elements), int64(bytes)
		off, err := d.u64("the offset of tensor " + t.Name)
		if err != nil {
			return nil, err
		}
		if off > math.MaxInt64 || int64(off)%alignment != 0 {
			return nil, fmt.Errorf("tensor %s: offset %d is not a multiple of the alignment %d", t.Name, off, alignment)
		}
		t.Offset = int64(off)
	}
	return ts, nil
}

// checkData checks that each tensor lies inside a data section of n bytes
// (n < 0 if the section starts past the end of the file) and that no two
// overlap.
func checkData(ts []TensorInfo, n int64) error {
	byOffset := make([]*TensorInfo, len(ts))
	for i := range ts {
		byOffset[i] = &ts[i]
	}
	slices.SortFunc(byOffset, func(a, b *TensorInfo) int {
		return cmp.Or(cmp.Compare(a.Offset, b.Offset), cmp.Compare(a.Bytes, b.Bytes))
	})
	end := int64(0) // of the tensor before
	var prev *TensorInfo
	for _, t := range byOffset {
		if t.Offset > n || t.Bytes > n-t.Offset {
			return fmt.Errorf("tensor %s (%d bytes at offset %d of the data section) runs past the end of the file, which leaves %d bytes for data", t.Name, t.Bytes, t.Offset, max(n, 0))
		}
		if prev != nil && t.Offset < end {
			return fmt.Errorf("tensors %s and %s overlap (offsets %d and %d, %d bytes before the second)", prev.Name, t.Name, prev.Offset, t.Offset, prev.Bytes)
		}
		prev, end = t, t.Offset+t.Bytes
	}
	return nil
}
