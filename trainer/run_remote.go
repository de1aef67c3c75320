package trainer

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/org/agentevolver"
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
// keeps them on the policy's current adapter: before the first request of
// each RL step (and of the validation after it) it writes the adapter as
// a PEFT directory and publishes it, so every request of a step names the
// adapter of the weights the step's update starts from. The weights change
// only in the warm start, which samples nothing, and in RL updates, after
// each of which the run's step count grows; so the step is the adapter's
// version.
type remotePolicy struct {
	r       *run
	fleet   *fleet.Fleet
	dir     string // absolute: the servers read it
	session string // distinguishes this process's adapters from an earlier session's

	mu        sync.Mutex
	published int // the step whose adapter the fleet serves; -1 before the first
	attempt   int // publishes so far, so that a retried step loads under a new name
	publishS  float64
	last      fleet.Stats
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
	var nonce [4]byte
	_, _ = rand.Read(nonce[:])
	r.log.Info("trainer: remote rollouts", "servers", len(rc.BaseURLs), "adapter_dir", dir)
	return &remotePolicy{r: r, fleet: f, dir: dir, session: hex.EncodeToString(nonce[:]), published: -1}, nil
}

// Chat publishes the current adapter if the fleet does not serve it yet,
// then samples through the fleet.
func (p *remotePolicy) Chat(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	if err := p.ensurePublished(ctx); err != nil {
		return llm.Completion{}, err
	}
	return p.fleet.Chat(ctx, messages, opts)
}

// ensurePublished makes the fleet serve the adapter of the run's current
// step: written to dir/step_NNNNNN, loaded into every server under a name
// unique to this process and attempt, and named by the following
// requests. Concurrent callers wait for one publish.
func (p *remotePolicy) ensurePublished(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	step := p.r.state.Step
	if p.published == step {
		return nil
	}
	began := time.Now()
	defer func() { p.publishS += time.Since(began).Seconds() }()
	dir := filepath.Join(p.dir, checkpointName(step))
	if err := p.r.m.ExportAdapter(ctx, dir, p.r.adapterBaseName()); err != nil {
		return fmt.Errorf("trainer: publish adapter: %w", err)
	}
	p.attempt++
	name := fmt.Sprintf("%s-%s-%s-%d", p.r.cfg.Trainer.ExperimentName, checkpointName(step), p.session, p.attempt)
	if err := p.fleet.Publish(ctx, name, dir); err != nil {
		return fmt.Errorf("trainer: publish adapter of step %d: %w", step, err)
	}
	p.published = step
	p.r.log.Info("trainer: adapter published", "step", step, "name", name, "dir", dir)
	p.prune(dir)
	return nil
}

// prune removes published adapter directories beyond the newest
// keptAdapters (never current); failures are logged.
func (p *remotePolicy) prune(current string) {
	names, err := listCheckpoints(p.dir) // the same step_NNNNNN names, newest first
	if err != nil {
		p.r.log.Warn("trainer: listing published adapters", "err", err)
		return
	}
	names = slices.DeleteFunc(names, func(n string) bool { return filepath.Join(p.dir, n) == current })
	if len(names) < keptAdapters {
		return
	}
	for _, n := range names[keptAdapters-1:] {
		if err := os.RemoveAll(filepath.Join(p.dir, n)); err != nil {
			p.r.log.Warn("trainer: removing an old published adapter", "dir", n, "err", err)
		}
	}
}

// metrics adds the fleet's counters since the last call.
func (p *remotePolicy) metrics(m map[string]float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.fleet.Stats()
	m["remote/servers_up"] = float64(now.InRotation)
	m["remote/requests"] = float64(now.Requests - p.last.Requests)
	m["remote/failed_requests"] = float64(now.Failed - p.last.Failed)
	m["remote/stale_responses"] = float64(now.Stale - p.last.Stale)
	m["remote/evictions"] = float64(now.Evictions - p.last.Evictions)
	m["time/publish_s"] = p.publishS
	p.last, p.publishS = now, 0
}

// remoteMetrics adds the remote engine's metrics of the step, if the run
// samples remotely.
func (r *run) remoteMetrics(m map[string]float64) {
	if p, ok := r.policy.(*remotePolicy); ok {
		p.metrics(m)
	}
}
