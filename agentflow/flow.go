package agentflow

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/llm"
)

// Defaults of Flow.
const (
	// DefaultMaxSteps bounds the policy turns of an episode.
	DefaultMaxSteps = 30
	// DefaultMaxObservationBytes bounds one observation.
	DefaultMaxObservationBytes = 1 << 20
	// DefaultReleaseTimeout bounds releasing an instance.
	DefaultReleaseTimeout = 30 * time.Second
)

// UserQuestionPlaceholder is replaced by the task's query in
// Flow.SystemPrompt.
const UserQuestionPlaceholder = "[USER_QUESTION]"

// Errors callers can test with errors.Is.
var (
	// ErrConfig reports a Flow or Runner that cannot run.
	ErrConfig = errors.New("agentflow: invalid config")
	// ErrInitState reports initial messages that break the environment
	// contract: exactly two messages, the last from the user.
	ErrInitState = errors.New("agentflow: bad initial state")
)

// ExperienceInjector adds retrieved experience to an episode's initial
// messages (reference §5.3); the experience package implements it. It
// returns the messages to use and the experience texts it added.
// Implementations must be safe for concurrent use.
type ExperienceInjector interface {
	Inject(ctx context.Context, task agentevolver.Task, msgs []agentevolver.Message) (injected []agentevolver.Message, experiences []string, err error)
}

// Flow runs episodes of one environment with one policy. Env, Policy and,
// unless NewContext is set, Context.Tokenizer and Context.Template are
// required; other zero values mean defaults. A Flow is safe for concurrent
// use by many episodes as long as its fields are not changed meanwhile.
type Flow struct {
	// Env serves the environment instances.
	Env envclient.Env
	// Policy plays the agent.
	Policy llm.ChatModel
	// Chat are the policy's sampling settings (temperature, top-p,
	// response length, ...). LogProbs is always requested, so that the
	// policy's own token ids and log-probabilities reach the samples.
	Chat llm.ChatOptions

	// Context configures the context manager of each episode.
	Context contextmgr.Config
	// Strategy names the context strategy (zero: contextmgr.StrategyLinear).
	Strategy string
	// NewContext, when set, builds each episode's context manager instead
	// of Context and Strategy.
	NewContext func() (contextmgr.ContextManager, error)

	// EnvType is the environment type of tasks whose EnvType is empty.
	EnvType string
	// MaxSteps bounds the policy turns of an episode (zero: 30).
	MaxSteps int
	// Reward scores episodes (zero: EnvEvaluator{Sparse: Sparse}).
	Reward RewardCalculator
	// Sparse asks the default evaluator for 0/1 scores. (The reference's
	// training default is sparse.)
	Sparse bool
	// Experience, when set, injects experience into episodes whose Rollout
	// asks for it.
	Experience ExperienceInjector
	// SystemPrompt, when set, replaces the environment's task message with
	// this text, UserQuestionPlaceholder replaced by the query (used by task
	// exploration).
	SystemPrompt string
	// MaxObservationBytes bounds an observation handed to the context
	// manager (zero: 1 MiB); longer ones are cut.
	MaxObservationBytes int
	// ReleaseTimeout bounds releasing an instance (zero: 30s).
	ReleaseTimeout time.Duration
	// Logger receives diagnostics (zero: discard).
	Logger *slog.Logger
	// Warnings, when set, records the environment's contract warnings
	// (a step with no observation, a reward from a step that did not end
	// the episode), each logged once for all the Flows that share it: a
	// trainer shares one per run. Nil: each Flow logs each kind once.
	Warnings *ContractWarnings

	// ownWarnings is Warnings when that is nil.
	ownWarnings ContractWarnings
}

// Rollout asks for one episode.
type Rollout struct {
	// Task is the task to run.
	Task agentevolver.Task
	// DataID is the task's index in its batch; RolloutID the episode's
	// index in the task's group.
	DataID, RolloutID string
	// AddExperience asks the Flow's ExperienceInjector for experience.
	AddExperience bool
	// TrainMode is agentevolver.TrainDiscard (zero) or TrainKeep: whether
	// injected experience stays in the training samples.
	TrainMode agentevolver.TrainMode
	// Seed, when set, makes the episode's sampling reproducible whatever
	// else runs concurrently: turn t asks the policy for seed
	// TurnSeed(*Seed, t), overriding Flow.Chat.Seed.
	Seed *int64
}

