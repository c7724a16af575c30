//go:build amd64 && !purego

#include "textflag.h"

// A row's sum: two accumulators of eight lanes, one for columns 16k to
// 16k+7 and one for 16k+8 to 16k+15 (a last eight go to the first); the
// two added, the halves of the sum folded into four lanes, then
// (l0+l1)+(l2+l3). Four rows at a time share each load of x and end in
// one vector of four sums (VHADDPS twice), which adds their lanes in the
// same order as a single row's two VHADDPS: a row's result does not depend
// on its neighbours.
//
// The rows stream from memory once per product: each step prefetches the
// same columns of the four rows two groups on, which the hardware's
// prefetchers, seeing four interleaved rows, fetch too late on their own.

// func avx2FMA() bool
TEXT ·avx2FMA(SB), NOSPLIT, $0-1
	MOVB $0, ret+0(FP)
	XORL AX, AX
	XORL CX, CX
	CPUID
	CMPL AX, $7
	JLT  no
	MOVL $1, AX
	XORL CX, CX
	CPUID
	// FMA (12), OSXSAVE (27), AVX (28)
	ANDL $0x18001000, CX
	CMPL CX, $0x18001000
	JNE  no
	XORL CX, CX
	XGETBV
	ANDL $6, AX
	CMPL AX, $6
	JNE  no
	MOVL $7, AX
	XORL CX, CX
	CPUID
	// AVX2 (5)
	ANDL $0x20, BX
	JZ   no
	MOVB $1, ret+0(FP)
no:
	RET

// func mulAVX2(out, x, w *float32, stride, cols, rows int)
TEXT ·mulAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DX
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), DI
	MOVQ stride+24(FP), R8
	SHLQ $2, R8            // a row's bytes
	MOVQ cols+32(FP), CX
	MOVQ rows+40(FP), BX
	LEAQ (R8)(R8*2), R9    // three rows'
	MOVQ R8, R12
	SHLQ $3, R12           // eight rows': the prefetch's distance

four:
	CMPQ   BX, $4
	JLT    one
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	MOVQ   DI, R10
	MOVQ   SI, R11
	MOVQ   CX, AX

four16:
	CMPQ        AX, $16
	JLT         four8
	LEAQ        (R10)(R12*1), R13
	PREFETCHT0  (R13)
	PREFETCHT0  (R13)(R8*1)
	PREFETCHT0  (R13)(R8*2)
	PREFETCHT0  (R13)(R9*1)
	VMOVUPS     (R11), Y0
	VMOVUPS     32(R11), Y1
	VFMADD231PS (R10), Y0, Y4
	VFMADD231PS (R10)(R8*1), Y0, Y5
	VFMADD231PS (R10)(R8*2), Y0, Y6
	VFMADD231PS (R10)(R9*1), Y0, Y7
	VFMADD231PS 32(R10), Y1, Y8
	VFMADD231PS 32(R10)(R8*1), Y1, Y9
	VFMADD231PS 32(R10)(R8*2), Y1, Y10
	VFMADD231PS 32(R10)(R9*1), Y1, Y11
	ADDQ        $64, R10
	ADDQ        $64, R11
	SUBQ        $16, AX
	JMP         four16

four8:
	CMPQ        AX, $8
	JLT         fourSum
	VMOVUPS     (R11), Y0
	VFMADD231PS (R10), Y0, Y4
	VFMADD231PS (R10)(R8*1), Y0, Y5
	VFMADD231PS (R10)(R8*2), Y0, Y6
	VFMADD231PS (R10)(R9*1), Y0, Y7

