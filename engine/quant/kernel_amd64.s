//go:build amd64 && !purego

#include "textflag.h"

// The integer dot product of a block's 32 weights with the vector's 32
// int8 follows ggml-cpu's AVX2 kernels (ggml-cpu/arch/x86/quants.c,
// ggml_vec_dot_q8_0_q8_0 and mul_sum_i8_pairs_float): VPMADDUBSW multiplies
// unsigned bytes by signed ones and adds pairs into int16, then VPMADDWD
// by ones adds pairs into int32. For Q8_0 the weights' signs move onto the
// vector first (VPSIGNB), |w|·(x·sign w) = w·x. A pair of products stays
// below the int16 limit: |w| ≤ 128 and the vector's |q| ≤ 127 (Vec never
// holds −128), so 2·128·127 = 32,512; Q4_0's nibbles are at most 15.
//
// The weights stream from memory once per product (a model's matrices
// are larger than the caches). The kernels of Q8_0 and Q4_0 read two
// rows at a time, in order, and prefetch ahead of them; those of Q5_0, Q5_1
// and IQ4_NL take four rows through the blocks together, and each block
// step prefetches the same block of the rows two groups on, which the
// hardware's prefetchers, seeing four interleaved rows, do not fetch early
// enough on their own. Their eight-lane sums become one vector of four row
// sums with three VPHADDD and a fold of the two halves; the float part
// then runs one row per lane, in the Go kernels' order.

// SUM4 folds the eight-lane sums of rows 0–3 in Y4–Y7 into X4, one row a
// lane, exactly (integers).
#define SUM4 \
	VPHADDD      Y5, Y4, Y4 \
	VPHADDD      Y7, Y6, Y6 \
	VPHADDD      Y6, Y4, Y4 \
	VEXTRACTI128 $1, Y4, X5 \
	VPADDD       X5, X4, X4

// PREFETCH4 fetches the block at reg of four rows into the caches and
// moves reg on by a block of size bytes.
#define PREFETCH4(reg, size) \
	PREFETCHT0 (reg)         \
	PREFETCHT0 (reg)(R8*1)   \
	PREFETCHT0 (reg)(R8*2)   \
	PREFETCHT0 (reg)(R13*1)  \
	ADDQ       $size, reg

// DOT4 sets X4 to the integer dot products of the four rows' blocks (the
// format's ROWDOT) with the vector's block at DX, one row a lane.
#define DOT4(rowdot) \
	VMOVDQU (DX), Y0             \
	rowdot(2(AX), Y4)            \
	rowdot(2(AX)(R8*1), Y5)      \
	rowdot(2(AX)(R8*2), Y6)      \
	rowdot(2(AX)(R13*1), Y7)     \
	SUM4

// SCALES4 sets X8 to the float16 scales at the start of the four rows'
// blocks (AX, then rowBytes R8 apart; R13 = 3·rowBytes) as float32.
#define SCALES4 \
	MOVWLZX   (AX), BX               \
	VMOVD     BX, X8                 \
	VPINSRW   $1, (AX)(R8*1), X8, X8 \
	VPINSRW   $2, (AX)(R8*2), X8, X8 \
	VPINSRW   $3, (AX)(R13*1), X8, X8 \
	VCVTPH2PS X8, X8

// ADD_SCALED adds to the four row sums in X10 the integer sums in X4
// times the rows' scales and the vector's, d[CX]: sum += float32(s) ·
// (d_w·d_x), as mulQ8_0 rounds it.
#define ADD_SCALED \
	VCVTDQ2PS    X4, X4          \
	SCALES4                      \
	VBROADCASTSS (R10)(CX*4), X9 \
	VMULPS       X9, X8, X8      \
	VMULPS       X8, X4, X4      \
	VADDPS       X4, X10, X10

// PROLOGUE loads the arguments the four-row kernels take, (out *float32,
// w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, groups
// int), and sets Y15 to sixteen int16 ones, for VPMADDWD's pair sums.
#define PROLOGUE \
	MOVQ         out+0(FP), DI       \
	MOVQ         w+8(FP), SI         \
	MOVQ         rowBytes+16(FP), R8 \
	MOVQ         q+24(FP), R9        \
	MOVQ         d+32(FP), R10       \
	MOVQ         sums+40(FP), R14    \
	MOVQ         blocks+48(FP), R11  \
	MOVQ         groups+56(FP), R12  \
	LEAQ         (R8)(R8*2), R13     \
	MOVL         $0x00010001, AX     \
	VMOVD        AX, X15             \
	VPBROADCASTD X15, Y15

// GROUP starts a group of four rows at SI: AX at the current block of its
// first row, R15 at the same block two groups on (to prefetch), DX at the
// vector's current block, CX its number, X10 the four row sums.
#define GROUP \
	MOVQ   SI, AX            \
	LEAQ   (SI)(R8*8), R15   \
	MOVQ   R9, DX            \
	XORQ   CX, CX            \
	VXORPS X10, X10, X10

// NEXT_BLOCK moves on by a block of size bytes, back to label while blocks
// remain.
#define NEXT_BLOCK(size, label) \
	ADDQ $size, AX \
	ADDQ $32, DX   \
	INCQ CX        \
	CMPQ CX, R11   \
	JLT  label

// NEXT_GROUP stores the four row sums and moves on to the next group of
// rows, back to label while groups remain; then returns.
#define NEXT_GROUP(label) \
	VMOVUPS X10, (DI)         \
	ADDQ    $16, DI           \
	LEAQ    (SI)(R8*4), SI    \
	DECQ    R12               \
	JNZ     label             \
	VZEROUPPER                \
	RET

// K_PROLOGUE loads the arguments every K kernel takes, (out *float32, w
// *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows
// int), but q and groupSums, which K_ROW loads for each row; and sets Y14
// to the low-nibble mask.
#define K_PROLOGUE \
	MOVQ         out+0(FP), DI        \
	MOVQ         w+8(FP), SI          \
	MOVQ         rowBytes+16(FP), R8  \
	MOVQ         d+32(FP), R10        \
	MOVQ         blocks+48(FP), R11   \
	MOVQ         rows+56(FP), R12     \
	MOVL         $0x0f0f0f0f, AX      \
	VMOVD        AX, X14              \
	VPBROADCASTD X14, Y14

// K_ROW starts a row at SI: AX at its current block, DX at the vector's,
// BX at the vector's group sums, CX the block's number, X4 the row's sum.
#define K_ROW \
	MOVQ   SI, AX                   \
	MOVQ   q+24(FP), DX             \
	MOVQ   groupSums+40(FP), BX     \
	XORQ   CX, CX                   \
	VXORPS X4, X4, X4

// The kernels of Q8_0 and Q4_0 take two neighbouring rows at a time (a
// last odd row alone), so that the weights stream from memory nearly in
// order, which the hardware's prefetchers follow. Eight blocks of a row go
// through at once: their eight-lane integer sums become one vector of
// eight block sums (BLOCKSUMS8), whose float part then runs one block a
// lane, and the row's sum adds the lanes one after another, in the Go
// kernels' order (ADD_LANES8, ADD_LANES4_TO). Those additions wait on one
// another; the two rows' sums do not, so the two chains overlap.

// ROW_PROLOGUE is K_PROLOGUE for the one-row kernels, (out *float32, w
// *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, rows
// int), whose ROW loads q, d and sums for each row, leaving R10 free; it
// also sets Y15 to sixteen int16 ones, for VPMADDWD's pair sums.
#define ROW_PROLOGUE \
	K_PROLOGUE                   \
	MOVL         $0x00010001, AX \
	VMOVD        AX, X15         \
	VPBROADCASTD X15, Y15

// ROW starts a row at SI: AX at its current block, DX at the vector's, BX
// at the vector's scales, R9 at its block sums, CX the blocks left, X12
// the row's sum.
#define ROW \
	MOVQ   SI, AX            \
	MOVQ   q+24(FP), DX      \
	MOVQ   d+32(FP), BX      \
	MOVQ   sums+40(FP), R9   \
	MOVQ   R11, CX           \
	VXORPS X12, X12, X12

// ROWDOT_Q8_0 sets Y(dst) to eight int32 lanes summing to the dot
// product of the Q8_0 block at mem with the vector's block at y: the
// weights' signs move onto the vector (VPSIGNB), |w|·(x·sign w) = w·x.
#define ROWDOT_Q8_0(mem, y, dst) \
	VMOVDQU    mem, Y1        \
	VMOVDQU    y, Y0          \
	VPSIGNB    Y1, Y1, Y2     \
	VPSIGNB    Y1, Y0, Y3     \
	VPMADDUBSW Y3, Y2, dst    \
	VPMADDWD   Y15, dst, dst

