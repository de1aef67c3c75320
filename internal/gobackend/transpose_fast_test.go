package gobackend

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// transposeWithIterator is upstream's Transpose loop, the reference for
// transposeBlocked.
func transposeWithIterator[T any](in, out []T, it *transposeIterator) {
	for _, value := range in {
		out[it.next()] = value
	}
}

// allPermutations returns every permutation of 0..n-1.
func allPermutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var res [][]int
	for _, p := range allPermutations(n - 1) {
		for pos := 0; pos <= len(p); pos++ {
			q := slices.Insert(slices.Clone(p), pos, n-1)
			res = append(res, q)
		}
	}
	return res
}

func TestTransposeBlocked(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	dimsList := [][]int{
		{}, {5}, {0, 3}, {3, 0, 2}, {1, 1}, {7, 5}, {33, 17}, {16, 16}, {2, 3, 4}, {1, 17, 33},
		{5, 1, 19}, {3, 18, 1, 5}, {2, 3, 4, 5}, {4, 1, 20, 3}, {2, 17, 3, 18},
	}
	for _, dims := range dimsList {
		s := shapes.Make(dtypes.Float32, dims...)
		in := make([]float32, s.Size())
		for i := range in {
			in[i] = rng.Float32()
		}
		for _, perm := range allPermutations(len(dims)) {
			want := make([]float32, len(in))
			transposeWithIterator(in, want, newTransposeIterator(s, perm))
			got := make([]float32, len(in))
			transposeBlocked(in, got, dims, perm)
			if !slices.Equal(got, want) {
				t.Fatalf("dims %v perm %v: got %v, want %v", dims, perm, got, want)
			}
		}
	}
}

func TestSimplifyTranspose(t *testing.T) {
	for _, c := range []struct {
		dims, perm, wantDims, wantPerm []int
	}{
		{[]int{2, 3, 4}, []int{0, 1, 2}, []int{24}, []int{0}},
		{[]int{2, 3, 4}, []int{2, 0, 1}, []int{6, 4}, []int{1, 0}},
		{[]int{2, 3, 4, 5}, []int{0, 2, 1, 3}, []int{2, 3, 4, 5}, []int{0, 2, 1, 3}},
		{[]int{2, 1, 4}, []int{1, 0, 2}, []int{8}, []int{0}},
		{[]int{2, 3, 4, 5}, []int{2, 3, 0, 1}, []int{6, 20}, []int{1, 0}},
	} {
		d, p := simplifyTranspose(c.dims, c.perm)
		if fmt.Sprint(d, p) != fmt.Sprint(c.wantDims, c.wantPerm) {
			t.Errorf("simplifyTranspose(%v, %v) = %v %v, want %v %v", c.dims, c.perm, d, p, c.wantDims, c.wantPerm)
		}
	}
}

func BenchmarkTranspose(b *testing.B) {
	// Attention-style [batch, seq, heads, headDim] -> [batch, heads, seq, headDim]
	// and a plain matrix transpose.
	for _, c := range []struct{ dims, perm []int }{
		{[]int{8, 128, 8, 32}, []int{0, 2, 1, 3}},
		{[]int{512, 768}, []int{1, 0}},
	} {
		s := shapes.Make(dtypes.Float32, c.dims...)
		in := make([]float32, s.Size())
		out := make([]float32, s.Size())
		b.Run(fmt.Sprintf("blocked%v", c.dims), func(b *testing.B) {
			for b.Loop() {
				transposeBlocked(in, out, c.dims, c.perm)
			}
		})
		b.Run(fmt.Sprintf("iterator%v", c.dims), func(b *testing.B) {
			for b.Loop() {
				transposeWithIterator(in, out, newTransposeIterator(s, c.perm))
			}
		})
	}
}
