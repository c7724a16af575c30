package wasmsimd

import (
	"encoding/binary"
	"math"
)

// A tiny encoder of the WebAssembly binary format, for the few instructions
// the kernels use: the module's sections (WebAssembly Core Specification
// 2.0, chapter 5, "Binary Format") and a function body as a byte stream of
// opcodes with their immediates. Integers are LEB128, as the format wants;
// SIMD instructions are the prefix 0xFD followed by their opcode as an
// unsigned LEB128 (the "fixed-width SIMD" proposal, standard since 2.0).

// Value types.
const (
	i32  = 0x7F
	f32  = 0x7D
	v128 = 0x7B
)

// Section ids.
const (
	typeSection     = 1
	importSection   = 2
	functionSection = 3
	exportSection   = 7
	codeSection     = 10
)

func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendI32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendName(b []byte, s string) []byte {
	return append(appendU32(b, uint32(len(s))), s...)
}

// appendVector appends a vector: its length, then its items, already encoded.
func appendVector(b []byte, items ...[]byte) []byte {
	b = appendU32(b, uint32(len(items)))
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}

func appendSection(b []byte, id byte, content []byte) []byte {
	return append(appendU32(append(b, id), uint32(len(content))), content...)
}

// funcType is the encoding of a function type with the given parameters and
// no results.
func funcType(params ...byte) []byte {
	return append(appendVector([]byte{0x60}, bytesOf(params)...), 0)
}

func bytesOf(bs []byte) [][]byte {
	out := make([][]byte, len(bs))
	for i := range bs {
		out[i] = bs[i : i+1]
	}
	return out
}

// body is one function's code under construction: its locals beyond the
// parameters, then its instructions.
type body struct {
	params int
	locals []byte // the type of each local after the parameters
	code   []byte
}

// local declares a new local of type t and returns its index.
func (f *body) local(t byte) uint32 {
	f.locals = append(f.locals, t)
	return uint32(f.params + len(f.locals) - 1)
}

// encode is the body as the code section holds it: its size, the locals
// (as runs of one type), the instructions and end.
func (f *body) encode() []byte {
	var runs [][]byte
	for i := 0; i < len(f.locals); {
		j := i
		for j < len(f.locals) && f.locals[j] == f.locals[i] {
			j++
		}
		runs = append(runs, append(appendU32(nil, uint32(j-i)), f.locals[i]))
		i = j
	}
	b := append(appendVector(nil, runs...), f.code...)
	b = append(b, 0x0B) // end
	return append(appendU32(nil, uint32(len(b))), b...)
}

// Control and variable instructions. Blocks and loops have no result
// (block type 0x40).
func (f *body) block()             { f.code = append(f.code, 0x02, 0x40) }
func (f *body) loop()              { f.code = append(f.code, 0x03, 0x40) }
func (f *body) end()               { f.code = append(f.code, 0x0B) }
func (f *body) br(depth uint32)    { f.code = appendU32(append(f.code, 0x0C), depth) }
func (f *body) brIf(depth uint32)  { f.code = appendU32(append(f.code, 0x0D), depth) }
func (f *body) call(fn uint32)     { f.code = appendU32(append(f.code, 0x10), fn) }
func (f *body) get(local uint32)   { f.code = appendU32(append(f.code, 0x20), local) }
func (f *body) set(local uint32)   { f.code = appendU32(append(f.code, 0x21), local) }
func (f *body) i32Const(v int32)   { f.code = appendI32(append(f.code, 0x41), v) }
func (f *body) i32Add()            { f.code = append(f.code, 0x6A) }
func (f *body) i32Sub()            { f.code = append(f.code, 0x6B) }
func (f *body) i32LtU()            { f.code = append(f.code, 0x49) }
func (f *body) i32Mul()            { f.code = append(f.code, 0x6C) }
func (f *body) i32DivU()           { f.code = append(f.code, 0x6E) }
func (f *body) i32And()            { f.code = append(f.code, 0x71) }
func (f *body) i32Or()             { f.code = append(f.code, 0x72) }
func (f *body) i32Shl()            { f.code = append(f.code, 0x74) }
func (f *body) i32ShrU()           { f.code = append(f.code, 0x76) }
func (f *body) i32GeU()            { f.code = append(f.code, 0x4F) }
func (f *body) i32GtU()            { f.code = append(f.code, 0x4B) }
func (f *body) i32LeU()            { f.code = append(f.code, 0x4D) }
func (f *body) selectOp()          { f.code = append(f.code, 0x1B) }
func (f *body) drop()              { f.code = append(f.code, 0x1A) }
func (f *body) f32Add()            { f.code = append(f.code, 0x92) }
func (f *body) f32Lt()             { f.code = append(f.code, 0x5D) }
func (f *body) i32WrapI64()        { f.code = append(f.code, 0xA7) }
func (f *body) f32Mul()            { f.code = append(f.code, 0x94) }
func (f *body) f32ReinterpretI32() { f.code = append(f.code, 0xBE) }
func (f *body) memarg(align, offset uint32) {
	f.code = appendU32(appendU32(f.code, align), offset)
}

