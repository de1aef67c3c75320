package cues

import (
	"errors"
	"fmt"
)

// ErrConfig reports a configuration that cannot run.
var ErrConfig = errors.New("cues: invalid config")

// Defaults, the values of the reference's shipped config.yaml (§2.1)
// unless a comment says otherwise.
const (
	DefaultSplit          = "train"
	DefaultRolloutNum     = 4
	DefaultStage1Steps    = 18
	DefaultBatchSize      = 12
	DefaultMinConfidence  = 0.7
	DefaultStage3Steps    = 14
	DefaultRetryAttempts  = 1
	DefaultWorkers        = 6
	DefaultRewriteBatch   = 10
	DefaultRewriteVariant = 3
	DefaultTemperature    = 0.7
	// DefaultMaxTokens is what the reference's client really sends (its
	// YAML's 20480 is never read).
	DefaultMaxTokens = 2048
	// DefaultMemoryMaxTokens bounds the exploration-memory summary.
	DefaultMemoryMaxTokens = 8192
	// DefaultConceptTasks is how many task queries the concept pool reads.
	DefaultConceptTasks = 100
	// DefaultConceptBatch is how many queries one extraction call reads.
	DefaultConceptBatch = 10
	// DefaultConceptsPerRollout is how many concepts a rollout's
	// requirement names.
	DefaultConceptsPerRollout = 12
	// DefaultMemoryTriplets is how many of an environment's latest
	// triplets its exploration memory summarises.
	DefaultMemoryTriplets = 50
)

// Prompt styles (Config.Prompts).
const (
	// PromptsCuES uses the reference's prompts: a curious explorer, an
	// actor with the task, tips and history in one message. It needs a
	// model that follows instructions.
	PromptsCuES = "cues"
	// PromptsEnv talks to the model in the environment's own prompt, as a
	// policy trained on it expects (the in-process policy, whose context
	// holds a few hundred tokens): exploring is the environment's initial
	// messages and the conversation so far, sampled at the configured
	// temperature; re-executing replaces the environment's instruction by
	// the task's query. Replies are the actions themselves, no tags.
	PromptsEnv = "env"
)

// Abstraction methods (Stage2Config.Method).
const (
	// AbstractLLM abstracts tasks from batches of triplets with a model
	// (the reference's Stage 2).
	AbstractLLM = "llm"
	// AbstractHindsight asks the environment for the task each rollout's
	// actions achieved (envservice.TaskSynthesizer; in process only).
	AbstractHindsight = "hindsight"
)

// Judges (Stage3Config.Judge).
const (
	// JudgeLLM asks the model whether the re-execution succeeded.
	JudgeLLM = "llm"
	// JudgeNone runs no LLM judge: the environment check decides alone.
	JudgeNone = "none"
)

// Environment checks (Stage3Config.EnvCheck).
const (
	// CheckAuto is CheckHindsight where the environment is a
	// TaskSynthesizer, else CheckReplay.
	CheckAuto = "auto"
	// CheckHindsight asks the environment for the task the ground truth
	// achieves and scores the re-execution's actions on it with the
	// environment's own evaluation.
	CheckHindsight = "hindsight"
	// CheckReplay replays the ground truth on a fresh instance and
	// compares its final observation with the re-execution's.
	CheckReplay = "replay"
	// CheckNone runs no environment check.
	CheckNone = "none"
)

// Config configures a Pipeline, as a YAML file spells it. Zero values are
// the defaults above; every field is read.
type Config struct {
	// EnvType is the environment explored (required).
	EnvType string `yaml:"env_type"`
	// Split is where the explored environment tasks come from (default
	// train).
	Split string `yaml:"split"`
	// Session names the run's session (default: the output directory's
	// session.json, else a new one from the clock).
	Session string `yaml:"session"`
	// Seed seeds every draw (environment tasks, concepts, sampling).
	Seed int64 `yaml:"seed"`
	// Requirement is the user's exploration requirement; empty means none.
	Requirement string `yaml:"requirement"`
	// Prompts is PromptsCuES (default) or PromptsEnv.
	Prompts string `yaml:"prompts"`
	// ActionFormat replaces DefaultActionFormat in the prompts.
	ActionFormat string `yaml:"action_format"`
	// Workers bounds the rollouts, batches and tasks in flight (the
	// reference's threading.max_workers; default 6, 1 is serial).
	Workers int `yaml:"workers"`
	// Temperature and MaxTokens are every request's sampling settings
	// (the reference reads neither). A nil Temperature is
	// DefaultTemperature.
	Temperature *float64 `yaml:"temperature"`
	MaxTokens   int      `yaml:"max_tokens"`
	// ChatAttempts bounds the requests per prompt while replies are empty
	// or fail (the reference: 2 in Stage 1, 3 in Stages 2 and 3; default
	// 3 everywhere).
	ChatAttempts int `yaml:"chat_attempts"`

	Concepts ConceptConfig `yaml:"concepts"`
	Stage1   Stage1Config  `yaml:"stage1"`
	Stage2   Stage2Config  `yaml:"stage2"`
	Stage3   Stage3Config  `yaml:"stage3"`
	Rewrite  RewriteConfig `yaml:"rewrite"`
}

