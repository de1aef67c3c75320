package gobackend

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// multiIndex turns a flat index into per-axis indices of dims.
func multiIndex(flat int, dims []int) []int {
	idx := make([]int, len(dims))
	for a := len(dims) - 1; a >= 0; a-- {
		idx[a] = flat % dims[a]
		flat /= dims[a]
	}
	return idx
}

// flatIndex is multiIndex's inverse.
func flatIndex(idx, dims []int) int {
	flat := 0
	for a, i := range idx {
		flat = flat*dims[a] + i
	}
	return flat
}

// randomSlice returns random operand dims and a slice of them, biased
// towards the layouts the fast path takes (trailing axes whole, unit
// strides) and the ones it must refuse.
func randomSlice(rng *rand.Rand) (operandDims []int, p *sliceNode, outDims []int) {
	rank := 1 + rng.IntN(5)
	p = &sliceNode{}
	for a := range rank {
		d := 1 + rng.IntN(7)
		start, limit, stride := 0, d, 1
		switch rng.IntN(4) {
		case 1:
			start = rng.IntN(d)
			limit = start + 1 + rng.IntN(d-start)
		case 2:
			start = rng.IntN(d)
			limit = start + 1 + rng.IntN(d-start)
			stride = 1 + rng.IntN(3)
		}
		if a == rank-1 && rng.IntN(3) == 0 {
			stride = 2 // a strided last axis: runs of one element
		}
		operandDims = append(operandDims, d)
		p.starts, p.limits, p.strides = append(p.starts, start), append(p.limits, limit), append(p.strides, stride)
		outDims = append(outDims, (limit-start+stride-1)/stride)
	}
	return operandDims, p, outDims
}

// TestSliceRuns checks Slice, with and without the run copies, against its
// definition on random shapes, starts, limits and strides.
func TestSliceRuns(t *testing.T) {
	be := backend.(*Backend)
	rng := rand.New(rand.NewPCG(21, 22))
	runs := 0
	for i := range 3000 {
		operandDims, p, outDims := randomSlice(rng)
		operand := be.getBufferForShape(shapes.Make(dtypes.Int32, operandDims...))
		for j := range operand.flat.([]int32) {
			operand.flat.([]int32)[j] = int32(j + 1)
		}
		output := be.getBufferForShape(shapes.Make(dtypes.Int32, outDims...))
		execSliceGeneric[int32](operand, output, p)
		got := output.flat.([]int32)
		for o := range got {
			idx := multiIndex(o, outDims)
			for a := range idx {
				idx[a] = p.starts[a] + idx[a]*p.strides[a]
			}
			if want := operand.flat.([]int32)[flatIndex(idx, operandDims)]; got[o] != want {
				t.Fatalf("case %d: operand %v, slice %+v: out[%d] = %d, want %d", i, operandDims, *p, o, got[o], want)
			}
		}
		clear(got)
		if sliceRuns(got, operand.flat.([]int32), operandDims, outDims, p.starts, p.strides) {
			runs++
		}
	}
	if runs < 1000 {
		t.Fatalf("only %d of 3000 cases took the run copies: the test does not cover them", runs)
	}
}

// TestConcatenateBlocks checks Concatenate against its definition for
// every element size, on random shapes and axes, including blocks short
// enough for the copy loop and longer ones.
func TestConcatenateBlocks(t *testing.T) {
	be := backend.(*Backend)
	rng := rand.New(rand.NewPCG(23, 24))
	for _, dtype := range []dtypes.DType{dtypes.Int8, dtypes.Int16, dtypes.Float32, dtypes.Int64, dtypes.Bool} {
		for i := range 300 {
			rank := 1 + rng.IntN(4)
			axis := rng.IntN(rank)
			base := make([]int, rank)
			for a := range base {
				base[a] = 1 + rng.IntN(5)
			}
			if rng.IntN(4) == 0 {
				base[rank-1] = 20 + rng.IntN(20) // blocks longer than concatLoopMaxBytes
			}
			var inputs []*Buffer
			var inputDims [][]int
			outDims := slices.Clone(base)
			outDims[axis] = 0
			for range 1 + rng.IntN(4) {
				dims := slices.Clone(base)
				dims[axis] = 1 + rng.IntN(3)
				outDims[axis] += dims[axis]
				buf := be.getBufferForShape(shapes.Make(dtype, dims...))
				raw := buf.mutableBytes()
				for j := range raw {
					raw[j] = byte(rng.IntN(256))
				}
				if dtype == dtypes.Bool {
					for j := range raw {
						raw[j] &= 1
					}
				}
				inputs, inputDims = append(inputs, buf), append(inputDims, dims)
			}
			node := &Node{shape: shapes.Make(dtype, outDims...), data: axis}
			output, err := execConcatenate(be, node, inputs, make([]bool, len(inputs)))
			if err != nil {
				t.Fatal(err)
			}
			size := dtype.Size()
			got := output.mutableBytes()
			for o := range len(got) / size {
				idx := multiIndex(o, outDims)
				in := 0
				for idx[axis] >= inputDims[in][axis] {
					idx[axis] -= inputDims[in][axis]
					in++
				}
				src := flatIndex(idx, inputDims[in]) * size
				if want := inputs[in].mutableBytes()[src : src+size]; !slices.Equal(got[o*size:(o+1)*size], want) {
					t.Fatalf("%s case %d: axis %d of %v: element %d differs", dtype, i, axis, inputDims, o)
				}
			}
		}
	}
}

// BenchmarkSliceConcat times the decode step's Slice of a block's rows and
// its Concatenate of scatter indices.
func BenchmarkSliceConcat(b *testing.B) {
	be := backend.(*Backend)
	operand := be.getBufferForShape(shapes.Make(dtypes.Float32, 32, 1, 4, 32))
	out := be.getBufferForShape(shapes.Make(dtypes.Float32, 16, 1, 4, 32))
	p := &sliceNode{starts: []int{16, 0, 0, 0}, limits: []int{32, 1, 4, 32}, strides: []int{1, 1, 1, 1}}
	b.Run("slice_rows_16x1x4x32", func(b *testing.B) {
		for b.Loop() {
			execSliceGeneric[float32](operand, out, p)
		}
	})
	var inputs []*Buffer
	for range 4 {
		inputs = append(inputs, be.getBufferForShape(shapes.Make(dtypes.Int32, 16, 2, 32, 1, 1)))
	}
	node := &Node{shape: shapes.Make(dtypes.Int32, 16, 2, 32, 1, 4), data: 4}
	b.Run(fmt.Sprintf("concat_indices_%s", node.shape), func(b *testing.B) {
		for b.Loop() {
			output, err := execConcatenate(be, node, inputs, make([]bool, 4))
			if err != nil {
				b.Fatal(err)
			}
			be.putBuffer(output)
		}
	})
}
