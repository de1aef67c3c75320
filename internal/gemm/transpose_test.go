package gemm

import (
	"fmt"
	"testing"
)

// TestTransposeBlock checks transposeBlock, the AVX blocks and the scalar
// edges together, against the definition on ragged sizes and sub-blocks:
// every element of the block lands where it belongs and nothing outside
// it is written.
func TestTransposeBlock(t *testing.T) {
	for _, s := range []struct{ m, n, r0, r1, c0, c1 int }{
		{32, 384, 0, 384, 0, 32},
		{33, 833, 0, 833, 0, 33},
		{30, 64, 0, 64, 0, 30},
		{7, 5, 0, 5, 0, 7},
		{1, 128, 0, 128, 0, 1},
		{24, 200, 96, 200, 0, 24},
		{40, 100, 3, 91, 5, 37},
		{16, 16, 8, 16, 8, 16},
		{9, 17, 0, 0, 0, 9},
	} {
		t.Run(fmt.Sprintf("m%d_n%d_r%d-%d_c%d-%d", s.m, s.n, s.r0, s.r1, s.c0, s.c1), func(t *testing.T) {
			src := make([]float32, s.m*s.n)
			for i := range src {
				src[i] = float32(i) + 0.5
			}
			dst := make([]float32, s.m*s.n)
			for i := range dst {
				dst[i] = -1
			}
			transposeBlock(dst, src, s.m, s.n, s.r0, s.r1, s.c0, s.c1)
			for c := range s.m {
				for r := range s.n {
					want := float32(-1)
					if r >= s.r0 && r < s.r1 && c >= s.c0 && c < s.c1 {
						want = src[r*s.m+c]
					}
					if got := dst[c*s.n+r]; got != want {
						t.Fatalf("dst[%d, %d] = %v, want %v", c, r, got, want)
					}
				}
			}
		})
	}
}

// BenchmarkTransposeBlock times the transposes of a decode step's swapped
// products (32 rows of the built-in policy's projections and head).
func BenchmarkTransposeBlock(b *testing.B) {
	for _, s := range [][2]int{{32, 128}, {32, 384}, {30, 833}} {
		m, n := s[0], s[1]
		src := make([]float32, m*n)
		dst := make([]float32, m*n)
		b.Run(fmt.Sprintf("m%d_n%d", m, n), func(b *testing.B) {
			for b.Loop() {
				transposeBlock(dst, src, m, n, 0, n, 0, m)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m*n), "ns/element")
		})
		b.Run(fmt.Sprintf("scalar_m%d_n%d", m, n), func(b *testing.B) {
			for b.Loop() {
				transposeScalar(dst, src, m, n, 0, n, 0, m)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*m*n), "ns/element")
		})
	}
}
