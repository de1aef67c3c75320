//go:build !amd64 || purego

package gemm

// narrowRow has no fused kernel here: taskNarrowPanels converts the panel.
func narrowRow[T narrow](ks *kernelSet, k int, a []float32, aOff int, b []T, bOff, ldb int, c []float32, cOff int, accum bool) bool {
	return false
}
