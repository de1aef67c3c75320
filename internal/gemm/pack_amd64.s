//go:build amd64 && !purego

#include "textflag.h"

// func copyRows12(dst, src *float32, stride, k int)
// dst[p*12 : p*12+12] = src[p*stride : p*stride+12] for p < k (stride in
// elements): one 8-wide and one 4-wide move per step, AVX (VEX) encoded.
TEXT ·copyRows12(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX
	MOVQ k+24(FP), CX
	TESTQ CX, CX
	JEQ done
loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), X1
	VMOVUPS Y0, (DI)
	VMOVUPS X1, 32(DI)
	ADDQ DX, SI
	ADDQ $48, DI
	DECQ CX
	JNE loop
done:
	VZEROUPPER
	RET

// func copyRows6(dst, src *float32, stride, k int)
// dst[p*6 : p*6+6] = src[p*stride : p*stride+6] for p < k: a 4-wide and a
// 2-wide (64-bit) move per step.
TEXT ·copyRows6(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX
	MOVQ k+24(FP), CX
	TESTQ CX, CX
	JEQ done6
loop6:
	VMOVUPS (SI), X0
	MOVQ 16(SI), AX
	VMOVUPS X0, (DI)
	MOVQ AX, 16(DI)
	ADDQ DX, SI
	ADDQ $24, DI
	DECQ CX
	JNE loop6
done6:
	VZEROUPPER
	RET
