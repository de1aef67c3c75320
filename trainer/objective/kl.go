package objective

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// KLType selects the per-token KL penalty between the policy and the
// reference policy (the reference's kl_penalty). The zero value means
// [KLLowVar], the reference default for the KL loss.
type KLType string

// The KL penalty types, with the reference's names; k1, k2 and k3 are
// accepted as aliases of kl, mse and low_var_kl.
const (
	// KLDiff is logp − logp_ref (alias "k1").
	KLDiff KLType = "kl"
	// KLAbs is |logp − logp_ref|.
	KLAbs KLType = "abs"
	// KLSquare is ½(logp − logp_ref)² (alias "k2").
	KLSquare KLType = "mse"
	// KLLowVar is the low-variance estimator (alias "k3"):
	// k = clamp(logp_ref − logp, −20, 20); clamp(exp(k) − k − 1, −10, 10).
	KLLowVar KLType = "low_var_kl"
)

// Validate reports whether k names a KL penalty type; the error wraps
// [ErrUnknownKLType]. "full" is not supported, as in the reference.
func (k KLType) Validate() error {
	_, err := k.Resolve()
	return err
}

// Resolve returns k with its aliases and the empty type resolved, or an
// error wrapping ErrUnknownKLType.
func (k KLType) Resolve() (KLType, error) {
	switch k {
	case "", KLLowVar, "k3":
		return KLLowVar, nil
	case KLDiff, "k1":
		return KLDiff, nil
	case KLAbs:
		return KLAbs, nil
	case KLSquare, "k2":
		return KLSquare, nil
	}
	return "", fmt.Errorf("%w: %s (want kl/k1, abs, mse/k2 or low_var_kl/k3)", ErrUnknownKLType, quoted(string(k)))
}

// KLPenalty returns the per-token KL penalty of type kind between logProb
// and refLogProb (same shape). The clamps of low_var_kl are built from Max
// and Min, so gradients stop outside the clamp range as with torch.clamp.
// Errors wrap [ErrUnknownKLType] or [ErrShape].
func KLPenalty(logProb, refLogProb *graph.Node, kind KLType) (*graph.Node, error) {
	kind, err := kind.Resolve()
	if err != nil {
		return nil, err
	}
	if err := checkSameShape(logProb, refLogProb); err != nil {
		return nil, err
	}
	return klPenalty(logProb, refLogProb, kind), nil
}

func klPenalty(logProb, refLogProb *graph.Node, kind KLType) *graph.Node {
	switch kind {
	case KLDiff:
		return graph.Sub(logProb, refLogProb)
	case KLAbs:
		return graph.Abs(graph.Sub(logProb, refLogProb))
	case KLSquare:
		return graph.MulScalar(graph.Square(graph.Sub(logProb, refLogProb)), 0.5)
	default: // KLLowVar
		k := clamp(graph.Sub(refLogProb, logProb), -20, 20)
		return clamp(graph.SubScalar(graph.Sub(graph.Exp(k), k), 1), -10, 10)
	}
}

// clamp limits x to [lo, hi] with Max and Min, which (unlike graph.Clip)
// have gradients.
func clamp(x *graph.Node, lo, hi float64) *graph.Node {
	return graph.MinScalar(graph.MaxScalar(x, lo), hi)
}
