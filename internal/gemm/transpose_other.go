//go:build !amd64 || purego

package gemm

// transposeBlocks8 has no assembly here: transposeBlock's loop does the work.
func transposeBlocks8(dst, src []float32, m, n, r0, rb, c0, cb int) bool { return false }
