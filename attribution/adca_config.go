package attribution

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Errors of the ADCA maths. Every error [ComputeADCA], [SuffixSumBroadcast]
// and [ADCAConfig.Validate] return wraps one of them.
var (
	// ErrADCAConfig reports an invalid [ADCAConfig] or a nil backend.
	ErrADCAConfig = errors.New("attribution: invalid ADCA config")
	// ErrADCABatch reports an invalid [ADCABatch] or suffix-sum input:
	// mismatched shapes, non-finite rewards, a step id out of range.
	ErrADCABatch = errors.New("attribution: invalid ADCA batch")
	// ErrADCAGraph reports a failure of GoMLX while building or running a
	// graph (GoMLX panics come back as this error).
	ErrADCAGraph = errors.New("attribution: ADCA graph failed")
)

// ADCAScheme chooses how step labels become per-step process rewards.
type ADCAScheme string

const (
	// ADCADecouple (the reference default, prm_scheme "decouple") gives a
	// GOOD step +FixBase and a BAD one −FixBase, z-scores them within the
	// group and adds the standardised outcome separately (reference §7.4).
	ADCADecouple ADCAScheme = "decouple"
	// ADCAAllocation (prm_scheme "allocation") splits ±1 over the steps of
	// a trajectory with consistency weights, so the raw step rewards of a
	// success sum to +1 and of a failure to −1 (reference §7.7).
	ADCAAllocation ADCAScheme = "allocation"
)

// ORMDistribution chooses where the standardised outcome enters the step
// rewards (orm_distribution).
type ORMDistribution string

const (
	// ORMLastStep (the default) adds the outcome to the last step only;
	// after the suffix sum every step carries it.
	ORMLastStep ORMDistribution = "last_step"
	// ORMAllSteps adds the outcome to every step, so step k carries it
	// K−k times after the suffix sum.
	ORMAllSteps ORMDistribution = "all_steps"
	// ORMOnlyPRM ignores the outcome and alpha: the step reward is the
	// z-scored process reward. Decouple scheme only.
	ORMOnlyPRM ORMDistribution = "only_prm"
)

// Defaults of [ADCAConfig], the reference's adca_grpo defaults.
const (
	DefaultADCAFixBase              = 0.2
	DefaultADCAAlpha                = 0.1
	DefaultADCATotalSteps           = 100
	DefaultADCAPRMSteps             = 100
	DefaultADCAConsistentScale      = 1.0
	DefaultADCAPosUnconsistentScale = 0.2
	DefaultADCANegUnconsistentScale = 0.2
	// ADCAEpsilon is PRMHyper.eps of the reference (not configurable there
	// either): the variance floor of the group z-score, the "constant
	// outcome" threshold of the outcome standardisation and the
	// degenerate-weight threshold of the allocation scheme.
	ADCAEpsilon = 1e-8
)