// ROWDOT_Q4_0 is ROWDOT_Q8_0 for the Q4_0 block whose 16 bytes of
// nibbles are at mem, its weights 0–15 (the −8 is taken out later).
#define ROWDOT_Q4_0(mem, y, dst) \
	VMOVDQU     mem, X1        \
	VPSRLW      $4, X1, X2     \
	VINSERTI128 $1, X2, Y1, Y1 \
	VPAND       Y14, Y1, Y1    \
	VPMADDUBSW  y, Y1, dst     \
	VPMADDWD    Y15, dst, dst

// PREFETCH_AHEAD fetches into the caches the weights PF_DIST bytes past
// the next size bytes at AX.
#define PREFETCH_AHEAD(size) \
	PREFETCHT0 PF_DIST(AX)      \
	PREFETCHT0 PF_DIST+64(AX)   \
	PREFETCHT0 PF_DIST+128(AX)  \
	PREFETCHT0 PF_DIST+size-1(AX)

#define PF_DIST 2048

// Q4_0_GROUPS_PF_DIST is how far ahead mulQ4_0GroupsVNNI prefetches: on
// SmolLM2-135M's shape 4 KB decoded faster than 2 and 6 KB, on two
// threads by a sixth.
#define Q4_0_GROUPS_PF_DIST 4096

// DOTS8 sets Y4–Y11 to the eight-lane sums of the row's next eight blocks
// (size bytes each, their quants at off) with the vector's, by rowdot.
#define DOTS8(rowdot, size, off) \
	rowdot(off(AX), 0(DX), Y4)          \
	rowdot(off+size(AX), 32(DX), Y5)    \
	rowdot(off+2*size(AX), 64(DX), Y6)  \
	rowdot(off+3*size(AX), 96(DX), Y7)  \
	rowdot(off+4*size(AX), 128(DX), Y8) \
	rowdot(off+5*size(AX), 160(DX), Y9) \
	rowdot(off+6*size(AX), 192(DX), Y10) \
	rowdot(off+7*size(AX), 224(DX), Y11)

// BLOCKSUMS8 folds the eight-lane sums in Y4–Y11 into Y5, one block a
// lane, exactly (integers).
#define BLOCKSUMS8 \
	VPHADDD    Y5, Y4, Y4       \
	VPHADDD    Y7, Y6, Y6       \
	VPHADDD    Y9, Y8, Y8       \
	VPHADDD    Y11, Y10, Y10    \
	VPHADDD    Y6, Y4, Y4       \
	VPHADDD    Y10, Y8, Y8      \
	VPERM2I128 $0x20, Y8, Y4, Y5 \
	VPERM2I128 $0x31, Y8, Y4, Y6 \
	VPADDD     Y6, Y5, Y5

// HALVES4 sets R13 to the four float16 at off, off+size, … in AX's row,
// the first in its low bits (R10 scratch).
#define HALVES4(off, size) \
	MOVWQZX off(AX), R13        \
	MOVWQZX off+size(AX), R10   \
	SHLQ    $16, R10            \
	ORQ     R10, R13            \
	MOVWQZX off+2*size(AX), R10 \
	SHLQ    $32, R10            \
	ORQ     R10, R13            \
	MOVWQZX off+3*size(AX), R10 \
	SHLQ    $48, R10            \
	ORQ     R10, R13

// SCALES8 sets Y6 to the float16 scales at the start of the row's next
// eight blocks (size bytes apart) as float32.
#define SCALES8(size) \
	HALVES4(0, size)           \
	VMOVQ     R13, X6          \
	HALVES4(4*size, size)      \
	VPINSRQ   $1, R13, X6, X6  \
	VCVTPH2PS X6, Y6

// ADD_LANES4 adds the four products in X5 to the row's sum in X12, lane
// 0 first (X7 scratch).
#define ADD_LANES4 \
	VADDSS       X5, X12, X12 \
	VMOVSHDUP    X5, X7       \
	VADDSS       X7, X12, X12 \
	VPERMILPS    $2, X5, X7   \
	VADDSS       X7, X12, X12 \
	VPERMILPS    $3, X5, X7   \
	VADDSS       X7, X12, X12

// ADD_LANES4_TO adds the four products in src to the sum in acc, lane 0
// first (tmp scratch).
#define ADD_LANES4_TO(src, tmp, acc) \
	VADDSS    src, acc, acc \
	VMOVSHDUP src, tmp      \
	VADDSS    tmp, acc, acc \
	VPERMILPS $2, src, tmp  \
	VADDSS    tmp, acc, acc \
	VPERMILPS $3, src, tmp  \
	VADDSS    tmp, acc, acc

// ADD_LANES8 adds the eight products in Y5 to the row's sum in X12, lane
// 0 first.
#define ADD_LANES8 \
	ADD_LANES4                \
	VEXTRACTF128 $1, Y5, X5   \
	ADD_LANES4

// BLOCKSUM1 sets the bottom lane of X4 to the sum of Y4's eight lanes.
#define BLOCKSUM1 \
	VEXTRACTI128 $1, Y4, X5 \
	VPADDD       X5, X4, X4 \
	VPHADDD      X4, X4, X4 \
	VPHADDD      X4, X4, X4

// NEXT8 moves on by eight blocks of size bytes, back to label while eight
// remain.
#define NEXT8(size, label) \
	ADDQ $8*size, AX \
	ADDQ $256, DX    \
	ADDQ $32, BX     \
	ADDQ $32, R9     \
	SUBQ $8, CX      \
	CMPQ CX, $8      \
	JGE  label

// NEXT1 moves on by a block of size bytes, back to label while blocks
// remain.
#define NEXT1(size, label) \
	ADDQ $size, AX \
	ADDQ $32, DX   \
	ADDQ $4, BX    \
	ADDQ $4, R9    \
	DECQ CX        \
	JNZ  label

// NEXT_ROW stores the row's sum and moves on to the next row, back to
// label while rows remain; then returns.
#define NEXT_ROW(label) \
	VMOVSS X12, (DI)   \
	ADDQ   $4, DI      \
	ADDQ   R8, SI      \
	DECQ   R12         \
	JNZ    label       \
	VZEROUPPER         \
	RET

// The kernels of interleaved rows (interleave.go) take a group of eight
// rows through its blocks, a row a lane: each chunk of four quants of the
// eight rows times the vector's four, broadcast (VPDPBUSD.BCST), into
// two sums by turns; then the block's float part, lane by lane as the Go
// kernels round it, added to the rows' sums in Y12. A group is one
// stream of bytes, and the groups follow one another.

// GROUPS_PROLOGUE loads the arguments of the kernels of interleaved rows,
// (out *float32, w *byte, q *int8, d *float32, sums *int32, blocks,
// groups int), but q, d and sums, which GROUP_START loads for each group.
#define GROUPS_PROLOGUE \
	MOVQ out+0(FP), DI       \
	MOVQ w+8(FP), SI         \
	MOVQ blocks+40(FP), R11  \
	MOVQ groups+48(FP), R12

// GROUP_START starts a group at SI: DX at the vector's block, BX at its
// scale, R9 at its sum, CX the blocks left, Y12 the rows' sums.
#define GROUP_START \
	MOVQ   q+16(FP), DX    \
	MOVQ   d+24(FP), BX    \
	MOVQ   sums+32(FP), R9 \
	MOVQ   R11, CX         \
	VXORPS Y12, Y12, Y12

// GROUP_NEXT moves on by a block of size bytes, back to block while
// blocks remain; then stores the rows' sums and moves on to the next
// group, back to group while groups remain; then returns.
#define GROUP_NEXT(size, block, group) \
	ADDQ    $size, SI    \
	ADDQ    $32, DX      \
	ADDQ    $4, BX       \
	ADDQ    $4, R9       \
	DECQ    CX           \
	JNZ     block        \
	VMOVUPS Y12, (DI)    \
	ADDQ    $32, DI      \
	DECQ    R12          \
	JNZ     group        \
	VZEROUPPER           \
	RET

// Q8_0_ROW8 sets dst to the next eight blocks' products of the Q8_0 row
// at AX with the vector, by rowdot and blocksums, each times its two
// scales, one block a lane.
#define Q8_0_ROW8(rowdot, blocksums, dst) \
	DOTS8(rowdot, 34, 2)   \
	blocksums              \
	VCVTDQ2PS Y5, Y5       \
	SCALES8(34)            \
	VMULPS    (BX), Y6, Y6 \
	VMULPS    Y6, Y5, dst

// Q8_0_TAIL1 adds to acc the product of the Q8_0 block whose scale is at
// mem, its weights at qs, with the vector's at DX.
#define Q8_0_TAIL1(qs, mem, acc) \
	ROWDOT_Q8_0(qs, (DX), Y4) \
	BLOCKSUM1                 \
	VCVTDQ2PS X4, X4          \
	MOVWLZX   mem, R13        \
	VMOVD     R13, X6         \
	VCVTPH2PS X6, X6          \
	VMULSS    (BX), X6, X6    \
	VMULSS    X6, X4, X4      \
	VADDSS    X4, acc, acc

