package optim

import (
	"github.com/gomlx/gomlx/pkg/core/graph"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/org/agentevolver/model"
)

// Policy is a differentiable policy network whose weights are variables of
// a GoMLX context. The trainer calls it with the context it trains (the
// policy), a frozen copy (the reference policy) or the live weights without
// gradients (old log-probs), so it must read its weights from the context
// it is given, by name.
type Policy interface {
	// ResponseLogProbs builds the per-token log-probabilities and
	// entropies [B, R] of seq's response tokens. It may panic on shape
	// errors, like every GoMLX graph function; the trainer recovers.
	ResponseLogProbs(ctx *mlctx.Context, seq Sequences) (logProbs, entropy *graph.Node)
	// VocabSize bounds the token ids the policy accepts.
	VocabSize() int
}

// Sequences are the token inputs of a padded batch inside a graph: B rows
// of T columns, the first PromptLen the (left-padded) prompt, the other
// R = T − PromptLen the (right-padded) response.
type Sequences struct {
	InputIDs      *graph.Node // [B, T] int32
	PositionIDs   *graph.Node // [B, T] int32
	AttentionMask *graph.Node // [B, T] bool, true for real tokens
	Targets       *graph.Node // [B, R] int32: the response tokens, InputIDs' last R columns
	PromptLen     int
	// Temperature divides the logits before the softmax (the rollout
	// temperature, as veRL uses when it recomputes log-probs); 1 means
	// none.
	Temperature float64
}

// ModelPolicy adapts a [model.Model] to Policy: its graphs read the
// weights under the names of m.Context() from whatever context they get.
func ModelPolicy(m *model.Model) Policy { return modelPolicy{m} }

type modelPolicy struct{ m *model.Model }

func (p modelPolicy) ResponseLogProbs(ctx *mlctx.Context, seq Sequences) (logProbs, entropy *graph.Node) {
	return p.m.TemperedResponseLogProbs(ctx, seq.InputIDs, seq.PositionIDs, seq.AttentionMask, seq.Targets, seq.PromptLen, seq.Temperature)
}

func (p modelPolicy) VocabSize() int { return p.m.Config().VocabSize }
