package optim

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/org/agentevolver/trainer/objective"
)

// UpdaterConfig configures an [Updater]. Zero values mean the reference
// defaults (reference §6 and §9).
type UpdaterConfig struct {
	// Optimizer configures AdamW.
	Optimizer AdamWConfig
	// Clip configures gradient-norm clipping (default global norm 1.0).
	Clip ClipConfig
	// Loss configures the HET clipped policy loss and the aggregation mode
	// shared by the KL and entropy terms.
	Loss objective.PolicyLossConfig
	// KLType is the KL penalty of the KL loss (default low_var_kl).
	KLType objective.KLType
	// KLCoef weighs the KL loss (kl_loss_coef, default 0.001).
	KLCoef float64
	// NoKLLoss turns the KL loss off (use_kl_loss = false); batches then
	// need no RefLogProbs.
	NoKLLoss bool
	// EntropyCoef weighs the entropy bonus: the objective subtracts
	// EntropyCoef · agg(entropy) (entropy_coeff, default 0: no bonus).
	EntropyCoef float64
	// NoEntropyMetric skips computing the entropy metric when EntropyCoef
	// is 0, which saves a pass over the vocabulary.
	NoEntropyMetric bool
	// PPOEpochs is how many passes Update makes over a batch (default 1).
	PPOEpochs int
	// MiniBatchSize is the number of rows per optimiser step; 0 means the
	// whole batch.
	MiniBatchSize int
	// MicroBatchSize is the number of rows per forward/backward pass;
	// gradients of the micro-batches of a mini-batch are accumulated
	// before one optimiser step. 0 means MiniBatchSize.
	MicroBatchSize int
	// Temperature divides the logits (the rollout temperature, as veRL
	// does); 0 means 1.
	Temperature float64
	// Devices is how many of the backend's devices each optimiser step
	// runs on, data parallel: the rows of every micro-batch are split over
	// them, gradients summed, trainable weights and their AdamW moments
	// sharded (see dataParallel).
	// 0 or 1 means one device. The backend must have that many
	// (gofast:devices=N gives the pure-Go backend virtual ones). A
	// micro-batch whose rows do not divide by Devices is padded with rows
	// outside the loss mask, which add nothing; under seq-mean-token-mean
	// such a row would make the loss NaN (as a real row without mask does),
	// so that mode needs micro-batches of a multiple of Devices rows.
	Devices int
	// Logger receives a debug record per optimiser step; nil discards.
	Logger *slog.Logger
}

// DefaultKLCoef is the default of UpdaterConfig.KLCoef.
const DefaultKLCoef = 0.001