// ADCAConfig holds the ADCA-GRPO hyper-parameters (the reference's
// attribution_driven_credit_assignment.adca_grpo section plus the three
// allocation scales it reads from the section above). The zero value is
// the reference default: every field's zero means its default, and the
// settings whose zero is meaningful in the reference (alpha, fix_base,
// total_steps, the three allocation scales and the two booleans whose
// default is true) are pointers: nil means the default, a pointer to zero
// is honoured as zero, as the reference honours an explicit 0 (Go 1.26
// writes new(0.0)). Its YAML keys are the reference's adca_grpo section's;
// the allocation scales sit one level up in the reference, in Config.
//
// Global steps, the globalStep arguments of [ADCAConfig.Active],
// [ADCAConfig.AlphaAt] and [ComputeADCA], count RL steps from 1, as the
// reference's global_steps does: the first RL step is 1, so PRMSteps 100
// replaces the advantages of steps 1 to 99 and the decay's progress at the
// first step is 1/TotalSteps.
type ADCAConfig struct {
	// Scheme is "decouple" (default) or "allocation"; matched without
	// regard to case, as the reference lowercases it (prm_scheme).
	Scheme ADCAScheme `yaml:"prm_scheme"`
	// FixBase is the magnitude of a decouple process reward: +FixBase for
	// GOOD, −FixBase for BAD (fix_base). Nil means 0.2; new(0.0) gives no
	// process reward at all, so only the outcome trains. It must not be
	// negative.
	FixBase *float64 `yaml:"fix_base"`
	// Alpha weighs the z-scored process rewards against the outcome
	// (alpha). Nil means 0.1; new(0.0) keeps the outcome alone.
	Alpha *float64 `yaml:"alpha"`
	// AlphaCosineDecay decays Alpha along a half cosine from Alpha to
	// AlphaMin over training (alpha_cosine_decay_enable, default off); see
	// [ADCAConfig.AlphaAt].
	AlphaCosineDecay bool `yaml:"alpha_cosine_decay_enable"`
	// AlphaMin is the floor of the decay (alpha_min, default 0).
	AlphaMin float64 `yaml:"alpha_min"`
	// AlphaProgress fixes the decay progress p in [0, 1] (values outside
	// are clamped) instead of globalStep/TotalSteps (alpha_progress; nil =
	// unset, the default).
	AlphaProgress *float64 `yaml:"alpha_progress,omitempty"`
	// TotalSteps is the length of the decay in global steps (total_steps).
	// Nil means 100; zero or negative means no progress (p = 0), as in the
	// reference.
	TotalSteps *int `yaml:"total_steps"`
	// ORMDistribution is "last_step" (default), "all_steps" or "only_prm"
	// (decouple only).
	ORMDistribution ORMDistribution `yaml:"orm_distribution"`
	// LengthNormalization divides each decouple step reward of a
	// trajectory with K steps by sqrt(K) (enable_length_normalization,
	// default off). The allocation scheme ignores it, as the reference
	// does.
	LengthNormalization bool `yaml:"enable_length_normalization"`
	// BatchNorm z-scores the process rewards within each group
	// (do_batch_norm); nil means true, false lets them enter the fusion
	// raw.
	BatchNorm *bool `yaml:"do_batch_norm"`
	// EqualTrajectoryWeight gives every trajectory of a group the same
	// weight in that z-score whatever its length
	// (equal_trajectory_weight); nil means true, false pools all steps of
	// a group into one sample.
	EqualTrajectoryWeight *bool `yaml:"equal_trajectory_weight"`
	// ConsistentScale is the allocation weight of a step whose label
	// agrees with the outcome: GOOD in a success, BAD in a failure
	// (consistent_scale). Nil means 1.0; new(0.0) gives consistent steps no
	// weight. It must not be negative.
	ConsistentScale *float64 `yaml:"-"`
	// PosUnconsistentScale is the allocation weight of a BAD step in a
	// success (pos_unconsistent_scale). Nil means 0.2; it must not be
	// negative.
	PosUnconsistentScale *float64 `yaml:"-"`
	// NegUnconsistentScale is the allocation weight of a GOOD step in a
	// failure (neg_unconsistent_scale). Nil means 0.2. The reference
	// configures it as −0.2 and takes the absolute value; so does this
	// field.
	NegUnconsistentScale *float64 `yaml:"-"`
	// PRMSteps bounds the global steps during which ADCA replaces the GRPO
	// advantages (prm_steps): those below it, counted from 1; see
	// [ADCAConfig.Active]. Zero means 100; negative means always.
	PRMSteps int `yaml:"prm_steps"`
	// EnableMetric judges the steps and reports the prm/* metrics of
	// judging even when ADCA is off, which leaves the GRPO advantages
	// alone (enable_adca_metric).
	EnableMetric bool `yaml:"enable_adca_metric"`
	// Skip leaves samples unjudged (skip_type, an LLMJudgeConfig.Skip);
	// "" means SkipNone.
	Skip SkipRule `yaml:"skip_type"`
}

// resolvedADCA is an ADCAConfig with every default filled in.
type resolvedADCA struct {
	scheme                                    ADCAScheme
	orm                                       ORMDistribution
	fixBase, alpha, alphaMin                  float64
	decay                                     bool
	progress                                  *float64
	totalSteps                                int
	lengthNorm, batchNorm, equalWeight        bool
	consistent, posUnconsistent, negUnconsist float64
}

// Validate reports whether c is usable; its errors wrap [ErrADCAConfig].
// An unknown scheme or distribution, the allocation scheme with
// "only_prm" (the reference raises ValueError there), a negative or
// non-finite number and an alpha progress that is not finite are errors.
func (c ADCAConfig) Validate() error {
	_, err := c.resolve()
	return err
}

