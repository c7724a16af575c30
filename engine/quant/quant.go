// Package quant holds weight matrices the way ggml stores them — float32,
// or quantized in blocks — and multiplies them by vectors without expanding
// them to float32.
//
// A quantized format cuts each row into blocks of a fixed number of
// weights. A block stores small integers q and one or more float16 scales,
// and weight j of the block is worth d·q[j] (minus an offset in some
// formats). ggml/src/ggml-common.h defines the blocks and
// ggml/src/ggml-quants.c's dequantize_row_* functions what they are worth;
// this package follows both at llama.cpp commit 34af94cd, byte for byte and
// bit for bit (TestDequantizeMatchesGGML checks it against those functions'
// outputs):
//
//	Q8_0   32 weights in 34 bytes    d·q, q an int8
//	Q4_0   32 weights in 18 bytes    d·(q−8), q four bits
//	Q5_0   32 weights in 22 bytes    d·(q−16), q five bits
//	Q5_1   32 weights in 24 bytes    d·q + m, q five bits
//	Q2_K  256 weights in 84 bytes    d·sc·q − dmin·m, q two bits; sixteen
//	                                 groups of 16 with four-bit sc and m
//	Q3_K  256 weights in 110 bytes   d·(sc−32)·q, q three bits (−4 to 3);
//	                                 sixteen groups of 16 with six-bit sc
//	Q4_K  256 weights in 144 bytes   d·sc·q − dmin·m, q four bits; eight
//	                                 groups of 32 with six-bit sc and m
//	Q5_K  256 weights in 176 bytes   Q4_K's with q five bits
//	Q6_K  256 weights in 210 bytes   d·sc·(q−32), q six bits; sixteen
//	                                 groups of 16 with int8 sc
//	IQ4_NL 32 weights in 18 bytes    d·grid[q], q a four-bit index into
//	                                 ggml's 16 non-linear values
//	IQ4_XS 256 weights in 136 bytes  d·(ls−32)·grid[q]; eight groups of
//	                                 32 with six-bit ls
//
// Q4_K_M files, the common "4-bit" models, are Q4_K with Q6_K for the
// output matrix and some of attn_v and ffn_down.
//
// # Products
//
// Matrix.MulVec computes y = W·x the way llama.cpp's CPU backend does
// (ggml-cpu's ggml_vec_dot_*): x is first quantized to 8-bit integers
// (Q8_0 blocks of 32 for Q8_0 and Q4_0 weights, Q8_K blocks of 256 for the
// K formats), each block's products are summed in integers, and a block's
// sum is scaled once. Each product is then llama.cpp's to float rounding.
// The Go kernels add the blocks' scaled sums in order, as llama.cpp's
// portable C kernels do (a build without SIMD gave the Q8_0 and Q4_0
// products of the models below bit for bit); its x86 AVX kernels add them
// in eight FMA lanes, a last bit apart. Multiplying by x in float32 instead would move the logits by about
// 0.1. It is not faster in pure Go: BenchmarkMulVec measures the float32
// alternative at 0.7× the time for Q8_0 natively and about the same for
// Q4_0, and about the same under js/wasm.
//
// # Where the logits part from llama.cpp's
//
// Quantizing x makes a product depend on x's last bit now and then: a value
// whose x·127/max|x| is within an ulp of a rounding boundary (n + ½), or a
// Q8_0 block whose max|x|/127 is within an ulp of a float16 midpoint (its
// scale), takes the other integer or scale when x moves by that ulp. One
// integer moves the product by |w|·d, about 1e-3 on a random model, and the
// layers and positions after it carry that on: the logits part by
// 0.002–0.06 (their rms is about 1) and stay apart. x differs from
// llama.cpp's by such ulps all along, as llama.cpp's builds differ from one
// another: its AVX kernels add the products' blocks in FMA lanes, its
// RMSNorm sums in double, its softmax and SiLU take an expf of their own.
// TestOpsMatchLlamaCpp in package transformer follows one case operation
// by operation: given llama.cpp's inputs, every operation gives its output
// within 2.2e-7 of the output's largest value, and the first operation of
// nexttoken's own pass to part is the product of an attention output whose
// x·127/max|x| is −87.4999924 here and −87.5 in llama.cpp.
//
// How often, on random models (randmodel.BuildNamed, seeds from 1: dim 256,
// hidden 256, 4 heads, RMSNorm gains from randmodel.RandomGains, fed the 10
// tokens of TestMatchesLlamaCpp), counting the seeds whose logits part by
// more than 1e-4 somewhere from those of llama.cpp's AVX-512 build at commit
// 34af94cd (the README of engine/transformer/testdata/parting says how the
// builds were made):
//
//	                              nexttoken   llama.cpp's portable build
//	Q8_0, 6 layers, 4 KV heads    9 of 30     8 of 30
//	Q4_0, 6 layers, 4 KV heads    10 of 20    5 of 20
//	Q4_K, 6 layers, 4 KV heads    4 of 20     3 of 20
//	Q6_K, 6 layers, 4 KV heads    4 of 20     1 of 20
//	Q8_0, 2 layers, 1 KV head     7 of 30     5 of 30
//	Q4_0, 2 layers, 1 KV head     7 of 30     5 of 30
//
// (TestMatchesLlamaCpp's model is one that does not part.) Following
// llama.cpp's RMSNorm, a sum in double, made that operation bit for bit
// its own but changed little (Q8_0 8 of 30, Q4_0 8 of 20, Q6_K 4 of 20)
// and would give up run.c's bits for float32 models; following the AVX
// lanes would make the Go and WebAssembly kernels one x86 build's and no
// other's. So nexttoken does neither.
//
// On amd64 with AVX2 the products run in assembly (kernel_amd64.s,
// kernel_amd64.go), many times faster, and give the Go kernels' results
// bit for bit (TestSIMDMatchesGo): integer sums are exact in any order,
// and the float part keeps the Go kernels' order. The Go kernels remain
// for other platforms and CPUs, and with the purego build tag.
package quant