func (c UpdaterConfig) withDefaults() (UpdaterConfig, error) {
	var err error
	if c.Optimizer, err = c.Optimizer.withDefaults(); err != nil {
		return c, err
	}
	if c.Clip, err = c.Clip.withDefaults(); err != nil {
		return c, err
	}
	// The objective's errors match ErrConfig too: they are this
	// configuration's.
	if c.Loss, err = c.Loss.WithDefaults(); err != nil {
		return c, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if c.KLType, err = c.KLType.Resolve(); err != nil {
		return c, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if c.KLCoef == 0 {
		c.KLCoef = DefaultKLCoef
	}
	if c.PPOEpochs == 0 {
		c.PPOEpochs = 1
	}
	if c.Temperature == 0 {
		c.Temperature = 1
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case c.KLCoef < 0 || c.EntropyCoef < 0:
		return c, fmt.Errorf("%w: KLCoef %v and EntropyCoef %v must be >= 0", ErrConfig, c.KLCoef, c.EntropyCoef)
	case c.Devices < 0:
		return c, fmt.Errorf("%w: Devices %d must be >= 0", ErrConfig, c.Devices)
	case c.PPOEpochs < 0 || c.MiniBatchSize < 0 || c.MicroBatchSize < 0:
		return c, fmt.Errorf("%w: PPOEpochs, MiniBatchSize and MicroBatchSize must be >= 0", ErrConfig)
	case !(c.Temperature > 0):
		return c, fmt.Errorf("%w: temperature %v must be > 0", ErrConfig, c.Temperature)
	}
	return c, nil
}

// StepMetrics are the metrics of one optimiser step, each over the whole
// mini-batch (micro-batch contributions are exact parts of it).
type StepMetrics struct {
	Epoch, MiniBatch int     // position of the step in Update
	PGLoss           float64 // the aggregated HET policy loss
	PGClipFrac       float64 // fraction of masked tokens where the PPO clip bound
	PGClipFracLower  float64 // fraction where the dual clip bound
	PPOKL            float64 // masked mean of old − new log-prob
	KLLoss           float64 // aggregated KL penalty to the reference (0 without KL loss)
	KLCoef           float64 // weight of KLLoss in the objective (0 without KL loss)
	Entropy          float64 // aggregated entropy; NaN when not computed
	// OffPGLoss is the mean HET off-policy loss over the tokens of
	// samples whose experience was stripped (off_pg_loss; 0 without
	// any), and ExpTokenShare those tokens' share of the loss tokens.
	OffPGLoss     float64
	ExpTokenShare float64
	GradNorm      float64 // global gradient norm before clipping
	LR            float64 // learning rate of the step
	// Skipped reports a non-finite gradient norm: as veRL does, the step
	// changed nothing.
	Skipped bool
}

// Map returns the metrics under the names the reference logs
// ("actor/pg_loss", "actor/on_pg_clipfrac", ...), leaving out values that
// were not computed.
func (m StepMetrics) Map() map[string]float64 {
	out := map[string]float64{
		"actor/pg_loss":              m.PGLoss,
		"actor/on_pg_clipfrac":       m.PGClipFrac,
		"actor/on_pg_clipfrac_lower": m.PGClipFracLower,
		"actor/ppo_kl":               m.PPOKL,
		"actor/kl_loss":              m.KLLoss,
		"actor/kl_coef":              m.KLCoef,
		"actor/entropy":              m.Entropy,
		"actor/off_pg_loss":          m.OffPGLoss,
		"actor/exp_token_share":      m.ExpTokenShare,
		"actor/grad_norm":            m.GradNorm,
		"actor/lr":                   m.LR,
	}
	for k, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(out, k)
		}
	}
	return out
}

// Updater takes the RL optimiser steps of the policy: PPO epochs over
// mini-batches of a batch, each step accumulating gradients over
// micro-batches, clipping their global norm and applying AdamW to the
// trainable variables of the policy's context. The optimiser state
// (moments, step count, gradient accumulators) is kept in the same context
// under the scope "/trainer". An Updater is not safe for concurrent use,
// nor concurrent with other users of the same context.
type Updater struct {
	cfg    UpdaterConfig
	policy Policy
	steps  *stepper
	old    *logProber
	lr     float64
}

// Positions of the RL micro-batch graph inputs after the token inputs.
const (
	inLossMask = numTokenInputs + iota
	inAdvantages
	inOldLogProbs
	inRefLogProbs // a scalar placeholder without KL loss
	inExpMask     // a scalar placeholder when the batch has none
	inTokenTotal
	inRowTotal
	numRLInputs
)

// NewUpdater returns an Updater for policy, whose weights are the
// variables of vars, running graphs on backend.
func NewUpdater(backend backends.Backend, vars *mlctx.Context, policy Policy, cfg UpdaterConfig) (*Updater, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if backend == nil || vars == nil || policy == nil {
		return nil, fmt.Errorf("%w: backend, vars and policy are required", ErrConfig)
	}
	dp, err := newDataParallel(backend, cfg.Devices)
	if err != nil {
		return nil, err
	}
	u := &Updater{cfg: cfg, policy: policy, lr: cfg.Optimizer.LearningRate}
	u.steps = &stepper{
		dp:       dp,
		backend:  backend,
		vars:     vars,
		loss:     u.microBatchLoss,
		opt:      adamW{cfg: cfg.Optimizer, scope: AdamWScope},
		clip:     cfg.Clip,
		accScope: trainerScope + "/grad_acc",
	}
	u.old = &logProber{backend: backend, vars: vars, policy: policy, temperature: cfg.Temperature, microBatch: cfg.MicroBatchSize}
	return u, nil
}

// SetLearningRate changes the learning rate of the following steps (for a
// schedule); it must be positive.
func (u *Updater) SetLearningRate(lr float64) error {
	if !(lr > 0) {
		return fmt.Errorf("%w: learning rate %v must be > 0", ErrConfig, lr)
	}
	u.lr = lr
	return nil
}

