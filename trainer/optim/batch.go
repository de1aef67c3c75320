package optim

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/org/agentevolver/internal/graphrun"
	"github.com/org/agentevolver/model"
)

// Tokens is the token part of a padded batch: model.Tokens, laid out like
// agentevolver.Sample, B rows of T columns, the first PromptLen the
// left-padded prompt, the other R = T − PromptLen the right-padded
// response. Per-token values of the trainer (masks, advantages,
// log-probs) cover the R response columns.
type Tokens = model.Tokens

// Batch is one RL update's data: tokens and the per-token values of the
// response columns, each B x R.
type Batch struct {
	Tokens
	// LossMask is 1 where a response token is the policy's own and trains.
	LossMask [][]float32
	// Advantages are per-token advantages (GRPO or ADCA).
	Advantages [][]float32
	// OldLogProbs are the log-probs of the policy before this update
	// (recomputed with [Updater.LogProbs]). They may be nil when the
	// update is on-policy ([Updater.OnPolicy]: one epoch, one mini-batch):
	// its forward passes run on the weights they would be recomputed with,
	// so Update takes its own log-probs, without gradient, as the old
	// ones (the ratio is 1, as veRL's on-policy update has it), which
	// saves a forward pass over the batch, and stores them here.
	OldLogProbs [][]float32
	// RefLogProbs are the reference policy's log-probs ([Reference]);
	// required when the KL loss is on.
	RefLogProbs [][]float32
	// ExpMask is 1 on samples rolled out with experience that was stripped
	// for training (off-policy clip range); nil means all on-policy.
	ExpMask [][]float32
}

// tokenShape validates t against the vocabulary size and returns B, T.
func tokenShape(t *Tokens, vocab int) (rows, cols int, err error) {
	rows, cols, err = graphrun.MatrixDims("InputIDs", t.InputIDs)
	if err != nil {
		return 0, 0, err
	}
	if t.PromptLen < 1 || t.PromptLen >= cols {
		return 0, 0, fmt.Errorf("%w: PromptLen %d not in [1, %d)", ErrShape, t.PromptLen, cols)
	}
	for name, m := range map[string][][]int{"AttentionMask": t.AttentionMask, "PositionIDs": t.PositionIDs} {
		if m == nil {
			continue
		}
		r, c, err := graphrun.MatrixDims(name, m)
		if err != nil {
			return 0, 0, err
		}
		if r != rows || c != cols {
			return 0, 0, fmt.Errorf("%w: %s is %dx%d, InputIDs %dx%d", ErrShape, name, r, c, rows, cols)
		}
	}
	for b, row := range t.InputIDs {
		for j, id := range row {
			if id < 0 || id >= vocab {
				return 0, 0, fmt.Errorf("%w: token id %d at row %d column %d not in [0, %d)", ErrShape, id, b, j, vocab)
			}
		}
	}
	if t.PositionIDs != nil {
		for b, row := range t.PositionIDs {
			for j, p := range row {
				if p < 0 || p > 1<<30 {
					return 0, 0, fmt.Errorf("%w: position %d at row %d column %d", ErrShape, p, b, j)
				}
			}
		}
	}
	return rows, cols, nil
}

// tokenTensors returns the graph inputs (ids, positions, mask, targets) of
// rows [lo, hi) of t, which tokenShape has validated.
func tokenTensors(t *Tokens, lo, hi int) []*tensors.Tensor {
	rows, cols := hi-lo, len(t.InputIDs[0])
	resp := cols - t.PromptLen
	ids := make([]int32, 0, rows*cols)
	pos := make([]int32, 0, rows*cols)
	mask := make([]bool, 0, rows*cols)
	targets := make([]int32, 0, rows*resp)
	for b := lo; b < hi; b++ {
		next := int32(0)
		for j, id := range t.InputIDs[b] {
			real := t.AttentionMask == nil || t.AttentionMask[b][j] != 0
			ids, mask = append(ids, int32(id)), append(mask, real)
			switch {
			case t.PositionIDs != nil:
				pos = append(pos, int32(t.PositionIDs[b][j]))
			case real:
				pos = append(pos, next)
				next++
			default:
				pos = append(pos, 0)
			}
		}
		for _, id := range t.InputIDs[b][t.PromptLen:] {
			targets = append(targets, int32(id))
		}
	}
	return []*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(ids, rows, cols),
		tensors.FromFlatDataAndDimensions(pos, rows, cols),
		tensors.FromFlatDataAndDimensions(mask, rows, cols),
		tensors.FromFlatDataAndDimensions(targets, rows, resp),
	}
}

// numTokenInputs is how many graph inputs tokenTensors makes.
const numTokenInputs = 4

// sequencesOf rebuilds Sequences from the graph inputs made by
// tokenTensors.
func sequencesOf(in []*graph.Node, temperature float64) Sequences {
	cols, resp := in[0].Shape().Dimensions[1], in[3].Shape().Dimensions[1]
	return Sequences{
		InputIDs:      in[0],
		PositionIDs:   in[1],
		AttentionMask: in[2],
		Targets:       in[3],
		PromptLen:     cols - resp,
		Temperature:   temperature,
	}
}

// checkResponseMatrix validates an optional B x R matrix of the batch.
func checkResponseMatrix(name string, m [][]float32, rows, resp int, required bool) error {
	if m == nil {
		if required {
			return fmt.Errorf("%w: %s is required", ErrShape, name)
		}
		return nil
	}
	r, c, err := graphrun.MatrixDims(name, m)
	if err != nil {
		return err
	}
	if r != rows || c != resp {
		return fmt.Errorf("%w: %s is %dx%d, want %dx%d (rows x response columns)", ErrShape, name, r, c, rows, resp)
	}
	return nil
}

// rowsTensor copies rows [lo, hi) of a validated matrix into a tensor.
func rowsTensor(m [][]float32, lo, hi int) *tensors.Tensor {
	cols := len(m[0])
	flat := make([]float32, 0, (hi-lo)*cols)
	for _, row := range m[lo:hi] {
		flat = append(flat, row...)
	}
	return tensors.FromFlatDataAndDimensions(flat, hi-lo, cols)
}

// maskSum returns the sum of rows [lo, hi) of m.
func maskSum(m [][]float32, lo, hi int) float64 {
	var s float64
	for _, row := range m[lo:hi] {
		for _, v := range row {
			s += float64(v)
		}
	}
	return s
}