// PAIR_DONE stores the sums of a pair of rows, X12's and acc's, and moves
// on to the next pair, back to label while rows remain; then returns.
#define PAIR_DONE(acc, label) \
	VMOVSS X12, (DI)        \
	VMOVSS acc, 4(DI)       \
	ADDQ   $8, DI           \
	LEAQ   (SI)(R8*2), SI   \
	SUBQ   $2, R12          \
	JNZ    label            \
	VZEROUPPER              \
	RET

// Q4_0_ROW8 sets dst to the next eight blocks' products of the Q4_0 row
// at AX with the vector, by rowpair, each times its two scales, one block
// a lane, given the vector's pairs at R15 and 8·Σq in Y13.
#define Q4_0_ROW8(rowpair, dst) \
	rowpair(2, 0, Y4)    \
	rowpair(20, 64, Y5)  \
	rowpair(38, 128, Y6) \
	rowpair(56, 192, Y7) \
	VPHADDD   Y5, Y4, Y4 \
	VPHADDD   Y7, Y6, Y6 \
	VPHADDD   Y6, Y4, Y5 \
	VPSUBD    Y13, Y5, Y5 \
	VCVTDQ2PS Y5, Y5     \
	SCALES8(18)          \
	VMULPS    Y6, Y5, Y5 \
	VMULPS    (BX), Y5, dst

// Q4_0_TAIL1 adds to acc the product of the Q4_0 block whose scale is at
// mem, its nibbles at qs, with the vector's at DX, given 8·Σq in X13.
#define Q4_0_TAIL1(qs, mem, acc) \
	ROWDOT_Q4_0(qs, (DX), Y4) \
	BLOCKSUM1                 \
	VPSUBD    X13, X4, X4     \
	VCVTDQ2PS X4, X4          \
	MOVWLZX   mem, R13        \
	VMOVD     R13, X6         \
	VCVTPH2PS X6, X6          \
	VMULSS    X6, X4, X4      \
	VMULSS    (BX), X4, X4    \
	VADDSS    X4, acc, acc

// MUL_Q4_0 is the body of the Q4_0 kernels for two rows at a time and
// then one, whose rowpair sets two blocks' eight-lane sums.
#define MUL_Q4_0(rowpair) \
q4pair: \
	CMPQ   R12, $2 \
	JLT    q4row \
	ROW \
	VXORPS X11, X11, X11 \
	MOVQ   pairs+64(FP), R15 \
	CMPQ   CX, $8 \
	JLT    q4pairTail \
q4pair8: \
	PREFETCH_AHEAD(144) \
	PREFETCHT0 PF_DIST(AX)(R8*1) \
	PREFETCHT0 PF_DIST+64(AX)(R8*1) \
	PREFETCHT0 PF_DIST+143(AX)(R8*1) \
	VMOVDQU   (R9), Y13 \
	VPSLLD    $3, Y13, Y13 \
	Q4_0_ROW8(rowpair, Y8) \
	ADDQ      R8, AX \
	Q4_0_ROW8(rowpair, Y5) \
	SUBQ      R8, AX \
	ADD_LANES4_TO(X8, X7, X12) \
	ADD_LANES4_TO(X5, X9, X11) \
	VEXTRACTF128 $1, Y8, X8 \
	VEXTRACTF128 $1, Y5, X5 \
	ADD_LANES4_TO(X8, X7, X12) \
	ADD_LANES4_TO(X5, X9, X11) \
	ADDQ $256, R15 \
	NEXT8(18, q4pair8) \
	TESTQ CX, CX \
	JZ    q4pairDone \
q4pairTail: \
	VMOVD     (R9), X13 \
	VPSLLD    $3, X13, X13 \
	Q4_0_TAIL1(2(AX), (AX), X12) \
	Q4_0_TAIL1(2(AX)(R8*1), (AX)(R8*1), X11) \
	NEXT1(18, q4pairTail) \
q4pairDone: \
	PAIR_DONE(X11, q4pair) \
q4row: \
	ROW \
	MOVQ pairs+64(FP), R15 \
	CMPQ CX, $8 \
	JLT  q4tail \
q4blocks8: \
	PREFETCH_AHEAD(144) \
	VMOVDQU   (R9), Y13 \
	VPSLLD    $3, Y13, Y13 \
	Q4_0_ROW8(rowpair, Y5) \
	ADD_LANES8 \
	ADDQ $256, R15 \
	NEXT8(18, q4blocks8) \
	TESTQ CX, CX \
	JZ    q4done \
q4tail: \
	VMOVD     (R9), X13 \
	VPSLLD    $3, X13, X13 \
	Q4_0_TAIL1(2(AX), (AX), X12) \
	NEXT1(18, q4tail) \
q4done: \
	NEXT_ROW(q4row)

// MUL_Q8_0 is the body of the Q8_0 kernels, whose rowdot sets a block's
// eight-lane sums and blocksums folds eight blocks' into one vector.
#define MUL_Q8_0(rowdot, blocksums) \
q8pair: \
	CMPQ   R12, $2 \
	JLT    q8row \
	ROW \
	VXORPS X14, X14, X14 \
	CMPQ   CX, $8 \
	JLT    q8pairTail \
q8pair8: \
	PREFETCH_AHEAD(272) \
	PREFETCHT0 PF_DIST(AX)(R8*1) \
	PREFETCHT0 PF_DIST+64(AX)(R8*1) \
	PREFETCHT0 PF_DIST+128(AX)(R8*1) \
	PREFETCHT0 PF_DIST+192(AX)(R8*1) \
	PREFETCHT0 PF_DIST+271(AX)(R8*1) \
	Q8_0_ROW8(rowdot, blocksums, Y13) \
	ADDQ      R8, AX \
	Q8_0_ROW8(rowdot, blocksums, Y5) \
	SUBQ      R8, AX \
	ADD_LANES4_TO(X13, X7, X12) \
	ADD_LANES4_TO(X5, X9, X14) \
	VEXTRACTF128 $1, Y13, X13 \
	VEXTRACTF128 $1, Y5, X5 \
	ADD_LANES4_TO(X13, X7, X12) \
	ADD_LANES4_TO(X5, X9, X14) \
	NEXT8(34, q8pair8) \
	TESTQ CX, CX \
	JZ    q8pairDone \
q8pairTail: \
	Q8_0_TAIL1(2(AX), (AX), X12) \
	Q8_0_TAIL1(2(AX)(R8*1), (AX)(R8*1), X14) \
	NEXT1(34, q8pairTail) \
q8pairDone: \
	PAIR_DONE(X14, q8pair) \
q8row: \
	ROW \
	CMPQ CX, $8 \
	JLT  q8tail \
q8blocks8: \
	PREFETCH_AHEAD(272) \
	Q8_0_ROW8(rowdot, blocksums, Y5) \
	ADD_LANES8 \
	NEXT8(34, q8blocks8) \
	TESTQ CX, CX \
	JZ    q8done \
q8tail: \
	Q8_0_TAIL1(2(AX), (AX), X12) \
	NEXT1(34, q8tail) \
q8done: \
	NEXT_ROW(q8row)

// func mulQ8_0AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, rows int)
//
// Rows go two at a time while two remain, each with its own sum (X12 and
// X14, the nibble mask's register, which Q8_0 does not use), as Q4_0's do.
TEXT ·mulQ8_0AVX2(SB), NOSPLIT, $0-64
	ROW_PROLOGUE
	MUL_Q8_0(ROWDOT_Q8_0, BLOCKSUMS8)

// ROWDOT_Q8_0_VNNI is ROWDOT_Q8_0 in AVX-512 VNNI: VPDPBUSD multiplies
// unsigned bytes by signed ones and adds fours into int32, so the weights
// go in biased by 128 (w XOR 0x80 = w+128 as a byte, Y16 the 0x80s) and
// BLOCKSUMS8_UNBIASED takes 128 times the vector's block sums back out.
#define ROWDOT_Q8_0_VNNI(mem, y, dst) \
	VPXORD   mem, Y16, Y1 \
	VPXOR    dst, dst, dst \
	VPDPBUSD y, Y1, dst

// BLOCKSUMS8_UNBIASED is BLOCKSUMS8 for ROWDOT_Q8_0_VNNI's sums, less
// 128 times the vector's sums of the same blocks at R9 (Y6 scratch).
#define BLOCKSUMS8_UNBIASED \
	BLOCKSUMS8           \
	VMOVDQU (R9), Y6     \
	VPSLLD  $7, Y6, Y6   \
	VPSUBD  Y6, Y5, Y5

// func mulQ8_0VNNI(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, rows int)
//
// Rows go two at a time while two remain, each with its own sum (X12 and
// X14, the nibble mask's register, which Q8_0 does not use), as Q4_0's do.
TEXT ·mulQ8_0VNNI(SB), NOSPLIT, $0-64
	ROW_PROLOGUE
	MOVL         $0x80808080, AX
	VPBROADCASTD AX, Y16
	MUL_Q8_0(ROWDOT_Q8_0_VNNI, BLOCKSUMS8_UNBIASED)

// ROWDOT_Q4_0_PAIR sets Y(dst) to eight int32 lanes, four summing to the
// dot product of the Q4_0 block whose nibbles are at off(AX) with the
// vector's, four to that of the block four on, given the two blocks'
// vector as pairs lays it out at y(R15): the first 16 int8 of each, then
// their last 16. The low nibbles of the two blocks' bytes, side by side,
// are both blocks' weights 0–15, the high ones 16–31 (0–15 each; the −8
// is taken out later). Their pair products add in int16: 2·2·15·127 is
// below its limit.
#define ROWDOT_Q4_0_PAIR(off, y, dst) \
	VMOVDQU     off(AX), X1       \
	VINSERTI128 $1, off+72(AX), Y1, Y1 \
	VPSRLW      $4, Y1, Y2        \
	VPAND       Y14, Y1, Y1       \
	VPAND       Y14, Y2, Y2       \
	VPMADDUBSW  y(R15), Y1, Y1    \
	VPMADDUBSW  y+32(R15), Y2, Y2 \
	VPADDW      Y2, Y1, Y1        \
	VPMADDWD    Y15, Y1, dst

// func mulQ4_0AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, rows int, pairs *int8)
//
// The blocks go through eight at a time, blocks k and k+4 in a register
// (ROWDOT_Q4_0_PAIR), with the vector's blocks laid out as pairs
// (nibblePairs); those left one at a time.
//
// Rows go two at a time while two remain, each with its own sum (X12 and
// X11), so that the two rows' additions, each in block order, overlap.
TEXT ·mulQ4_0AVX2(SB), NOSPLIT, $0-72
	ROW_PROLOGUE
	MUL_Q4_0(ROWDOT_Q4_0_PAIR)

// ROWDOT_Q4_0_PAIR_VNNI is ROWDOT_Q4_0_PAIR in AVX-512 VNNI: VPDPBUSD
// multiplies the nibbles, unsigned bytes, by the vector's signed ones and
// adds fours into int32.
#define ROWDOT_Q4_0_PAIR_VNNI(off, y, dst) \
	VMOVDQU     off(AX), X1       \
	VINSERTI128 $1, off+72(AX), Y1, Y1 \
	VPSRLW      $4, Y1, Y2        \
	VPAND       Y14, Y1, Y1       \
	VPAND       Y14, Y2, Y2       \
	VPXOR       dst, dst, dst     \
	VPDPBUSD    y(R15), Y1, dst   \
	VPDPBUSD    y+32(R15), Y2, dst

// func mulQ4_0VNNI(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, rows int, pairs *int8)
//
// mulQ4_0AVX2 with the integer products in AVX-512 VNNI.
TEXT ·mulQ4_0VNNI(SB), NOSPLIT, $0-72
	ROW_PROLOGUE
	MUL_Q4_0(ROWDOT_Q4_0_PAIR_VNNI)

// Q8_0_CHUNKS2 adds two chunks of eight interleaved Q8_0 rows, at off(SI),
// times the vector's quants at x(DX), into Y4 and Y5.
#define Q8_0_CHUNKS2(off, x) \
	VMOVDQU       off(SI), Y0        \
	VPDPBUSD.BCST x(DX), Y0, Y4      \
	VMOVDQU       off+32(SI), Y1     \
	VPDPBUSD.BCST x+4(DX), Y1, Y5

// Q4_0_CHUNK adds a chunk of eight interleaved Q4_0 rows, at off(SI),
// times the vector's quants at x(DX) (the low nibbles) and x+16(DX) (the
// high ones), into Y4 and Y5; Y14 holds the low-nibble mask.
#define Q4_0_CHUNK(off, x) \
	VMOVDQU       off(SI), Y0        \
	VPSRLW        $4, Y0, Y1         \
	VPAND         Y14, Y0, Y0        \
	VPAND         Y14, Y1, Y1        \
	VPDPBUSD.BCST x(DX), Y0, Y4      \
	VPDPBUSD.BCST x+16(DX), Y1, Y5

// func mulQ8_0GroupsVNNI(out *float32, w *byte, q *int8, d *float32, sums *int32, blocks, groups int)
//
// The quants are weight + 128, unsigned: 128 times the vector's block sum
// comes back out of each row's sum.
TEXT ·mulQ8_0GroupsVNNI(SB), NOSPLIT, $0-56
	GROUPS_PROLOGUE

q8group:
	GROUP_START

q8block:
	PREFETCHT0    PF_DIST(SI)
	PREFETCHT0    PF_DIST+64(SI)
	PREFETCHT0    PF_DIST+128(SI)
	PREFETCHT0    PF_DIST+192(SI)
	PREFETCHT0    PF_DIST+271(SI)
	VPXOR         Y4, Y4, Y4
	VPXOR         Y5, Y5, Y5
	Q8_0_CHUNKS2(16, 0)
	Q8_0_CHUNKS2(80, 8)
	Q8_0_CHUNKS2(144, 16)
	Q8_0_CHUNKS2(208, 24)
	VPADDD        Y5, Y4, Y4
	VPBROADCASTD  (R9), Y6
	VPSLLD        $7, Y6, Y6
	VPSUBD        Y6, Y4, Y4
	// sum += float32(s) · (d_w·d_x), as mulQ8_0 rounds it
	VCVTDQ2PS     Y4, Y4
	VCVTPH2PS     (SI), Y6
	VBROADCASTSS  (BX), Y7
	VMULPS        Y7, Y6, Y6
	VMULPS        Y6, Y4, Y4
	VADDPS        Y4, Y12, Y12
	GROUP_NEXT(272, q8block, q8group)

// func mulQ4_0GroupsVNNI(out *float32, w *byte, q *int8, d *float32, sums *int32, blocks, groups int)
//
// A chunk's low nibbles are weights 4c … 4c+3, its high ones 16+4c …; the
// −8 comes out as 8 times the vector's block sum.
TEXT ·mulQ4_0GroupsVNNI(SB), NOSPLIT, $0-56
	GROUPS_PROLOGUE
	MOVL         $0x0f0f0f0f, AX
	VMOVD        AX, X14
	VPBROADCASTD X14, Y14

q4group:
	GROUP_START

q4block:
	PREFETCHT0    Q4_0_GROUPS_PF_DIST(SI)
	PREFETCHT0    Q4_0_GROUPS_PF_DIST+64(SI)
	PREFETCHT0    Q4_0_GROUPS_PF_DIST+143(SI)
	VPXOR         Y4, Y4, Y4
	VPXOR         Y5, Y5, Y5
	Q4_0_CHUNK(16, 0)
	Q4_0_CHUNK(48, 4)
	Q4_0_CHUNK(80, 8)
	Q4_0_CHUNK(112, 12)
	VPADDD        Y5, Y4, Y4
	VPBROADCASTD  (R9), Y6
	VPSLLD        $3, Y6, Y6
	VPSUBD        Y6, Y4, Y4
	// sum += float32(s) · d_w · d_x, as mulQ4_0 rounds it
	VCVTDQ2PS     Y4, Y4
	VCVTPH2PS     (SI), Y6
	VMULPS        Y6, Y4, Y4
	VBROADCASTSS  (BX), Y7
	VMULPS        Y7, Y4, Y4
	VADDPS        Y4, Y12, Y12
	GROUP_NEXT(144, q4block, q4group)

// ROWDOT_IQ4_NL is ROWDOT_Q8_0, with the vector's block in Y0, for the
// IQ4_NL block whose 16 bytes of indices are at mem, ordered as Q4_0's nibbles: each index picks its
// weight from the grid in Y13 (VPSHUFB, as ggml-cpu's AVX2
// ggml_vec_dot_iq4_nl_q8_0 does), an int8 whose sign moves onto the
// vector as Q8_0's does. A pair stays below the int16 limit: 2·127·127.
#define ROWDOT_IQ4_NL(mem, dst) \
	VMOVDQU     mem, X1        \
	VPSRLW      $4, X1, X2     \
	VINSERTI128 $1, X2, Y1, Y1 \
	VPAND       Y14, Y1, Y1    \
	VPSHUFB     Y1, Y13, Y1    \
	VPSIGNB     Y1, Y1, Y2     \
	VPSIGNB     Y1, Y0, Y3     \
	VPMADDUBSW  Y3, Y2, dst    \
	VPMADDWD    Y15, dst, dst

// func mulIQ4_NLAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, grid *int8, blocks, groups int)
//
// Sets out[0 … 4·groups) to rows of w (rowBytes apart, blocks blocks
// each) times the vector q, d, four rows at a time, as mulIQ4_NL does; the
// grid of 16 int8 takes sums' place.
TEXT ·mulIQ4_NLAVX2(SB), NOSPLIT, $0-64
	PROLOGUE
	MOVL $0x0f0f0f0f, AX
	VMOVD AX, X14
	VPBROADCASTD X14, Y14 // the low-nibble mask
	VBROADCASTI128 (R14), Y13 // the grid, in both halves