// Memory instructions; align is log2 of the alignment the access may
// assume, a hint only: an unaligned address works, perhaps more slowly.
// Float32 data is 4-byte aligned in Go, so the hint is 2 throughout.
func (f *body) i32Load(offset uint32)   { f.code = append(f.code, 0x28); f.memarg(2, offset) }
func (f *body) i64Load(offset uint32)   { f.code = append(f.code, 0x29); f.memarg(3, offset) }
func (f *body) f32Load(offset uint32)   { f.code = append(f.code, 0x2A); f.memarg(2, offset) }
func (f *body) i32Load8S(offset uint32) { f.code = append(f.code, 0x2C); f.memarg(0, offset) }
func (f *body) i32Load8U(offset uint32) { f.code = append(f.code, 0x2D); f.memarg(0, offset) }
func (f *body) i32Load16U(offset uint32) {
	f.code = append(f.code, 0x2F)
	f.memarg(0, offset)
}
func (f *body) f32Store(offset uint32) {
	f.code = append(f.code, 0x38)
	f.memarg(2, offset)
}

// SIMD instructions.
func (f *body) simd(op uint32) { f.code = appendU32(append(f.code, 0xFD), op) }
func (f *body) v128Load(offset uint32) {
	f.simd(0x00)
	f.memarg(2, offset)
}
func (f *body) v128Store(offset uint32) {
	f.simd(0x0B)
	f.memarg(2, offset)
}
func (f *body) v128Const0() { f.i32x4Const(0) }

// v128Load32Splat loads a float32 into all four lanes.
func (f *body) v128Load32Splat(offset uint32) {
	f.simd(0x09)
	f.memarg(2, offset)
}

// v128Const pushes the vector of bytes b (v128.const).
func (f *body) v128Const(b [16]byte) {
	f.simd(0x0C)
	f.code = append(f.code, b[:]...)
}

// f64x2Const pushes a vector of two lanes of v.
func (f *body) f64x2Const(v float64) {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
	binary.LittleEndian.PutUint64(b[8:], math.Float64bits(v))
	f.v128Const(b)
}