// LogProbs computes the current policy's log-probs of t's response
// columns without gradients: the old log-probs of a batch, recomputed
// before Update as veRL does. An on-policy update ([Updater.OnPolicy])
// does not need them: it computes them in its own forward pass.
func (u *Updater) LogProbs(ctx context.Context, t *Tokens) ([][]float32, error) {
	return u.old.logProbs(ctx, t)
}

// Update takes PPOEpochs passes over b in mini-batches of MiniBatchSize
// rows (in order), one optimiser step per mini-batch, and returns each
// step's metrics. Each micro-batch contributes its exact share of the
// mini-batch objective
//
//	pg_loss − EntropyCoef·agg(entropy) + KLCoef·agg(kl(logp, ref))
//
// where every aggregation divides by totals of the whole mini-batch
// (tokens, rows), so k micro-batches of b rows give the gradient of one
// batch of k·b rows in every aggregation mode. The reference instead
// scales each micro-batch's own aggregate by 1/k, which only agrees when
// the micro-batches hold equally many loss tokens; this implements the
// intended whole-mini-batch objective.
func (u *Updater) Update(ctx context.Context, b *Batch) ([]StepMetrics, error) {
	rows, cols, err := tokenShape(&b.Tokens, u.policy.VocabSize())
	if err != nil {
		return nil, err
	}
	resp := cols - b.PromptLen
	for _, m := range []struct {
		name     string
		m        [][]float32
		required bool
	}{
		{"LossMask", b.LossMask, true},
		{"Advantages", b.Advantages, true},
		{"OldLogProbs", b.OldLogProbs, false},
		{"RefLogProbs", b.RefLogProbs, !u.cfg.NoKLLoss},
		{"ExpMask", b.ExpMask, false},
	} {
		if err := checkResponseMatrix(m.name, m.m, rows, resp, m.required); err != nil {
			return nil, err
		}
	}
	onPolicy := b.OldLogProbs == nil
	if onPolicy && !u.OnPolicy(rows) {
		return nil, fmt.Errorf("%w: OldLogProbs are required unless the update is one step (here %d epochs, mini-batches of %d of %d rows)",
			ErrShape, u.cfg.PPOEpochs, u.cfg.MiniBatchSize, rows)
	}
	mini := u.cfg.MiniBatchSize
	if mini == 0 || mini > rows {
		mini = rows
	}
	micro := u.cfg.MicroBatchSize
	if micro == 0 || micro > mini {
		micro = mini
	}

	// Graph inputs of every micro-batch, grouped by mini-batch; built once
	// and reused by every epoch.
	placeholder := tensors.FromScalar(float32(0))
	var miniBatches [][][]*tensors.Tensor
	for lo := 0; lo < rows; lo += mini {
		hi := min(lo+mini, rows)
		tokenTotal := tensors.FromScalar(float32(maskSum(b.LossMask, lo, hi)))
		rowTotal := tensors.FromScalar(float32(hi - lo))
		var micros [][]*tensors.Tensor
		for mlo := lo; mlo < hi; mlo += micro {
			mhi := min(mlo+micro, hi)
			in := make([]*tensors.Tensor, numRLInputs)
			copy(in, tokenTensors(&b.Tokens, mlo, mhi))
			in[inLossMask] = rowsTensor(b.LossMask, mlo, mhi)
			in[inAdvantages] = rowsTensor(b.Advantages, mlo, mhi)
			in[inOldLogProbs], in[inRefLogProbs], in[inExpMask] = placeholder, placeholder, placeholder
			if !onPolicy {
				in[inOldLogProbs] = rowsTensor(b.OldLogProbs, mlo, mhi)
			}
			if !u.cfg.NoKLLoss {
				in[inRefLogProbs] = rowsTensor(b.RefLogProbs, mlo, mhi)
			}
			if b.ExpMask != nil {
				in[inExpMask] = rowsTensor(b.ExpMask, mlo, mhi)
			}
			in[inTokenTotal], in[inRowTotal] = tokenTotal, rowTotal
			if in, err = u.padForDevices(in, mhi-mlo); err != nil {
				return nil, err
			}
			micros = append(micros, in)
		}
		miniBatches = append(miniBatches, micros)
	}

	var all []StepMetrics
	for epoch := range u.cfg.PPOEpochs {
		for i, micros := range miniBatches {
			res, err := u.steps.step(ctx, micros, u.lr)
			if err != nil {
				return all, fmt.Errorf("trainer: update epoch %d mini-batch %d: %w", epoch, i, err)
			}
			m := StepMetrics{
				Epoch: epoch, MiniBatch: i,
				PGLoss: res.metrics[0], PGClipFrac: res.metrics[1], PGClipFracLower: res.metrics[2], PPOKL: res.metrics[3],
				KLLoss: res.metrics[4], Entropy: res.metrics[5], KLCoef: u.klCoef(),
				ExpTokenShare: res.metrics[7],
				GradNorm:      res.gradNorm, LR: u.lr, Skipped: res.skipped,
			}
			if m.ExpTokenShare > 0 {
				m.OffPGLoss = res.metrics[6] / m.ExpTokenShare
			}
			if !u.entropyComputed() {
				m.Entropy = math.NaN()
			}
			if m.Skipped {
				u.cfg.Logger.Warn("trainer: non-finite gradient norm, step skipped", "epoch", epoch, "mini_batch", i, "grad_norm", m.GradNorm)
			}
			u.cfg.Logger.Debug("trainer: update step", "epoch", epoch, "mini_batch", i,
				"pg_loss", m.PGLoss, "grad_norm", m.GradNorm, "kl_loss", m.KLLoss, "lr", m.LR)
			all = append(all, m)
			if onPolicy {
				b.OldLogProbs = stepLogProbs(res.perRow, micro, rows)
			}
		}
	}
	return all, nil
}

