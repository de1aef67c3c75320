//go:build !amd64 || purego

package gemm

// Only the pure-Go kernel exists off amd64 (or with the purego tag).
var (
	hasAVX512 = false
	hasAVX2   = false

	avx512Kernels *kernelSet
	avx2Kernels   *kernelSet
)