iq4nlgroup:
	GROUP

iq4nlblock:
	PREFETCH4(R15, 18)
	DOT4(ROWDOT_IQ4_NL)
	ADD_SCALED
	NEXT_BLOCK(18, iq4nlblock)
	NEXT_GROUP(iq4nlgroup)

// ROWDOT_Q5_1 is ROWDOT_Q4_0, with the vector's block in Y0, for the
// Q5_1 block whose qh is at qh and
// nibbles at qs: each weight's fifth bit, bit j of qh for weight j, made
// 16 in its byte as ggml-cpu's bytes_from_bits_32 does (qh's bytes spread
// by the shuffle Y12, each lane's bit picked with the masks in Y11, 16
// from Y13 where it is set). The weights are 0–31.
#define ROWDOT_Q5_1(qh, qs, dst) \
	VMOVDQU      qs, X1          \
	VPSRLW       $4, X1, X2      \
	VINSERTI128  $1, X2, Y1, Y1  \
	VPAND        Y14, Y1, Y1     \
	VPBROADCASTD qh, Y2          \
	VPSHUFB      Y12, Y2, Y2     \
	VPAND        Y11, Y2, Y2     \
	VPCMPEQB     Y11, Y2, Y2     \
	VPAND        Y13, Y2, Y2     \
	VPOR         Y2, Y1, Y1      \
	VPMADDUBSW   Y0, Y1, dst     \
	VPMADDWD     Y15, dst, dst

// SCALES4_AT is SCALES4 for the float16 at off in the four rows' blocks.
#define SCALES4_AT(off) \
	MOVWLZX   off(AX), BX               \
	VMOVD     BX, X8                    \
	VPINSRW   $1, off(AX)(R8*1), X8, X8 \
	VPINSRW   $2, off(AX)(R8*2), X8, X8 \
	VPINSRW   $3, off(AX)(R13*1), X8, X8 \
	VCVTPH2PS X8, X8

// Q5_CONSTANTS sets ROWDOT_Q5_1's constants: the low-nibble mask Y14, a
// fifth bit (16) in every byte of Y13, bit j%8 in byte j of Y11, and the
// shuffle Y12 that spreads qh's byte k over bytes 8k … 8k+7.
#define Q5_CONSTANTS \
	MOVL         $0x0f0f0f0f, AX         \
	VMOVD        AX, X14                 \
	VPBROADCASTD X14, Y14                \
	MOVL         $0x10101010, AX         \
	VMOVD        AX, X13                 \
	VPBROADCASTD X13, Y13                \
	MOVQ         $0x8040201008040201, AX \
	VMOVQ        AX, X11                 \
	VPBROADCASTQ X11, Y11                \
	MOVQ         $0x0101010101010101, AX \
	VMOVQ        AX, X12                 \
	VPSLLDQ      $8, X12, X12            \
	MOVL         $0x02020202, AX         \
	VMOVD        AX, X1                  \
	VPBROADCASTD X1, X1                  \
	VPADDB       X1, X12, X1             \
	VINSERTI128  $1, X1, Y12, Y12

// func mulQ5_1AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, s *float32, blocks, groups int)
//
// mulIQ4_NLAVX2 for Q5_1 rows, whose mins, half(m)·s[b] (s block_q8_1's),
// are summed apart in X3 and added last, as mulQ5_1 adds them.
TEXT ·mulQ5_1AVX2(SB), NOSPLIT, $0-64
	PROLOGUE
	Q5_CONSTANTS

q51group:
	GROUP
	VXORPS X3, X3, X3

q51block:
	PREFETCH4(R15, 24)
	VMOVDQU (DX), Y0
	ROWDOT_Q5_1(4(AX), 8(AX), Y4)
	ROWDOT_Q5_1(4(AX)(R8*1), 8(AX)(R8*1), Y5)
	ROWDOT_Q5_1(4(AX)(R8*2), 8(AX)(R8*2), Y6)
	ROWDOT_Q5_1(4(AX)(R13*1), 8(AX)(R13*1), Y7)
	SUM4
	ADD_SCALED
	// mins += m·s_x
	SCALES4_AT(2)
	VBROADCASTSS (R14)(CX*4), X9
	VMULPS X9, X8, X8
	VADDPS X8, X3, X3
	NEXT_BLOCK(24, q51block)
	VADDPS X3, X10, X10
	NEXT_GROUP(q51group)

// The K formats' kernels (and IQ4_XS's, blocks of 256 too) take one row at
// a time: a block's integer sums, as ggml-cpu's AVX2 kernels make them, go
// to the float part at once, which adds them to the row's sum in X4 in the
// Go kernels' order and rounding, one block after another.

// K_NEXT moves on by a block of size bytes and the vector's block (sums
// bytes of group sums), back to block while blocks remain; then stores the
// row's sum and moves on by a row, back to row while rows remain; then
// returns.
#define K_NEXT(size, sums, block, row) \
	ADDQ    $size, AX      \
	ADDQ    $256, DX       \
	ADDQ    $sums, BX      \
	INCQ    CX             \
	CMPQ    CX, R11        \
	JLT     block          \
	VMOVSS  X4, (DI)       \
	ADDQ    $4, DI         \
	ADDQ    R8, SI         \
	DECQ    R12            \
	JNZ     row            \
	VZEROUPPER             \
	RET

// SUM8 sets the bottom lane of x to the sum of the eight int32 lanes of
// y, the same register's, exactly; tmp is a scratch register.
#define SUM8(y, x, tmp) \
	VEXTRACTI128 $1, y, tmp \
	VPADDD       tmp, x, x  \
	VPHADDD      x, x, x    \
	VPHADDD      x, x, x

// SUM8_PAIR sets the bottom two lanes of xa to the sums of the eight
// int32 lanes of ya, the same register's, and of yb, exactly; tmp is a
// scratch register.
#define SUM8_PAIR(ya, xa, yb, tmp) \
	VPHADDD      yb, ya, ya   \
	VEXTRACTI128 $1, ya, tmp  \
	VPADDD       tmp, xa, xa  \
	VPHADDD      xa, xa, xa

// ADD_K adds to the row's sum what a block adds, given its integer sum in
// the bottom lane of ints and its float16 d at off(AX): d·vd·sumi, vd the
// vector block's scale, rounded as scaleQ6_K rounds it (X5 scratch).
#define ADD_K(off, ints) \
	VCVTDQ2PS ints, ints             \
	VPINSRW   $0, off(AX), X5, X5    \
	VCVTPH2PS X5, X5                 \
	VMULSS    (R10)(CX*4), X5, X5    \
	VMULSS    ints, X5, X5           \
	VADDSS    X5, X4, X4

// ADD_K_MINS is ADD_K for a format with mins, given the integer sums
// [sumi, mins] in the bottom lanes of ints and the float16 d and dmin at
// off(AX): d·vd·sumi − dmin·vd·mins, each product rounded as scaleMinsK
// rounds it (X5, X6 scratch).
#define ADD_K_MINS(off, ints) \
	VCVTDQ2PS    ints, ints          \
	VMOVD        off(AX), X5         \
	VCVTPH2PS    X5, X5              \
	VBROADCASTSS (R10)(CX*4), X6     \
	VMULPS       X6, X5, X5          \
	VMULPS       ints, X5, X5        \
	VMOVSHDUP    X5, X6              \
	VSUBSS       X6, X5, X5          \
	VADDSS       X5, X4, X4

// func mulQ5_0AVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, sums *int32, blocks, groups int)
//
// mulIQ4_NLAVX2 for Q5_0 rows, whose weights are Q5_1's (0–31), less 16
// (taken out as 16·Σq).
TEXT ·mulQ5_0AVX2(SB), NOSPLIT, $0-64
	PROLOGUE
	Q5_CONSTANTS

q50group:
	GROUP

q50block:
	PREFETCH4(R15, 22)
	VMOVDQU (DX), Y0
	ROWDOT_Q5_1(2(AX), 6(AX), Y4)
	ROWDOT_Q5_1(2(AX)(R8*1), 6(AX)(R8*1), Y5)
	ROWDOT_Q5_1(2(AX)(R8*2), 6(AX)(R8*2), Y6)
	ROWDOT_Q5_1(2(AX)(R13*1), 6(AX)(R13*1), Y7)
	SUM4
	// s −= 16·Σq
	VPBROADCASTD (R14)(CX*4), X5
	VPSLLD $4, X5, X5
	VPSUBD X5, X4, X4
	ADD_SCALED
	NEXT_BLOCK(22, q50block)
	NEXT_GROUP(q50group)

// NIBBLES_Q4_K sets Y1 and Y2 to the low and the high nibbles of the 32
// bytes at qoff(AX): groups 2c and 2c+1 of a Q4_K or Q5_K block.
#define NIBBLES_Q4_K(qoff) \
	VMOVDQU      qoff(AX), Y1           \
	VPSRLW       $4, Y1, Y2             \
	VPAND        Y14, Y1, Y1            \
	VPAND        Y14, Y2, Y2

