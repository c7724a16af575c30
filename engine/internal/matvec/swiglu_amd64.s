//go:build amd64 && !purego

#include "textflag.h"

// Eight values a step: x = −g (the sign bit flipped, as Go negates),
// e = expf(x) in two halves of four float64 lanes, Exp's special cases
// chosen by x, then (g·(1 / (e + 1)))·up with the operands of each
// product in the order of the Go loop's MULSS, which keeps the first
// operand's NaN when both are NaN.

// SWIGLU_EXP4 sets X6 to Exp of the four float64 lanes of Y2 (float32
// inputs, widened exactly), but for the special cases: z = x·32/ln2,
// kd = z + Shift (its bits ki), r = z − (kd − Shift), s = table[ki & 31]
// + ki<<47, y = (C0·r + C1)·(r·r) + (C2·r + 1), the result y·s rounded to
// float32. It uses Y4–Y7 and Y15; Y8–Y14 hold the float64 constants and
// 31.
#define SWIGLU_EXP4 \
	VMULPD       Y8, Y2, Y2          \ // z
	VADDPD       Y9, Y2, Y4          \ // kd, ki's bits
	VSUBPD       Y9, Y4, Y5          \ // kd − Shift
	VSUBPD       Y5, Y2, Y5          \ // r = z − kd
	VPAND        Y14, Y4, Y6         \ // ki & 31
	VPCMPEQQ     Y7, Y7, Y7          \ // every lane gathered
	VPGATHERQQ   Y7, (R8)(Y6*8), Y15 \ // table[ki & 31]
	VPSLLQ       $47, Y4, Y4         \
	VPADDQ       Y4, Y15, Y4         \ // s
	VMULPD       Y10, Y5, Y6         \ // C0·r
	VADDPD       Y11, Y6, Y6         \ // p = C0·r + C1
	VMULPD       Y12, Y5, Y7         \ // C2·r
	VADDPD       Y13, Y7, Y7         \ // q = C2·r + 1
	VMULPD       Y5, Y5, Y5          \ // r·r
	VMULPD       Y5, Y6, Y6          \ // p·(r·r)
	VADDPD       Y7, Y6, Y6          \ // y
	VMULPD       Y4, Y6, Y6          \ // y·s
	VCVTPD2PSY   Y6, X6

// func swigluAVX2(gate, up *float32, n int, table *[32]uint64)
TEXT ·swigluAVX2(SB), NOSPLIT, $0-32
	MOVQ         gate+0(FP), DI
	MOVQ         up+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         table+24(FP), R8
	VBROADCASTSD invLn2N<>(SB), Y8
	VBROADCASTSD shift<>(SB), Y9
	VBROADCASTSD c0<>(SB), Y10
	VBROADCASTSD c1<>(SB), Y11
	VBROADCASTSD c2<>(SB), Y12
	VBROADCASTSD one64<>(SB), Y13
	VPBROADCASTQ low5<>(SB), Y14

loop:
	CMPQ         CX, $8
	JLT          done
	VMOVUPS      (DI), Y0              // g
	VXORPS       sign<>(SB), Y0, Y1    // x = −g
	VEXTRACTF128 $1, Y1, X2            // lanes 4–7 first
	VCVTPS2PD    X2, Y2
	SWIGLU_EXP4
	VMOVAPS      X6, X3
	VCVTPS2PD    X1, Y2                // then lanes 0–3
	SWIGLU_EXP4
	VINSERTF128  $1, X3, Y6, Y6        // e, but for the special cases

	// Exp's special cases, by x: +Inf above Overflow, 0 below Underflow,
	// x itself if NaN, and the two inputs glibc rounds the other way.
	VCMPPS       $0x1e, overflow<>(SB), Y1, Y2  // x > Overflow (GT_OQ)
	VBLENDVPS    Y2, inf<>(SB), Y6, Y6
	VCMPPS       $0x11, underflow<>(SB), Y1, Y2 // x < Underflow (LT_OQ)
	VANDNPS      Y6, Y2, Y6
	VCMPPS       $0x03, Y1, Y1, Y2              // x is NaN (UNORD_Q)
	VBLENDVPS    Y2, Y1, Y6, Y6
	VPCMPEQD     fusedIn0<>(SB), Y1, Y2
	VBLENDVPS    Y2, fusedOut0<>(SB), Y6, Y6
	VPCMPEQD     fusedIn1<>(SB), Y1, Y2
	VBLENDVPS    Y2, fusedOut1<>(SB), Y6, Y6

	VADDPS       one32<>(SB), Y6, Y6   // e + 1
	VMOVUPS      one32<>(SB), Y2
	VDIVPS       Y6, Y2, Y2            // 1 / (e + 1)
	VMULPS       Y0, Y2, Y2            // (1 / (e + 1))·g
	VMULPS       (SI), Y2, Y2          // ·up
	VMOVUPS      Y2, (DI)
	ADDQ         $32, DI
	ADDQ         $32, SI
	SUBQ         $8, CX
	JMP          loop

done:
	VZEROUPPER
	RET

DATA low5<>+0(SB)/8, $31
GLOBL low5<>(SB), RODATA|NOPTR, $8

DATA invLn2N<>+0(SB)/8, $0x40471547652b82fe
GLOBL invLn2N<>(SB), RODATA|NOPTR, $8

DATA shift<>+0(SB)/8, $0x4338000000000000
GLOBL shift<>(SB), RODATA|NOPTR, $8

DATA c0<>+0(SB)/8, $0x3ebc6af84b912394
GLOBL c0<>(SB), RODATA|NOPTR, $8

DATA c1<>+0(SB)/8, $0x3f2ebfce50fac4f3
GLOBL c1<>(SB), RODATA|NOPTR, $8