// ConceptConfig is the optional concept pool of requirement confirmation
// (reference §2.6).
type ConceptConfig struct {
	// Enabled builds the pool.
	Enabled bool `yaml:"enabled"`
	// Tasks is how many environment tasks' queries are read (default 100).
	Tasks int `yaml:"tasks"`
	// BatchSize is how many queries one extraction reads (default 10).
	BatchSize int `yaml:"batch_size"`
	// PerRollout is how many concepts a rollout's requirement names
	// (default 12).
	PerRollout int `yaml:"per_rollout"`
	// CreateParams are sent with each create.
	CreateParams map[string]any `yaml:"create_params"`
}

// Stage1Config is curious exploration.
type Stage1Config struct {
	// RolloutNum is the number of rollouts (default 4).
	RolloutNum int `yaml:"rollout_num"`
	// MaxSteps bounds a rollout (default 18).
	MaxSteps int `yaml:"max_steps"`
	// MemoryTriplets is how many of an environment's latest triplets its
	// exploration memory summarises (default 50); negative turns the
	// memory off. PromptsEnv shows no memory.
	MemoryTriplets int `yaml:"memory_triplets"`
	// MemoryMaxTokens bounds the summary (default 8192).
	MemoryMaxTokens int `yaml:"memory_max_tokens"`
}

// Stage2Config is task abstraction.
type Stage2Config struct {
	// Method is AbstractLLM (default) or AbstractHindsight.
	Method string `yaml:"method"`
	// BatchSize is the triplets per batch (default 12).
	BatchSize int `yaml:"batch_size"`
	// MinConfidence drops tasks below it (default 0.7; negative keeps
	// all).
	MinConfidence float64 `yaml:"min_confidence"`
}

// Stage3Config is quality control.
type Stage3Config struct {
	// Skip turns Stage 3 off: every deduplicated task is exported
	// unchecked.
	Skip bool `yaml:"skip"`
	// MaxSteps bounds a re-execution (default 14).
	MaxSteps int `yaml:"max_steps"`
	// RetryAttempts is how many re-executions a task gets before it
	// counts as failed (default 1; the reference never reads it).
	RetryAttempts int `yaml:"retry_attempts"`
	// Judge is JudgeLLM (default) or JudgeNone.
	Judge string `yaml:"judge"`
	// EnvCheck is CheckAuto (default), CheckHindsight, CheckReplay or
	// CheckNone.
	EnvCheck string `yaml:"env_check"`
}

// RewriteConfig is the query rewrite.
type RewriteConfig struct {
	// Enabled runs it after Stage 3.
	Enabled bool `yaml:"enabled"`
	// BatchSize is how many trajectories are rewritten between progress
	// updates and statistics writes (default 10).
	BatchSize int `yaml:"batch_size"`
	// NumVariants is the variants per query (default 3).
	NumVariants int `yaml:"num_variants"`
	// Export adds the variants to the exported tasks.
	Export bool `yaml:"export"`
}