// DOTS_Q4_K_GROUPS adds to Y10 the products of the 64 weights at
// off(AX) (32 bytes: group 2c in the low nibbles, 2c+1 in the high ones)
// with the vector's 64 int8 at 2·off(DX)… , each group's pair sums times
// its scale: the next two int16 at the bottom of X8, shifted out.
#define DOTS_Q4_K_GROUPS(qoff, yoff) \
	NIBBLES_Q4_K(qoff)                  \
	DOTS_K_GROUPS(yoff)

// DOTS_Q5_K_GROUPS is DOTS_Q4_K_GROUPS for Q5_K, whose weights take a
// fifth bit, 16, from bits lo (group 2c) and hi (2c+1) of the 32 bytes qh
// in Y0 (Y13: a one in every byte).
#define DOTS_Q5_K_GROUPS(qoff, yoff, lo, hi) \
	NIBBLES_Q4_K(qoff)                  \
	VPSRLW       $lo, Y0, Y3            \
	VPAND        Y13, Y3, Y3            \
	VPSLLW       $4, Y3, Y3             \
	VPOR         Y3, Y1, Y1             \
	VPSRLW       $hi, Y0, Y3            \
	VPAND        Y13, Y3, Y3            \
	VPSLLW       $4, Y3, Y3             \
	VPOR         Y3, Y2, Y2             \
	DOTS_K_GROUPS(yoff)

// DOTS_K_GROUPS adds to Y10 the products of the weights of groups 2c in
// Y1 and 2c+1 in Y2, unsigned bytes, with the vector's 64 int8 at
// yoff(DX), each group's pair sums times its scale: the next two int16 at
// the bottom of X8, shifted out.
#define DOTS_K_GROUPS(yoff) \
	VPMADDUBSW   yoff(DX), Y1, Y1       \
	VPMADDUBSW   yoff+32(DX), Y2, Y2    \
	VPBROADCASTW X8, Y3                 \
	VPSRLDQ      $2, X8, X8             \
	VPMADDWD     Y3, Y1, Y1             \
	VPBROADCASTW X8, Y3                 \
	VPSRLDQ      $2, X8, X8             \
	VPMADDWD     Y3, Y2, Y2             \
	VPADDD       Y1, Y10, Y10           \
	VPADDD       Y2, Y10, Y10

// SCALES_MINS_K sets X8 to the eight six-bit scales of the Q4_K or Q5_K
// block at AX, as int16, and Y9 to its eight mins times the vector's
// group sums at BX, as int32. They are unpacked as ggml-cpu's AVX2
// ggml_vec_dot_q4_K_q8_K does, four bytes at a time (its utmp and
// kmask1–3).
#define SCALES_MINS_K \
	/* Scales 0–3: the low six bits of bytes 0–3; 4–7: the low nibbles */ \
	/* of bytes 8–11, with the top two bits of bytes 0–3 above them. */ \
	MOVL 4(AX), R13             \
	MOVL 12(AX), R14            \
	MOVL R13, R15               \
	ANDL $0x3f3f3f3f, R15       \
	VMOVD R15, X8               \
	SHRL $6, R13                \
	ANDL $0x03030303, R13       \
	SHLL $4, R13                \
	MOVL R14, R15               \
	ANDL $0x0f0f0f0f, R15       \
	ORL  R13, R15               \
	VPINSRD $1, R15, X8, X8     \
	VPMOVZXBW X8, X8            \
	/* Mins 0–3: the low six bits of bytes 4–7; 4–7: the high nibbles */ \
	/* of bytes 8–11, with the top two bits of bytes 4–7 above them. */ \
	MOVL 8(AX), R13             \
	MOVL R13, R15               \
	ANDL $0x3f3f3f3f, R15       \
	VMOVD R15, X9               \
	SHRL $6, R13                \
	ANDL $0x03030303, R13       \
	SHLL $4, R13                \
	SHRL $4, R14                \
	ANDL $0x0f0f0f0f, R14       \
	ORL  R13, R14               \
	VPINSRD $1, R14, X9, X9     \
	VPMOVZXBD X9, Y9            \
	VPMULLD (BX), Y9, Y9

// func mulQ4_KAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows int)
//
// Sets out[0 … rows) to rows of w (rowBytes apart, blocks blocks each)
// times the vector q, d, as mulQ4_K does: a block's integers are dotQ4_K's,
// groupSums the vector's sums over groups of 32.
TEXT ·mulQ4_KAVX2(SB), NOSPLIT, $0-64
	K_PROLOGUE

k4row:
	K_ROW

k4block:
	SCALES_MINS_K
	VPXOR Y10, Y10, Y10
	DOTS_Q4_K_GROUPS(16, 0)
	DOTS_Q4_K_GROUPS(48, 64)
	DOTS_Q4_K_GROUPS(80, 128)
	DOTS_Q4_K_GROUPS(112, 192)
	SUM8_PAIR(Y10, X10, Y9, X11)
	ADD_K_MINS(0, X10)
	K_NEXT(144, 32, k4block, k4row)

// func mulQ5_KAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows int)
//
// mulQ4_KAVX2 for Q5_K rows: dotQ5_K's integers.
TEXT ·mulQ5_KAVX2(SB), NOSPLIT, $0-64
	K_PROLOGUE
	MOVL $0x01010101, AX
	VMOVD AX, X13
	VPBROADCASTD X13, Y13 // a one in every byte

k5row:
	K_ROW

k5block:
	SCALES_MINS_K
	VMOVDQU 16(AX), Y0 // qh
	VPXOR Y10, Y10, Y10
	DOTS_Q5_K_GROUPS(48, 0, 0, 1)
	DOTS_Q5_K_GROUPS(80, 64, 2, 3)
	DOTS_Q5_K_GROUPS(112, 128, 4, 5)
	DOTS_Q5_K_GROUPS(144, 192, 6, 7)
	SUM8_PAIR(Y10, X10, Y9, X11)
	ADD_K_MINS(0, X10)
	K_NEXT(176, 32, k5block, k5row)

// GROUPS16 adds to Y15 the products of 32 weights in q, unsigned bytes,
// with the vector's 32 int8 at y(DX), two groups of 16, each group's pair
// sums times its int8 scale: the bytes of X9 that the shuffle X10 picks
// (8 × the group's, 8 × the next one's), X10 moved on to the next two.
#define GROUPS16(q, y) \
	VPMADDUBSW y(DX), q, q  \
	VPSHUFB    X10, X9, X8  \
	VPADDB     X11, X10, X10 \
	VPMOVSXBW  X8, Y8       \
	VPMADDWD   Y8, q, q     \
	VPADDD     q, Y15, Y15

// GROUPS16_CONSTANTS sets X11 and X12 to GROUPS16's shuffles: the step,
// two scales on, and the first shuffle, 8 × scale 0 and 8 × scale 1.
#define GROUPS16_CONSTANTS \
	MOVL         $0x02020202, AX     \
	VMOVD        AX, X11             \
	VPBROADCASTD X11, X11            \
	MOVQ         $0x0101010101010101, AX \
	VMOVQ        AX, X12             \
	VPSLLDQ      $8, X12, X12

// SUB_SCALED_SUMS subtracts from Y15 2^shift · Σ_g sc[g]·groupSums[g],
// the sixteen int8 scales sc in X9 and the vector's group sums at BX: the
// offset of Q6_K's weights (−32) and Q3_K's (−4), taken out as ggml-cpu's
// AVX2 kernels take it out (Q6_K's q8sclsub).
#define SUB_SCALED_SUMS(shift) \
	VPMOVSXBD X9, Y7         \
	VPMULLD   (BX), Y7, Y7   \
	VPSRLDQ   $8, X9, X8     \
	VPMOVSXBD X8, Y8         \
	VPMULLD   32(BX), Y8, Y8 \
	VPADDD    Y8, Y7, Y7     \
	VPSLLD    $shift, Y7, Y7 \
	VPSUBD    Y7, Y15, Y15

// Q6_QUARTER adds the products of a quarter's 32 weights, the nibbles in
// Y3 with the two bits above them in place (bits 4–5) in Y7, with the
// vector's 32 int8 at y(DX) (GROUPS16).
#define Q6_QUARTER(y) \
	VPOR   Y7, Y3, Y3 \
	GROUPS16(Y3, y)