func (c ADCAConfig) resolve() (resolvedADCA, error) {
	r := resolvedADCA{
		scheme:      ADCAScheme(strings.ToLower(string(c.Scheme))),
		orm:         c.ORMDistribution,
		fixBase:     orNil(c.FixBase, DefaultADCAFixBase),
		alpha:       orNil(c.Alpha, DefaultADCAAlpha),
		alphaMin:    c.AlphaMin,
		decay:       c.AlphaCosineDecay,
		progress:    c.AlphaProgress,
		totalSteps:  DefaultADCATotalSteps,
		lengthNorm:  c.LengthNormalization,
		batchNorm:   orNil(c.BatchNorm, true),
		equalWeight: orNil(c.EqualTrajectoryWeight, true),
		consistent:  orNil(c.ConsistentScale, DefaultADCAConsistentScale),
		// The reference reads abs(neg_unconsistent_scale).
		posUnconsistent: orNil(c.PosUnconsistentScale, DefaultADCAPosUnconsistentScale),
		negUnconsist:    math.Abs(orNil(c.NegUnconsistentScale, DefaultADCANegUnconsistentScale)),
	}
	if r.scheme == "" {
		r.scheme = ADCADecouple
	}
	if r.orm == "" {
		r.orm = ORMLastStep
	}
	if c.TotalSteps != nil {
		r.totalSteps = *c.TotalSteps
	}
	bad := func(format string, args ...any) (resolvedADCA, error) {
		return resolvedADCA{}, fmt.Errorf("%w: "+format, append([]any{ErrADCAConfig}, args...)...)
	}
	switch c.Skip {
	case "", SkipNone, SkipSmallAdvantage, SkipAllNegative:
	default:
		return bad("unknown skip_type %q (want %q, %q or %q)", c.Skip, SkipNone, SkipSmallAdvantage, SkipAllNegative)
	}
	switch r.scheme {
	case ADCADecouple, ADCAAllocation:
	default:
		return bad("unknown scheme %q (want %q or %q)", c.Scheme, ADCADecouple, ADCAAllocation)
	}
	switch r.orm {
	case ORMLastStep, ORMAllSteps:
	case ORMOnlyPRM:
		if r.scheme == ADCAAllocation {
			return bad("orm_distribution %q needs the %q scheme, not %q", r.orm, ADCADecouple, r.scheme)
		}
	default:
		return bad("unknown orm_distribution %q (want %q, %q or %q)", r.orm, ORMLastStep, ORMAllSteps, ORMOnlyPRM)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"fix_base", r.fixBase}, {"alpha", r.alpha}, {"alpha_min", r.alphaMin},
		{"consistent_scale", r.consistent}, {"pos_unconsistent_scale", r.posUnconsistent},
		{"neg_unconsistent_scale", r.negUnconsist},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return bad("%s %v is not finite", f.name, f.v)
		}
		if f.v < 0 {
			return bad("%s %v is negative", f.name, f.v)
		}
	}
	if r.progress != nil && (math.IsNaN(*r.progress) || math.IsInf(*r.progress, 0)) {
		return bad("alpha_progress %v is not finite", *r.progress)
	}
	return r, nil
}

// AlphaAt returns the alpha that [ComputeADCA] uses at globalStep (counted
// from 1, see [ADCAConfig]) and the decay progress p. Without
// AlphaCosineDecay it is Alpha and p = 0. With it, p =
// clamp(AlphaProgress, or globalStep/TotalSteps, 0, 1) (TotalSteps <= 0
// gives p = 0) and
//
//	alpha_t = AlphaMin + ½(Alpha − AlphaMin)(1 + cos(πp)),
//
// as in the reference pipeline. Errors wrap [ErrADCAConfig].
func (c ADCAConfig) AlphaAt(globalStep int) (alpha, progress float64, err error) {
	r, err := c.resolve()
	if err != nil {
		return 0, 0, err
	}
	alpha, progress = r.alphaAt(globalStep)
	return alpha, progress, nil
}

func (r resolvedADCA) alphaAt(globalStep int) (alpha, progress float64) {
	if !r.decay {
		return r.alpha, 0
	}
	switch {
	case r.progress != nil:
		progress = *r.progress
	case r.totalSteps > 0:
		progress = float64(globalStep) / float64(r.totalSteps)
	}
	progress = min(max(progress, 0), 1)
	return r.alphaMin + 0.5*(r.alpha-r.alphaMin)*(1+math.Cos(math.Pi*progress)), progress
}

// Active reports whether ADCA replaces the GRPO advantages at globalStep,
// counted from 1 as the reference's global_steps (see [ADCAConfig]):
// globalStep < PRMSteps (default 100), or always when PRMSteps < 0. The
// reference keeps judging steps (and logging their metrics) after that;
// only the overwrite stops.
func (c ADCAConfig) Active(globalStep int) bool {
	switch {
	case c.PRMSteps < 0:
		return true
	case c.PRMSteps == 0:
		return globalStep < DefaultADCAPRMSteps
	}
	return globalStep < c.PRMSteps
}

func orNil[T any](v *T, d T) T {
	if v == nil {
		return d
	}
	return *v
}
