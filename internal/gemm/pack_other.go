//go:build !amd64 || purego

package gemm

func packColumns12(panel, src []float32, base, cs, k int) { packColumns12Go(panel, src, base, cs, k) }

func packColumns6(panel, src []float32, base, cs, k int) { packColumns6Go(panel, src, base, cs, k) }