// Q6_HALF adds the products of the 128 weights of half a Q6_K block (ql
// at ql(AX), 64 bytes, qh at qh(AX), 32) with the vector's 128 at y(DX):
// quarter 0 is ql[0:32]'s low nibbles with qh's bits 0–1 above them,
// quarter 1 ql[32:64]'s with bits 2–3, quarter 2 ql[0:32]'s high nibbles
// with bits 4–5, quarter 3 ql[32:64]'s with bits 6–7. Each pair of bits
// goes to bits 4–5 of its byte in one shift of qh's words and the mask
// Y13: a bit shifted in from a neighbouring byte falls outside it.
#define Q6_HALF(ql, qh, y) \
	VMOVDQU qh(AX), Y0     \
	VMOVDQU ql(AX), Y1     \
	VMOVDQU ql+32(AX), Y2  \
	VPAND   Y14, Y1, Y3    \
	VPSLLW  $4, Y0, Y7     \
	VPAND   Y13, Y7, Y7    \
	Q6_QUARTER(y)          \
	VPAND   Y14, Y2, Y3    \
	VPSLLW  $2, Y0, Y7     \
	VPAND   Y13, Y7, Y7    \
	Q6_QUARTER(y+32)       \
	VPSRLW  $4, Y1, Y3     \
	VPAND   Y14, Y3, Y3    \
	VPAND   Y13, Y0, Y7    \
	Q6_QUARTER(y+64)       \
	VPSRLW  $4, Y2, Y3     \
	VPAND   Y14, Y3, Y3    \
	VPSRLW  $2, Y0, Y7     \
	VPAND   Y13, Y7, Y7    \
	Q6_QUARTER(y+96)

// func mulQ6_KAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows int)
//
// mulQ4_KAVX2 for Q6_K rows: a block's integer is dotQ6_K's,
// Σ_g sc[g]·(Σ q·v.q − 32·groupSums[g]), groupSums the vector's sums over
// groups of 16.
TEXT ·mulQ6_KAVX2(SB), NOSPLIT, $0-64
	K_PROLOGUE
	MOVL $0x30303030, AX
	VMOVD AX, X13
	VPBROADCASTD X13, Y13 // bits 4–5 of every byte
	GROUPS16_CONSTANTS

k6row:
	K_ROW

k6block:
	VMOVDQU 192(AX), X9 // the 16 int8 scales
	VMOVDQU X12, X10
	VPXOR   Y15, Y15, Y15
	Q6_HALF(0, 128, 0)
	Q6_HALF(64, 160, 128)
	SUB_SCALED_SUMS(5)
	SUM8(Y15, X15, X7)
	ADD_K(208, X15)
	K_NEXT(210, 64, k6block, k6row)

// Q3_WEIGHTS adds the products of the 32 weights whose two low bits are
// Y1's at bit lo and whose third bit is bit 2 of hbits, 4 where it is set
// (Y6: the mask of bit 2), with the vector's 32 int8 at y(DX) (GROUPS16).
// The weights are q+4, 0–7; the 4 is taken out later.
#define Q3_WEIGHTS(lo, hbits, y) \
	VPSRLW $lo, Y1, Y3    \
	VPAND  Y13, Y3, Y3    \
	VPAND  Y6, hbits, Y7  \
	VPOR   Y7, Y3, Y3     \
	GROUPS16(Y3, y)

// Q3_HALF0 and Q3_HALF1 add the products of the 128 weights of half 0
// and half 1 of a Q3_K block (their low bits in the 32 bytes at 32 and
// 64, in the pairs of bits 0–7 as Q2_K's; their third bits in bits 0–3
// and 4–7 of hmask, Y0, each moved to bit 2 by one shift of its words:
// a bit shifted in from a neighbouring byte is not bit 2) with the
// vector's 128 at 0(DX) and 128(DX).
#define Q3_HALF0 \
	VMOVDQU 32(AX), Y1       \
	VPSLLW  $2, Y0, Y7       \
	Q3_WEIGHTS(0, Y7, 0)     \
	VPSLLW  $1, Y0, Y7       \
	Q3_WEIGHTS(2, Y7, 32)    \
	Q3_WEIGHTS(4, Y0, 64)    \
	VPSRLW  $1, Y0, Y7       \
	Q3_WEIGHTS(6, Y7, 96)

#define Q3_HALF1 \
	VMOVDQU 64(AX), Y1       \
	VPSRLW  $2, Y0, Y7       \
	Q3_WEIGHTS(0, Y7, 128)   \
	VPSRLW  $3, Y0, Y7       \
	Q3_WEIGHTS(2, Y7, 160)   \
	VPSRLW  $4, Y0, Y7       \
	Q3_WEIGHTS(4, Y7, 192)   \
	VPSRLW  $5, Y0, Y7       \
	Q3_WEIGHTS(6, Y7, 224)

// func mulQ3_KAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows int)
//
// mulQ6_KAVX2 for Q3_K rows: a block's integer is mulQ3_K's,
// Σ_g (sc[g]−32)·(Σ (q+4)·v.q − 4·groupSums[g]). The scales are unpacked
// as q3_KScales does, four bytes of sixteen at a time.
TEXT ·mulQ3_KAVX2(SB), NOSPLIT, $0-64
	K_PROLOGUE
	MOVL $0x03030303, AX
	VMOVD AX, X13
	VPBROADCASTD X13, Y13 // the two-bit mask
	MOVL $0x04040404, AX
	VMOVD AX, X6
	VPBROADCASTD X6, Y6   // bit 2 of every byte
	MOVL $0x20202020, AX
	VMOVD AX, X2
	VPBROADCASTD X2, X2   // 32 in every byte
	GROUPS16_CONSTANTS

k3row:
	K_ROW

k3block:
	// The scales: [a0, a1, a0>>4, a1>>4] & 0x0f, with bits 0–1, 2–3, 4–5
	// and 6–7 of each byte of tmp above them, less 32.
	VMOVQ       96(AX), X7
	VPINSRD     $2, 104(AX), X7, X7
	VPSRLW      $4, X7, X8
	VPUNPCKLQDQ X8, X7, X9
	VPAND       X14, X9, X9
	VPSHUFD     $0xaa, X7, X7
	VPSRLVD     kShifts<>(SB), X7, X7
	VPAND       X13, X7, X7
	VPSLLD      $4, X7, X7
	VPOR        X7, X9, X9
	VPSUBB      X2, X9, X9

	VMOVDQU (AX), Y0 // hmask
	VMOVDQU X12, X10
	VPXOR   Y15, Y15, Y15
	Q3_HALF0
	Q3_HALF1
	SUB_SCALED_SUMS(2)
	SUM8(Y15, X15, X7)
	ADD_K(108, X15)
	K_NEXT(110, 64, k3block, k3row)

// Q2_WEIGHTS adds the products of the 32 two-bit weights of Y1 at bit lo
// with the vector's 32 int8 at y(DX) (GROUPS16).
#define Q2_WEIGHTS(lo, y) \
	VPSRLW $lo, Y1, Y3  \
	VPAND  Y13, Y3, Y3  \
	GROUPS16(Y3, y)

// Q2_HALF adds the products of the 128 weights of the 32 bytes at qs(AX),
// half a Q2_K block, with the vector's 128 at y(DX).
#define Q2_HALF(qs, y) \
	VMOVDQU qs(AX), Y1  \
	Q2_WEIGHTS(0, y)    \
	Q2_WEIGHTS(2, y+32) \
	Q2_WEIGHTS(4, y+64) \
	Q2_WEIGHTS(6, y+96)

// func mulQ2_KAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, groupSums *int32, blocks, rows int)
//
// mulQ4_KAVX2 for Q2_K rows: a block's integers are mulQ2_K's,
// Σ_g sc[g]·(Σ q·v.q) and Σ_g m[g]·groupSums[g], groupSums the vector's
// sums over groups of 16.
TEXT ·mulQ2_KAVX2(SB), NOSPLIT, $0-64
	K_PROLOGUE
	MOVL $0x03030303, AX
	VMOVD AX, X13
	VPBROADCASTD X13, Y13 // the two-bit mask
	GROUPS16_CONSTANTS

k2row:
	K_ROW

k2block:
	// The scales in X9's bytes; the mins times the group sums in Y7.
	VMOVDQU   (AX), X8
	VPAND     X14, X8, X9
	VPSRLW    $4, X8, X8
	VPAND     X14, X8, X8
	VPMOVZXBD X8, Y7
	VPMULLD   (BX), Y7, Y7
	VPSRLDQ   $8, X8, X8
	VPMOVZXBD X8, Y8
	VPMULLD   32(BX), Y8, Y8
	VPADDD    Y8, Y7, Y7

	VMOVDQU X12, X10
	VPXOR   Y15, Y15, Y15
	Q2_HALF(16, 0)
	Q2_HALF(48, 128)
	SUM8_PAIR(Y15, X15, Y7, X6)
	ADD_K_MINS(80, X15)
	K_NEXT(84, 64, k2block, k2row)