// TurnSeed derives the sampling seed of turn t of an episode seeded with
// seed (a SplitMix64 step, so neighbouring seeds and turns do not
// correlate).
func TurnSeed(seed int64, turn int) int64 {
	z := uint64(seed) + uint64(turn+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return int64(z ^ (z >> 31))
}

// Result is one finished episode: its trajectory and its training samples
// (none when the policy never got a turn).
type Result struct {
	Trajectory agentevolver.Trajectory
	Samples    []agentevolver.Sample
	// InstanceID is the environment instance the episode ran in.
	InstanceID string
}

// Run runs one episode. An episode whose environment or policy fails (see
// FailureCause) returns an *EpisodeError: it has no training samples and no
// score. An initial prompt that leaves no room for a response returns an
// error wrapping ErrPromptTooLong. Cancellation and configuration errors are
// returned as they are. Hitting MaxSteps or the context window later is a
// normal, truncated episode. The environment instance is always released.
func (f *Flow) Run(ctx context.Context, r Rollout) (res Result, err error) {
	if f.Env == nil || f.Policy == nil {
		return Result{}, fmt.Errorf("%w: Env and Policy are required", ErrConfig)
	}
	cm, err := f.newContext()
	if err != nil {
		return Result{}, err
	}
	log := f.logger().With("task_id", r.Task.TaskID, "data_id", r.DataID, "rollout_id", r.RolloutID)

	envType := r.Task.EnvType
	if envType == "" {
		envType = f.EnvType
	}
	res.InstanceID = newInstanceID()
	// Released even when Create fails: a create that timed out may still
	// have made the instance.
	defer f.release(ctx, res.InstanceID, log)
	init, err := guard("create", func() (envclient.InitState, error) {
		return f.Env.Create(ctx, envType, r.Task.TaskID, res.InstanceID, map[string]any{"is_open_query": r.Task.OpenQuery})
	})
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, fail(FailCreate, -1, fmt.Errorf("create instance: %w", err))
	}
	if id := init.InstanceID(); id != "" && id != res.InstanceID {
		// The environment chose another id; release it too.
		defer f.release(ctx, id, log)
		res.InstanceID = id
	}

	msgs, query, err := f.initialMessages(init.State, r.Task)
	if err != nil {
		return res, fail(FailInitState, -1, err)
	}
	traj := agentevolver.Trajectory{
		TaskID:    r.Task.TaskID,
		DataID:    r.DataID,
		RolloutID: r.RolloutID,
		Query:     query,
		Metadata:  map[string]any{},
	}
	traj.Experience = agentevolver.ExperienceUse{Requested: r.AddExperience, TrainMode: r.TrainMode.OrDefault()}
	var experiences []string
	if r.AddExperience && f.Experience != nil {
		injected, exps, err := f.Experience.Inject(ctx, r.Task, msgs)
		switch {
		case ctx.Err() != nil:
			return res, ctx.Err()
		case err != nil:
			log.Warn("agentflow: experience injection failed; running without", "err", err)
		default:
			msgs, experiences = injected, append(experiences, exps...)
		}
	}
	traj.Experience.Injected = experiences
	if err := cm.Init(msgs); err != nil {
		return res, err
	}

	if err := f.loop(ctx, cm, res.InstanceID, r.Seed, &traj, log); err != nil {
		return res, err
	}

	traj.Steps = cm.Steps()
	in := RewardInput{Task: r.Task, Trajectory: traj, Env: f.Env, InstanceID: res.InstanceID}
	type scored struct {
		score  float64
		reason string
	}
	sc, err := guard("evaluate", func() (scored, error) {
		score, reason, err := f.rewarder().CalculateReward(ctx, in)
		return scored{score, reason}, err
	})
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if errors.Is(err, envclient.ErrNonFiniteScore) {
			return res, fail(FailScore, -1, fmt.Errorf("reward: %w", err))
		}
		return res, fail(FailEvaluate, -1, fmt.Errorf("reward: %w", err))
	}
	if err := checkScore(sc.score); err != nil {
		return res, fail(FailScore, -1, err)
	}
	traj.Reward = agentevolver.NewReward(sc.score, sc.reason, cm.Madness())
	cm.Finish()
	traj.Steps = cm.Steps()
	res.Trajectory = traj

	samples, err := cm.Samples(traj)
	switch {
	case errors.Is(err, contextmgr.ErrNoResponse):
		log.Info("agentflow: episode without a policy turn has no samples")
	case err != nil:
		return res, fmt.Errorf("samples: %w", err)
	default:
		res.Samples = samples
	}
	return res, nil
}

