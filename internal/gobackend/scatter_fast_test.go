package gobackend

import (
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"
)

// TestScatterPrefixRuns checks the contiguous-run scatter (the layout graph.ScatterSum and
// graph.ScatterMax build) against a direct loop over index vectors, with repeated indices,
// several index depths and batch shapes, and out-of-range index vectors, which are skipped.
func TestScatterPrefixRuns(t *testing.T) {
	cases := []struct {
		name        string
		operand     []int
		batch       []int
		depth       int
		outOfBounds bool
	}{
		{"keys_column", []int{3, 2, 4, 6}, []int{3, 2, 4}, 4, false},
		{"keys_out_of_bounds", []int{3, 2, 4, 6}, []int{5, 7}, 4, true},
		{"values_row", []int{3, 2, 6, 4}, []int{3, 2, 1}, 3, false},
		{"rows", []int{5, 7}, []int{9}, 1, false},
		{"repeated_2d", []int{4, 3, 5}, []int{2, 6}, 2, false},
		{"out_of_bounds", []int{4, 3, 5}, []int{12}, 2, true},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := 1
			for _, d := range c.operand[c.depth:] {
				run *= d
			}
			numVectors := 1
			for _, d := range c.batch {
				numVectors *= d
			}
			indices := make([]int32, numVectors*c.depth)
			for v := range numVectors {
				for a := range c.depth {
					idx := rng.IntN(c.operand[a])
					if c.outOfBounds && v%3 == 0 {
						idx = []int{-1, c.operand[a]}[v%2]
					}
					indices[v*c.depth+a] = int32(idx)
				}
			}
			operandSize := run
			for _, d := range c.operand[:c.depth] {
				operandSize *= d
			}
			operand := make([]float32, operandSize)
			for i := range operand {
				operand[i] = float32(rng.NormFloat64())
			}
			updates := make([]float32, numVectors*run)
			for i := range updates {
				updates[i] = float32(rng.NormFloat64())
			}
			indexDims := append(append([]int{}, c.batch...), c.depth)
			updateDims := append(append([]int{}, c.batch...), c.operand[c.depth:]...)

			for _, op := range []string{"sum", "max"} {
				want := append([]float32(nil), operand...)
			vectors:
				for v := range numVectors {
					offset := 0
					for a := range c.depth {
						idx := int(indices[v*c.depth+a])
						if idx < 0 || idx >= c.operand[a] {
							continue vectors
						}
						offset = offset*c.operand[a] + idx
					}
					for i := range run {
						if op == "sum" {
							want[offset*run+i] += updates[v*run+i]
						} else {
							want[offset*run+i] = max(want[offset*run+i], updates[v*run+i])
						}
					}
				}
				out := graph.MustExecOnce(backend, func(g *graph.Graph) *graph.Node {
					o := graph.Const(g, operand)
					o = graph.Reshape(o, c.operand...)
					ix := graph.Reshape(graph.Const(g, indices), indexDims...)
					up := graph.Reshape(graph.Const(g, updates), updateDims...)
					if op == "sum" {
						return graph.ScatterSum(o, ix, up, false, false)
					}
					return graph.ScatterMax(o, ix, up, false, false)
				})
				require.Equal(t, shapes.Make(dtypes.Float32, c.operand...), out.Shape())
				got, err := tensors.CopyFlatData[float32](out)
				require.NoError(t, err)
				require.Equal(t, want, got, op)
			}
		})
	}
}

// BenchmarkScatterKeysColumn writes one decode step's keys into a KV cache
// block [32,2,32,512] (one column: 2048 runs of one value), with the add
// inlined ("sum") and through the combine function ("combine"); "cold"
// writes a column of [16,2,32,384] into one of 16 such blocks in turn, so
// that its lines are out of the core's caches, as in decoding.
func BenchmarkScatterKeysColumn(b *testing.B) {
	dims := []int{32, 2, 32, 512}
	output := make([]float32, 32*2*32*512)
	updates := make([]float32, 32*2*32)
	indices := keysColumnIndices(dims, 100)
	add := func(a, b float32) float32 { return a + b }
	for _, sum := range []bool{true, false} {
		name := map[bool]string{true: "sum", false: "combine"}[sum]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				scatterPrefixRuns(output, updates, indices, dims, 4, 1, add, sum)
			}
		})
	}
	b.Run("cold", func(b *testing.B) {
		dims := []int{16, 2, 32, 384}
		blocks := make([][]float32, 16)
		for i := range blocks {
			blocks[i] = make([]float32, 16*2*32*384)
		}
		columns := make([][]int32, dims[3])
		for c := range columns {
			columns[c] = keysColumnIndices(dims, c)
		}
		updates := make([]float32, 16*2*32)
		i := 0
		for b.Loop() {
			scatterPrefixRuns(blocks[i%len(blocks)], updates, columns[i/len(blocks)%len(columns)], dims, 4, 1, add, true)
			i++
		}
	})
}

// keysColumnIndices returns the index vectors of column col of a keys
// cache block of dims [rows, heads, head dim, columns].
func keysColumnIndices(dims []int, col int) []int32 {
	var indices []int32
	for i := range dims[0] {
		for j := range dims[1] {
			for k := range dims[2] {
				indices = append(indices, int32(i), int32(j), int32(k), int32(col))
			}
		}
	}
	return indices
}