import (
	"fmt"
	"math"
	"strings"
)

// Type is a matrix's storage format, numbered as ggml's enum ggml_type.
type Type uint32

// The formats a Matrix may hold.
const (
	F32  Type = 0
	Q4_0 Type = 2
	Q5_0 Type = 6
	Q5_1 Type = 7
	Q8_0 Type = 8
	Q2_K Type = 10
	Q3_K Type = 11
	Q4_K Type = 12
	Q5_K Type = 13
	Q6_K Type = 14

	IQ4_NL Type = 20
	IQ4_XS Type = 23
)

// QK_K is the number of weights in a block of the K formats (ggml's QK_K).
const QK_K = 256

var formats = map[Type]struct {
	name                  string
	blockSize, blockBytes int
}{
	F32:    {"F32", 1, 4},
	Q4_0:   {"Q4_0", 32, 2 + 16},
	Q5_0:   {"Q5_0", 32, 2 + 4 + 16},
	Q5_1:   {"Q5_1", 32, 2 + 2 + 4 + 16},
	Q8_0:   {"Q8_0", 32, 2 + 32},
	Q2_K:   {"Q2_K", QK_K, QK_K/16 + QK_K/4 + 2 + 2},
	Q3_K:   {"Q3_K", QK_K, QK_K/8 + QK_K/4 + 12 + 2},
	Q4_K:   {"Q4_K", QK_K, 2 + 2 + 12 + QK_K/2},
	Q5_K:   {"Q5_K", QK_K, 2 + 2 + 12 + QK_K/8 + QK_K/2},
	Q6_K:   {"Q6_K", QK_K, QK_K/2 + QK_K/4 + QK_K/16 + 2},
	IQ4_NL: {"IQ4_NL", 32, 2 + 16},
	IQ4_XS: {"IQ4_XS", QK_K, 2 + 2 + QK_K/64 + QK_K/2},
}

// Types lists the quantized formats a Matrix may hold, for messages.
const Types = "Q8_0, Q4_0, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS"

// Supported reports whether a Matrix may hold format t.
func (t Type) Supported() bool {
	_, ok := formats[t]
	return ok
}

// BlockSize is the number of weights in a block of t (1 for F32), or 0 if
// t is not supported.
func (t Type) BlockSize() int { return formats[t].blockSize }

