package taskgen

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

// Defaults of LLMExplorer, the reference's exploration strategy settings
// (§4.3: max_explore_step 30, temperature 1.0, top_p 1.0, top_k 100).
const (
	// DefaultExploreSteps bounds the turns of an LLM exploration episode.
	DefaultExploreSteps = 30
	// DefaultExploreTemperature is the explorer's sampling temperature.
	DefaultExploreTemperature = 1.0
	// DefaultExploreTopP is the explorer's nucleus mass.
	DefaultExploreTopP = 1.0
	// DefaultExploreTopK is the explorer's top-k.
	DefaultExploreTopK = 100
)

// ProfileSource is implemented by environment clients that know the
// profile of an environment type, as envservice.Manager does (its Profile
// method). LLMExplorer looks for it on its Env when it has no Profile.
type ProfileSource interface {
	Profile(envType string) (agentevolver.EnvProfile, error)
}

var _ Explorer = (*LLMExplorer)(nil)

// LLMExplorer explores a seed task with an LLM (the reference's "random"
// strategy, an LLM random walk, §4.3): one ordinary episode of the agent
// flow in which the environment's task message is replaced by
// ExplorationSystemPrompt, with the environment's profile as its
// description and the seed task's query (the environment's own
// instruction, or Task.Query when set) as the example user question at
// its end. The episode keeps the environment's own system message (its
// action format), runs at most MaxSteps turns with the exploration
// sampling settings, no experience and the environment's sparse
// evaluation as its reward, and is seeded.
//
// Env and Model are required; other zero values are defaults. An
// LLMExplorer is safe for concurrent use as long as its fields are not
// changed meanwhile.
type LLMExplorer struct {
	// Env serves the environment instances (required).
	Env envclient.Env
	// Model is the explorer (required). Retries are the client's.
	Model llm.ChatModel
	// EnvType is the environment type of tasks whose EnvType is empty.
	EnvType string
	// Profile describes the environment in the prompt. Nil means the
	// profile Env reports when it is a ProfileSource (envservice.Manager
	// is), else NoEnvironmentDescription.
	Profile *agentevolver.EnvProfile
	// Chat are the sampling settings. A nil Temperature means
	// DefaultExploreTemperature, TopP 0 DefaultExploreTopP, TopK 0
	// DefaultExploreTopK (negative: disabled), MaxTokens 0 the context's
	// response length.
	Chat llm.ChatOptions
	// MaxSteps bounds the turns of an episode (zero: DefaultExploreSteps).
	MaxSteps int
	// Context configures the episode's Linear context manager; see
	// EpisodeContext for its defaults.
	Context contextmgr.Config
	// EnvPrompt keeps the environment's own system prompt instead of
	// ExplorationSystemPrompt: for a policy trained on that prompt (the
	// in-process policy of a checkpoint), whose context could not hold the
	// exploration prompt and which has never learnt to follow it. It then
	// explores by sampling its usual behaviour at the Chat temperature.
	EnvPrompt bool
	// Logger receives diagnostics (zero: discard).
	Logger *slog.Logger
}

// Explore implements Explorer: it runs one exploration episode of task,
// its sampling seeded with seed, and returns the trajectory. A failed
// episode (agentflow.EpisodeError) is an error.
func (e *LLMExplorer) Explore(ctx context.Context, task agentevolver.Task, seed int64) (agentevolver.Trajectory, error) {
	if e.Env == nil || e.Model == nil {
		return agentevolver.Trajectory{}, fmt.Errorf("%w: LLMExplorer needs an Env and a Model", ErrConfig)
	}
	profile := profileFor(e.Profile, e.Env, task, e.EnvType)
	chat := samplingDefaults(e.Chat)
	f := episodeFlow{
		Env:          e.Env,
		Policy:       e.Model,
		Chat:         chat,
		Context:      e.Context,
		EnvType:      e.EnvType,
		MaxSteps:     orDefault(e.MaxSteps, DefaultExploreSteps),
		SystemPrompt: ExplorationSystemPrompt(profile, agentflow.UserQuestionPlaceholder),
		Logger:       e.Logger,
	}
	if e.EnvPrompt {
		f.SystemPrompt = ""
	}
	res, err := f.run(ctx, task, seed)
	if err != nil {
		return agentevolver.Trajectory{}, fmt.Errorf("taskgen: explore %s: %w", task.TaskID, err)
	}
	return res.Trajectory, nil
}

// profileFor returns explicit, or the profile env reports for the task's
// environment type when env is a ProfileSource, else nil.
func profileFor(explicit *agentevolver.EnvProfile, env envclient.Env, task agentevolver.Task, envType string) *agentevolver.EnvProfile {
	if explicit != nil {
		return explicit
	}
	src, ok := env.(ProfileSource)
	if !ok {
		return nil
	}
	if task.EnvType != "" {
		envType = task.EnvType
	}
	p, err := src.Profile(envType)
	if err != nil {
		return nil
	}
	return &p
}

// EpisodeContext returns c with the defaults of the episodes this package
// runs (exploration, solving, replay): the byte-level tokenizer when
// Tokenizer is nil (it counts one token per byte, so it ends episodes
// early rather than late), Qwen2.5's ChatML when Template is nil,
// contextmgr.DefaultMaxModelLen when MaxModelLen is 0, and MaxPromptLen
// equal to MaxModelLen when 0: these episodes are never trained on, and
// their long prompts (the exploration prompt alone is about 4,000 bytes)
// must not fail the training sample's default prompt bound.
func EpisodeContext(c contextmgr.Config) (contextmgr.Config, error) {
	if c.Tokenizer == nil {
		tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
		if err != nil {
			return c, err
		}
		c.Tokenizer = tok
	}
	if c.Template == nil {
		c.Template = tokenizer.Qwen25ChatML()
	}
	if c.MaxModelLen == 0 {
		c.MaxModelLen = contextmgr.DefaultMaxModelLen
	}
	if c.MaxPromptLen == 0 {
		c.MaxPromptLen = c.MaxModelLen
	}
	return c, nil
}

// episodeFlow is what the episodes of this package share: a Linear
// agent flow with the environment's sparse evaluation and no experience.
type episodeFlow struct {
	Env          envclient.Env
	Policy       llm.ChatModel
	Chat         llm.ChatOptions
	Context      contextmgr.Config
	EnvType      string
	MaxSteps     int
	SystemPrompt string
	Logger       *slog.Logger
}

// run runs one episode of task seeded with seed.
func (f episodeFlow) run(ctx context.Context, task agentevolver.Task, seed int64) (agentflow.Result, error) {
	cfg, err := EpisodeContext(f.Context)
	if err != nil {
		return agentflow.Result{}, err
	}
	chat := f.Chat
	if chat.MaxTokens == 0 {
		chat.MaxTokens = orDefault(cfg.ResponseLength, contextmgr.DefaultResponseLength)
	}
	flow := &agentflow.Flow{
		Env:          f.Env,
		Policy:       f.Policy,
		Chat:         chat,
		Context:      cfg,
		Strategy:     contextmgr.StrategyLinear,
		EnvType:      f.EnvType,
		MaxSteps:     f.MaxSteps,
		Sparse:       true,
		SystemPrompt: f.SystemPrompt,
		Logger:       f.Logger,
	}
	return flow.Run(ctx, agentflow.Rollout{Task: task, DataID: "0", RolloutID: "0", Seed: &seed})
}

// orDefault returns v, or def when v is zero or negative.
func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
