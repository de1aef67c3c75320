//go:build amd64 && !purego

#include "textflag.h"

// One-row products by a narrow B (rows contiguous), converting as they
// load: the AVX-512 and AVX2 one-row kernels (kernAVX512_1x2,
// kernAVX2_1x2) with B's loads widened, for a full panel of 32 or 16
// columns. Per step p: acc += broadcast(a[p]) * float32(b[p, :]) by FMA,
// then C = acc, or C + acc with accum: the kernels' arithmetic in their
// order, so the bits are those of the kernels over the converted panel.

// func narrowRowInt8AVX512(k int, a *float32, b *int8, ldb int, c *float32, accum int)
TEXT ·narrowRowInt8AVX512(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ ldb+24(FP), R8
	MOVQ c+32(FP), DI
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	TESTQ CX, CX
	JEQ store_narrowRowInt8AVX512
loop_narrowRowInt8AVX512:
	VPMOVSXBD 0(DX), Z24
	VPMOVSXBD 16(DX), Z25
	VCVTDQ2PS Z24, Z24
	VCVTDQ2PS Z25, Z25
	VBROADCASTSS (SI), Z26
	VFMADD231PS Z24, Z26, Z0
	VFMADD231PS Z25, Z26, Z1
	ADDQ $4, SI
	ADDQ R8, DX
	DECQ CX
	JNE loop_narrowRowInt8AVX512
store_narrowRowInt8AVX512:
	MOVQ accum+40(FP), AX
	TESTQ AX, AX
	JEQ overwrite_narrowRowInt8AVX512
	VADDPS 0(DI), Z0, Z0
	VADDPS 64(DI), Z1, Z1
overwrite_narrowRowInt8AVX512:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VZEROUPPER
	RET

// func narrowRowBFloat16AVX512(k int, a *float32, b *uint16, ldb int, c *float32, accum int)
TEXT ·narrowRowBFloat16AVX512(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ ldb+24(FP), R8
	SHLQ $1, R8
	MOVQ c+32(FP), DI
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	TESTQ CX, CX
	JEQ store_narrowRowBFloat16AVX512
loop_narrowRowBFloat16AVX512:
	VPMOVZXWD 0(DX), Z24
	VPMOVZXWD 32(DX), Z25
	VPSLLD $16, Z24, Z24
	VPSLLD $16, Z25, Z25
	VBROADCASTSS (SI), Z26
	VFMADD231PS Z24, Z26, Z0
	VFMADD231PS Z25, Z26, Z1
	ADDQ $4, SI
	ADDQ R8, DX
	DECQ CX
	JNE loop_narrowRowBFloat16AVX512
store_narrowRowBFloat16AVX512:
	MOVQ accum+40(FP), AX
	TESTQ AX, AX
	JEQ overwrite_narrowRowBFloat16AVX512
	VADDPS 0(DI), Z0, Z0
	VADDPS 64(DI), Z1, Z1
overwrite_narrowRowBFloat16AVX512:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VZEROUPPER
	RET

// func narrowRowInt8AVX2(k int, a *float32, b *int8, ldb int, c *float32, accum int)
TEXT ·narrowRowInt8AVX2(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ ldb+24(FP), R8
	MOVQ c+32(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	TESTQ CX, CX
	JEQ store_narrowRowInt8AVX2
loop_narrowRowInt8AVX2:
	VPMOVSXBD 0(DX), Y12
	VPMOVSXBD 8(DX), Y13
	VCVTDQ2PS Y12, Y12
	VCVTDQ2PS Y13, Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	ADDQ $4, SI
	ADDQ R8, DX
	DECQ CX
	JNE loop_narrowRowInt8AVX2
store_narrowRowInt8AVX2:
	MOVQ accum+40(FP), AX
	TESTQ AX, AX
	JEQ overwrite_narrowRowInt8AVX2
	VADDPS 0(DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
overwrite_narrowRowInt8AVX2:
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET

// func narrowRowBFloat16AVX2(k int, a *float32, b *uint16, ldb int, c *float32, accum int)
TEXT ·narrowRowBFloat16AVX2(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ ldb+24(FP), R8
	SHLQ $1, R8
	MOVQ c+32(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	TESTQ CX, CX
	JEQ store_narrowRowBFloat16AVX2
loop_narrowRowBFloat16AVX2:
	VPMOVZXWD 0(DX), Y12
	VPMOVZXWD 16(DX), Y13
	VPSLLD $16, Y12, Y12
	VPSLLD $16, Y13, Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	ADDQ $4, SI
	ADDQ R8, DX
	DECQ CX
	JNE loop_narrowRowBFloat16AVX2
store_narrowRowBFloat16AVX2:
	MOVQ accum+40(FP), AX
	TESTQ AX, AX
	JEQ overwrite_narrowRowBFloat16AVX2
	VADDPS 0(DI), Y0, Y0
	VADDPS 32(DI), Y1, Y1
overwrite_narrowRowBFloat16AVX2:
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET
