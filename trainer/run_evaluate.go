package trainer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/model"
)

// EvalOptions choose what Evaluate measures.
type EvalOptions struct {
	// Checkpoint is a policy directory in Hugging Face format (a
	// checkpoint's model/ directory, or the final/ or reference/ directory
	// of a run). Empty means Config.Model.Path.
	Checkpoint string
	// Split is the task split; empty means Config.Data.ValSplit.
	Split string
	// K is the number of rollouts per task; 0 means Config.Rollout.ValN.
	K int
	// Tasks evaluates the first Tasks tasks of the split; 0 means
	// Config.Data.ValTasks (0 there means all).
	Tasks int
	// Trajectories, when set, receives every episode as one JSON line
	// (agentflow.ReadTrajectories reads them back), ordered by task and
	// rollout.
	Trajectories io.Writer
}

// Evaluate runs K rollouts of every task of a split with a saved policy at
// the validation temperature and returns avg@k, best@k, pass@k and the
// success rate. An unreachable environment or model endpoint is waited for
// up to trainer.outage_timeout, then the evaluation runs again (after that
// Evaluate returns an *OutageError).
func Evaluate(ctx context.Context, cfg Config, opts Options, eo EvalOptions) (stats ValidationStats, err error) {
	if eo.Checkpoint != "" {
		cfg.Model.Path = eo.Checkpoint
		// A policy saved with its tokenizer uses it; otherwise the
		// configured one.
		if _, err := os.Stat(filepath.Join(eo.Checkpoint, "tokenizer.json")); err == nil {
			cfg.Model.Tokenizer = eo.Checkpoint
		}
	}
	if cfg.Model.Tokenizer == TokenizerFromEnv {
		return stats, fmt.Errorf("%w: evaluate a policy directory that holds its learned tokenizer (tokenizer.json)", ErrConfig)
	}
	if cfg.Model.Path == "" {
		return stats, fmt.Errorf("%w: Evaluate needs a checkpoint", ErrConfig)
	}
	if eo.Split != "" {
		cfg.Data.ValSplit = eo.Split
	}
	if eo.K > 0 {
		cfg.Rollout.ValN = eo.K
	}
	if eo.Tasks > 0 {
		cfg.Data.ValTasks = eo.Tasks
	}
	if err := cfg.Validate(); err != nil {
		return stats, err
	}
	r := &run{cfg: cfg, log: opts.Logger, out: opts.Output, hooks: opts.Hooks, valTrajectories: eo.Trajectories,
		reward: opts.Reward, clipModel: opts.ClipModel}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.out == nil {
		r.out = io.Discard
	}
	defer r.close()
	if r.backend, err = model.NewBackend(cfg.Trainer.Backend); err != nil {
		return stats, err
	}
	if r.env, err = openEnvironment(ctx, cfg, opts, r.log); err != nil {
		return stats, err
	}
	if r.tok, r.tmpl, r.pad, err = loadTokenizer(ctx, cfg, r.env, false); err != nil {
		return stats, err
	}
	if r.val, err = r.env.tasks(ctx, cfg, cfg.Data.ValSplit); err != nil {
		return stats, err
	}
	if n := cfg.Data.ValTasks; n > 0 && n < len(r.val) {
		r.val = r.val[:n]
	}
	if r.m, err = newPolicyModel(ctx, cfg, r.tok, r.backend); err != nil {
		return stats, err
	}
	if r.policy, err = newRolloutPolicy(r.m, r.tok, r.tmpl); err != nil {
		return stats, err
	}
	// An outage is waited out as in Fit, up to trainer.outage_timeout.
	return retryOutages(ctx, r.newOutageWaiter(nil), "validation", 0, func(n outageNote) (ValidationStats, error) {
		return r.validate(ctx, 0, n)
	})
}
