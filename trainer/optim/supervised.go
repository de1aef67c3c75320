package optim

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/org/agentevolver"
	"github.com/org/agentevolver/trainer/objective"
)

// SupervisedConfig configures a [Supervised] trainer. Zero values mean the
// same defaults as UpdaterConfig.
type SupervisedConfig struct {
	// Optimizer configures AdamW; warm starts usually want a larger
	// learning rate than the RL default.
	Optimizer AdamWConfig
	// Clip configures gradient-norm clipping (default global norm 1.0).
	Clip ClipConfig
	// MicroBatchSize is the number of rows per forward/backward pass; a
	// Step accumulates the gradients of all its micro-batches. 0 means
	// the whole batch.
	MicroBatchSize int
	// Logger receives a debug record per step; nil discards.
	Logger *slog.Logger
}

// SupervisedBatch is a batch of demonstrations: tokens and a B x R mask
// of the response tokens to imitate.
type SupervisedBatch struct {
	Tokens
	LossMask [][]float32
}

// SupervisedMetrics are the metrics of one supervised step.
type SupervisedMetrics struct {
	Loss     float64 // token-mean negative log-likelihood under the mask
	Tokens   float64 // number of masked tokens
	GradNorm float64 // global gradient norm before clipping
	LR       float64
	Skipped  bool // non-finite gradient norm: nothing changed
}

// Supervised takes masked cross-entropy (behaviour cloning) steps of the
// policy, for warm starts from demonstrations, with AdamW, clipping and
// gradient accumulation like [Updater]. Its optimiser state is separate
// from the Updater's (scope "/trainer/sft"). It is not safe for concurrent
// use.
type Supervised struct {
	cfg    SupervisedConfig
	policy Policy
	steps  *stepper
	lr     float64
}

// NewSupervised returns a Supervised trainer for policy, whose weights are
// the variables of vars.
func NewSupervised(backend backends.Backend, vars *mlctx.Context, policy Policy, cfg SupervisedConfig) (*Supervised, error) {
	var err error
	if cfg.Optimizer, err = cfg.Optimizer.withDefaults(); err != nil {
		return nil, err
	}
	if cfg.Clip, err = cfg.Clip.withDefaults(); err != nil {
		return nil, err
	}
	if cfg.MicroBatchSize < 0 {
		return nil, fmt.Errorf("%w: MicroBatchSize %d < 0", ErrConfig, cfg.MicroBatchSize)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if backend == nil || vars == nil || policy == nil {
		return nil, fmt.Errorf("%w: backend, vars and policy are required", ErrConfig)
	}
	s := &Supervised{cfg: cfg, policy: policy, lr: cfg.Optimizer.LearningRate}
	s.steps = &stepper{
		backend:  backend,
		vars:     vars,
		loss:     s.microBatchLoss,
		opt:      adamW{cfg: cfg.Optimizer, scope: "/trainer/sft/adamw"},
		clip:     cfg.Clip,
		accScope: "/trainer/sft/grad_acc",
	}
	return s, nil
}

// Positions of the supervised micro-batch graph inputs after the tokens.
const (
	inSFTLossMask = numTokenInputs + iota
	inSFTTokenTotal
	numSFTInputs
)

// Step takes one optimiser step on b: the gradient of the token-mean
// negative log-likelihood of the masked response tokens, over the whole
// batch.
func (s *Supervised) Step(ctx context.Context, b *SupervisedBatch) (SupervisedMetrics, error) {
	rows, cols, err := tokenShape(&b.Tokens, s.policy.VocabSize())
	if err != nil {
		return SupervisedMetrics{}, err
	}
	if err := checkResponseMatrix("LossMask", b.LossMask, rows, cols-b.PromptLen, true); err != nil {
		return SupervisedMetrics{}, err
	}
	micro := s.cfg.MicroBatchSize
	if micro == 0 || micro > rows {
		micro = rows
	}
	count := maskSum(b.LossMask, 0, rows)
	total := tensors.FromScalar(float32(count))
	var micros [][]*tensors.Tensor
	for lo := 0; lo < rows; lo += micro {
		hi := min(lo+micro, rows)
		in := make([]*tensors.Tensor, numSFTInputs)
		copy(in, tokenTensors(&b.Tokens, lo, hi))
		in[inSFTLossMask] = rowsTensor(b.LossMask, lo, hi)
		in[inSFTTokenTotal] = total
		micros = append(micros, in)
	}
	res, err := s.steps.step(ctx, micros, s.lr)
	if err != nil {
		return SupervisedMetrics{}, fmt.Errorf("trainer: supervised step: %w", err)
	}
	m := SupervisedMetrics{Loss: res.metrics[0], Tokens: count, GradNorm: res.gradNorm, LR: s.lr, Skipped: res.skipped}
	s.cfg.Logger.Debug("trainer: supervised step", "loss", m.Loss, "tokens", m.Tokens, "grad_norm", m.GradNorm, "lr", m.LR)
	return m, nil
}

// SetLearningRate changes the learning rate of the following steps; it
// must be positive.
func (s *Supervised) SetLearningRate(lr float64) error {
	if !(lr > 0) {
		return fmt.Errorf("%w: learning rate %v must be > 0", ErrConfig, lr)
	}
	s.lr = lr
	return nil
}

func (s *Supervised) microBatchLoss(ctx *mlctx.Context, in []*graph.Node) (*graph.Node, []*graph.Node, *graph.Node) {
	logp, _ := s.policy.ResponseLogProbs(ctx, sequencesOf(in, 1))
	nll := objective.MaskedMeanOver(graph.Neg(logp), in[inSFTLossMask], in[inSFTTokenTotal])
	return nll, []*graph.Node{nll}, nil
}

// SupervisedBatchOf lays demonstration samples out as one supervised
// batch, as the warm start does: prompts left-padded and responses
// right-padded with padID to bucketed widths, the loss mask on each
// sample's own response tokens (Sample.ResponseLossMask), and the rows
// rounded up to a bucket size with filler rows that carry no loss. Every
// sample needs a non-empty prompt and response.
func SupervisedBatchOf(samples []agentevolver.Sample, padID int) (*SupervisedBatch, error) {
	p, err := PadSamples(samples, padID)
	if err != nil {
		return nil, err
	}
	return &SupervisedBatch{Tokens: p.Tokens, LossMask: p.LossMask}, nil
}
