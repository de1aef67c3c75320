package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

// ContextManager records one episode and turns it into training samples.
// The agent flow calls Init once, then per turn Prompt, RecordLLM, Action and
// RecordEnv, and at the end Finish, Madness, Steps and Samples. A
// ContextManager serves one episode and is not safe for concurrent use.
type ContextManager interface {
	// Init records the episode's initial messages (system prompt, task).
	Init(msgs []agentevolver.Message) error
	// Prompt returns the messages to send to the policy next. It fails
	// with an error wrapping ErrContextFull when they do not fit the
	// context window.
	Prompt() ([]agentevolver.Message, error)
	// RecordLLM records the policy's completion of prompt (the messages
	// Prompt returned). Strategies that consult an auxiliary model use ctx.
	RecordLLM(ctx context.Context, prompt []agentevolver.Message, out llm.Completion) error
	// Action returns the assistant message to send to the environment for
	// the latest policy turn.
	Action() (agentevolver.Message, error)
	// RecordEnv records the environment's observation of the latest action.
	RecordEnv(obs agentevolver.Message) error
	// Finish drops a trailing environment observation, which no policy turn
	// answered and which must not end a training sample.
	Finish()
	// Madness is -1 when any policy turn degenerated (RepetitionPenalty),
	// else 0.
	Madness() float64
	// Steps returns the episode's messages as a trajectory records them.
	Steps() []agentevolver.Message
	// Samples tokenises the episode. traj supplies the ids, the reward and
	// the experience record (traj.Experience: injected experience is
	// stripped from the samples of a TrainDiscard episode, which are then
	// marked ExpMask). An episode without a policy turn has no samples: the
	// error then wraps ErrNoResponse.
	Samples(traj agentevolver.Trajectory) ([]agentevolver.Sample, error)
}

// Strategy names accepted by New (the reference's context_template values,
// plus "memory").
const (
	// StrategyLinear selects Linear.
	StrategyLinear = "linear"
	// StrategyLinearThink selects LinearThink.
	StrategyLinearThink = "linear_think"
	// StrategySelfClip selects SelfContextClip.
	StrategySelfClip = "context_selfclip"
	// StrategyMemory selects Memory.
	StrategyMemory = "memory"
	// StrategyPerCall selects PerCall.
	StrategyPerCall = "per_call"
)

// Errors callers can test with errors.Is.
var (
	// ErrContextFull reports a prompt longer than the context window.
	ErrContextFull = errors.New("contextmgr: context window full")
	// ErrNoResponse reports an episode without a policy turn to train on.
	ErrNoResponse = errors.New("contextmgr: no policy turn to train on")
	// ErrPromptTooLong reports a sample prompt longer than MaxPromptLen.
	ErrPromptTooLong = errors.New("contextmgr: prompt longer than MaxPromptLen")
	// ErrUnknownAuthor reports an ExtendedMessage author outside the known
	// set.
	ErrUnknownAuthor = errors.New("contextmgr: unknown author")
	// ErrConfig reports an invalid Config.
	ErrConfig = errors.New("contextmgr: invalid config")
	// ErrSequence reports calls in the wrong order (RecordLLM before
	// Prompt, Action before any policy turn, Init twice).
	ErrSequence = errors.New("contextmgr: call out of sequence")
	// ErrTemplate reports a chat template that failed to render or a
	// rendering the tokenizer could not split as expected.
	ErrTemplate = errors.New("contextmgr: chat template")
)

// Defaults of Config, from the reference's configuration (§9).
const (
	// DefaultMaxModelLen is rollout.max_model_len.
	DefaultMaxModelLen = 25580
	// DefaultResponseLength is rollout.response_length.
	DefaultResponseLength = 4096
	// DefaultMaxEnvTokens is rollout.max_env_len.
	DefaultMaxEnvTokens = 4096
	// DefaultMaxPromptLen is data.max_prompt_length (Linear).
	DefaultMaxPromptLen = 4000
	// DefaultMaxResponseLen is data.max_response_length (Linear).
	DefaultMaxResponseLen = 21580
	// DefaultMaxSamples bounds the samples of per-turn strategies.
	DefaultMaxSamples = 30
	// DefaultEOSToken ends a turn when the tokenizer does not say.
	DefaultEOSToken = tokenizer.IMEnd
	// DefaultClipTriggerTokens is the context size at which SelfContextClip clips.
	DefaultClipTriggerTokens = 8192
	// DefaultClipReplyTokens bounds the clip model's replies.
	DefaultClipReplyTokens = 4096
)

// Think preferences: the answer format ForceThink asks for.
const (
	// PreferCode asks for a python code block.
	PreferCode = "code"
	// PreferBox asks for an answer in \box{...}.
	PreferBox = "box"
)

