package gobackend

import (
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/stretchr/testify/require"
)

// TestIdentityIsItsOperand checks that identities, which Builder.Identity folds into their
// operand, change nothing: a parameter reached through identities is never overwritten in place by
// a later op, an output that is a parameter is a copy, and donated inputs still work.
func TestIdentityIsItsOperand(t *testing.T) {
	shape := shapes.Make(dtypes.Float32, 4)
	builder := backend.Builder("identity_alias")
	x, err := builder.Parameter("x", shape, nil)
	require.NoError(t, err)
	id1, err := builder.Identity(x)
	require.NoError(t, err)
	id2, err := builder.Identity(id1) // an alias of an alias
	require.NoError(t, err)
	// Neg and Add reuse an owned input's buffer for their output: with x not donated, that would
	// write into the caller's buffer.
	neg, err := builder.Neg(id2)
	require.NoError(t, err)
	sum, err := builder.Add(id1, neg)
	require.NoError(t, err)
	exec, err := builder.Compile([]backends.Op{id2, neg, sum}, nil)
	require.NoError(t, err)

	for _, donate := range []bool{false, true} {
		input, err := backend.BufferFromFlatData(0, []float32{1, 2, 3, 4}, shape)
		require.NoError(t, err)
		outputs, err := exec.Execute([]backends.Buffer{input}, []bool{donate}, 0)
		require.NoError(t, err)
		require.Len(t, outputs, 3)

		want := [][]float32{{1, 2, 3, 4}, {-1, -2, -3, -4}, {0, 0, 0, 0}}
		for i, out := range outputs {
			got := make([]float32, 4)
			require.NoError(t, backend.BufferToFlatData(out, got))
			require.Equal(t, want[i], got, "donate=%v output %d", donate, i)
		}
		if !donate {
			require.NotSame(t, input.(*Buffer), outputs[0].(*Buffer), "an output that aliases an input must be a copy")
			got := make([]float32, 4)
			require.NoError(t, backend.BufferToFlatData(input, got))
			require.Equal(t, []float32{1, 2, 3, 4}, got, "the input was overwritten through an alias")
		}
	}
}

// TestIdentityRepeatedOutputs checks that a node requested as several outputs (x and Identity(x))
// gives distinct buffers with the same values.
func TestIdentityRepeatedOutputs(t *testing.T) {
	shape := shapes.Make(dtypes.Float32, 3)
	builder := backend.Builder("identity_outputs")
	x, err := builder.Parameter("x", shape, nil)
	require.NoError(t, err)
	idX, err := builder.Identity(x)
	require.NoError(t, err)
	neg, err := builder.Neg(x)
	require.NoError(t, err)
	idNeg, err := builder.Identity(neg)
	require.NoError(t, err)
	exec, err := builder.Compile([]backends.Op{x, idX, neg, idNeg}, nil)
	require.NoError(t, err)

	for _, donate := range []bool{false, true} {
		input, err := backend.BufferFromFlatData(0, []float32{1, 2, 3}, shape)
		require.NoError(t, err)
		outputs, err := exec.Execute([]backends.Buffer{input}, []bool{donate}, 0)
		require.NoError(t, err)
		require.Len(t, outputs, 4)
		want := [][]float32{{1, 2, 3}, {1, 2, 3}, {-1, -2, -3}, {-1, -2, -3}}
		for i, out := range outputs {
			got := make([]float32, 3)
			require.NoError(t, backend.BufferToFlatData(out, got))
			require.Equal(t, want[i], got, "donate=%v output %d", donate, i)
			for j := range i {
				require.NotSame(t, outputs[j].(*Buffer), out.(*Buffer), "outputs %d and %d share a buffer", j, i)
			}
		}
	}
}