fourSum:
	VADDPS       Y8, Y4, Y4
	VADDPS       Y9, Y5, Y5
	VADDPS       Y10, Y6, Y6
	VADDPS       Y11, Y7, Y7
	VEXTRACTF128 $1, Y4, X8
	VEXTRACTF128 $1, Y5, X9
	VEXTRACTF128 $1, Y6, X10
	VEXTRACTF128 $1, Y7, X11
	VADDPS       X8, X4, X4
	VADDPS       X9, X5, X5
	VADDPS       X10, X6, X6
	VADDPS       X11, X7, X7
	VHADDPS      X5, X4, X4
	VHADDPS      X7, X6, X6
	VHADDPS      X6, X4, X4
	VMOVUPS      X4, (DX)
	ADDQ         $16, DX
	LEAQ         (DI)(R8*4), DI
	SUBQ         $4, BX
	JMP          four

one:
	TESTQ  BX, BX
	JZ     done
	VXORPS Y4, Y4, Y4
	VXORPS Y8, Y8, Y8
	MOVQ   DI, R10
	MOVQ   SI, R11
	MOVQ   CX, AX

one16:
	CMPQ        AX, $16
	JLT         one8
	VMOVUPS     (R11), Y0
	VMOVUPS     32(R11), Y1
	VFMADD231PS (R10), Y0, Y4
	VFMADD231PS 32(R10), Y1, Y8
	ADDQ        $64, R10
	ADDQ        $64, R11
	SUBQ        $16, AX
	JMP         one16

one8:
	CMPQ        AX, $8
	JLT         oneSum
	VMOVUPS     (R11), Y0
	VFMADD231PS (R10), Y0, Y4

oneSum:
	VADDPS       Y8, Y4, Y4
	VEXTRACTF128 $1, Y4, X8
	VADDPS       X8, X4, X4
	VHADDPS      X4, X4, X4
	VHADDPS      X4, X4, X4
	VMOVSS       X4, (DX)
	ADDQ         $4, DX
	ADDQ         R8, DI
	DECQ         BX
	JMP          one

done:
	VZEROUPPER
	RET

// func scoresAVX2(att, q, keys *float32, n, stride, groups int, scale float32)
//
// Eight positions at a time, a lane each: each step multiplies the next
// eight values of the eight key rows by q's (a register a row), turns the
// eight products around (a register a value of q, a lane a row) and adds
// them to the sums in order of q's values, so that each lane sums as
// scoresGo does, product by product.
TEXT ·scoresAVX2(SB), NOSPLIT, $0-52
	MOVQ         att+0(FP), DI
	MOVQ         q+8(FP), SI
	MOVQ         keys+16(FP), DX
	MOVQ         n+24(FP), CX
	MOVQ         stride+32(FP), R8
	SHLQ         $2, R8              // a row's bytes
	MOVQ         groups+40(FP), BX
	VBROADCASTSS scale+48(FP), Y15
	LEAQ         (R8)(R8*2), R9      // three rows'
	LEAQ         (R8)(R8*4), R10     // five rows'
	LEAQ         (R9)(R9*1), R11     // six rows'
	LEAQ         (R9)(R8*4), R14     // seven rows'

scoresGroup:
	VXORPS Y0, Y0, Y0
	MOVQ   DX, R13
	MOVQ   SI, AX
	MOVQ   CX, R15

