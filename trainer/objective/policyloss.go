package objective

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// PolicyLossConfig configures the HET on/off-policy clipped loss. Zero
// values mean the reference's training defaults (reference §9).
type PolicyLossConfig struct {
	// ClipLow is the lower clip range: ratios below 1−ClipLow are clipped
	// (clip_ratio_low, default 0.2).
	ClipLow float64
	// ClipHigh is the upper clip range of on-policy tokens: ratios above
	// 1+ClipHigh are clipped (clip_ratio_high, default 0.28).
	ClipHigh float64
	// OffPolicyClipHigh is the upper clip range of tokens rolled out with
	// experience that was stripped for training (off_cliprange_high,
	// default 0.6).
	OffPolicyClipHigh float64
	// DualClip is the dual-clip constant c that caps the loss of
	// negative-advantage tokens at c·|A| (clip_ratio_c, default 3.0). It
	// must be greater than 1.
	DualClip float64
	// AggMode aggregates the per-token losses (loss_agg_mode, default
	// token-mean).
	AggMode AggMode
}

// Default values of PolicyLossConfig.
const (
	DefaultClipLow           = 0.2
	DefaultClipHigh          = 0.28
	DefaultOffPolicyClipHigh = 0.6
	DefaultDualClip          = 3.0
)

// WithDefaults returns c with zero values replaced by defaults, or an error
// wrapping ErrConfig or ErrUnknownAggMode.
func (c PolicyLossConfig) WithDefaults() (PolicyLossConfig, error) {
	orDefault := func(v, d float64) float64 {
		if v == 0 {
			return d
		}
		return v
	}
	c.ClipLow = orDefault(c.ClipLow, DefaultClipLow)
	c.ClipHigh = orDefault(c.ClipHigh, DefaultClipHigh)
	c.OffPolicyClipHigh = orDefault(c.OffPolicyClipHigh, DefaultOffPolicyClipHigh)
	c.DualClip = orDefault(c.DualClip, DefaultDualClip)
	var err error
	if c.AggMode, err = c.AggMode.Resolve(); err != nil {
		return c, err
	}
	switch {
	case c.ClipLow < 0 || c.ClipLow >= 1:
		return c, fmt.Errorf("%w: ClipLow %v not in [0, 1)", ErrConfig, c.ClipLow)
	case c.ClipHigh < 0:
		return c, fmt.Errorf("%w: ClipHigh %v < 0", ErrConfig, c.ClipHigh)
	case c.OffPolicyClipHigh < 0:
		return c, fmt.Errorf("%w: OffPolicyClipHigh %v < 0", ErrConfig, c.OffPolicyClipHigh)
	case !(c.DualClip > 1):
		return c, fmt.Errorf("%w: DualClip %v must be > 1", ErrConfig, c.DualClip)
	}
	return c, nil
}

// PolicyLossInputs are the per-token inputs of [PolicyLoss], all [B, L]
// float nodes of the response part.
type PolicyLossInputs struct {
	OldLogProbs *graph.Node // log-probs of the policy that rolled out (recomputed before the update)
	LogProbs    *graph.Node // log-probs of the policy being trained
	Advantages  *graph.Node
	Mask        *graph.Node // loss mask: 1 where the token is the policy's own and trains
	// ExpMask is 1 where the sample was rolled out with experience that was
	// stripped for training (off-policy tokens); nil means all on-policy.
	ExpMask *graph.Node
}

// PolicyLossOutputs are the results of [PolicyLoss], named after the
// entries of the reference's returned dict.
type PolicyLossOutputs struct {
	Loss           *graph.Node // pg_loss: TokenLosses aggregated under Mask
	TokenLosses    *graph.Node // pg_losses: OffTokenLosses·E + OnTokenLosses·(1−E)
	OnTokenLosses  *graph.Node // on_pg_losses: clipped with ClipLow/ClipHigh
	OffTokenLosses *graph.Node // off_pg_losses: clipped with ClipLow/OffPolicyClipHigh (nil without ExpMask)
	OnLoss         *graph.Node // on_pg_loss: masked mean of OnTokenLosses under (1−E)·Mask
	OffLoss        *graph.Node // off_pg_loss: masked mean of OffTokenLosses under E·Mask, NaN → 0 (nil without ExpMask)
	ClipFrac       *graph.Node // on_pg_clipfrac: fraction of masked tokens where clipping bound
	ClipFracLower  *graph.Node // on_pg_clipfrac_lower: fraction where the dual clip bound
	PPOKL          *graph.Node // ppo_kl: masked mean of old − new log-prob
}

