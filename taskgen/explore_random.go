package taskgen

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
)

// DefaultRandomWalkSteps bounds a random walk when RandomWalkExplorer's
// MaxSteps is zero. A hindsight task asks for what the walk achieved, so
// a walk about as long as an ordinary task's solution gives tasks about
// as hard as the environment's own (toolworld's need one to three calls).
const DefaultRandomWalkSteps = 4

var _ Explorer = (*RandomWalkExplorer)(nil)

// RandomWalkExplorer explores a seed task without an LLM: the same
// exploration episode as LLMExplorer's (the exploration prompt, the
// Linear context, sparse evaluation, no experience), in which every turn
// is answered by the environment's own random valid action
// (envservice.RandomExplorer) instead of a model. The walk is a
// deterministic function of the task and the seed, and lasts MaxSteps
// turns (the environment's random actions never end an episode).
//
// Env and Actions are required: for an in-process environment served by
// an envservice.Manager, Actions is the registered environment itself
// (Manager.Environment) when it implements envservice.RandomExplorer. A
// RandomWalkExplorer is safe for concurrent use as long as its fields
// are not changed meanwhile.
type RandomWalkExplorer struct {
	// Env serves the environment instances (required).
	Env envclient.Env
	// Actions chooses each turn's action (required).
	Actions envservice.RandomExplorer
	// EnvType is the environment type of tasks whose EnvType is empty.
	EnvType string
	// MaxSteps is the length of the walk (zero: DefaultRandomWalkSteps).
	MaxSteps int
	// Profile describes the environment in the exploration prompt (nil:
	// as LLMExplorer). The random actions do not read it; the trajectory
	// records it as an LLM exploration would.
	Profile *agentevolver.EnvProfile
	// Context configures the episode's context manager; see
	// EpisodeContext for its defaults.
	Context contextmgr.Config
	// Logger receives diagnostics (zero: discard).
	Logger *slog.Logger
}

// Explore implements Explorer: one random walk of task seeded with seed.
func (e *RandomWalkExplorer) Explore(ctx context.Context, task agentevolver.Task, seed int64) (agentevolver.Trajectory, error) {
	if e.Env == nil || e.Actions == nil {
		return agentevolver.Trajectory{}, fmt.Errorf("%w: RandomWalkExplorer needs an Env and Actions", ErrConfig)
	}
	f := episodeFlow{
		Env:          e.Env,
		Policy:       RandomPolicy(e.Actions, task.TaskID, seed),
		Context:      e.Context,
		EnvType:      e.EnvType,
		MaxSteps:     orDefault(e.MaxSteps, DefaultRandomWalkSteps),
		SystemPrompt: ExplorationSystemPrompt(profileFor(e.Profile, e.Env, task, e.EnvType), agentflow.UserQuestionPlaceholder),
		Logger:       e.Logger,
	}
	res, err := f.run(ctx, task, seed)
	if err != nil {
		return agentevolver.Trajectory{}, fmt.Errorf("taskgen: random walk on %s: %w", task.TaskID, err)
	}
	return res.Trajectory, nil
}

// RandomPolicy returns a chat model for one episode of taskID that
// answers every turn with actions.RandomAction(ctx, taskID, history,
// seed), history being the actions it answered before: an
// llm.ChatModel adapter that lets an agent flow walk an environment at
// random with no model at all. The messages it is sent are ignored. It
// serves one episode at a time (its history is that episode's); it is
// safe for concurrent calls, which an episode never makes.
func RandomPolicy(actions envservice.RandomExplorer, taskID string, seed int64) llm.ChatModel {
	var (
		mu      sync.Mutex
		history []agentevolver.Message
	)
	return llm.ChatModelFunc(func(ctx context.Context, _ []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
		mu.Lock()
		defer mu.Unlock()
		a, err := actions.RandomAction(ctx, taskID, history, seed)
		if err != nil {
			return llm.Completion{}, fmt.Errorf("taskgen: random action: %w", err)
		}
		a.Role = agentevolver.RoleAssistant
		history = append(history, a)
		return llm.Completion{Message: a, FinishReason: "stop"}, nil
	})
}
