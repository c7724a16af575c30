package play

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"

	"nexttoken/engine/session"
	"nexttoken/engine/softmax"
)

// The wire is how a Remote and a Server talk: each message one []byte,
// small and bounded, for a port that copies bytes (a worker's
// postMessage).
//
//	message := "NT" version kind id body
//	kind    := request (page to engine) | answer (engine to page)
//
// Values go by a codec driven by their Go type (putValue, getValue):
// integers as varints, floats by their bits (so NaN, ±Inf and −0 cross
// unchanged), strings and slices by their length (nil apart from empty),
// pointers by a flag, structs field by field (exported fields only), and
// an error as its message and the sentinel it matches (wireError). A
// field added to a type on the wire crosses with no code of its own; both
// sides are the same program, so the version only guards against a
// stale cached copy of one side.

// wireVersion changes whenever the encoding does.
const wireVersion = 1

// The kinds of message.
const (
	kindRequest = 1
	kindAnswer  = 2
)

// maxMessage bounds a message the page or the engine accepts.
const maxMessage = 256 << 20

// errWire is the error of every message that does not decode.
var errWire = errors.New("a message between the page and its engine was damaged")

// wire is a message being written.
type wire []byte

func (w *wire) uint(x uint64) { *w = binary.AppendUvarint(*w, x) }
func (w *wire) int(x int64)   { *w = binary.AppendVarint(*w, x) }

func (w *wire) bool(b bool) {
	if b {
		*w = append(*w, 1)
	} else {
		*w = append(*w, 0)
	}
}

func (w *wire) string(s string) {
	w.uint(uint64(len(s)))
	*w = append(*w, s...)
}

func (w *wire) header(kind byte, id uint64) {
	*w = append(*w, 'N', 'T', wireVersion, kind)
	w.uint(id)
}

// value appends v's value: see the package's wire.
func (w *wire) value(v any) { w.put(reflect.ValueOf(v).Elem()) }

var errorType = reflect.TypeFor[error]()

// float32s are the vectors and cache rows a detail carries: the codec
// moves them whole.
var float32s = reflect.TypeFor[[]float32]()

func (w *wire) put(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		w.bool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.uint(v.Uint())
	case reflect.Float32:
		*w = binary.LittleEndian.AppendUint32(*w, math.Float32bits(float32(v.Float())))
	case reflect.Float64:
		*w = binary.LittleEndian.AppendUint64(*w, math.Float64bits(v.Float()))
	case reflect.String:
		w.string(v.String())
	case reflect.Slice:
		if v.IsNil() {
			w.uint(0)
			return
		}
		w.uint(uint64(v.Len()) + 1)
		if v.Type() == float32s {
			for _, f := range v.Interface().([]float32) {
				*w = binary.LittleEndian.AppendUint32(*w, math.Float32bits(f))
			}
			return
		}
		for i := range v.Len() {
			w.put(v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			w.put(v.Index(i))
		}
	case reflect.Pointer:
		w.bool(!v.IsNil())
		if !v.IsNil() {
			w.put(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				w.put(v.Field(i))
			}
		}
	case reflect.Interface:
		if v.Type() != errorType {
			panic("wire: no encoding for " + v.Type().String())
		}
		w.error(asError(v))
	default:
		panic("wire: no encoding for " + v.Type().String())
	}
}

func asError(v reflect.Value) error {
	if v.IsNil() {
		return nil
	}
	return v.Interface().(error)
}

// sentinels are the errors the page tells apart (errors.Is): an error
// that matches one crosses as its index, with its own message.
var sentinels = []error{session.ErrStopped, softmax.ErrAllMasked, errNoSession}

// error appends err: 0 for nil, else 1 + the sentinel it matches (or 0)
// and its message.
func (w *wire) error(err error) {
	if err == nil {
		w.uint(0)
		return
	}
	w.uint(1)
	is := 0
	for i, s := range sentinels {
		if errors.Is(err, s) {
			is = i + 1
			break
		}
	}
	w.uint(uint64(is))
	w.string(err.Error())
}

// wireError is an error that crossed the wire: its message, and the
// sentinel it matched on the other side.
type wireError struct {
	msg string
	is  error
}

func (e *wireError) Error() string { return e.msg }
func (e *wireError) Unwrap() error { return e.is }

// reader reads a message; its first error sticks, and every read after
// it gives zero values.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errWire
	}
	r.b = nil
}

func (r *reader) uint() uint64 {
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return x
}

