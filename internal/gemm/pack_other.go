//go:build !amd64 || purego

package gemm

// packColumns has no assembly here: packA's loops do the work.
func packColumns(panel, src []float32, base, cs, k, mr int) bool { return false }
