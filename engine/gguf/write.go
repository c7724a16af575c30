package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"reflect"
)

// NewValue returns the metadata value of x, which is one of Go's uint8,
// int8, uint16, int16, uint32, int32, float32, bool, string, uint64, int64
// and float64, a slice of one of them, or []Array for nested arrays.
func NewValue(x any) (Value, error) {
	for t, name := range valueTypeNames {
		if ValueType(t) == ValueArray {
			continue
		}
		if goTypeName(x) == name {
			return Value{ValueType(t), x}, nil
		}
		if goTypeName(x) == "[]"+name {
			return Value{ValueArray, Array{ValueType(t), x}}, nil
		}
	}
	if a, ok := x.([]Array); ok {
		return Value{ValueArray, Array{ValueArray, a}}, nil
	}
	return Value{}, fmt.Errorf("gguf: no metadata type for a Go %T", x)
}

// goTypeName is x's Go type as GGUF spells it ("float32", "[]string").
func goTypeName(x any) string {
	if x == nil {
		return ""
	}
	return reflect.TypeOf(x).String()
}

// NewTensor is a tensor to write: its bytes, already encoded as Type.
type NewTensor struct {
	Name string
	Dims []int64 // fastest-varying first
	Type Type
	Data []byte
}

// Write writes a GGUF file of version 3 with metadata md and tensors ts, in
// order, each at the next multiple of the alignment (general.alignment in md,
// or 32) as llama.cpp's gguf_write_to_file lays them out. Read of the result
// gives back md and the tensors.
func Write(w io.Writer, md Metadata, ts []NewTensor) error {
	alignment := int64(DefaultAlignment)
	if v, ok := md.Lookup("general.alignment"); ok {
		a, ok := v.raw.(uint32)
		if !ok || a == 0 || a&(a-1) != 0 {
			return fmt.Errorf("gguf: general.alignment is %s, want a uint32 power of two", v)
		}
		alignment = int64(a)
	}
	e := &encoder{w: bufio.NewWriter(w)}
	e.raw([]byte(Magic))
	e.u32(3)
	e.u64(uint64(len(ts)))
	e.u64(uint64(len(md)))
	for _, kv := range md {
		if kv.Value.raw == nil {
			return fmt.Errorf("gguf: metadata %s has no value (make values with NewValue)", kv.Key)
		}
		e.str(kv.Key)
		e.u32(uint32(kv.Value.Type))
		e.value(kv.Value.raw)
	}
	offset := int64(0)
	for _, t := range ts {
		info := TensorInfo{Name: t.Name, Dims: t.Dims, Type: t.Type}
		want := info.size()
		if want < 0 {
			return fmt.Errorf("gguf: tensor %s of %s %v is not a whole number of blocks of %d", t.Name, t.Type, t.Dims, t.Type.BlockSize())
		}
		if want != int64(len(t.Data)) {
			return fmt.Errorf("gguf: tensor %s of %s %v takes %d bytes, not the %d given", t.Name, t.Type, t.Dims, want, len(t.Data))
		}
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(uint64(d))
		}
		e.u32(uint32(t.Type))
		e.u64(uint64(offset))
		offset = alignUp(offset+int64(len(t.Data)), alignment)
	}
	e.pad(alignment)
	for _, t := range ts {
		e.raw(t.Data)
		e.pad(alignment)
	}
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

// size is the bytes of a tensor of t's dims and type, or -1 if they are
// not a whole number of blocks.
func (t *TensorInfo) size() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	bs := int64(t.Type.BlockSize())
	if bs == 0 || len(t.Dims) == 0 || t.Dims[0]%bs != 0 {
		return -1
	}
	return n / bs * int64(t.Type.BlockBytes())
}

// encoder writes little-endian values and remembers the first error.
type encoder struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (e *encoder) raw(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
		e.n += int64(len(b))
	}
}

func (e *encoder) u32(x uint32) { e.raw(binary.LittleEndian.AppendUint32(nil, x)) }
func (e *encoder) u64(x uint64) { e.raw(binary.LittleEndian.AppendUint64(nil, x)) }

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.raw([]byte(s))
}

func (e *encoder) pad(alignment int64) { e.raw(make([]byte, alignUp(e.n, alignment)-e.n)) }

func (e *encoder) value(x any) {
	le := binary.LittleEndian
	switch x := x.(type) {
	case uint8:
		e.raw([]byte{x})
	case int8:
		e.raw([]byte{byte(x)})
	case bool:
		b := byte(0)
		if x {
			b = 1
		}
		e.raw([]byte{b})
	case uint16:
		e.raw(le.AppendUint16(nil, x))
	case int16:
		e.raw(le.AppendUint16(nil, uint16(x)))
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case float32:
		e.u32(math.Float32bits(x))
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float64:
		e.u64(math.Float64bits(x))
	case string:
		e.str(x)
	case Array:
		e.u32(uint32(x.Elem))
		e.u64(uint64(x.Len()))
		for i := range x.Len() {
			e.value(x.Index(i).raw)
		}
	}
}
