package optim

import (
	"context"
	"fmt"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/org/agentevolver/internal/graphrun"
)

// logProber computes a policy's response log-probs from the variables of a
// context, forward only. Entropies are not computed: leaving them out of
// the outputs lets the backend skip a pass over the vocabulary.
type logProber struct {
	backend     backends.Backend
	vars        *mlctx.Context
	policy      Policy
	temperature float64
	microBatch  int // rows per graph run; 0 means all
	exec        *mlctx.Exec
}

func (p *logProber) logProbs(ctx context.Context, t *Tokens) (logp [][]float32, err error) {
	rows, _, err := tokenShape(t, p.policy.VocabSize())
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			logp, err = nil, fmt.Errorf("%w: %v", ErrGraph, r)
		}
	}()
	if p.exec == nil {
		temperature := p.temperature
		p.exec, err = mlctx.NewExec(p.backend, p.vars, func(ctx *mlctx.Context, in []*graph.Node) *graph.Node {
			logp, _ := p.policy.ResponseLogProbs(ctx, sequencesOf(in, temperature))
			return graph.StopGradient(logp)
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrGraph, err)
		}
	}
	step := p.microBatch
	if step <= 0 {
		step = rows
	}
	for lo := 0; lo < rows; lo += step {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		in := tokenTensors(t, lo, min(lo+step, rows))
		outs, err := p.exec.Exec(in[0], in[1], in[2], in[3])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrGraph, err)
		}
		l, err := graphrun.TensorMatrix[float32](outs[0])
		outs[0].FinalizeAll()
		if err != nil {
			return nil, err
		}
		logp = append(logp, l...)
	}
	return logp, nil
}

// Reference is the frozen reference policy: a copy of the policy's
// trainable variables, taken when it is made, whose log-probs are computed
// without gradients and which no optimiser step changes. The KL loss
// compares the policy with it. It is not safe for concurrent use.
type Reference struct {
	prober logProber
}

// ReferenceConfig configures a [Reference]. The zero value is useful.
type ReferenceConfig struct {
	// Temperature divides the logits (the rollout temperature); 0 means 1.
	Temperature float64
	// MicroBatchSize is the number of rows per forward pass; 0 means the
	// whole batch.
	MicroBatchSize int
}

// NewContextReference returns a Reference that computes log-probs with the
// variables of vars as they are, copying nothing: vars must stay frozen for
// as long as the Reference is used (a LoRA policy's context seen with its
// adapters off, model.AdaptersOff, is: the optimiser never changes the
// base). NewReference copies the policy's variables instead.
func NewContextReference(backend backends.Backend, vars *mlctx.Context, policy Policy, cfg ReferenceConfig) (*Reference, error) {
	cfg, err := referenceConfig(backend, vars, policy, cfg)
	if err != nil {
		return nil, err
	}
	return newReference(backend, vars, policy, cfg), nil
}

// referenceConfig checks the arguments of NewReference and
// NewContextReference and returns cfg with its defaults.
func referenceConfig(backend backends.Backend, vars *mlctx.Context, policy Policy, cfg ReferenceConfig) (ReferenceConfig, error) {
	if backend == nil || vars == nil || policy == nil {
		return cfg, fmt.Errorf("%w: backend, policy variables and policy are required", ErrConfig)
	}
	if cfg.Temperature == 0 {
		cfg.Temperature = 1
	}
	if !(cfg.Temperature > 0) || cfg.MicroBatchSize < 0 {
		return cfg, fmt.Errorf("%w: temperature %v, micro-batch size %d", ErrConfig, cfg.Temperature, cfg.MicroBatchSize)
	}
	return cfg, nil
}

// newReference is a Reference reading vars, with cfg's defaults set.
func newReference(backend backends.Backend, vars *mlctx.Context, policy Policy, cfg ReferenceConfig) *Reference {
	return &Reference{prober: logProber{
		backend: backend, vars: vars, policy: policy,
		temperature: cfg.Temperature, microBatch: cfg.MicroBatchSize,
	}}
}

// NewReference copies the model variables of policyVars (initialising
// them first if they have no values yet) into a new context of frozen
// variables, for policy's graphs run on backend. Model variables are all
// but the trainer's own (the optimiser state and gradient accumulators an
// Updater keeps under "/trainer"), trainable or not, so a policy whose
// base weights are frozen (LoRA) is copied whole: base and adapters.
func NewReference(backend backends.Backend, policyVars *mlctx.Context, policy Policy, cfg ReferenceConfig) (ref *Reference, err error) {
	if cfg, err = referenceConfig(backend, policyVars, policy, cfg); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			ref, err = nil, fmt.Errorf("%w: %v", ErrGraph, r)
		}
	}()
	if policyVars.NeedsInitialization() {
		if err := policyVars.InitializeVariables(backend, nil); err != nil {
			return nil, fmt.Errorf("%w: initialising the policy: %w", ErrGraph, err)
		}
	}
	frozen := mlctx.New()
	n := 0
	for v := range policyVars.IterVariables() {
		if inScope(v.Scope(), trainerScope) {
			continue
		}
		clone, err := v.CloneToContext(frozen)
		if err != nil {
			return nil, fmt.Errorf("%w: copying %s: %w", ErrGraph, v.ScopeAndName(), err)
		}
		clone.SetTrainable(false)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: the policy context has no model variables", ErrConfig)
	}
	return newReference(backend, frozen, policy, cfg), nil
}

// LogProbs computes the reference policy's log-probs of t's response
// columns.
func (r *Reference) LogProbs(ctx context.Context, t *Tokens) ([][]float32, error) {
	return r.prober.logProbs(ctx, t)
}
