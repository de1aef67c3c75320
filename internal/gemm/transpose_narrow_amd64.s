//go:build amd64 && !purego

#include "textflag.h"

// func transpose8x8BlocksInt8(dst *float32, ldd int, src *int8, lds int, rowBlocks, colBlocks int)
// transpose8x8Blocks with an int8 source: each element is sign-extended
// and converted to float32 (exact) as it is loaded; lds counts int8
// elements.
TEXT ·transpose8x8BlocksInt8(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	MOVQ rowBlocks+32(FP), R10
	MOVQ colBlocks+40(FP), R11
	TESTQ R10, R10
	JEQ done_transpose8x8BlocksInt8
	TESTQ R11, R11
	JEQ done_transpose8x8BlocksInt8
	LEAQ (R9)(R9*2), R12 // 3 source rows
	LEAQ (R8)(R8*2), R13 // 3 destination rows

rowBlock_transpose8x8BlocksInt8:
	MOVQ SI, AX  // this block row's source, moving right
	MOVQ DI, BX  // its destination, moving down
	MOVQ R11, CX

colBlock_transpose8x8BlocksInt8:
	MOVQ AX, DX
	VPMOVSXBD (DX), Y0
	VCVTDQ2PS Y0, Y0
	VPMOVSXBD (DX)(R9*1), Y1
	VCVTDQ2PS Y1, Y1
	VPMOVSXBD (DX)(R9*2), Y2
	VCVTDQ2PS Y2, Y2
	VPMOVSXBD (DX)(R12*1), Y3
	VCVTDQ2PS Y3, Y3
	LEAQ (DX)(R9*4), DX
	VPMOVSXBD (DX), Y4
	VCVTDQ2PS Y4, Y4
	VPMOVSXBD (DX)(R9*1), Y5
	VCVTDQ2PS Y5, Y5
	VPMOVSXBD (DX)(R9*2), Y6
	VCVTDQ2PS Y6, Y6
	VPMOVSXBD (DX)(R12*1), Y7
	VCVTDQ2PS Y7, Y7

	VUNPCKLPS Y1, Y0, Y8  // a0 b0 a1 b1 | a4 b4 a5 b5
	VUNPCKHPS Y1, Y0, Y9  // a2 b2 a3 b3 | a6 b6 a7 b7
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	VSHUFPS $0x44, Y10, Y8, Y0 // a0 b0 c0 d0 | a4 b4 c4 d4
	VSHUFPS $0xEE, Y10, Y8, Y1 // a1 b1 c1 d1 | a5 b5 c5 d5
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4 // e0 f0 g0 h0 | e4 f4 g4 h4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7

	VPERM2F128 $0x20, Y4, Y0, Y8  // column 0: a0..h0
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12 // column 4
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15

	MOVQ BX, DX
	VMOVUPS Y8, (DX)
	VMOVUPS Y9, (DX)(R8*1)
	VMOVUPS Y10, (DX)(R8*2)
	VMOVUPS Y11, (DX)(R13*1)
	LEAQ (DX)(R8*4), DX
	VMOVUPS Y12, (DX)
	VMOVUPS Y13, (DX)(R8*1)
	VMOVUPS Y14, (DX)(R8*2)
	VMOVUPS Y15, (DX)(R13*1)

	ADDQ $8, AX         // 8 source columns right
	LEAQ (BX)(R8*8), BX  // 8 destination rows down
	DECQ CX
	JNE colBlock_transpose8x8BlocksInt8

	LEAQ (SI)(R9*8), SI // 8 source rows down
	ADDQ $32, DI        // 8 destination columns right
	DECQ R10
	JNE rowBlock_transpose8x8BlocksInt8

done_transpose8x8BlocksInt8:
	VZEROUPPER
	RET

// func transpose8x8BlocksBFloat16(dst *float32, ldd int, src *uint16, lds int, rowBlocks, colBlocks int)
// transpose8x8Blocks with a bfloat16 source (bit patterns): each element
// becomes the float32 with those 16 high bits (exact) as it is loaded; lds
// counts bfloat16 elements.
TEXT ·transpose8x8BlocksBFloat16(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $1, R9
	MOVQ rowBlocks+32(FP), R10
	MOVQ colBlocks+40(FP), R11
	TESTQ R10, R10
	JEQ done_transpose8x8BlocksBFloat16
	TESTQ R11, R11
	JEQ done_transpose8x8BlocksBFloat16
	LEAQ (R9)(R9*2), R12 // 3 source rows
	LEAQ (R8)(R8*2), R13 // 3 destination rows

rowBlock_transpose8x8BlocksBFloat16:
	MOVQ SI, AX  // this block row's source, moving right
	MOVQ DI, BX  // its destination, moving down
	MOVQ R11, CX

colBlock_transpose8x8BlocksBFloat16:
	MOVQ AX, DX
	VPMOVZXWD (DX), Y0
	VPSLLD $16, Y0, Y0
	VPMOVZXWD (DX)(R9*1), Y1
	VPSLLD $16, Y1, Y1
	VPMOVZXWD (DX)(R9*2), Y2
	VPSLLD $16, Y2, Y2
	VPMOVZXWD (DX)(R12*1), Y3
	VPSLLD $16, Y3, Y3
	LEAQ (DX)(R9*4), DX
	VPMOVZXWD (DX), Y4
	VPSLLD $16, Y4, Y4
	VPMOVZXWD (DX)(R9*1), Y5
	VPSLLD $16, Y5, Y5
	VPMOVZXWD (DX)(R9*2), Y6
	VPSLLD $16, Y6, Y6
	VPMOVZXWD (DX)(R12*1), Y7
	VPSLLD $16, Y7, Y7

	VUNPCKLPS Y1, Y0, Y8  // a0 b0 a1 b1 | a4 b4 a5 b5
	VUNPCKHPS Y1, Y0, Y9  // a2 b2 a3 b3 | a6 b6 a7 b7
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	VSHUFPS $0x44, Y10, Y8, Y0 // a0 b0 c0 d0 | a4 b4 c4 d4
	VSHUFPS $0xEE, Y10, Y8, Y1 // a1 b1 c1 d1 | a5 b5 c5 d5
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4 // e0 f0 g0 h0 | e4 f4 g4 h4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7

	VPERM2F128 $0x20, Y4, Y0, Y8  // column 0: a0..h0
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12 // column 4
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15

	MOVQ BX, DX
	VMOVUPS Y8, (DX)
	VMOVUPS Y9, (DX)(R8*1)
	VMOVUPS Y10, (DX)(R8*2)
	VMOVUPS Y11, (DX)(R13*1)
	LEAQ (DX)(R8*4), DX
	VMOVUPS Y12, (DX)
	VMOVUPS Y13, (DX)(R8*1)
	VMOVUPS Y14, (DX)(R8*2)
	VMOVUPS Y15, (DX)(R13*1)

	ADDQ $16, AX         // 8 source columns right
	LEAQ (BX)(R8*8), BX  // 8 destination rows down
	DECQ CX
	JNE colBlock_transpose8x8BlocksBFloat16

	LEAQ (SI)(R9*8), SI // 8 source rows down
	ADDQ $32, DI        // 8 destination columns right
	DECQ R10
	JNE rowBlock_transpose8x8BlocksBFloat16

done_transpose8x8BlocksBFloat16:
	VZEROUPPER
	RET

// func widenRowsInt8(dst *float32, ldd int, src *int8, lds int, rows, blocks int)
// For r < rows and the first 8*blocks columns: dst[r*ldd + j] =
// float32(src[r*lds + j]) (strides in elements).
TEXT ·widenRowsInt8(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	MOVQ rows+32(FP), R10
	MOVQ blocks+40(FP), R11
	TESTQ R10, R10
	JEQ done_widenRowsInt8
	TESTQ R11, R11
	JEQ done_widenRowsInt8

row_widenRowsInt8:
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ R11, CX

block_widenRowsInt8:
	VPMOVSXBD (AX), Y0
	VCVTDQ2PS Y0, Y0
	VMOVUPS Y0, (BX)
	ADDQ $8, AX
	ADDQ $32, BX
	DECQ CX
	JNE block_widenRowsInt8

	ADDQ R9, SI
	ADDQ R8, DI
	DECQ R10
	JNE row_widenRowsInt8

done_widenRowsInt8:
	VZEROUPPER
	RET

// func widenRowsBFloat16(dst *float32, ldd int, src *uint16, lds int, rows, blocks int)
// widenRowsInt8 for bfloat16 bit patterns: dst[r*ldd + j] is the float32
// whose high 16 bits are src[r*lds + j].
TEXT ·widenRowsBFloat16(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $1, R9
	MOVQ rows+32(FP), R10
	MOVQ blocks+40(FP), R11
	TESTQ R10, R10
	JEQ done_widenRowsBFloat16
	TESTQ R11, R11
	JEQ done_widenRowsBFloat16

row_widenRowsBFloat16:
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ R11, CX

block_widenRowsBFloat16:
	VPMOVZXWD (AX), Y0
	VPSLLD $16, Y0, Y0
	VMOVUPS Y0, (BX)
	ADDQ $16, AX
	ADDQ $32, BX
	DECQ CX
	JNE block_widenRowsBFloat16

	ADDQ R9, SI
	ADDQ R8, DI
	DECQ R10
	JNE row_widenRowsBFloat16

done_widenRowsBFloat16:
	VZEROUPPER
	RET
