package objective

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// AggMode selects how a per-token loss matrix is reduced to a scalar: the
// loss_agg_mode of the reference's agg_loss. The zero value means
// [TokenMean], the reference default.
type AggMode string

// The aggregation modes. M is the loss mask, L the padded width.
const (
	// TokenMean is Σ(loss·M) / (ΣM + 1e-8) over the whole batch.
	TokenMean AggMode = "token-mean"
	// SeqMeanTokenSum is the mean over rows of Σ_t loss·M (rows without
	// mask count, as 0).
	SeqMeanTokenSum AggMode = "seq-mean-token-sum"
	// SeqMeanTokenMean is the mean over rows of Σ_t loss·M / Σ_t M, with no
	// epsilon: a row without mask makes the result NaN, as in the reference.
	SeqMeanTokenMean AggMode = "seq-mean-token-mean"
	// SeqMeanTokenSumNorm is Σ(loss·M) / L.
	SeqMeanTokenSumNorm AggMode = "seq-mean-token-sum-norm"
)

// maskedMeanEpsilon is the epsilon of the reference's masked_mean.
const maskedMeanEpsilon = 1e-8

// Validate reports whether m names an aggregation mode; the error wraps
// [ErrUnknownAggMode].
func (m AggMode) Validate() error {
	_, err := m.Resolve()
	return err
}

// Resolve returns m, the empty mode as TokenMean, or an error wrapping
// ErrUnknownAggMode.
func (m AggMode) Resolve() (AggMode, error) {
	switch m {
	case "":
		return TokenMean, nil
	case TokenMean, SeqMeanTokenSum, SeqMeanTokenMean, SeqMeanTokenSumNorm:
		return m, nil
	}
	return "", fmt.Errorf("%w: %s (want %s, %s, %s or %s)", ErrUnknownAggMode, quoted(string(m)),
		TokenMean, SeqMeanTokenSum, SeqMeanTokenMean, SeqMeanTokenSumNorm)
}

// MaskedMean returns Σ(x·mask) / (Σmask + 1e-8) over all elements, the
// reference's masked_mean. x and mask have the same shape.
func MaskedMean(x, mask *graph.Node) *graph.Node {
	return MaskedMeanOver(x, mask, graph.ReduceAllSum(mask))
}

// MaskedMeanOver is MaskedMean with the mask total given: the total over a
// whole mini-batch when x is one of its micro-batches.
func MaskedMeanOver(x, mask, maskTotal *graph.Node) *graph.Node {
	return graph.Div(graph.ReduceAllSum(graph.Mul(x, mask)), graph.AddScalar(maskTotal, maskedMeanEpsilon))
}

// AggregateLoss reduces loss [B, L] under mask [B, L] to a scalar the way
// the reference's agg_loss does in mode. Errors wrap [ErrUnknownAggMode]
// or [ErrShape].
func AggregateLoss(loss, mask *graph.Node, mode AggMode) (*graph.Node, error) {
	mode, err := mode.Resolve()
	if err != nil {
		return nil, err
	}
	if err := checkSameShape(loss, mask); err != nil {
		return nil, err
	}
	return AggregateOver(loss, mask, mode, LocalTotals(mask)), nil
}

// Totals holds what an aggregation divides by. For a lone batch they are
// the batch's own (LocalTotals); for the micro-batches of one optimiser
// step they are those of the whole mini-batch, so that the micro-batch
// aggregates add up to the aggregate of the whole mini-batch in every mode.
type Totals struct {
	// Tokens is Σ mask, a scalar.
	Tokens *graph.Node
	// Rows is the number of rows, a scalar.
	Rows *graph.Node
}

// LocalTotals are the totals of mask's own batch.
func LocalTotals(mask *graph.Node) Totals {
	rows := mask.Shape().Dimensions[0]
	return Totals{
		Tokens: graph.ReduceAllSum(mask),
		Rows:   graph.Scalar(mask.Graph(), mask.DType(), rows),
	}
}

// AggregateOver is AggregateLoss over given totals (those of the whole
// mini-batch when loss is one of its micro-batches), for a mode already
// resolved (AggMode.Resolve) and inputs of one shape: it checks neither.
func AggregateOver(loss, mask *graph.Node, mode AggMode, t Totals) *graph.Node {
	switch mode {
	case SeqMeanTokenSum:
		return graph.Div(graph.ReduceAllSum(graph.Mul(loss, mask)), t.Rows)
	case SeqMeanTokenMean:
		rowMeans := graph.Div(graph.ReduceSum(graph.Mul(loss, mask), -1), graph.ReduceSum(mask, -1))
		return graph.Div(graph.ReduceAllSum(rowMeans), t.Rows)
	case SeqMeanTokenSumNorm:
		width := loss.Shape().Dimensions[loss.Rank()-1]
		return graph.DivScalar(graph.ReduceAllSum(graph.Mul(loss, mask)), float64(width))
	default: // TokenMean
		return MaskedMeanOver(loss, mask, t.Tokens)
	}
}
