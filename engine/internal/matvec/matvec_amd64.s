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