DATA c2<>+0(SB)/8, $0x3f962e42ff0c52d6
GLOBL c2<>(SB), RODATA|NOPTR, $8

DATA one64<>+0(SB)/8, $0x3ff0000000000000
GLOBL one64<>(SB), RODATA|NOPTR, $8

DATA sign<>+0(SB)/4, $0x80000000
DATA sign<>+4(SB)/4, $0x80000000
DATA sign<>+8(SB)/4, $0x80000000
DATA sign<>+12(SB)/4, $0x80000000
DATA sign<>+16(SB)/4, $0x80000000
DATA sign<>+20(SB)/4, $0x80000000
DATA sign<>+24(SB)/4, $0x80000000
DATA sign<>+28(SB)/4, $0x80000000
GLOBL sign<>(SB), RODATA|NOPTR, $32

DATA one32<>+0(SB)/4, $0x3f800000
DATA one32<>+4(SB)/4, $0x3f800000
DATA one32<>+8(SB)/4, $0x3f800000
DATA one32<>+12(SB)/4, $0x3f800000
DATA one32<>+16(SB)/4, $0x3f800000
DATA one32<>+20(SB)/4, $0x3f800000
DATA one32<>+24(SB)/4, $0x3f800000
DATA one32<>+28(SB)/4, $0x3f800000
GLOBL one32<>(SB), RODATA|NOPTR, $32

DATA overflow<>+0(SB)/4, $0x42b17217
DATA overflow<>+4(SB)/4, $0x42b17217
DATA overflow<>+8(SB)/4, $0x42b17217
DATA overflow<>+12(SB)/4, $0x42b17217
DATA overflow<>+16(SB)/4, $0x42b17217
DATA overflow<>+20(SB)/4, $0x42b17217
DATA overflow<>+24(SB)/4, $0x42b17217
DATA overflow<>+28(SB)/4, $0x42b17217
GLOBL overflow<>(SB), RODATA|NOPTR, $32

DATA underflow<>+0(SB)/4, $0xc2cff1b4
DATA underflow<>+4(SB)/4, $0xc2cff1b4
DATA underflow<>+8(SB)/4, $0xc2cff1b4
DATA underflow<>+12(SB)/4, $0xc2cff1b4
DATA underflow<>+16(SB)/4, $0xc2cff1b4
DATA underflow<>+20(SB)/4, $0xc2cff1b4
DATA underflow<>+24(SB)/4, $0xc2cff1b4
DATA underflow<>+28(SB)/4, $0xc2cff1b4
GLOBL underflow<>(SB), RODATA|NOPTR, $32

DATA inf<>+0(SB)/4, $0x7f800000
DATA inf<>+4(SB)/4, $0x7f800000
DATA inf<>+8(SB)/4, $0x7f800000
DATA inf<>+12(SB)/4, $0x7f800000
DATA inf<>+16(SB)/4, $0x7f800000
DATA inf<>+20(SB)/4, $0x7f800000
DATA inf<>+24(SB)/4, $0x7f800000
DATA inf<>+28(SB)/4, $0x7f800000
GLOBL inf<>(SB), RODATA|NOPTR, $32

DATA fusedIn0<>+0(SB)/4, $0xc27c65d9
DATA fusedIn0<>+4(SB)/4, $0xc27c65d9
DATA fusedIn0<>+8(SB)/4, $0xc27c65d9
DATA fusedIn0<>+12(SB)/4, $0xc27c65d9
DATA fusedIn0<>+16(SB)/4, $0xc27c65d9
DATA fusedIn0<>+20(SB)/4, $0xc27c65d9
DATA fusedIn0<>+24(SB)/4, $0xc27c65d9
DATA fusedIn0<>+28(SB)/4, $0xc27c65d9
GLOBL fusedIn0<>(SB), RODATA|NOPTR, $32

DATA fusedOut0<>+0(SB)/4, $0x11fa2993
DATA fusedOut0<>+4(SB)/4, $0x11fa2993
DATA fusedOut0<>+8(SB)/4, $0x11fa2993
DATA fusedOut0<>+12(SB)/4, $0x11fa2993
DATA fusedOut0<>+16(SB)/4, $0x11fa2993
DATA fusedOut0<>+20(SB)/4, $0x11fa2993
DATA fusedOut0<>+24(SB)/4, $0x11fa2993
DATA fusedOut0<>+28(SB)/4, $0x11fa2993
GLOBL fusedOut0<>(SB), RODATA|NOPTR, $32

DATA fusedIn1<>+0(SB)/4, $0x4202422f
DATA fusedIn1<>+4(SB)/4, $0x4202422f
DATA fusedIn1<>+8(SB)/4, $0x4202422f
DATA fusedIn1<>+12(SB)/4, $0x4202422f
DATA fusedIn1<>+16(SB)/4, $0x4202422f
DATA fusedIn1<>+20(SB)/4, $0x4202422f
DATA fusedIn1<>+24(SB)/4, $0x4202422f
DATA fusedIn1<>+28(SB)/4, $0x4202422f
GLOBL fusedIn1<>(SB), RODATA|NOPTR, $32

DATA fusedOut1<>+0(SB)/4, $0x56fc9f1c
DATA fusedOut1<>+4(SB)/4, $0x56fc9f1c
DATA fusedOut1<>+8(SB)/4, $0x56fc9f1c
DATA fusedOut1<>+12(SB)/4, $0x56fc9f1c
DATA fusedOut1<>+16(SB)/4, $0x56fc9f1c
DATA fusedOut1<>+20(SB)/4, $0x56fc9f1c
DATA fusedOut1<>+24(SB)/4, $0x56fc9f1c
DATA fusedOut1<>+28(SB)/4, $0x56fc9f1c
GLOBL fusedOut1<>(SB), RODATA|NOPTR, $32