// IQ4_XS_GROUP adds to Y10 the products of group g's 32 weights, the
// grid's values (Y13) at the indices of the 16 bytes at qs(AX) (IQ4_NL's
// order), with the vector's 32 int8 at y(DX), their pair sums times the
// group's scale: the next int16 at the bottom of X8, shifted out.
#define IQ4_XS_GROUP(qs, y) \
	VMOVDQU      qs(AX), X1     \
	VPSRLW       $4, X1, X2     \
	VINSERTI128  $1, X2, Y1, Y1 \
	VPAND        Y14, Y1, Y1    \
	VPSHUFB      Y1, Y13, Y1    \
	VMOVDQU      y(DX), Y0      \
	VPSIGNB      Y1, Y1, Y2     \
	VPSIGNB      Y1, Y0, Y3     \
	VPMADDUBSW   Y3, Y2, Y2     \
	VPBROADCASTW X8, Y3         \
	VPSRLDQ      $2, X8, X8     \
	VPMADDWD     Y3, Y2, Y2     \
	VPADDD       Y2, Y10, Y10

// func mulIQ4_XSAVX2(out *float32, w *byte, rowBytes int, q *int8, d *float32, grid *int8, blocks, rows int)
//
// mulQ4_KAVX2 for IQ4_XS rows, with the grid (iq4nlGrid) in groupSums'
// place: a block's integer is mulIQ4_XS's, Σ_g (ls[g]−32)·(Σ grid·v.q).
TEXT ·mulIQ4_XSAVX2(SB), NOSPLIT, $0-64
	K_PROLOGUE
	MOVQ grid+40(FP), AX
	VBROADCASTI128 (AX), Y13 // the grid, in both halves
	MOVL $0x30, AX
	VMOVD AX, X12
	VPBROADCASTD X12, Y12 // the scales' high bits' place, in each int32
	MOVL $0x00200020, AX
	VMOVD AX, X11
	VPBROADCASTD X11, X11 // 32 in each int16

kxrow:
	MOVQ   SI, AX
	MOVQ   q+24(FP), DX
	XORQ   CX, CX
	VXORPS X4, X4, X4

kxblock:
	// The scales ls−32 in X8, as int16: the nibbles of bytes 4–7, low
	// first, with bits 2g and 2g+1 of the uint16 at 2 above group g's.
	VMOVD        4(AX), X8
	VPSRLW       $4, X8, X7
	VPUNPCKLBW   X7, X8, X8
	VPAND        X14, X8, X8
	VPMOVZXBW    X8, X8
	VPBROADCASTW 2(AX), Y7
	VPSRLVD      kShifts<>(SB), Y7, Y7
	VPSLLD       $4, Y7, Y7
	VPAND        Y12, Y7, Y7
	VEXTRACTI128 $1, Y7, X6
	VPACKUSDW    X6, X7, X7
	VPOR         X7, X8, X8
	VPSUBW       X11, X8, X8

	VPXOR Y10, Y10, Y10
	IQ4_XS_GROUP(8, 0)
	IQ4_XS_GROUP(24, 32)
	IQ4_XS_GROUP(40, 64)
	IQ4_XS_GROUP(56, 96)
	IQ4_XS_GROUP(72, 128)
	IQ4_XS_GROUP(88, 160)
	IQ4_XS_GROUP(104, 192)
	IQ4_XS_GROUP(120, 224)
	SUM8(Y10, X10, X7)
	ADD_K(0, X10)
	K_NEXT(136, 0, kxblock, kxrow)

// kShifts are VPSRLVD's counts 0, 2, … 14: bits 2g and 2g+1 of a word to
// the bottom of lane g.
DATA kShifts<>+0(SB)/4, $0
DATA kShifts<>+4(SB)/4, $2
DATA kShifts<>+8(SB)/4, $4
DATA kShifts<>+12(SB)/4, $6
DATA kShifts<>+16(SB)/4, $8
DATA kShifts<>+20(SB)/4, $10
DATA kShifts<>+24(SB)/4, $12
DATA kShifts<>+28(SB)/4, $14
GLOBL kShifts<>(SB), RODATA|NOPTR, $32

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv() uint32
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	XORL CX, CX
	XGETBV
	MOVL AX, ret+0(FP)
	RET

// func quantizeQ8_0AVX2(x *float32, q *int8, d, s *float32, sums *int32, blocks int) int
//
// quantizeQ8_0Go's blocks in AVX2, the same bits: max|x| over the block
// (as integers, exact in any order), d = max/127 and 127/max in float32, each
// q = x·(127/max) rounded half to even (VCVTPS2DQ under Go's rounding
// mode), packed to int8, their sum, and d and d·Σq rounded through
// float16 (F16C, to nearest even, as FloatToHalf). It stops before a
// block whose max|x| is infinite or NaN, which quantizeQ8_0Go takes, and
// returns the blocks it did; likewise before a block whose max|x| is
// not zero but below 2⁻¹¹⁹, where 127/max can overflow.
TEXT ·quantizeQ8_0AVX2(SB), NOSPLIT, $0-56
	MOVQ         x+0(FP), SI
	MOVQ         q+8(FP), DI
	MOVQ         d+16(FP), DX
	MOVQ         s+24(FP), R8
	MOVQ         sums+32(FP), R9
	MOVQ         blocks+40(FP), CX
	XORQ         R10, R10                 // blocks done
	MOVL         $0x7fffffff, AX
	MOVD         AX, X15
	VPBROADCASTD X15, Y15                 // |x| mask
	MOVL         $0x42fe0000, AX          // 127
	MOVD         AX, X14
	VMOVDQU      q8Perm<>(SB), Y13

q8qBlock:
	CMPQ         R10, CX
	JGE          q8qDone
	VMOVUPS      (SI), Y0
	VMOVUPS      32(SI), Y1
	VMOVUPS      64(SI), Y2
	VMOVUPS      96(SI), Y3
	VANDPS       Y15, Y0, Y4
	VANDPS       Y15, Y1, Y5
	VANDPS       Y15, Y2, Y6
	VANDPS       Y15, Y3, Y7
	// |x| as integers orders as |x| does, NaN above infinity.
	VPMAXSD      Y5, Y4, Y4
	VPMAXSD      Y7, Y6, Y6
	VPMAXSD      Y6, Y4, Y4
	VEXTRACTI128 $1, Y4, X5
	VPMAXSD      X5, X4, X4
	VPSHUFD      $0x4e, X4, X5
	VPMAXSD      X5, X4, X4
	VPSHUFD      $0xb1, X4, X5
	VPMAXSD      X5, X4, X4               // max|x|
	MOVD         X4, AX
	CMPL         AX, $0x7f800000
	JAE          q8qDone                  // infinite or NaN: the Go loop's
	VDIVSS       X14, X4, X8              // d = max/127
	VXORPS       X9, X9, X9
	TESTL        AX, AX
	JZ           q8qZero
	CMPL         AX, $0x04000000
	JB           q8qDone                  // below 2⁻¹¹⁹, 127/max may be infinite: the Go loop's
	VDIVSS       X4, X14, X9              // 127/max

q8qZero:
	VBROADCASTSS X9, Y9
	VMULPS       Y9, Y0, Y0
	VMULPS       Y9, Y1, Y1
	VMULPS       Y9, Y2, Y2
	VMULPS       Y9, Y3, Y3
	VCVTPS2DQ    Y0, Y0
	VCVTPS2DQ    Y1, Y1
	VCVTPS2DQ    Y2, Y2
	VCVTPS2DQ    Y3, Y3
	VPADDD       Y1, Y0, Y4
	VPADDD       Y3, Y2, Y5
	VPADDD       Y5, Y4, Y4
	VEXTRACTI128 $1, Y4, X5
	VPADDD       X5, X4, X4
	VPHADDD      X4, X4, X4
	VPHADDD      X4, X4, X4               // Σq
	VPACKSSDW    Y1, Y0, Y0
	VPACKSSDW    Y3, Y2, Y2
	VPACKSSWB    Y2, Y0, Y0
	VPERMD       Y0, Y13, Y0              // the lanes back in order
	VMOVDQU      Y0, (DI)
	VMOVD        X4, (R9)
	VCVTPS2PH    $0, X8, X10
	VCVTPH2PS    X10, X10
	VMOVSS       X10, (DX)
	VCVTDQ2PS    X4, X4
	VMULSS       X4, X8, X8               // d·Σq
	VCVTPS2PH    $0, X8, X10
	VCVTPH2PS    X10, X10
	VMOVSS       X10, (R8)
	ADDQ         $128, SI
	ADDQ         $32, DI
	ADDQ         $4, DX
	ADDQ         $4, R8
	ADDQ         $4, R9
	INCQ         R10
	JMP          q8qBlock

q8qDone:
	MOVQ R10, ret+48(FP)
	VZEROUPPER
	RET

// q8Perm undoes VPACKSSDW's and VPACKSSWB's interleaving of the two
// 128-bit halves.
DATA q8Perm<>+0(SB)/4, $0
DATA q8Perm<>+4(SB)/4, $4
DATA q8Perm<>+8(SB)/4, $1
DATA q8Perm<>+12(SB)/4, $5
DATA q8Perm<>+16(SB)/4, $2
DATA q8Perm<>+20(SB)/4, $6
DATA q8Perm<>+24(SB)/4, $3
DATA q8Perm<>+28(SB)/4, $7
GLOBL q8Perm<>(SB), RODATA|NOPTR, $32
