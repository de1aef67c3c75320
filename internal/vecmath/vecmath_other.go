//go:build !amd64 || purego

package vecmath

// Only the generic kernels exist off amd64 (or with the purego tag).
var (
	avx512Kernels *kernels
	avx2Kernels   *kernels
)

func selectKernels() *kernels { return genericKernels }

func supported(k *kernels) bool { return k == genericKernels }
