package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ValueType is the type of a metadata value, GGUF's gguf_metadata_value_type.
type ValueType uint32

// The metadata value types, numbered as in the specification.
const (
	ValueUint8 ValueType = iota
	ValueInt8
	ValueUint16
	ValueInt16
	ValueUint32
	ValueInt32
	ValueFloat32
	ValueBool
	ValueString
	ValueArray
	ValueUint64
	ValueInt64
	ValueFloat64
)

var valueTypeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array", "uint64", "int64", "float64"}

func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("value type %d", uint32(t))
}

// minBytes is the fewest bytes a value of type t takes in a file: its size
// for a number, the length for a string, element type and length for an
// array. It is 0 for an unknown type.
func (t ValueType) minBytes() int64 {
	switch t {
	case ValueUint8, ValueInt8, ValueBool:
		return 1
	case ValueUint16, ValueInt16:
		return 2
	case ValueUint32, ValueInt32, ValueFloat32:
		return 4
	case ValueUint64, ValueInt64, ValueFloat64, ValueString:
		return 8
	case ValueArray:
		return 4 + 8
	}
	return 0
}

// Metadata is a file's key/value pairs in file order.
type Metadata []KV

// KV is one metadata pair.
type KV struct {
	Key   string
	Value Value
}

// Lookup returns the value of key.
func (m Metadata) Lookup(key string) (Value, bool) {
	for _, kv := range m {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return Value{}, false
}

// Value is a metadata value. Its accessors convert between the widths of a
// kind (any integer type to int64, either float type to float64) and report
// false for another kind.
type Value struct {
	Type ValueType
	raw  any // uint8 … float64, bool, string, or Array, by Type
}

// Array is an array value: Len elements of type Elem.
type Array struct {
	Elem ValueType
	raw  any // []uint8 … []float64, []bool, []string, or []Array, by Elem
}

// Int returns an integer value of any width, if it fits an int64.
func (v Value) Int() (int64, bool) { return toInt(v.raw) }

func toInt(x any) (int64, bool) {
	switch x := x.(type) {
	case uint8:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case int16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint64:
		return int64(x), x <= math.MaxInt64
	case int64:
		return x, true
	}
	return 0, false
}

// Float returns a float32 or float64 value.
func (v Value) Float() (float64, bool) {
	switch x := v.raw.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// Text returns a string value.
func (v Value) Text() (string, bool) {
	s, ok := v.raw.(string)
	return s, ok
}

// Bool returns a bool value.
func (v Value) Bool() (value, ok bool) {
	b, ok := v.raw.(bool)
	return b, ok
}

// Array returns an array value.
func (v Value) Array() (Array, bool) {
	a, ok := v.raw.(Array)
	return a, ok
}

// Len is the number of elements of a.
func (a Array) Len() int {
	switch s := a.raw.(type) {
	case []uint8:
		return len(s)
	case []int8:
		return len(s)
	case []uint16:
		return len(s)
	case []int16:
		return len(s)
	case []uint32:
		return len(s)
	case []int32:
		return len(s)
	case []float32:
		return len(s)
	case []bool:
		return len(s)
	case []string:
		return len(s)
	case []Array:
		return len(s)
	case []uint64:
		return len(s)
	case []int64:
		return len(s)
	case []float64:
		return len(s)
	}
	return 0
}

// Index returns element i of a, which must be in [0, Len()).
func (a Array) Index(i int) Value {
	v := Value{Type: a.Elem}
	switch s := a.raw.(type) {
	case []uint8:
		v.raw = s[i]
	case []int8:
		v.raw = s[i]
	case []uint16:
		v.raw = s[i]
	case []int16:
		v.raw = s[i]
	case []uint32:
		v.raw = s[i]
	case []int32:
		v.raw = s[i]
	case []float32:
		v.raw = s[i]
	case []bool:
		v.raw = s[i]
	case []string:
		v.raw = s[i]
	case []Array:
		v.raw = s[i]
	case []uint64:
		v.raw = s[i]
	case []int64:
		v.raw = s[i]
	case []float64:
		v.raw = s[i]
	}
	return v
}

// Strings returns the elements of an array of strings (not a copy).
func (a Array) Strings() ([]string, bool) {
	s, ok := a.raw.([]string)
	return s, ok
}

// Float32s returns the elements of an array of float32 (not a copy).
func (a Array) Float32s() ([]float32, bool) {
	s, ok := a.raw.([]float32)
	return s, ok
}

// Ints returns the elements of an array of integers of any width as int64,
// if each fits.
func (a Array) Ints() ([]int64, bool) {
	if a.Elem == ValueArray || a.Elem == ValueString || a.Elem == ValueBool ||
		a.Elem == ValueFloat32 || a.Elem == ValueFloat64 {
		return nil, false
	}
	out := make([]int64, a.Len())
	for i := range out {
		var ok bool
		if out[i], ok = toInt(a.Index(i).raw); !ok {
			return nil, false
		}
	}
	return out, true
}

// shownElements is how many elements String shows of an array.
const shownElements = 8

// String formats v for people: strings quoted, arrays with their element
// type and length and only their first elements.
func (v Value) String() string {
	switch x := v.raw.(type) {
	case string:
		return strconv.Quote(x)
	case Array:
		var b strings.Builder
		fmt.Fprintf(&b, "[%d × %s", x.Len(), x.Elem)
		for i := range min(x.Len(), shownElements) {
			sep := ", "
			if i == 0 {
				sep = ": "
			}
			b.WriteString(sep + x.Index(i).String())
		}
		if x.Len() > shownElements {
			b.WriteString(", …")
		}
		return b.String() + "]"
	case nil:
		return "(none)"
	}
	return fmt.Sprint(v.raw)
}

// value reads a value of type t for key, depth arrays deep.
func (d *decoder) value(t ValueType, key string, depth int) (Value, error) {
	v := Value{Type: t}
	var err error
	switch t {
	case ValueString:
		v.raw, err = d.str("the value of "+key, d.left())
	case ValueArray:
		v.raw, err = d.array(key, depth)
	default:
		var a Array
		if a, err = d.scalars(t, 1, key); err == nil {
			v.raw = a.Index(0).raw
		}
	}
	return v, err
}

// array reads an array value for key.
func (d *decoder) array(key string, depth int) (Array, error) {
	if depth == maxDepth {
		return Array{}, fmt.Errorf("%s: an array inside an array inside an array; arrays nest one level at most", key)
	}
	et, err := d.u32("the element type of " + key)
	if err != nil {
		return Array{}, err
	}
	elem := ValueType(et)
	size := elem.minBytes()
	if size == 0 {
		return Array{}, fmt.Errorf("%s: unknown array element type %d", key, et)
	}
	n, err := d.count("the length of "+key, size, d.elements, func() string {
		return fmt.Sprintf("the %d elements left of the %d that a file's arrays may hold in all (a vocabulary of 262144 tokens takes a quarter of them)", d.elements, maxArrayElements)
	})
	if err != nil {
		return Array{}, err
	}
	d.elements -= n
	switch elem {
	case ValueString:
		var s []string
		for i := range n {
			v, err := d.namedStr(func() string { return fmt.Sprintf("%s[%d]", key, i) }, d.left())
			if err != nil {
				return Array{}, err
			}
			s = append(room(s, n), v)
		}
		return Array{elem, s}, nil
	case ValueArray:
		if n > d.innerArrays {
			return Array{}, fmt.Errorf("the length of %s is %d, more than the %d arrays left of the %d that may lie inside arrays in all", key, n, d.innerArrays, maxInnerArrays)
		}
		d.innerArrays -= n
		var s []Array
		for i := range n {
			a, err := d.array(fmt.Sprintf("%s[%d]", key, i), depth+1)
			if err != nil {
				return Array{}, err
			}
			s = append(room(s, n), a)
		}
		return Array{elem, s}, nil
	}
	return d.scalars(elem, n, key)
}

// scalars reads n numbers or bools of type t.
func (d *decoder) scalars(t ValueType, n int, key string) (Array, error) {
	le := binary.LittleEndian
	switch t {
	case ValueUint8:
		return fill(d, t, n, key, func(b []byte) uint8 { return b[0] })
	case ValueInt8:
		return fill(d, t, n, key, func(b []byte) int8 { return int8(b[0]) })
	case ValueUint16:
		return fill(d, t, n, key, le.Uint16)
	case ValueInt16:
		return fill(d, t, n, key, func(b []byte) int16 { return int16(le.Uint16(b)) })
	case ValueUint32:
		return fill(d, t, n, key, le.Uint32)
	case ValueInt32:
		return fill(d, t, n, key, func(b []byte) int32 { return int32(le.Uint32(b)) })
	case ValueFloat32:
		return fill(d, t, n, key, func(b []byte) float32 { return math.Float32frombits(le.Uint32(b)) })
	case ValueUint64:
		return fill(d, t, n, key, le.Uint64)
	case ValueInt64:
		return fill(d, t, n, key, func(b []byte) int64 { return int64(le.Uint64(b)) })
	case ValueFloat64:
		return fill(d, t, n, key, func(b []byte) float64 { return math.Float64frombits(le.Uint64(b)) })
	case ValueBool:
		raw, err := fill(d, t, n, key, func(b []byte) uint8 { return b[0] })
		if err != nil {
			return Array{}, err
		}
		s := make([]bool, n)
		for i, b := range raw.raw.([]uint8) {
			if b > 1 {
				return Array{}, fmt.Errorf("%s: bool byte is %d, want 0 or 1", key, b)
			}
			s[i] = b == 1
		}
		return Array{t, s}, nil
	}
	return Array{}, fmt.Errorf("%s: unknown value type %d", key, uint32(t))
}

// fill reads n values of type t, decoding each with dec. The caller has
// checked that n values fit in the file.
func fill[T any](d *decoder, t ValueType, n int, key string, dec func([]byte) T) (Array, error) {
	s := make([]T, 0, min(n, firstCap)) // not nil, for an empty array
	size := int(t.minBytes())
	for range n {
		b, err := d.namedBytes(size, func() string { return "the value of " + key })
		if err != nil {
			return Array{}, err
		}
		s = append(room(s, n), dec(b))
	}
	return Array{t, s}, nil
}