// BlockBytes is the size of a block of t, or 0 if t is not supported.
func (t Type) BlockBytes() int { return formats[t].blockBytes }

func (t Type) String() string {
	if f, ok := formats[t]; ok {
		return f.name
	}
	return fmt.Sprintf("type %d", uint32(t))
}

// TypeNamed is the format called name, in any case ("q8_0" is Q8_0).
func TypeNamed(name string) (Type, bool) {
	for t, f := range formats {
		if strings.EqualFold(f.name, name) {
			return t, true
		}
	}
	return 0, false
}

// Matrix is a Rows × Cols weight matrix, row-major: float32 values in F32,
// or in Q the blocks of each row after those of the row before, as a GGUF
// file stores them (but where Interleave laid out groups of rows). Its
// product with x is out[i] = Σ_j W[i][j]·x[j].
type Matrix struct {
	Type       Type
	Rows, Cols int
	F32        []float32 // Rows·Cols values when Type is F32
	Q          []byte    // Rows·RowBytes bytes otherwise (RowMajor: row after row)
	// groups is how many groups of eight rows Q holds interleaved
	// (interleave.go), from its first row; 0 for the row layout.
	groups int
}

// RowBytes is the size in bytes of one row of a matrix of t with cols
// columns, which the caller has checked are a whole number of blocks.
func RowBytes(t Type, cols int) int { return cols / t.BlockSize() * t.BlockBytes() }

// Check reports whether m is well formed: a supported type, rows a whole
// number of blocks, and data of the size the shape needs.
func (m *Matrix) Check() error {
	if !m.Type.Supported() {
		return fmt.Errorf("quant: %s is not a supported matrix format (F32, %s are)", m.Type, Types)
	}
	if m.Rows <= 0 || m.Cols <= 0 || m.Cols%m.Type.BlockSize() != 0 {
		return fmt.Errorf("quant: a %d × %d matrix cannot be %s, whose blocks hold %d weights", m.Rows, m.Cols, m.Type, m.Type.BlockSize())
	}
	if m.Type == F32 {
		if len(m.F32) != m.Rows*m.Cols || m.Q != nil {
			return fmt.Errorf("quant: a %d × %d F32 matrix holds %d values, not %d", m.Rows, m.Cols, len(m.F32), m.Rows*m.Cols)
		}
		return nil
	}
	if want := m.Rows * RowBytes(m.Type, m.Cols); len(m.Q) != want || m.F32 != nil {
		return fmt.Errorf("quant: a %d × %d %s matrix takes %d bytes, not %d", m.Rows, m.Cols, m.Type, want, len(m.Q))
	}
	return nil
}

// Bytes is the memory m's weights take.
func (m *Matrix) Bytes() int {
	if m.Type == F32 {
		return 4 * len(m.F32)
	}
	return len(m.Q)
}

// Slice is rows from … to−1 of m, sharing its memory: a fused matrix's
// parts (GPT-2's query, key and value rows).
func (m *Matrix) Slice(from, to int) Matrix {
	s := Matrix{Type: m.Type, Rows: to - from, Cols: m.Cols}
	if m.Type == F32 {
		s.F32 = m.F32[from*m.Cols : to*m.Cols]
	} else {
		n := RowBytes(m.Type, m.Cols)
		s.Q = m.Q[from*n : to*n]
		if grouped := m.groups * groupRows; canInterleave && from < grouped {
			if from%groupRows != 0 || to < grouped && to%groupRows != 0 {
				panic("quant: a slice of interleaved rows must start and end at a group's edge")
			}
			s.groups = (min(to, grouped) - from) / groupRows
		}
	}
	return s
}

// row returns the bytes of row i of a quantized m.
func (m *Matrix) row(i int) []byte {
	n := RowBytes(m.Type, m.Cols)
	return m.Q[i*n : (i+1)*n]
}

