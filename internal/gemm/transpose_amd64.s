//go:build amd64 && !purego

#include "textflag.h"

// func transpose8x8Blocks(dst *float32, ldd int, src *float32, lds int, rowBlocks, colBlocks int)
// For rb < rowBlocks and cb < colBlocks, transposes the 8x8 block of src at
// rows 8rb.., columns 8cb.. into dst at rows 8cb.., columns 8rb..:
// dst[(8cb+j)*ldd + 8rb+i] = src[(8rb+i)*lds + 8cb+j] (strides in
// elements). Eight loads, 24 AVX shuffles and eight stores a block.
TEXT ·transpose8x8Blocks(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	MOVQ rowBlocks+32(FP), R10
	MOVQ colBlocks+40(FP), R11
	TESTQ R10, R10
	JEQ done
	TESTQ R11, R11
	JEQ done
	LEAQ (R9)(R9*2), R12 // 3 source rows
	LEAQ (R8)(R8*2), R13 // 3 destination rows

rowBlock:
	MOVQ SI, AX  // this block row's source, moving right
	MOVQ DI, BX  // its destination, moving down
	MOVQ R11, CX

colBlock:
	MOVQ AX, DX
	VMOVUPS (DX), Y0
	VMOVUPS (DX)(R9*1), Y1
	VMOVUPS (DX)(R9*2), Y2
	VMOVUPS (DX)(R12*1), Y3
	LEAQ (DX)(R9*4), DX
	VMOVUPS (DX), Y4
	VMOVUPS (DX)(R9*1), Y5
	VMOVUPS (DX)(R9*2), Y6
	VMOVUPS (DX)(R12*1), Y7

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

	ADDQ $32, AX         // 8 source columns right
	LEAQ (BX)(R8*8), BX  // 8 destination rows down
	DECQ CX
	JNE colBlock

	LEAQ (SI)(R9*8), SI // 8 source rows down
	ADDQ $32, DI        // 8 destination columns right
	DECQ R10
	JNE rowBlock

done:
	VZEROUPPER
	RET