// int reads what wire.int wrote: a zigzag varint (binary.AppendVarint).
func (r *reader) int() int64 {
	u := r.uint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	x := r.b[0]
	r.b = r.b[1:]
	return x
}

func (r *reader) bool() bool {
	switch r.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail()
	return false
}

// count reads a length no longer than the bytes left: every element
// takes at least one.
func (r *reader) count() int {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *reader) string() string {
	n := r.count()
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) header() (kind byte, id uint64) {
	if len(r.b) < 4 || r.b[0] != 'N' || r.b[1] != 'T' || r.b[2] != wireVersion {
		r.fail()
		return 0, 0
	}
	kind = r.b[3]
	r.b = r.b[4:]
	return kind, r.uint()
}

// value reads into v, a pointer, what wire.value wrote.
func (r *reader) value(v any) { r.get(reflect.ValueOf(v).Elem()) }

// float32s reads a []float32 as get would, without reflect: cache rows
// and vectors are the bulk of a detail.
func (r *reader) float32s() []float32 {
	n := r.uint()
	if n == 0 || r.err != nil {
		return nil
	}
	if n-1 > uint64(len(r.b)/4) {
		r.fail() // more numbers than the bytes left could hold
		return nil
	}
	f := make([]float32, n-1)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(r.b[4*i:]))
	}
	r.b = r.b[4*len(f):]
	return f
}

func (r *reader) get(v reflect.Value) {
	if r.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := r.int()
		if v.OverflowInt(x) {
			r.fail()
			return
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x := r.uint()
		if v.OverflowUint(x) {
			r.fail()
			return
		}
		v.SetUint(x)
	case reflect.Float32:
		if len(r.b) < 4 {
			r.fail()
			return
		}
		v.SetFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(r.b))))
		r.b = r.b[4:]
	case reflect.Float64:
		if len(r.b) < 8 {
			r.fail()
			return
		}
		v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(r.b)))
		r.b = r.b[8:]
	case reflect.String:
		v.SetString(r.string())
	case reflect.Slice:
		if v.Type() == float32s {
			if f := r.float32s(); f != nil {
				v.Set(reflect.ValueOf(f))
			} else {
				v.SetZero()
			}
			return
		}
		n := r.uint()
		if n == 0 {
			v.SetZero()
			return
		}
		if n-1 > uint64(len(r.b)/minSize(v.Type().Elem())) {
			r.fail() // more elements than the bytes left could hold
			return
		}
		s := reflect.MakeSlice(v.Type(), int(n-1), int(n-1))
		for i := range s.Len() {
			r.get(s.Index(i))
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			r.get(v.Index(i))
		}
	case reflect.Pointer:
		if !r.bool() {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		r.get(p.Elem())
		v.Set(p)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				r.get(v.Field(i))
			}
		}
	case reflect.Interface:
		if v.Type() != errorType {
			panic("wire: no decoding for " + v.Type().String())
		}
		if err := r.error(); err != nil {
			v.Set(reflect.ValueOf(err))
		} else {
			v.SetZero()
		}
	default:
		panic("wire: no decoding for " + v.Type().String())
	}
}

// minSizes caches minSize.
var minSizes sync.Map

// minSize is the fewest bytes a value of type t takes on the wire, at
// least 1: a slice's length is checked against it before it is made.
func minSize(t reflect.Type) int {
	if n, ok := minSizes.Load(t); ok {
		return n.(int)
	}
	n := 1
	switch t.Kind() {
	case reflect.Float32:
		n = 4
	case reflect.Float64:
		n = 8
	case reflect.Array:
		n = max(t.Len()*minSize(t.Elem()), 1)
	case reflect.Struct:
		sum := 0
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				sum += minSize(t.Field(i).Type)
			}
		}
		n = max(sum, 1)
	}
	minSizes.Store(t, n)
	return n
}

// error reads what wire.error wrote.
func (r *reader) error() error {
	if r.uint() == 0 {
		return nil
	}
	is := r.uint()
	msg := r.string()
	e := &wireError{msg: msg}
	if is > 0 {
		if is > uint64(len(sentinels)) {
			r.fail()
			return nil
		}
		e.is = sentinels[is-1]
	}
	return e
}

// done checks that the message was read to its end.
func (r *reader) done() error {
	if r.err == nil && len(r.b) > 0 {
		r.err = fmt.Errorf("%w (%d bytes left over)", errWire, len(r.b))
	}
	return r.err
}