// Row writes row i of m into dst (Cols values) as float32: ggml's
// dequantize_row_* for a quantized m. Use it for what is shown or looked
// up (a token's embedding), not for products.
func (m *Matrix) Row(i int, dst []float32) {
	dst = dst[:m.Cols]
	if canInterleave && i < m.groups*groupRows {
		var blk [q8_0Bytes]byte
		blockBytes := m.Type.BlockBytes()
		group := m.Q[i/groupRows*groupRows*RowBytes(m.Type, m.Cols):]
		for b := range m.Cols / 32 {
			groupBlock(m.Type, group, b, i%groupRows, blk[:blockBytes])
			if m.Type == Q8_0 {
				dequantizeQ8_0(blk[:], dst[b*32:][:32])
			} else {
				dequantizeQ4_0(blk[:blockBytes], dst[b*32:][:32])
			}
		}
		return
	}
	switch m.Type {
	case F32:
		copy(dst, m.F32[i*m.Cols:])
	case Q8_0:
		dequantizeQ8_0(m.row(i), dst)
	case Q4_0:
		dequantizeQ4_0(m.row(i), dst)
	case Q5_0:
		dequantizeQ5_0(m.row(i), dst)
	case Q5_1:
		dequantizeQ5_1(m.row(i), dst)
	case Q2_K:
		dequantizeQ2_K(m.row(i), dst)
	case Q3_K:
		dequantizeQ3_K(m.row(i), dst)
	case Q4_K:
		dequantizeQ4_K(m.row(i), dst)
	case Q5_K:
		dequantizeQ5_K(m.row(i), dst)
	case Q6_K:
		dequantizeQ6_K(m.row(i), dst)
	case IQ4_NL:
		dequantizeIQ4_NL(m.row(i), dst)
	case IQ4_XS:
		dequantizeIQ4_XS(m.row(i), dst)
	default:
		panic("quant: Row of a matrix of " + m.Type.String())
	}
}

// MulVec sets out = W·x for a quantized m (len(x) = Cols, len(out) =
// Rows), quantizing x into v first; v is scratch space that MulVec grows
// once and then reuses, so that a product allocates nothing. Float32
// matrices are the caller's to multiply, with kernels of its own.
func (m *Matrix) MulVec(out, x []float32, v *Vec) {
	m.Quantize(v, x)
	m.MulQuantized(out, v)
}

// Quantize quantizes x (len(x) ≥ Cols) into v as m's format multiplies
// it: blocks of 32 for the formats of 32, of 256 (Q8_K) for the K and
// IQ4_XS formats, and what the assembly derives from them.
func (m *Matrix) Quantize(v *Vec, x []float32) {
	m.QuantizeWith(v, x, quantizeQ8_0SIMD)
}

// A BlockQuantizer quantizes blocks of 32 of x into q, d, s and sums, a
// block of x each, as Quantize does for Q8_0 weights, bit for bit, from
// the first block on, and returns how many blocks it quantized; Quantize
// quantizes the next block itself, then asks again for the rest. Kernels
// outside this package (package wasmsimd's) give Quantize theirs through
// QuantizeWith.
type BlockQuantizer func(x []float32, q []int8, d, s []float32, sums []int32) int

// QuantizeWith is Quantize with blocks, in place of this package's
// assembly, quantizing the blocks of 32 that the formats of blocks of 32
// (Q8_0, Q4_0, Q5_0, Q5_1, IQ4_NL) multiply; the K formats' blocks of 256
// are this package's to quantize.
func (m *Matrix) QuantizeWith(v *Vec, x []float32, blocks BlockQuantizer) {
	x = x[:m.Cols]
	switch m.Type {
	case Q8_0, Q4_0, Q5_0, Q5_1, IQ4_NL: // Q5_1 reads block_q8_1's s too
		v.quantizeQ8_0(x, blocks)
	case Q4_K, Q5_K, Q2_K, Q3_K, Q6_K, IQ4_XS:
		v.quantizeQ8_K(x)
	default:
		panic("quant: Quantize for a matrix of " + m.Type.String())
	}
	v.prepare(m.Type)
}