// OnPolicy reports whether Update over a batch of rows takes a single
// optimiser step (one epoch, one mini-batch): every forward pass of the
// update then runs on the weights the old log-probs are computed with, so
// the batch needs none (see Batch.OldLogProbs).
func (u *Updater) OnPolicy(rows int) bool {
	return u.cfg.PPOEpochs == 1 && (u.cfg.MiniBatchSize == 0 || u.cfg.MiniBatchSize >= rows)
}

// stepLogProbs joins the log-probs of a step's micro-batches of micro rows
// each (the last may be shorter; rows padded for the devices dropped).
func stepLogProbs(perRow [][][]float32, micro, rows int) [][]float32 {
	out := make([][]float32, 0, rows)
	for i, m := range perRow {
		n := min(micro, rows-i*micro)
		out = append(out, m[:n]...)
	}
	return out
}

// padForDevices pads the rows of micro-batch inputs in up to a multiple
// of the devices: copies of the first row outside the loss mask (mask,
// advantages and experience mask zero), so they add nothing to the loss,
// its gradient or any metric (the totals count real rows only).
func (u *Updater) padForDevices(in []*tensors.Tensor, rows int) ([]*tensors.Tensor, error) {
	n := max(u.cfg.Devices, 1)
	pad := (n - rows%n) % n
	if pad == 0 {
		return in, nil
	}
	if u.cfg.Loss.AggMode == objective.SeqMeanTokenMean {
		return nil, fmt.Errorf("%w: a micro-batch of %d rows over %d devices needs padding rows, which have no loss mask and make seq-mean-token-mean NaN: use micro-batches of a multiple of %d rows",
			ErrConfig, rows, n, n)
	}
	out := make([]*tensors.Tensor, len(in))
	for i, t := range in {
		if t.Rank() == 0 {
			out[i] = t
			continue
		}
		zero := i == inLossMask || i == inAdvantages || i == inExpMask
		p, err := padRows(t, pad, zero)
		if err != nil {
			return nil, fmt.Errorf("%w: input %d: %w", ErrShape, i, err)
		}
		out[i] = p
	}
	return out, nil
}

func (u *Updater) klCoef() float64 {
	if u.cfg.NoKLLoss {
		return 0
	}
	return u.cfg.KLCoef
}

func (u *Updater) entropyComputed() bool { return u.cfg.EntropyCoef != 0 || !u.cfg.NoEntropyMetric }

