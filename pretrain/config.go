package pretrain

import (
	"fmt"
	"strings"

	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/internal/config"
	"github.com/org/agentevolver/trainer"
)

// Config configures a pretraining run. Its YAML form is written beside the
// result (pretrain.yaml) so that the run can be repeated; DefaultConfig
// holds the shipped base's settings and LoadConfig layers files and
// "--set key=value" overrides over them.
type Config struct {
	// Seed drives the model's initialisation, the corpus and the batch
	// order: the same configuration and seed give the same weights.
	Seed int64 `yaml:"seed"`
	// OutputDir receives the tokenizer, metrics (pretrain.jsonl),
	// checkpoints, the exported policy (policy/) and its card.
	OutputDir string `yaml:"output_dir"`
	// Backend selects the GoMLX backend ("" = $GOMLX_BACKEND or pure Go;
	// "xla:cuda" on a GPU).
	Backend string `yaml:"backend"`
	// TokenizerVocab is the size of the byte-level BPE vocabulary learnt
	// from the corpus.
	TokenizerVocab int `yaml:"tokenizer_vocab"`
	// TokenizerPattern is the tokenizer's pre-tokenizer: "word" (the
	// default, tokenizer.WordPattern: a word is one token whatever
	// precedes it, so values copy from the prompt into calls token for
	// token) or "qwen" (tokenizer.QwenPattern).
	TokenizerPattern string `yaml:"tokenizer_pattern"`
	// Shape is the policy's architecture.
	Shape trainer.ModelShape `yaml:"shape"`
	// InitFrom, when set, continues pretraining from a policy directory
	// (a Hugging Face directory with its tokenizer, such as another run's
	// policy/ or "builtin:toolworld-base") instead of starting from
	// random weights: its weights and tokenizer are used, Shape must
	// match its config, and TokenizerVocab and TokenizerPattern are
	// ignored. The optimiser starts afresh, with the warm-up of Train.
	InitFrom string `yaml:"init_from"`
	// Corpus chooses what the policy imitates.
	Corpus CorpusConfig `yaml:"corpus"`
	// Train is the optimisation schedule.
	Train TrainConfig `yaml:"train"`
	// Eval chooses the held-out measurements of the card.
	Eval EvalConfig `yaml:"eval"`
	// Context bounds episodes as the trainer's rollouts do, so that the
	// corpus holds exactly the tokens a policy sees in training.
	Context ContextConfig `yaml:"context"`
	// ExportDType is the type of the exported weights: "bf16" (the
	// default; half the size) or "f32".
	ExportDType string `yaml:"export_dtype"`
}

// CorpusConfig describes the generated corpus: toolworld episodes over many
// varied worlds (toolworld.Config.Worlds), from the expert and from
// hindsight walks, a share of them with worked examples in the prompt.
type CorpusConfig struct {
	// WorldSeed selects the corpus's worlds; Eval.WorldSeed must differ so
	// that the card measures worlds never seen in pretraining.
	WorldSeed int64 `yaml:"world_seed"`
	// Worlds is the number of varied worlds.
	Worlds int `yaml:"worlds"`
	// ValuesOnly makes the worlds vary only their values, keeping the
	// classic names and prompt (toolworld.Config.ValuesOnly).
	ValuesOnly bool `yaml:"values_only"`
	// Drift, with ValuesOnly, is the chance that a world renames each API
	// without saying so (toolworld.Config.Drift): only a worked example of
	// the world shows the new name, so the corpus teaches taking a name
	// from an example where one shows it.
	Drift float64 `yaml:"drift"`
	// DriftExampleShare, with Drift, is the share of episodes whose expert
	// calls a renamed API that carry a relevant worked example (which
	// shows the new name) whatever ExampleShare draws: without one such
	// an episode's new name cannot be predicted, and a corpus where it
	// mostly cannot teaches guessing names rather than reading them.
	DriftExampleShare float64 `yaml:"drift_example_share"`
	// TasksPerSplit is the size of each of the corpus environment's three
	// splits (levels 1, 2, 3 in turn): the train split's tasks are the
	// episodes' tasks, every split's tasks are the sources of worked
	// examples.
	TasksPerSplit int `yaml:"tasks_per_split"`
	// HindsightShare is the share of episodes that solve a hindsight task:
	// the goal reached by a random walk of 1 to WalkSteps calls on a task's
	// world (toolworld's SynthesizeTask).
	HindsightShare float64 `yaml:"hindsight_share"`
	// WalkSteps bounds a hindsight walk.
	WalkSteps int `yaml:"walk_steps"`
	// ExampleShare is the share of episodes whose task message carries
	// worked examples (experience in the template the trainer injects).
	ExampleShare float64 `yaml:"example_share"`
	// RelevantShare is the share of those whose first example solves a
	// task of the same family in the same world; the other examples are
	// unrelated tasks of the same world.
	RelevantShare float64 `yaml:"relevant_share"`
	// SameTaskShare is the share of relevant examples that are the task's
	// own solution, as a pool that has seen the task gives.
	SameTaskShare float64 `yaml:"same_task_share"`
	// MaxExamples bounds the examples of one prompt (the trainer's
	// retrieve_top_k).
	MaxExamples int `yaml:"max_examples"`
	// FocusStart is the share of the first episodes whose tool list shows
	// only the tools their expert calls and FocusDistractors others, with
	// no worked examples (whose calls, of other values, distract from the
	// task's own before a model has learnt to read it); the
	// share falls linearly to 0 at episode FocusEpisodes. A curriculum: in
	// a short list what to read stands out, so a model from scratch learns
	// to read its prompt sooner (without it, a small model spent its first
	// thousands of steps predicting the names each world might use).
	FocusStart       float64 `yaml:"focus_start"`
	FocusEpisodes    int64   `yaml:"focus_episodes"`
	FocusDistractors int     `yaml:"focus_distractors"`
	// ReserveShare is the share of instructions (toolworld's
	// ReservedInstruction) kept out of the corpus, as its episodes and as
	// worked examples: the tasks that reinforcement learning from this
	// policy can practise on without having imitated them (the trainer's
	// env.toolworld.train_reserved with the same share). In a classic
	// world the corpus otherwise covers nearly every instruction of a
	// level: a train split drawn afresh is then one the policy learnt by
	// heart. 0 reserves nothing.
	ReserveShare float64 `yaml:"reserve_share"`
	// DrillShare is the share of episodes replaced by copy drills: short
	// synthetic tasks that only copying from the prompt solves (repeat
	// some words; call a named tool with the values a list of pairs gives
	// its arguments), which teach in-context copying before the corpus's
	// episodes need it. 0 makes none.
	DrillShare float64 `yaml:"drill_share"`
}

// TrainConfig is the optimisation schedule: AdamW with a linear warm-up
// and a cosine decay to MinLR.
type TrainConfig struct {
	Steps       int     `yaml:"steps"`
	BatchSize   int     `yaml:"batch_size"`
	LR          float64 `yaml:"lr"`
	MinLR       float64 `yaml:"min_lr"`
	WarmupSteps int     `yaml:"warmup_steps"`
	WeightDecay float64 `yaml:"weight_decay"`
	GradClip    float64 `yaml:"grad_clip"`
	// MicroBatchSize bounds the rows of one forward/backward pass (0: the
	// whole batch).
	MicroBatchSize int `yaml:"micro_batch_size"`
	// SortWindow batches episodes of similar length: this many batches
	// are drawn at once, sorted by length and cut into batches that train
	// shortest first, so padding wastes little compute and consecutive
	// steps share their shape. 1 (the default) turns it off, and should
	// stay off: batches of one length are batches of one kind of episode,
	// and a 2-layer model trained on a classic world in windows of 32
	// stayed at loss 0.39 and 0% held-out success after 600 steps where
	// the same run without sorting reached loss 0.07 and 33% on level 1.
	SortWindow int `yaml:"sort_window"`
	// LossOnAll, when true, trains on every token of an episode (the
	// system prompt, the instruction, worked examples, observations), as
	// a language model's pretraining does, not only on the policy's own
	// calls. Text that repeats within an episode (a name in the
	// instruction, then in a call, then in the observation) is then
	// learnt as copying from many more tokens per step.
	LossOnAll bool `yaml:"loss_on_all"`
	// EvalEvery measures held-out success every EvalEvery steps (0: only
	// at the end); SaveEvery checkpoints every SaveEvery steps (0: only at
	// the end).
	EvalEvery int `yaml:"eval_every"`
	SaveEvery int `yaml:"save_every"`
	// MaxMinutes, when positive, ends training after that many minutes of
	// wall time (the last batch finished), whatever Steps says: the budget
	// a machine gives.
	MaxMinutes float64 `yaml:"max_minutes"`
	// StopStep, when positive, ends training after that many steps while
	// the learning-rate schedule stays that of Steps: what reproduces a
	// run that its time budget stopped.
	StopStep int `yaml:"stop_step"`
}

