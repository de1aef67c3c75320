package trainer

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/fleet"
)

// AdaptersDir is where a run with rollout.engine remote publishes its
// adapters when rollout.remote.adapter_dir is empty: one PEFT directory
// per RL step (step_NNNNNN), the last two kept.
const AdaptersDir = "adapters"

// keptAdapters is how many published adapter directories are kept.
const keptAdapters = 2

// remoteProblems returns what is wrong with rollout.engine and
// rollout.remote, as Validate reports it.
func (c RolloutConfig) remoteProblems(lora LoRAConfig) []string {
	var errs []string
	switch c.Engine {
	case "", EngineLocal:
		return nil
	case EngineRemote:
	default:
		return []string{fmt.Sprintf("rollout.engine %q: want %s or %s", c.Engine, EngineLocal, EngineRemote)}
	}
	rc := c.Remote
	if !lora.Enabled() {
		errs = append(errs, "rollout.engine remote needs actor.lora (r > 0): the servers load the policy's LoRA adapter after every update, and full weights cannot be published cheaply")
	}
	if len(rc.BaseURLs) == 0 {
		errs = append(errs, "rollout.engine remote needs rollout.remote.base_urls (the servers' API roots, such as http://host:8000/v1)")
	}
	seen := map[string]bool{}
	for _, raw := range rc.BaseURLs {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Sprintf("rollout.remote.base_urls: %q is not an http(s) URL", raw))
		}
		if seen[raw] {
			errs = append(errs, fmt.Sprintf("rollout.remote.base_urls: %q listed twice", raw))
		}
		seen[raw] = true
	}
	switch rc.Balance {
	case "", BalanceLeastOutstanding, BalanceRoundRobin:
	default:
		errs = append(errs, fmt.Sprintf("rollout.remote.balance %q: want %s or %s", rc.Balance, BalanceLeastOutstanding, BalanceRoundRobin))
	}
	if rc.AdapterDir != "" && !filepath.IsAbs(rc.AdapterDir) && !filepath.IsLocal(rc.AdapterDir) {
		errs = append(errs, fmt.Sprintf("rollout.remote.adapter_dir %q must be absolute or stay inside trainer.output_dir", rc.AdapterDir))
	}
	if rc.RequestTimeout < 0 || rc.RetryMin < 0 || rc.RetryMax < 0 {
		errs = append(errs, "rollout.remote: request_timeout, retry_min and retry_max must be >= 0")
	}
	return errs
}

// rolloutPolicy returns the chat model the run's rollouts sample from: the
// in-process policy, or with rollout.engine remote the fleet of servers
// behind a remotePolicy.
func (r *run) rolloutPolicy() (llm.ChatModel, error) {
	if r.cfg.Rollout.Engine == EngineRemote {
		return r.newRemotePolicy()
	}
	// With LoRA too: the prefix cache is dropped whenever any variable of
	// the model's context (the adapters included) gets a new value.
	return newRolloutPolicy(r.m, r.tok, r.tmpl)
}

// behaviourLogProbs reports whether stripped samples take their old
// log-probs from their rollout (actor.off_policy_old_log_probs rollout).
// Remote rollouts do too: the servers report the log-probability of every
// sampled token (vLLM's and SGLang's logprobs, which llm/fleet always asks
// for), and those are the behaviour policy's, the prompt with its
// experience included. They must be taken under the sampling temperature,
// as the trainer's are: at a temperature other than 1, start vLLM with
// --logprobs-mode processed_logprobs (its default reports the raw
// log-probs). The servers' kernels and dtype differ from the trainer's,
// so the ratio of a stripped row also carries that noise, which
// rollout/logprob_diff measures on every row; a stripped row whose server
// sent no log-probs falls back to the recomputed ones
// (actor/exp_recomputed_rows).
func (r *run) behaviourLogProbs() bool {
	return r.cfg.Actor.OffPolicyOldLogProbs != OldLogProbsRecompute
}

// remotePolicy samples through a fleet of OpenAI-compatible servers and
// keeps them on the policy's current adapter (fleet.Publisher): before the
// first request of each RL step (and of the validation after it) the
// adapter is exported as a PEFT directory and published, so every request
// of a step names the adapter of the weights the step's update starts
// from. The weights change only in the warm start, which samples nothing,
// and in RL updates, after each of which the run's step count grows; so
// the step is the adapter's version.
type remotePolicy struct {
	*fleet.Publisher

	mu   sync.Mutex
	last fleet.Stats
}

// newRemotePolicy builds the fleet of rollout.remote.
func (r *run) newRemotePolicy() (*remotePolicy, error) {
	rc := r.cfg.Rollout.Remote
	dir := rc.AdapterDir
	if dir == "" {
		dir = AdaptersDir
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.dir, dir)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("trainer: rollout.remote.adapter_dir: %w", err)
	}
	f, err := fleet.New(fleet.Config{
		BaseURLs:       rc.BaseURLs,
		Model:          rc.ModelName,
		APIKey:         os.Getenv(cmp.Or(rc.APIKeyEnv, "OPENAI_API_KEY")),
		Balance:        fleet.Balance(rc.Balance),
		VocabSize:      r.m.Config().VocabSize,
		RequestTimeout: rc.RequestTimeout,
		RetryMin:       rc.RetryMin,
		RetryMax:       rc.RetryMax,
		// Adapters are named <experiment>-step_NNNNNN-<session>-<attempt>:
		// those a crashed earlier session of this run left on the servers
		// are unloaded as the fleet first reaches them.
		OwnedPrefix: r.cfg.Trainer.ExperimentName + "-step_",
		Logger:      r.log,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: rollout.remote: %w", ErrConfig, err)
	}
	pub, err := fleet.NewPublisher(fleet.PublisherConfig{
		Fleet:   f,
		Dir:     dir,
		Prefix:  r.cfg.Trainer.ExperimentName,
		Version: func() int { return r.state.Step },
		Export: func(ctx context.Context, dir string) error {
			return r.m.ExportAdapter(ctx, dir, r.adapterBaseName())
		},
		Keep:   keptAdapters,
		Logger: r.log,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: rollout.remote: %w", ErrConfig, err)
	}
	r.log.Info("trainer: remote rollouts", "servers", len(rc.BaseURLs), "adapter_dir", dir)
	return &remotePolicy{Publisher: pub}, nil
}

// metrics adds the fleet's counters since the last call.
func (p *remotePolicy) metrics(m map[string]float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.Fleet().Stats()
	m["remote/servers_up"] = float64(now.InRotation)
	m["remote/requests"] = float64(now.Requests - p.last.Requests)
	m["remote/failed_requests"] = float64(now.Failed - p.last.Failed)
	m["remote/stale_responses"] = float64(now.Stale - p.last.Stale)
	m["remote/evictions"] = float64(now.Evictions - p.last.Evictions)
	m["time/publish_s"] = p.TakePublishSeconds()
	p.last = now
}

// remoteMetrics adds the remote engine's metrics of the step, if the run
// samples remotely.
func (r *run) remoteMetrics(m map[string]float64) {
	if p, ok := r.policy.(*remotePolicy); ok {
		p.metrics(m)
	}
}
