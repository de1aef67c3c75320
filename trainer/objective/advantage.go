package objective

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// GRPOConfig configures the GRPO outcome advantage. The zero value is the
// reference default.
type GRPOConfig struct {
	// Epsilon is added to the group standard deviation (default 1e-6).
	Epsilon float64
	// NoStdNorm skips the division by the group standard deviation
	// (norm_adv_by_std_in_grpo = false).
	NoStdNorm bool
}

// DefaultGRPOEpsilon is the default of GRPOConfig.Epsilon.
const DefaultGRPOEpsilon = 1e-6

// WithDefaults returns c with its zero Epsilon replaced by
// DefaultGRPOEpsilon, or an error wrapping ErrConfig.
func (c GRPOConfig) WithDefaults() (GRPOConfig, error) {
	if c.Epsilon == 0 {
		c.Epsilon = DefaultGRPOEpsilon
	}
	if !(c.Epsilon > 0) {
		return c, fmt.Errorf("%w: GRPO epsilon %v must be > 0", ErrConfig, c.Epsilon)
	}
	return c, nil
}

// GRPOAdvantages builds the GRPO outcome advantages (reference §8,
// compute_grpo_outcome_advantage). rewards and mask are [B, L] float
// (token_level_rewards and the loss mask); groups is [B] integer, the group
// of each row in [0, numGroups), computed on the host from the uid/task
// grouping (see [GroupIndex]).
//
// The score of a row is the sum of its rewards (masked-out positions
// count). Within a group of n > 1 rows a = (s − mean) / (std + ε) with the
// sample standard deviation (n − 1 denominator); a group of one row has
// mean 0 and std 1, so its advantage is s / (1 + ε), not 0. With NoStdNorm,
// a = s − mean. The result is a broadcast over the row times mask. Group
// indices out of range give undefined results; [ComputeGRPOAdvantages]
// checks them. Errors wrap [ErrConfig] or [ErrShape].
func GRPOAdvantages(rewards, mask, groups *graph.Node, numGroups int, cfg GRPOConfig) (*graph.Node, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkSameShape(rewards, mask); err != nil {
		return nil, err
	}
	rows := rewards.Shape().Dimensions[0]
	if groups == nil || groups.Rank() != 1 || groups.Shape().Dimensions[0] != rows || !groups.DType().IsInt() {
		return nil, fmt.Errorf("%w: groups must be [%d] integers, got %v", ErrShape, rows, shapeOf(groups))
	}
	if numGroups < 1 {
		return nil, fmt.Errorf("%w: numGroups %d < 1", ErrShape, numGroups)
	}
	return grpoAdvantages(rewards, mask, groups, numGroups, cfg), nil
}

func grpoAdvantages(rewards, mask, groups *graph.Node, numGroups int, cfg GRPOConfig) *graph.Node {
	dtype := rewards.DType()
	g := rewards.Graph()
	rows := rewards.Shape().Dimensions[0]
	zero, one := graph.ScalarZero(g, dtype), graph.ScalarOne(g, dtype)
	scores := graph.ReduceSum(rewards, 1) // [B]

	// Per-group sums select with Where rather than multiplying by a one-hot
	// matrix, and per-row lookups use Gather, so a non-finite score of one
	// group cannot leak into the statistics of another.
	member := graph.Equal(graph.OneHot(groups, numGroups, dtype), one) // [B, G]
	groupSum := func(x *graph.Node) *graph.Node {                      // [B] -> [G]
		return graph.ReduceSum(graph.Where(member, graph.BroadcastToDims(graph.InsertAxes(x, -1), rows, numGroups), zero), 0)
	}
	indices := graph.InsertAxes(groups, -1)                                             // [B, 1]
	perRow := func(stat *graph.Node) *graph.Node { return graph.Gather(stat, indices) } // [G] -> [B]

	count := groupSum(graph.OnesLike(scores))
	several := graph.GreaterThan(count, one) // groups of more than one row
	mean := graph.Where(several, graph.Div(groupSum(scores), count), zero)
	centred := graph.Sub(scores, perRow(mean))
	adv := centred
	if !cfg.NoStdNorm {
		variance := graph.Div(groupSum(graph.Square(centred)), graph.Sub(count, one))
		std := graph.Where(several, graph.Sqrt(variance), one)
		adv = graph.Div(centred, graph.AddScalar(perRow(std), cfg.Epsilon))
	}
	return graph.Mul(graph.InsertAxes(adv, -1), mask)
}

// GroupIndex maps per-row group keys (uids, task ids, or structs of them)
// to dense group indices in order of first appearance, for
// [GRPOAdvantages].
func GroupIndex[K comparable](keys []K) (groups []int32, numGroups int) {
	ids := make(map[K]int32, len(keys))
	groups = make([]int32, len(keys))
	for i, k := range keys {
		id, ok := ids[k]
		if !ok {
			id = int32(len(ids))
			ids[k] = id
		}
		groups[i] = id
	}
	return groups, len(ids)
}

func shapeOf(n *graph.Node) any {
	if n == nil {
		return "nil"
	}
	return n.Shape()
}