// MulQuantized sets out = W·x (len(out) ≥ Rows) for x quantized into v by
// Quantize of a matrix of m's format and columns. It only reads v, so
// goroutines multiplying rows of m (Slice) may share one v; a row's sum
// is the same bits whichever rows are multiplied with it.
func (m *Matrix) MulQuantized(out []float32, v *Vec) {
	out = out[:m.Rows]
	switch m.Type {
	case Q8_0:
		out, w := m.mulGroups(out, v)
		n := mulQ8_0SIMD(out, w, v)
		mulQ8_0(out[n:], w[n*len(v.d)*q8_0Bytes:], v)
	case Q4_0:
		out, w := m.mulGroups(out, v)
		n := mulQ4_0SIMD(out, w, v)
		mulQ4_0(out[n:], w[n*len(v.d)*q4_0Bytes:], v)
	case Q5_0:
		n := mulQ5_0SIMD(out, m.Q, v)
		mulQ5_0(out[n:], m.Q[n*len(v.d)*q5_0Bytes:], v)
	case Q5_1:
		n := mulQ5_1SIMD(out, m.Q, v)
		mulQ5_1(out[n:], m.Q[n*len(v.d)*q5_1Bytes:], v)
	case Q4_K:
		n := mulQ4_KSIMD(out, m.Q, v)
		mulQ4_K(out[n:], m.Q[n*len(v.d)*q4_KBytes:], v)
	case Q5_K:
		n := mulQ5_KSIMD(out, m.Q, v)
		mulQ5_K(out[n:], m.Q[n*len(v.d)*q5_KBytes:], v)
	case Q2_K:
		n := mulQ2_KSIMD(out, m.Q, v)
		mulQ2_K(out[n:], m.Q[n*len(v.d)*q2_KBytes:], v)
	case Q3_K:
		n := mulQ3_KSIMD(out, m.Q, v)
		mulQ3_K(out[n:], m.Q[n*len(v.d)*q3_KBytes:], v)
	case Q6_K:
		n := mulQ6_KSIMD(out, m.Q, v)
		mulQ6_K(out[n:], m.Q[n*len(v.d)*q6_KBytes:], v)
	case IQ4_NL:
		n := mulIQ4_NLSIMD(out, m.Q, v)
		mulIQ4_NL(out[n:], m.Q[n*len(v.d)*iq4_nlBytes:], v)
	case IQ4_XS:
		n := mulIQ4_XSSIMD(out, m.Q, v)
		mulIQ4_XS(out[n:], m.Q[n*len(v.d)*iq4_xsBytes:], v)
	default:
		panic("quant: MulQuantized of a matrix of " + m.Type.String())
	}
}

// HalfToFloat converts an IEEE 754 half-precision number (ggml's F16,
// ggml_fp16_t) to float32, exactly: every half is a float32. It is small
// enough to be inlined, so that a kernel reading a scale per block keeps
// its sums in registers instead of saving them around a call.
func HalfToFloat(h uint16) float32 {
	// Exponent and mantissa moved to float32's places, the exponent
	// rebiased from 15 to 127.
	b := uint32(h&0x7fff)<<13 + (127-15)<<23
	switch h & 0x7c00 {
	case 0x7c00: // infinity or NaN: the top exponent, keeping NaN's payload
		b += (128 - 16) << 23
	case 0: // zero or subnormal: mant × 2^-24 = (1.mant × 2^-14) − 2^-14
		b = math.Float32bits(math.Float32frombits(b+1<<23) - 0x1p-14)
	}
	return math.Float32frombits(b | uint32(h&0x8000)<<16)
}

// FloatToHalf rounds x to the nearest half-precision number, ties to even,
// as ggml's conversion (the F16C instruction or its portable version) does.
func FloatToHalf(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff { // infinity, or NaN kept quiet
		if mant != 0 {
			return sign | 0x7e00 | uint16(mant>>13)
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	full, shift := mant|0x800000, uint(13)
	if e <= 0 { // a half subnormal: the implicit bit shifts in
		shift = uint(14 - e)
		if exp == 0 || shift > 24 {
			return sign
		}
		e = 0
	} else {
		full = mant
	}
	h := uint32(e)<<10 | full>>shift
	rest, half := full&(1<<shift-1), uint32(1)<<(shift-1)
	if rest > half || rest == half && h&1 == 1 {
		h++ // a carry into the exponent is still right, up to infinity
	}
	return sign | uint16(h)
}

// half reads the little-endian float16 at b[0:2].
func half(b []byte) float32 { return HalfToFloat(uint16(b[0]) | uint16(b[1])<<8) }
