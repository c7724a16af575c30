package gguf

import (
	"fmt"

	"nexttoken/engine/quant"
)

// Type is a tensor's element type, ggml's enum ggml_type. Most types store
// their elements in blocks: a block of BlockSize elements takes BlockBytes
// bytes (Q4_0 keeps 32 weights as one float16 scale and 32 four-bit
// numbers: 18 bytes), so a tensor's first dimension must be a multiple of
// BlockSize.
type Type uint32

// The tensor types of the GGUF specification. Numbers 4, 5 and 31 to 33 and
// 36 to 38 belonged to types since removed.
const (
	F32     Type = 0
	F16     Type = 1
	Q4_0    Type = 2
	Q4_1    Type = 3
	Q5_0    Type = 6
	Q5_1    Type = 7
	Q8_0    Type = 8
	Q8_1    Type = 9
	Q2_K    Type = 10
	Q3_K    Type = 11
	Q4_K    Type = 12
	Q5_K    Type = 13
	Q6_K    Type = 14
	Q8_K    Type = 15
	IQ2_XXS Type = 16
	IQ2_XS  Type = 17
	IQ3_XXS Type = 18
	IQ1_S   Type = 19
	IQ4_NL  Type = 20
	IQ3_S   Type = 21
	IQ2_S   Type = 22
	IQ4_XS  Type = 23
	I8      Type = 24
	I16     Type = 25
	I32     Type = 26
	I64     Type = 27
	F64     Type = 28
	IQ1_M   Type = 29
	BF16    Type = 30
	TQ1_0   Type = 34
	TQ2_0   Type = 35
	MXFP4   Type = 39
)

// typeInfo is a type's name and block layout, as ggml's type_traits and
// gguf-py's GGML_QUANT_SIZES give them (QK_K, the "K" types' block, is 256);
// those of the types package quant multiplies are its own. A Type and a
// quant.Type of the same number are the same format (ggml's enum).
type typeInfo struct {
	name              string
	blockSize, blockB int
}

var types = map[Type]typeInfo{
	F32:     {"F32", 1, 4},
	F16:     {"F16", 1, 2},
	Q4_0:    {"Q4_0", quant.Q4_0.BlockSize(), quant.Q4_0.BlockBytes()},
	Q4_1:    {"Q4_1", 32, 2 + 2 + 16},
	Q5_0:    {"Q5_0", quant.Q5_0.BlockSize(), quant.Q5_0.BlockBytes()},
	Q5_1:    {"Q5_1", 32, 2 + 2 + 4 + 16},
	Q8_0:    {"Q8_0", quant.Q8_0.BlockSize(), quant.Q8_0.BlockBytes()},
	Q8_1:    {"Q8_1", 32, 4 + 4 + 32},
	Q2_K:    {"Q2_K", 256, 2 + 2 + 256/16 + 256/4},
	Q3_K:    {"Q3_K", 256, 2 + 256/4 + 256/8 + 12},
	Q4_K:    {"Q4_K", quant.Q4_K.BlockSize(), quant.Q4_K.BlockBytes()},
	Q5_K:    {"Q5_K", 256, 2 + 2 + 256/2 + 256/8 + 12},
	Q6_K:    {"Q6_K", quant.Q6_K.BlockSize(), quant.Q6_K.BlockBytes()},
	Q8_K:    {"Q8_K", 256, 4 + 256 + 256/8},
	IQ2_XXS: {"IQ2_XXS", 256, 2 + 256/4},
	IQ2_XS:  {"IQ2_XS", 256, 2 + 256/4 + 256/32},
	IQ3_XXS: {"IQ3_XXS", 256, 2 + 256/4 + 256/8},
	IQ1_S:   {"IQ1_S", 256, 2 + 256/8 + 256/16},
	IQ4_NL:  {"IQ4_NL", 32, 2 + 16},
	IQ3_S:   {"IQ3_S", 256, 2 + 256/4 + 256/8 + 256/32 + 4},
	IQ2_S:   {"IQ2_S", 256, 2 + 256/4 + 256/16},
	IQ4_XS:  {"IQ4_XS", 256, 2 + 2 + 256/2 + 256/64},
	I8:      {"I8", 1, 1},
	I16:     {"I16", 1, 2},
	I32:     {"I32", 1, 4},
	I64:     {"I64", 1, 8},
	F64:     {"F64", 1, 8},
	IQ1_M:   {"IQ1_M", 256, 256/8 + 256/16 + 256/32},
	BF16:    {"BF16", 1, 2},
	TQ1_0:   {"TQ1_0", 256, 2 + 4*13},
	TQ2_0:   {"TQ2_0", 256, 2 + 64},
	MXFP4:   {"MXFP4", 32, 1 + 16},
}

// Known reports whether t is a type of the specification.
func (t Type) Known() bool {
	_, ok := types[t]
	return ok
}

// BlockSize is the number of elements in one block of t (1 for the plain
// types), or 0 for an unknown type.
func (t Type) BlockSize() int { return types[t].blockSize }

// BlockBytes is the number of bytes one block of t takes, or 0 for an
// unknown type.
func (t Type) BlockBytes() int { return types[t].blockB }

func (t Type) String() string {
	if info, ok := types[t]; ok {
		return info.name
	}
	return fmt.Sprintf("type %d", uint32(t))
}