// PolicyLoss builds the HET on/off-policy clipped surrogate loss with dual
// clip (reference §6, het_compute_token_on_off_policy_loss). As in the
// reference the log-ratio is not clamped. Errors wrap [ErrConfig],
// [ErrUnknownAggMode] or [ErrShape].
func PolicyLoss(in PolicyLossInputs, cfg PolicyLossConfig) (PolicyLossOutputs, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return PolicyLossOutputs{}, err
	}
	nodes := []*graph.Node{in.OldLogProbs, in.LogProbs, in.Advantages, in.Mask}
	if in.ExpMask != nil {
		nodes = append(nodes, in.ExpMask)
	}
	if err := checkSameShape(nodes...); err != nil {
		return PolicyLossOutputs{}, err
	}
	return policyLoss(in, cfg, LocalTotals(in.Mask), true), nil
}

// PolicyLossOver is PolicyLoss over given aggregation totals (those of the
// whole mini-batch when in is one of its micro-batches), for a cfg that
// already has its defaults (PolicyLossConfig.WithDefaults) and inputs of
// one shape: it checks neither. It skips the outputs an update step does
// not report (OnLoss, OffLoss).
func PolicyLossOver(in PolicyLossInputs, cfg PolicyLossConfig, t Totals) PolicyLossOutputs {
	return policyLoss(in, cfg, t, false)
}

// policyLoss implements PolicyLoss and PolicyLossOver; without details it
// skips OnLoss and OffLoss.
func policyLoss(in PolicyLossInputs, cfg PolicyLossConfig, t Totals, details bool) PolicyLossOutputs {
	adv, mask := in.Advantages, in.Mask
	delta := graph.Sub(in.LogProbs, in.OldLogProbs)
	ratio := graph.Exp(delta)
	negAdv := graph.Neg(adv)
	negative := graph.LessThan(adv, graph.ScalarZero(adv.Graph(), adv.DType()))
	dual := graph.MulScalar(negAdv, cfg.DualClip) // l3

	// surrogate returns the dual-clipped loss, the PPO-clipped loss before
	// the dual clip (l), and whether clipping bound (l2 > l1).
	surrogate := func(low, high float64) (loss, clipped, clipBound *graph.Node) {
		unclipped := graph.Mul(negAdv, ratio)                          // l1
		ratioClipped := graph.Mul(negAdv, clamp(ratio, 1-low, 1+high)) // l2
		clipped = graph.Max(unclipped, ratioClipped)                   // l
		loss = graph.Where(negative, graph.Min(dual, clipped), clipped)
		return loss, clipped, graph.GreaterThan(ratioClipped, unclipped)
	}
	asFloat := func(b *graph.Node) *graph.Node { return graph.ConvertDType(b, mask.DType()) }

	var out PolicyLossOutputs
	on, onClipped, onClipBound := surrogate(cfg.ClipLow, cfg.ClipHigh)
	out.OnTokenLosses = on
	out.TokenLosses = on
	out.ClipFrac = MaskedMeanOver(asFloat(onClipBound), mask, t.Tokens)
	out.ClipFracLower = MaskedMeanOver(asFloat(graph.LogicalAnd(graph.GreaterThan(onClipped, dual), negative)), mask, t.Tokens)
	out.PPOKL = MaskedMeanOver(graph.Neg(delta), mask, t.Tokens)

	onMask := mask
	if in.ExpMask != nil {
		off, _, _ := surrogate(cfg.ClipLow, cfg.OffPolicyClipHigh)
		out.OffTokenLosses = off
		out.TokenLosses = graph.Add(graph.Mul(off, in.ExpMask), graph.Mul(on, graph.OneMinus(in.ExpMask)))
		onMask = graph.Mul(graph.OneMinus(in.ExpMask), mask)
		if details {
			offLoss := MaskedMean(off, graph.Mul(in.ExpMask, mask))
			out.OffLoss = graph.Where(graph.IsNaN(offLoss), graph.ZerosLike(offLoss), offLoss)
		}
	}
	if details {
		out.OnLoss = MaskedMean(on, onMask)
	}
	out.Loss = AggregateOver(out.TokenLosses, mask, cfg.AggMode, t)
	return out
}