// EvalConfig chooses the card's measurements: greedy success on held-out
// worlds per level, with no worked example, with a relevant one (a task of
// the same family in the same world) and with an unrelated one.
type EvalConfig struct {
	// WorldSeed, Worlds, ValuesOnly and Drift make the held-out
	// environment.
	WorldSeed  int64   `yaml:"world_seed"`
	Worlds     int     `yaml:"worlds"`
	ValuesOnly bool    `yaml:"values_only"`
	Drift      float64 `yaml:"drift"`
	// TasksPerLevel is the held-out tasks per level of the final card.
	TasksPerLevel int `yaml:"tasks_per_level"`
	// QuickTasksPerLevel is the tasks per level of the periodic
	// measurements during training (no examples).
	QuickTasksPerLevel int `yaml:"quick_tasks_per_level"`
	// CheckTasks is the size of the fixed task set whose greedy success
	// the card records so that a test can reproduce it exactly.
	CheckTasks int `yaml:"check_tasks"`
	// Concurrency bounds the episodes in flight.
	Concurrency int `yaml:"concurrency"`
}

// ContextConfig bounds episodes as rollout.* and data.* do in training.
type ContextConfig struct {
	MaxModelLen    int `yaml:"max_model_len"`
	ResponseLength int `yaml:"response_length"`
	MaxEnvLen      int `yaml:"max_env_len"`
	MaxPromptLen   int `yaml:"max_prompt_length"`
	MaxSteps       int `yaml:"max_steps"`
	// SystemPrompt is the line every world's system prompt starts with
	// (toolworld.Config.SystemPrompt); the trainer's toolworld must use
	// the same.
	SystemPrompt string `yaml:"system_prompt"`
}

// DefaultConfig returns the configuration of the shipped base policy: the
// main job's 2-layer, 128-wide shape (a 4-layer, 256-wide one did worse at
// equal steps and took five times as long per step, and the main job must
// train in minutes on a CPU) on toolworld's classic world, whose held-out
// tasks the trainer's default validation uses. Varied worlds (Corpus.Worlds
// > 0) make a policy read names from its prompt; at this size and budget
// none learnt to (docs/pretraining.md).
func DefaultConfig() Config {
	return Config{
		Seed:           1,
		OutputDir:      "runs/pretrain",
		TokenizerVocab: 1536, TokenizerPattern: "word",
		Shape: trainer.ModelShape{
			HiddenSize: 128, NumLayers: 2, NumHeads: 4, NumKVHeads: 2,
			IntermediateSize: 384, MaxPositions: 1024, RopeTheta: 10000,
		},
		Corpus: CorpusConfig{
			WorldSeed: 1, Worlds: 0, TasksPerSplit: 20000,
			HindsightShare: 0.25, WalkSteps: 4,
			ExampleShare: 0.5, RelevantShare: 0.7, SameTaskShare: 0.1, MaxExamples: 3,
			FocusDistractors: 2,
		},
		Train: TrainConfig{
			Steps: 8000, BatchSize: 16, LR: 1e-3, MinLR: 1e-4, WarmupSteps: 100,
			WeightDecay: 0.01, GradClip: 1, SortWindow: 1, EvalEvery: 1000, SaveEvery: 500,
			MaxMinutes: 60,
		},
		Eval: EvalConfig{
			WorldSeed: 2, Worlds: 0, TasksPerLevel: 100, QuickTasksPerLevel: 30,
			CheckTasks: 30, Concurrency: 32,
		},
		Context: ContextConfig{
			MaxModelLen: 1024, ResponseLength: 64, MaxEnvLen: 256, MaxPromptLen: 768, MaxSteps: 6,
			SystemPrompt: DefaultSystemPrompt,
		},
		ExportDType: "bf16",
	}
}

// DefaultSystemPrompt is the first line of every world's system prompt.
const DefaultSystemPrompt = toolworld.OneLinePrompt