// loop alternates policy turns and environment steps (reference §2.2 step
// 4), recording how the episode ended in traj.
func (f *Flow) loop(ctx context.Context, cm contextmgr.ContextManager, instanceID string, seed *int64, traj *agentevolver.Trajectory, log *slog.Logger) error {
	maxSteps := f.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	opts := f.Chat
	opts.LogProbs = true
	for step := range maxSteps {
		if err := ctx.Err(); err != nil {
			return err
		}
		prompt, err := cm.Prompt()
		if errors.Is(err, contextmgr.ErrContextFull) {
			if step == 0 {
				// Not a truncated episode: the policy never spoke, so
				// every episode like it would be wasted.
				return fmt.Errorf("%w (response length %d): %w", ErrPromptTooLong, f.Chat.MaxTokens, err)
			}
			log.Warn("agentflow: context window full; episode cut", "step", step, "err", err)
			traj.IsTerminated = false
			return nil
		}
		if err != nil {
			return err
		}
		if seed != nil {
			turnSeed := TurnSeed(*seed, step)
			opts.Seed = &turnSeed
		}
		out, err := guard("policy", func() (llm.Completion, error) { return f.Policy.Chat(ctx, prompt, opts) })
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return policyFailure(step, err)
		}
		if err := cm.RecordLLM(ctx, prompt, out); err != nil {
			return err
		}
		action, err := cm.Action()
		if err != nil {
			return err
		}
		result, err := guard("step", func() (envclient.StepResult, error) { return f.Env.Step(ctx, instanceID, action, nil) })
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// [BUG/QUIRK] fixed: the reference ended such an episode as
			// terminated, as if the task were done, and trained on it.
			return stepFailure(step, fmt.Errorf("env step: %w", err))
		}
		f.checkStep(result, step, log)
		if sr, ok := cm.(contextmgr.StateRecorder); ok {
			// The environment's state is the next prompt (per_call).
			err = sr.RecordState(result.State)
		} else {
			err = cm.RecordEnv(Observation(result, f.MaxObservationBytes))
		}
		if err != nil {
			return err
		}
		traj.IsTerminated = result.IsTerminated
		if result.IsTerminated {
			return nil
		}
	}
	return nil
}

// initialMessages enforces the environment's initial-state contract and
// applies the task's query (reference §2.1 steps 2-3).
func (f *Flow) initialMessages(state []agentevolver.Message, task agentevolver.Task) ([]agentevolver.Message, string, error) {
	if len(state) != 2 || state[1].Role != agentevolver.RoleUser {
		roles := make([]string, len(state))
		for i, m := range state {
			roles[i] = m.Role
		}
		return nil, "", fmt.Errorf("%w: want [system, user] messages, got roles %q", ErrInitState, roles)
	}
	msgs := []agentevolver.Message{state[0], state[1]}
	query := msgs[1].Content
	if task.Query != "" {
		query = task.Query
		msgs[1].Content = query
	}
	if f.SystemPrompt != "" {
		msgs[1] = agentevolver.Message{Role: agentevolver.RoleUser, Content: strings.ReplaceAll(f.SystemPrompt, UserQuestionPlaceholder, query)}
	}
	return msgs, query, nil
}

func (f *Flow) newContext() (contextmgr.ContextManager, error) {
	if f.NewContext != nil {
		return f.NewContext()
	}
	cfg := f.Context
	if cfg.Logger == nil {
		cfg.Logger = f.Logger
	}
	return contextmgr.New(f.Strategy, cfg)
}

// checkStep warns (once per kind, see ContractWarnings) about a step
// result that breaks the Env contract's expectations without failing the
// episode.
func (f *Flow) checkStep(result envclient.StepResult, step int, log *slog.Logger) {
	if result.IsTerminated {
		return
	}
	w := f.Warnings
	if w == nil {
		w = &f.ownWarnings
	}
	if result.Reward != 0 {
		w.note(log, WarnStepReward, "agentflow: the environment returned a reward from a step that did not end the episode; step rewards are not used (an episode is scored once, when it ends, by Flow.Reward: by default the environment's Evaluate). Warned once.",
			"step", step, "reward", result.Reward)
	}
	if Observation(result, 1).Content == "" {
		w.note(log, WarnEmptyObservation, "agentflow: the environment returned no observation for a step that did not end the episode; the policy's next turn follows an empty user turn. Warned once.",
			"step", step)
	}
}

func (f *Flow) rewarder() RewardCalculator {
	if f.Reward != nil {
		return f.Reward
	}
	return EnvEvaluator{Sparse: f.Sparse}
}

func (f *Flow) logger() *slog.Logger {
	if f.Logger != nil {
		return f.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// release frees an instance under its own deadline, so that a cancelled
// episode still frees it.
func (f *Flow) release(ctx context.Context, instanceID string, log *slog.Logger) {
	timeout := f.ReleaseTimeout
	if timeout <= 0 {
		timeout = DefaultReleaseTimeout
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if _, err := f.Env.Release(rctx, instanceID); err != nil {
		log.Warn("agentflow: release failed", "instance_id", instanceID, "err", err)
	}
}

func newInstanceID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+).
	return hex.EncodeToString(b[:])
}