// i32x4Const pushes a vector of four lanes of v (v128.const).
func (f *body) i32x4Const(v uint32) {
	f.simd(0x0C)
	for range 4 {
		f.code = append(f.code, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
}

// load16Lane replaces 16-bit lane of the vector on the stack with the
// two bytes at the address below it (v128.load16_lane; align 1, natural).
func (f *body) load16Lane(offset uint32, lane byte) {
	f.simd(0x55)
	f.memarg(1, offset)
	f.code = append(f.code, lane)
}

// load32Lane replaces 32-bit lane of the vector on the stack with the
// four bytes at the address below it (v128.load32_lane; align 1: the
// blocks of a GGUF file's rows need not be aligned).
func (f *body) load32Lane(offset uint32, lane byte) {
	f.simd(0x56)
	f.memarg(0, offset)
	f.code = append(f.code, lane)
}

// shuffleBytes takes sixteen byte lanes from the two vectors on the
// stack: lanes 0–15 are the first's, 16–31 the second's (i8x16.shuffle).
func (f *body) shuffleBytes(lanes [16]byte) {
	f.simd(0x0D)
	f.code = append(f.code, lanes[:]...)
}

// shuffle takes four float32 lanes from the two vectors on the stack:
// lanes 0–3 are the first's, 4–7 the second's (i8x16.shuffle, by bytes).
func (f *body) shuffle(lanes [4]byte) {
	f.simd(0x0D)
	for _, l := range lanes {
		f.code = append(f.code, 4*l, 4*l+1, 4*l+2, 4*l+3)
	}
}
func (f *body) f32x4ExtractLane(lane byte)  { f.simd(0x1F); f.code = append(f.code, lane) }
func (f *body) f32x4ReplaceLane(lane byte)  { f.simd(0x20); f.code = append(f.code, lane) }
func (f *body) f32x4Add()                   { f.simd(0xE4) }
func (f *body) f32x4Mul()                   { f.simd(0xE6) }
func (f *body) f32x4Div()                   { f.simd(0xE7) }
func (f *body) f32x4Splat()                 { f.simd(0x13) }
func (f *body) f32x4ConvertI32x4S()         { f.simd(0xFA) }
func (f *body) v128And()                    { f.simd(0x4E) }
func (f *body) v128Or()                     { f.simd(0x50) }
func (f *body) v128AndNot()                 { f.simd(0x4F) }
func (f *body) i8x16Eq()                    { f.simd(0x23) }
func (f *body) i8x16Swizzle()               { f.simd(0x0E) }
func (f *body) v128Bitselect()              { f.simd(0x52) }
func (f *body) i16x8ExtendLowI8x16S()       { f.simd(0x87) }
func (f *body) i16x8ExtendHighI8x16S()      { f.simd(0x88) }
func (f *body) i32x4Eq()                    { f.simd(0x37) }
func (f *body) i32x4Shl()                   { f.simd(0xAB) }
func (f *body) i32x4Add()                   { f.simd(0xAE) }
func (f *body) i32x4Sub()                   { f.simd(0xB1) }
func (f *body) i32x4Splat()                 { f.simd(0x11) }
func (f *body) i8x16ShrU()                  { f.simd(0x6D) }
func (f *body) i32x4DotI16x8S()             { f.simd(0xBA) }
func (f *body) i8x16ExtractLaneU(lane byte) { f.simd(0x16); f.code = append(f.code, lane) }
func (f *body) i8x16Shl()                   { f.simd(0x6B) }
func (f *body) i8x16Sub()                   { f.simd(0x71) }
func (f *body) i16x8NarrowI32x4S()          { f.simd(0x85) }
func (f *body) i16x8ExtendLowI8x16U()       { f.simd(0x89) }
func (f *body) i16x8ExtendHighI8x16U()      { f.simd(0x8A) }
func (f *body) i32x4ExtaddPairwiseI16x8S()  { f.simd(0x7E) }
func (f *body) i32x4ShrU()                  { f.simd(0xAD) }
func (f *body) i32x4Mul()                   { f.simd(0xB5) }
func (f *body) f32x4Sub()                   { f.simd(0xE5) }
func (f *body) f32x4Pmax()                  { f.simd(0xEB) }
func (f *body) f32x4Neg()                   { f.simd(0xE1) }

// f32x4Const pushes a vector of four lanes of v.
func (f *body) f32x4Const(v float32)       { f.i32x4Const(math.Float32bits(v)) }
func (f *body) f32x4Ne()                   { f.simd(0x42) }
func (f *body) f32x4Lt()                   { f.simd(0x43) }
func (f *body) f32x4Gt()                   { f.simd(0x44) }
func (f *body) i32x4GeS()                  { f.simd(0x3F) }
func (f *body) f64x2PromoteLowF32x4()      { f.simd(0x5F) }
func (f *body) f32x4DemoteF64x2Zero()      { f.simd(0x5E) }
func (f *body) f64x2Add()                  { f.simd(0xF0) }
func (f *body) f64x2Sub()                  { f.simd(0xF1) }
func (f *body) f64x2Mul()                  { f.simd(0xF2) }
func (f *body) i64x2Splat()                { f.simd(0x12) }
func (f *body) i64x2ExtractLane(lane byte) { f.simd(0x1D); f.code = append(f.code, lane) }
func (f *body) i64x2ReplaceLane(lane byte) { f.simd(0x1E); f.code = append(f.code, lane) }
func (f *body) i64x2Shl()                  { f.simd(0xCB) }
func (f *body) i64x2Add()                  { f.simd(0xCE) }

// The instructions of the quantizer (quantize.go).
func (f *body) i32Store(offset uint32)     { f.code = append(f.code, 0x36); f.memarg(2, offset) }
func (f *body) i32Eqz()                    { f.code = append(f.code, 0x45) }
func (f *body) f32Ne()                     { f.code = append(f.code, 0x5C) }
func (f *body) f32Sub()                    { f.code = append(f.code, 0x93) }
func (f *body) f32Div()                    { f.code = append(f.code, 0x95) }
func (f *body) f32ConvertI32S()            { f.code = append(f.code, 0xB2) }
func (f *body) i32ReinterpretF32()         { f.code = append(f.code, 0xBC) }
func (f *body) i32x4ExtractLane(lane byte) { f.simd(0x1B); f.code = append(f.code, lane) }
func (f *body) f32x4Abs()                  { f.simd(0xE0) }
func (f *body) f32x4Max()                  { f.simd(0xE9) }
func (f *body) f32x4Nearest()              { f.simd(0x6A) }
func (f *body) i32x4TruncSatF32x4S()       { f.simd(0xF8) }
func (f *body) i8x16NarrowI16x8S()         { f.simd(0x65) }

// f32Const pushes v (f32.const).
func (f *body) f32Const(v float32) {
	f.code = binary.LittleEndian.AppendUint32(append(f.code, 0x43), math.Float32bits(v))
}