// Config configures a context strategy. Tokenizer and Template are
// required; every other zero value means the reference's default.
type Config struct {
	// Tokenizer turns rendered text into ids (required).
	Tokenizer tokenizer.Tokenizer
	// Template renders messages as the policy sees them (required).
	Template tokenizer.ChatTemplate
	// TemplateOptions are used for every rendering except the generation
	// prompt flag, which the manager sets itself.
	TemplateOptions tokenizer.TemplateOptions

	// MaxModelLen is the policy's context length (rollout.max_model_len).
	MaxModelLen int
	// ResponseLength bounds one policy turn (rollout.response_length). A
	// prompt must be shorter than MaxModelLen-ResponseLength tokens.
	ResponseLength int
	// MaxEnvTokens clips longer environment observations in later prompts
	// (rollout.max_env_len).
	MaxEnvTokens int
	// MaxPromptLen bounds a sample's prompt (data.max_prompt_length); a
	// longer one is an error. Zero means 4000 for Linear and
	// MaxModelLen-ResponseLength for the per-turn strategies.
	MaxPromptLen int
	// MaxResponseLen bounds a sample's response (data.max_response_length);
	// a longer one is cut. Zero means 21580 for Linear and ResponseLength
	// for the per-turn strategies.
	MaxResponseLen int

	// EOSToken is the end-of-turn token; it must be in the vocabulary.
	// Zero means the tokenizer's own (an EOSID() (int, bool) method), else
	// "<|im_end|>".
	EOSToken string
	// AssistantHeader is the text that opens a policy turn; its tokens
	// carry no loss. Zero means the template's generation prompt, which for
	// ChatML is "<|im_start|>assistant\n" as in the reference.
	AssistantHeader string
	// NoThink appends "/no_think" to the task and to observations (Qwen3
	// with thinking disabled, rollout.use_qwen3).
	NoThink bool

	// Stripper removes injected experience from sample prompts when the
	// episode's train mode is "discard" (zero: a TemplateStripper with
	// DefaultExperienceTemplate).
	Stripper ExperienceStripper

	// MaxSamples bounds the samples of the per-turn strategies (zero: 30).
	MaxSamples int
	// ForceThink asks the policy to think in <think> tags and then answer
	// in the format of ThinkPreference (LinearThink, SelfContextClip).
	ForceThink bool
	// ThinkPreference is PreferCode (zero) or PreferBox.
	ThinkPreference string
	// TrainHistory keeps earlier policy turns trainable in LinearThink
	// prompts (rollout.train_history_infer_token).
	TrainHistory bool

	// ClipModel decides which messages SelfContextClip removes or
	// compresses (required for SelfContextClip).
	ClipModel llm.ChatModel
	// ClipTriggerTokens is the context size at which SelfContextClip clips
	// (zero: 8192).
	ClipTriggerTokens int
	// ClipReplyTokens bounds the clip model's replies (zero: 4096).
	ClipReplyTokens int
	// TrainClipDecisions records the clip model's turns as training
	// samples; set it only when ClipModel is the policy itself.
	TrainClipDecisions bool

	// Logger receives diagnostics (zero: discard).
	Logger *slog.Logger
}

// New returns the strategy named name (StrategyLinear, StrategyLinearThink,
// StrategySelfClip, StrategyMemory, StrategyPerCall; empty means
// StrategyLinear).
func New(name string, cfg Config) (ContextManager, error) {
	switch name {
	case "", StrategyLinear:
		return NewLinear(cfg)
	case StrategyLinearThink:
		return NewLinearThink(cfg)
	case StrategySelfClip:
		return NewSelfContextClip(cfg)
	case StrategyMemory:
		return NewMemory(cfg)
	case StrategyPerCall:
		return NewPerCall(cfg)
	}
	return nil, fmt.Errorf("%w: unknown strategy %q", ErrConfig, name)
}

// resolve fills defaults. perTurn selects the defaults of the strategies
// that emit one sample per policy turn.
func (c Config) resolve(perTurn bool) (Config, error) {
	if c.Tokenizer == nil || c.Template == nil {
		return c, fmt.Errorf("%w: Tokenizer and Template are required", ErrConfig)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.MaxModelLen, DefaultMaxModelLen)
	def(&c.ResponseLength, DefaultResponseLength)
	def(&c.MaxEnvTokens, DefaultMaxEnvTokens)
	def(&c.MaxSamples, DefaultMaxSamples)
	def(&c.ClipTriggerTokens, DefaultClipTriggerTokens)
	def(&c.ClipReplyTokens, DefaultClipReplyTokens)
	if perTurn {
		def(&c.MaxPromptLen, c.MaxModelLen-c.ResponseLength)
		def(&c.MaxResponseLen, c.ResponseLength)
	} else {
		def(&c.MaxPromptLen, DefaultMaxPromptLen)
		def(&c.MaxResponseLen, DefaultMaxResponseLen)
	}
	if c.ThinkPreference == "" {
		c.ThinkPreference = PreferCode
	}
	if c.Stripper == nil {
		c.Stripper = &TemplateStripper{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case c.MaxModelLen <= c.ResponseLength:
		return c, fmt.Errorf("%w: MaxModelLen %d must exceed ResponseLength %d", ErrConfig, c.MaxModelLen, c.ResponseLength)
	case c.MaxEnvTokens < 0 || c.MaxPromptLen < 0 || c.MaxResponseLen < 0 || c.MaxSamples < 0:
		return c, fmt.Errorf("%w: negative limit", ErrConfig)
	case c.ThinkPreference != PreferCode && c.ThinkPreference != PreferBox:
		return c, fmt.Errorf("%w: ThinkPreference %q", ErrConfig, c.ThinkPreference)
	}
	return c, nil
}

// maxContext is the longest prompt the policy may receive.
func (c Config) maxContext() int { return c.MaxModelLen - c.ResponseLength }
