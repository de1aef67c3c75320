package graphrun

import (
	"errors"
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// ErrShape reports matrices and tensors whose shapes do not fit: ragged or
// empty rows, a size other than the one wanted. Package objective exports
// it as objective.ErrShape, and package trainer as trainer.ErrShape.
var ErrShape = errors.New("bad shape")

// MatrixDims returns the rows and columns of a rectangular, non-empty
// matrix, or an ErrShape error naming it.
func MatrixDims[T any](name string, m [][]T) (rows, cols int, err error) {
	if len(m) == 0 || len(m[0]) == 0 {
		return 0, 0, fmt.Errorf("%w: %s is empty", ErrShape, name)
	}
	cols = len(m[0])
	for i, row := range m {
		if len(row) != cols {
			return 0, 0, fmt.Errorf("%w: %s row %d has %d columns, row 0 has %d", ErrShape, name, i, len(row), cols)
		}
	}
	return len(m), cols, nil
}

// MatrixTensor copies a matrix, which must be rows x cols, into a tensor.
func MatrixTensor[T dtypes.Supported](name string, m [][]T, rows, cols int) (*tensors.Tensor, error) {
	r, c, err := MatrixDims(name, m)
	if err != nil {
		return nil, err
	}
	if r != rows || c != cols {
		return nil, fmt.Errorf("%w: %s is %dx%d, want %dx%d", ErrShape, name, r, c, rows, cols)
	}
	flat := make([]T, 0, rows*cols)
	for _, row := range m {
		flat = append(flat, row...)
	}
	return tensors.FromFlatDataAndDimensions(flat, rows, cols), nil
}

// TensorMatrix copies a rank-2 tensor back into rows.
func TensorMatrix[T dtypes.Supported](t *tensors.Tensor) ([][]T, error) {
	if t.Rank() != 2 {
		return nil, fmt.Errorf("%w: want a matrix, got %s", ErrShape, t.Shape())
	}
	flat, err := tensors.CopyFlatData[T](t)
	if err != nil {
		return nil, err
	}
	rows, cols := t.Shape().Dimensions[0], t.Shape().Dimensions[1]
	out := make([][]T, rows)
	for i := range out {
		out[i] = flat[i*cols : (i+1)*cols : (i+1)*cols]
	}
	return out, nil
}

// TensorScalar reads a scalar float tensor as float64.
func TensorScalar(t *tensors.Tensor) (float64, error) {
	if !t.Shape().IsScalar() {
		return 0, fmt.Errorf("%w: want a scalar, got %s", ErrShape, t.Shape())
	}
	switch v := t.Value().(type) {
	case float32:
		return float64(v), nil
	case float64:
		return v, nil
	}
	return 0, fmt.Errorf("%w: want a float scalar, got %s", ErrShape, t.Shape())
}