// microBatchLoss is the RL lossFunc: inputs as laid out by Update;
// metrics pg_loss, clipfrac, clipfrac_lower, ppo_kl, kl_loss, entropy;
// per row, when the update is on-policy (no old log-probs given), the
// log-probs of the forward pass, before the step, which Update hands back
// as the old ones.
func (u *Updater) microBatchLoss(ctx *mlctx.Context, in []*graph.Node) (*graph.Node, []*graph.Node, *graph.Node) {
	logp, entropy := u.policy.ResponseLogProbs(ctx, sequencesOf(in, u.cfg.Temperature))
	mask := in[inLossMask]
	t := objective.Totals{Tokens: in[inTokenTotal], Rows: in[inRowTotal]}
	old := in[inOldLogProbs]
	var perRow *graph.Node
	if old.IsScalar() {
		// On-policy (see Batch.OldLogProbs): the weights are those the
		// old log-probs would be computed with, so they are these.
		old = graph.StopGradient(logp)
		perRow = old
	}
	pin := objective.PolicyLossInputs{OldLogProbs: old, LogProbs: logp, Advantages: in[inAdvantages], Mask: mask}
	if !in[inExpMask].IsScalar() {
		pin.ExpMask = in[inExpMask]
	}
	pg := objective.PolicyLossOver(pin, u.cfg.Loss, t)
	loss := pg.Loss
	// Distinct zero nodes: a graph cannot return one node twice.
	klLoss, entropyLoss := graph.ScalarZero(loss.Graph(), loss.DType()), graph.ScalarZero(loss.Graph(), loss.DType())
	if !u.cfg.NoKLLoss {
		kl, err := objective.KLPenalty(logp, in[inRefLogProbs], u.cfg.KLType)
		if err != nil {
			// Not reached: the type was resolved and the shapes are the
			// graph's own. A graph builder reports by panicking, which
			// the step's execution recovers as an ErrGraph error.
			panic(err)
		}
		klLoss = objective.AggregateOver(kl, mask, u.cfg.Loss.AggMode, t)
		loss = graph.Add(loss, graph.MulScalar(klLoss, u.cfg.KLCoef))
	}
	if u.entropyComputed() {
		if u.cfg.EntropyCoef == 0 {
			entropy = graph.StopGradient(entropy)
		}
		entropyLoss = objective.AggregateOver(entropy, mask, u.cfg.Loss.AggMode, t)
		if u.cfg.EntropyCoef != 0 {
			loss = graph.Sub(loss, graph.MulScalar(entropyLoss, u.cfg.EntropyCoef))
		}
	}
	// The off-policy loss and token share, as parts over the mini-batch's
	// loss tokens that sum exactly across micro-batches; OffPGLoss is
	// their quotient.
	offPart, expPart := graph.ScalarZero(loss.Graph(), loss.DType()), graph.ScalarZero(loss.Graph(), loss.DType())
	if pin.ExpMask != nil {
		expTokens := graph.Mul(pin.ExpMask, mask)
		offPart = objective.MaskedMeanOver(graph.StopGradient(pg.OffTokenLosses), expTokens, t.Tokens)
		expPart = objective.MaskedMeanOver(graph.OnesLike(mask), expTokens, t.Tokens)
	}
	metrics := []*graph.Node{pg.Loss, pg.ClipFrac, pg.ClipFracLower, pg.PPOKL, klLoss, entropyLoss, offPart, expPart}
	return loss, metrics, perRow
}

// trainerScope is the scope of the variables an Updater keeps beside the
// model's (optimiser state, gradient accumulators); a Reference copies
// everything else.
const trainerScope = "/trainer"

// AdamWScope is the scope of an Updater's AdamW state: its step count
// (step) and the moments m/ and v/, each mirroring the path of a trainable
// weight. A checkpoint taken after RL steps holds them.
const AdamWScope = trainerScope + "/adamw"

// IsState reports whether a variable of the given scope is an Updater's
// own state (optimiser moments, step counts, gradient accumulators) rather
// than the model's: a checkpoint restores it as not trainable, and a
// Reference leaves it out.
func IsState(scope string) bool { return inScope(scope, trainerScope) }

// inScope reports whether scope is base or lies below it.
func inScope(scope, base string) bool {
	return scope == base || strings.HasPrefix(scope, base+mlctx.ScopeSeparator)
}
