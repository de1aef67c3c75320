//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

//go:generate go run gen_kernels.go
//go:generate go run gen_narrow.go

// hasAVX512 and hasAVX2 are fixed at start-up; x/sys/cpu also checks that
// the OS saves the wide registers.
var (
	hasAVX512 = cpu.X86.HasAVX512F
	hasAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA
)

// asmKernel is the signature of the generated assembly kernels.
type asmKernel func(k int, a, b *float32, ldb int, c *float32, ldc int, accum int)

// asmDirectKernel is the signature of the generated kernels that read A in
// place.
type asmDirectKernel func(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, accum int)

// asmStreamKernel is the signature of the generated stream kernels.
type asmStreamKernel func(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, tiles int, cont int)

var avx512Kernels = &kernelSet{
	isa: AVX512, maxMR: len(kernelsAVX512), width: 16, maxNV: len(kernelsAVX512[0]),
	streamCols: func(int) int { return 4 * 16 },
	stream: func(mr, k int, a []float32, aOff, lda int, b []float32, bOff, ldb int, c []float32, cOff, ldc, tiles int, cont bool) {
		runStream(&streamAVX512[mr-1], 4*16, mr, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, tiles, cont)
	},
	run: func(mr, nv, k int, a []float32, aOff int, b []float32, bOff, ldb int, c []float32, cOff, ldc int, accum bool) {
		runAsm(&kernelsAVX512[mr-1][nv-1], 16, mr, nv, k, a, aOff, b, bOff, ldb, c, cOff, ldc, accum)
	},
	runDirect: func(mr, nv, k int, a []float32, aOff, lda int, b []float32, bOff, ldb int, c []float32, cOff, ldc int, accum bool) {
		runAsmDirect(&kernelsDirectAVX512[mr-1][nv-1], 16, mr, nv, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accum)
	},
}

var avx2Kernels = &kernelSet{
	isa: AVX2, maxMR: len(kernelsAVX2), width: 8, maxNV: len(kernelsAVX2[0]),
	streamCols: avx2StreamCols,
	stream: func(mr, k int, a []float32, aOff, lda int, b []float32, bOff, ldb int, c []float32, cOff, ldc, tiles int, cont bool) {
		runStream(&streamAVX2[mr-1], avx2StreamCols(mr), mr, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, tiles, cont)
	},
	run: func(mr, nv, k int, a []float32, aOff int, b []float32, bOff, ldb int, c []float32, cOff, ldc int, accum bool) {
		runAsm(&kernelsAVX2[mr-1][nv-1], 8, mr, nv, k, a, aOff, b, bOff, ldb, c, cOff, ldc, accum)
	},
	runDirect: func(mr, nv, k int, a []float32, aOff, lda int, b []float32, bOff, ldb int, c []float32, cOff, ldc int, accum bool) {
		runAsmDirect(&kernelsDirectAVX2[mr-1][nv-1], 8, mr, nv, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accum)
	},
}

func runAsm(kern *asmKernel, width, mr, nv, k int, a []float32, aOff int, b []float32, bOff, ldb int, c []float32, cOff, ldc int, accum bool) {
	checkTile(mr, nv*width, k, a, aOff, b, bOff, ldb, c, cOff, ldc)
	acc := 0
	if accum {
		acc = 1
	}
	// The driver never calls a kernel with k == 0, so &a[aOff] and &b[bOff]
	// are in range (checkTile verified the whole tile).
	(*kern)(k, &a[aOff], &b[bOff], ldb, &c[cOff], ldc, acc)
}

func runAsmDirect(kern *asmDirectKernel, width, mr, nv, k int, a []float32, aOff, lda int, b []float32, bOff, ldb int, c []float32, cOff, ldc int, accum bool) {
	checkDirectA(mr, k, a, aOff, lda)
	checkBC(mr, nv*width, k, b, bOff, ldb, c, cOff, ldc)
	acc := 0
	if accum {
		acc = 1
	}
	(*kern)(k, &a[aOff], lda, &b[bOff], ldb, &c[cOff], ldc, acc)
}

// avx2StreamCols is the width of an AVX2 stream kernel's tile (see
// streamNV in gen_kernels.go): 16 registers hold 4 vectors of accumulators
// for up to 2 rows, 2 for 3 or 4.
func avx2StreamCols(mr int) int {
	if mr > 2 {
		return 2 * 8
	}
	return 4 * 8
}

func runStream(kern *asmStreamKernel, cols, mr, k int, a []float32, aOff, lda int, b []float32, bOff, ldb int, c []float32, cOff, ldc, tiles int, cont bool) {
	checkDirectA(mr, k, a, aOff, lda)
	checkBC(mr, tiles*cols, k, b, bOff, ldb, c, cOff, ldc)
	flag := 0
	if cont {
		flag = 1
	}
	(*kern)(k, &a[aOff], lda, &b[bOff], ldb, &c[cOff], ldc, tiles, flag)
}