// withDefaults returns c with its zero values replaced, or an error for
// values that cannot run.
func (c Config) withDefaults() (Config, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.EnvType == "" {
		return c, fmt.Errorf("%w: env_type is required", ErrConfig)
	}
	if c.Split == "" {
		c.Split = DefaultSplit
	}
	if c.Prompts == "" {
		c.Prompts = PromptsCuES
	}
	if c.Prompts == PromptsEnv && c.ActionFormat != "" {
		return c, fmt.Errorf("%w: action_format shapes the cues prompts, which prompts env does not use", ErrConfig)
	}
	if c.ActionFormat == "" {
		c.ActionFormat = DefaultActionFormat
	}
	def(&c.Workers, DefaultWorkers)
	if c.Temperature == nil {
		t := DefaultTemperature
		c.Temperature = &t
	}
	def(&c.MaxTokens, DefaultMaxTokens)
	def(&c.ChatAttempts, 3)
	def(&c.Concepts.Tasks, DefaultConceptTasks)
	def(&c.Concepts.BatchSize, DefaultConceptBatch)
	def(&c.Concepts.PerRollout, DefaultConceptsPerRollout)
	def(&c.Stage1.RolloutNum, DefaultRolloutNum)
	def(&c.Stage1.MaxSteps, DefaultStage1Steps)
	def(&c.Stage1.MemoryTriplets, DefaultMemoryTriplets)
	def(&c.Stage1.MemoryMaxTokens, DefaultMemoryMaxTokens)
	if c.Stage2.Method == "" {
		c.Stage2.Method = AbstractLLM
	}
	def(&c.Stage2.BatchSize, DefaultBatchSize)
	if c.Stage2.MinConfidence == 0 {
		c.Stage2.MinConfidence = DefaultMinConfidence
	}
	def(&c.Stage3.MaxSteps, DefaultStage3Steps)
	def(&c.Stage3.RetryAttempts, DefaultRetryAttempts)
	if c.Stage3.Judge == "" {
		c.Stage3.Judge = JudgeLLM
	}
	if c.Stage3.EnvCheck == "" {
		c.Stage3.EnvCheck = CheckAuto
	}
	def(&c.Rewrite.BatchSize, DefaultRewriteBatch)
	def(&c.Rewrite.NumVariants, DefaultRewriteVariant)

	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...))
	}
	oneOf := func(name, v string, ok ...string) {
		for _, o := range ok {
			if v == o {
				return
			}
		}
		bad("%s is %q (want one of %q)", name, v, ok)
	}
	oneOf("prompts", c.Prompts, PromptsCuES, PromptsEnv)
	oneOf("stage2.method", c.Stage2.Method, AbstractLLM, AbstractHindsight)
	oneOf("stage3.judge", c.Stage3.Judge, JudgeLLM, JudgeNone)
	oneOf("stage3.env_check", c.Stage3.EnvCheck, CheckAuto, CheckHindsight, CheckReplay, CheckNone)
	for _, p := range []struct {
		name string
		v    int
	}{{"workers", c.Workers}, {"max_tokens", c.MaxTokens}, {"chat_attempts", c.ChatAttempts},
		{"concepts.tasks", c.Concepts.Tasks}, {"concepts.batch_size", c.Concepts.BatchSize}, {"concepts.per_rollout", c.Concepts.PerRollout},
		{"stage1.rollout_num", c.Stage1.RolloutNum}, {"stage1.max_steps", c.Stage1.MaxSteps}, {"stage1.memory_max_tokens", c.Stage1.MemoryMaxTokens},
		{"stage2.batch_size", c.Stage2.BatchSize}, {"stage3.max_steps", c.Stage3.MaxSteps}, {"stage3.retry_attempts", c.Stage3.RetryAttempts},
		{"rewrite.batch_size", c.Rewrite.BatchSize}, {"rewrite.num_variants", c.Rewrite.NumVariants}} {
		if p.v < 0 {
			bad("%s is %d; it must not be negative", p.name, p.v)
		}
	}
	if *c.Temperature < 0 {
		bad("temperature is %v; it must not be negative", *c.Temperature)
	}
	if c.Stage2.MinConfidence > 1 {
		bad("stage2.min_confidence is %v; confidences are at most 1, so no task could pass", c.Stage2.MinConfidence)
	}
	if c.Prompts == PromptsEnv && (c.Requirement != "" || c.Concepts.Enabled) {
		bad("a requirement and the concept pool steer the explorer prompt, which prompts env does not use; use prompts cues or drop them")
	}
	if !c.Stage3.Skip && c.Stage3.Judge == JudgeNone && c.Stage3.EnvCheck == CheckNone {
		bad("stage3 has neither a judge nor an environment check; set stage3.judge or stage3.env_check, or stage3.skip")
	}
	return c, errors.Join(errs...)
}