scoresCols:
	VMOVUPS    (AX), Y9
	VMULPS     (R13), Y9, Y1
	VMULPS     (R13)(R8*1), Y9, Y2
	VMULPS     (R13)(R8*2), Y9, Y3
	VMULPS     (R13)(R9*1), Y9, Y4
	VMULPS     (R13)(R8*4), Y9, Y5
	VMULPS     (R13)(R10*1), Y9, Y6
	VMULPS     (R13)(R11*1), Y9, Y7
	VMULPS     (R13)(R14*1), Y9, Y8
	VUNPCKLPS  Y2, Y1, Y10
	VUNPCKHPS  Y2, Y1, Y2
	VUNPCKLPS  Y4, Y3, Y11
	VUNPCKHPS  Y4, Y3, Y4
	VUNPCKLPS  Y6, Y5, Y12
	VUNPCKHPS  Y6, Y5, Y6
	VUNPCKLPS  Y8, Y7, Y13
	VUNPCKHPS  Y8, Y7, Y8
	VSHUFPS    $0x44, Y11, Y10, Y1
	VSHUFPS    $0xEE, Y11, Y10, Y3
	VSHUFPS    $0x44, Y4, Y2, Y5
	VSHUFPS    $0xEE, Y4, Y2, Y7
	VSHUFPS    $0x44, Y13, Y12, Y10
	VSHUFPS    $0xEE, Y13, Y12, Y11
	VSHUFPS    $0x44, Y8, Y6, Y2
	VSHUFPS    $0xEE, Y8, Y6, Y4
	// Y1, Y3, Y5, Y7: rows 0–3 at values 0–3 (low halves) and 4–7 (high);
	// Y10, Y11, Y2, Y4: rows 4–7 likewise.
	VPERM2F128 $0x20, Y10, Y1, Y12
	VADDPS     Y12, Y0, Y0
	VPERM2F128 $0x20, Y11, Y3, Y12
	VADDPS     Y12, Y0, Y0
	VPERM2F128 $0x20, Y2, Y5, Y12
	VADDPS     Y12, Y0, Y0
	VPERM2F128 $0x20, Y4, Y7, Y12
	VADDPS     Y12, Y0, Y0
	VPERM2F128 $0x31, Y10, Y1, Y12
	VADDPS     Y12, Y0, Y0
	VPERM2F128 $0x31, Y11, Y3, Y12
	VADDPS     Y12, Y0, Y0
	VPERM2F128 $0x31, Y2, Y5, Y12
	VADDPS     Y12, Y0, Y0
	VPERM2F128 $0x31, Y4, Y7, Y12
	VADDPS     Y12, Y0, Y0
	ADDQ       $32, R13
	ADDQ       $32, AX
	SUBQ       $8, R15
	JNZ        scoresCols

	VDIVPS  Y15, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	LEAQ    (DX)(R8*8), DX
	DECQ    BX
	JNZ     scoresGroup
	VZEROUPPER
	RET

// func mixAVX2(out, w, values *float32, n, stride, positions int)
//
// Thirty-two outputs at a time (then eight), a lane each, over every
// position: the weight times the position's values, added in order of
// the positions.
TEXT ·mixAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ values+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ stride+32(FP), R8
	SHLQ $2, R8
	MOVQ positions+40(FP), BX

mix32:
	CMPQ   CX, $32
	JLT    mix8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   DX, R13
	MOVQ   SI, AX
	MOVQ   BX, R15

mix32pos:
	VBROADCASTSS (AX), Y9
	VMULPS       (R13), Y9, Y4
	VMULPS       32(R13), Y9, Y5
	VMULPS       64(R13), Y9, Y6
	VMULPS       96(R13), Y9, Y7
	VADDPS       Y4, Y0, Y0
	VADDPS       Y5, Y1, Y1
	VADDPS       Y6, Y2, Y2
	VADDPS       Y7, Y3, Y3
	ADDQ         $4, AX
	ADDQ         R8, R13
	DECQ         R15
	JNZ          mix32pos
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	VMOVUPS      Y2, 64(DI)
	VMOVUPS      Y3, 96(DI)
	ADDQ         $128, DI
	ADDQ         $128, DX
	SUBQ         $32, CX
	JMP          mix32

mix8:
	CMPQ   CX, $8
	JLT    mixDone
	VXORPS Y0, Y0, Y0
	MOVQ   DX, R13
	MOVQ   SI, AX
	MOVQ   BX, R15

mix8pos:
	VBROADCASTSS (AX), Y9
	VMULPS       (R13), Y9, Y4
	VADDPS       Y4, Y0, Y0
	ADDQ         $4, AX
	ADDQ         R8, R13
	DECQ         R15
	JNZ          mix8pos
	VMOVUPS      Y0, (DI)
	ADDQ         $32, DI
	ADDQ         $32, DX
	SUBQ         $8, CX
	JMP          mix8

mixDone:
	VZEROUPPER
	RET