// LoadConfig returns DefaultConfig with the YAML files layered over it in
// order, then the "a.b=value" overrides; unknown keys are errors that name
// the key.
func LoadConfig(files, overrides []string) (Config, error) {
	cfg := DefaultConfig()
	if err := config.LoadFiles(&cfg, files, overrides); err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Validate checks ranges.
func (c Config) Validate() error {
	var errs []string
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}
	share := func(x float64) bool { return x >= 0 && x <= 1 }
	check(c.OutputDir != "", "output_dir is empty")
	check(c.TokenizerPattern == "word" || c.TokenizerPattern == "qwen", "tokenizer_pattern %q: want word or qwen", c.TokenizerPattern)
	check(c.TokenizerVocab >= 300 && c.TokenizerVocab <= 1<<16, "tokenizer_vocab %d not in 300..65536", c.TokenizerVocab)
	s := c.Shape
	check(s.HiddenSize > 0 && s.NumLayers > 0 && s.NumHeads > 0 && s.NumKVHeads > 0 && s.IntermediateSize > 0,
		"shape: hidden_size, num_layers, num_heads, num_kv_heads and intermediate_size must be > 0")
	check(s.NumHeads > 0 && s.HiddenSize%max(s.NumHeads, 1) == 0, "shape.hidden_size %d is not a multiple of num_heads %d", s.HiddenSize, s.NumHeads)
	check(s.NumKVHeads > 0 && s.NumHeads%max(s.NumKVHeads, 1) == 0, "shape.num_heads %d is not a multiple of num_kv_heads %d", s.NumHeads, s.NumKVHeads)
	check(s.MaxPositions >= c.Context.MaxModelLen, "shape.max_positions %d < context.max_model_len %d", s.MaxPositions, c.Context.MaxModelLen)
	co := c.Corpus
	check(co.Worlds >= 0, "corpus.worlds %d must be >= 0", co.Worlds)
	check(co.TasksPerSplit >= 3, "corpus.tasks_per_split %d must be >= 3", co.TasksPerSplit)
	check(share(co.ReserveShare) && co.ReserveShare < 1 && share(co.HindsightShare) && share(co.ExampleShare) && share(co.RelevantShare) && share(co.SameTaskShare) && share(co.DrillShare) && co.DrillShare < 1,
		"corpus shares must be in [0, 1] (drill_share and reserve_share below 1)")
	check(share(co.DriftExampleShare), "corpus.drift_example_share must be in [0, 1]")
	check(share(co.Drift) && share(c.Eval.Drift), "corpus.drift and eval.drift must be in [0, 1]")
	check(co.Drift == 0 || (co.Worlds > 0 && co.ValuesOnly), "corpus.drift needs corpus.worlds and corpus.values_only")
	check(c.Eval.Drift == 0 || (c.Eval.Worlds > 0 && c.Eval.ValuesOnly), "eval.drift needs eval.worlds and eval.values_only")
	check(co.WalkSteps >= 1, "corpus.walk_steps %d must be >= 1", co.WalkSteps)
	check(co.MaxExamples >= 1, "corpus.max_examples %d must be >= 1", co.MaxExamples)
	check(share(co.FocusStart) && co.FocusEpisodes >= 0 && co.FocusDistractors >= 0, "corpus: focus_start in [0, 1], focus_episodes and focus_distractors >= 0")
	check(co.Worlds == 0 || co.WorldSeed != c.Eval.WorldSeed, "eval.world_seed must differ from corpus.world_seed: the card measures unseen worlds")
	t := c.Train
	check(t.Steps >= 0, "train.steps %d < 0", t.Steps)
	check(t.BatchSize > 0, "train.batch_size %d must be > 0", t.BatchSize)
	check(t.LR > 0 && t.MinLR > 0 && t.MinLR <= t.LR, "train.lr and train.min_lr must be > 0 with min_lr <= lr")
	check(t.WarmupSteps >= 0 && t.WeightDecay >= 0 && t.GradClip >= 0 && t.MicroBatchSize >= 0, "train: negative warmup_steps, weight_decay, grad_clip or micro_batch_size")
	check(t.SortWindow >= 1, "train.sort_window %d must be >= 1", t.SortWindow)
	check(t.EvalEvery >= 0 && t.SaveEvery >= 0 && t.MaxMinutes >= 0 && t.StopStep >= 0, "train: negative eval_every, save_every, max_minutes or stop_step")
	e := c.Eval
	check(e.Worlds >= 0 && e.TasksPerLevel > 0 && e.QuickTasksPerLevel > 0 && e.CheckTasks > 0 && e.Concurrency > 0,
		"eval: worlds, tasks_per_level, quick_tasks_per_level, check_tasks and concurrency must be > 0")
	x := c.Context
	check(x.MaxModelLen > x.ResponseLength && x.ResponseLength > 0 && x.MaxEnvLen > 0 && x.MaxPromptLen > 0 && x.MaxSteps > 0,
		"context: max_model_len > response_length > 0, max_env_len, max_prompt_length and max_steps > 0")
	check(c.ExportDType == "bf16" || c.ExportDType == "f32", "export_dtype %q: want bf16 or f32", c.ExportDType)
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s", ErrConfig, strings.Join(errs, "; "))
	}
	return nil
}
