package trainer

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/org/agentevolver/attribution"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/launcher"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/models"
	"github.com/org/agentevolver/runlog/episodelog"
	"github.com/org/agentevolver/runlog/track"
	"github.com/org/agentevolver/taskgen"
	"github.com/org/agentevolver/taskgen/grader"
	"github.com/org/agentevolver/trainer/objective"
)

// Config is the whole configuration of a training run. Its YAML form uses
// the section and key names of the reference configuration where they
// exist (trainer, data, rollout, actor, algorithm), so a reader of the
// Python docs finds their way. DefaultConfig holds the defaults; LoadConfig
// layers YAML files and "--set key=value" overrides over them.
type Config struct {
	Trainer   RunConfig       `yaml:"trainer"`
	Data      DataConfig      `yaml:"data"`
	Env       EnvConfig       `yaml:"env"`
	Model     ModelConfig     `yaml:"model"`
	Rollout   RolloutConfig   `yaml:"rollout"`
	Actor     ActorConfig     `yaml:"actor"`
	Algorithm AlgorithmConfig `yaml:"algorithm"`
	WarmStart WarmStartConfig `yaml:"warm_start"`
	// Attribution is self-attributing: step judges and ADCA-GRPO
	// step-level advantages (the reference's section name).
	Attribution attribution.Config `yaml:"attribution_driven_credit_assignment"`
	// Experience is self-navigating: which rollouts get experience from
	// the pool and what training does with it (the reference's
	// exp_manager section).
	Experience experience.Config `yaml:"exp_manager"`
	// Tasks is self-questioning: synthetic tasks mixed with the original
	// ones and graded by their evaluator (the reference's task_manager
	// section).
	Tasks taskgen.Config `yaml:"task_manager"`
	// Launch names the companion services "agentevolver launch" starts
	// beside training (package launcher); the trainer never reads it.
	Launch launcher.Config `yaml:"launch"`
}

// RunConfig is the schedule and bookkeeping of a run.
type RunConfig struct {
	// ExperimentName names the run; outputs go to OutputDir.
	ExperimentName string `yaml:"experiment_name"`
	// OutputDir receives metrics.jsonl, the plot, checkpoints and the
	// summary. Placeholders such as ${trainer.experiment_name} are resolved.
	OutputDir string `yaml:"output_dir"`
	// Seed drives model initialisation, task order and sampling.
	Seed int64 `yaml:"seed"`
	// RLSteps is the number of GRPO steps (total_training_steps).
	RLSteps int `yaml:"rl_steps"`
	// TestFreq validates every TestFreq RL steps (and after the last); 0
	// validates only before and after RL.
	TestFreq int `yaml:"test_freq"`
	// SaveFreq checkpoints every SaveFreq RL steps; the final state is
	// always saved. 0 saves only at the end.
	SaveFreq int `yaml:"save_freq"`
	// ValBeforeTrain validates before RL (after the warm start).
	ValBeforeTrain bool `yaml:"val_before_train"`
	// Backend selects the GoMLX backend ("" = $GOMLX_BACKEND or pure Go).
	Backend string `yaml:"backend"`
	// Devices is how many of the backend's devices the policy updates run
	// on, data parallel (UpdaterConfig.Devices: micro-batch rows split over
	// them, gradients summed with AllReduce, trainable weights and AdamW
	// moments sharded); 0 or 1 is one device. The warm start, old and
	// reference log-probs and in-process rollouts run on the first device; with rollout.engine remote, rollouts run on
	// the servers. On GPUs it needs the xla backend; "gofast:devices=N"
	// gives the pure-Go backend N virtual devices on the CPU.
	Devices int `yaml:"devices"`
	// Progress shows progress bars when stderr is a terminal.
	Progress bool `yaml:"progress"`
	// MaxFailedRatio is the largest share of a step's episodes (or of a
	// validation's) that may fail in the environment before Fit stops
	// with an error after a checkpoint. Failed episodes are never trained
	// on; many of them mean a broken environment, and training on the
	// survivors alone would bias the policy towards whatever the
	// environment happens not to break on. Zero means
	// DefaultMaxFailedRatio; 1 never stops (unless every episode fails).
	MaxFailedRatio float64 `yaml:"max_failed_ratio"`
	// OutageTimeout is how long Fit waits for an unreachable environment
	// service (or model endpoint) to come back before it stops with an
	// error after a checkpoint. A step whose episodes failed because of an
	// outage is not counted: it is run again once the service answers its
	// health check. Zero means DefaultOutageTimeout; negative never waits.
	OutageTimeout time.Duration `yaml:"outage_timeout"`
	// SilentSteps is how many RL steps in a row may give the policy
	// nothing to learn (every advantage zero: all episodes of each group
	// scored alike, most often all 0) before Fit warns, once, why nothing
	// is learned and what to do; 0 means DefaultSilentSteps, negative never
	// warns. The metric rl/no_signal marks such steps.
	SilentSteps int `yaml:"silent_steps"`
	// MaxCheckpointsToKeep keeps only the newest MaxCheckpointsToKeep
	// checkpoints (veRL's max_actor_ckpt_to_keep), deleting older ones
	// after each save; 0 keeps all of them.
	MaxCheckpointsToKeep int `yaml:"max_checkpoints_to_keep"`
	// Logger lists the trackers the metrics go to, as the reference's
	// trainer.logger does: jsonl (metrics.jsonl, always written: the
	// plot, the summary, resume and the run viewer read it), console (a
	// line per record on the run's output) and tensorboard (event files
	// under tensorboard/ in the output directory). A single name is
	// accepted too. Other trackers are added in code (Options.Trackers).
	Logger track.List `yaml:"logger"`
	// EpisodeLog records episodes for the run viewer (agentevolver view).
	EpisodeLog episodelog.Config `yaml:"episode_log"`
}

// DefaultOutageTimeout is RunConfig.OutageTimeout's default.
const DefaultOutageTimeout = 10 * time.Minute

// DefaultMaxFailedRatio is RunConfig.MaxFailedRatio's default: a quarter
// of the episodes failing is far beyond a flaky environment.
const DefaultMaxFailedRatio = 0.25

// DefaultEnvType is the environment type of a configuration whose env.type
// is empty and that names no env.url and gets no Options.Env: the built-in
// environment of the main job.
const DefaultEnvType = "toolworld"

// DataConfig bounds samples and picks the task splits.
type DataConfig struct {
	// TrainBatchSize is the number of tasks per RL step.
	TrainBatchSize int `yaml:"train_batch_size"`
	// MaxPromptLength and MaxResponseLength bound a sample's prompt and
	// response, in tokens.
	MaxPromptLength   int `yaml:"max_prompt_length"`
	MaxResponseLength int `yaml:"max_response_length"`
	// TrainSplit and ValSplit name the environment splits.
	TrainSplit string `yaml:"train_split"`
	ValSplit   string `yaml:"val_split"`
	// ValTasks validates on the first ValTasks tasks of ValSplit; 0 means
	// all of them.
	ValTasks int `yaml:"val_tasks"`
	// Shuffle shuffles the training tasks each epoch (seeded).
	Shuffle bool `yaml:"shuffle"`
	// TrainFiles are task files (JSON lines or Parquet, see
	// taskgen.ReadTaskFile) whose tasks replace the environment's
	// TrainSplit as the original training tasks; empty uses the split.
	TrainFiles []string `yaml:"train_files"`
	// MaxDifficulty keeps only tasks whose difficulty is at most
	// MaxDifficulty (environments with envservice.TaskMetadataProvider);
	// 0 keeps all.
	MaxDifficulty int `yaml:"max_difficulty"`
}

// EnvConfig chooses the environment.
type EnvConfig struct {
	// Type is the environment type (env_type). Empty means the single type
	// Options.Env serves, or DefaultEnvType when the trainer builds the
	// environment itself; it is required with URL.
	Type string `yaml:"type"`
	// URL is the base URL of a remote env service (the Python one
	// included). Empty runs the built-in environment in process.
	URL string `yaml:"url"`
	// Companion starts the built-in env service on CompanionAddr and
	// talks to it over HTTP, as a remote service would be used.
	Companion     bool   `yaml:"companion"`
	CompanionAddr string `yaml:"companion_addr"`
	// Token is the bearer token sent to the env service at URL (serve-env
	// --token). It is never written to checkpoints or logs; the command
	// line reads it from $AGENTEVOLVER_ENV_TOKEN when it is empty.
	Token string `yaml:"token"`
	// CAFile is a PEM file of the certificate authorities to trust for an
	// https URL (a self-signed serve-env --tls-cert) instead of the system's.
	CAFile string `yaml:"ca_file"`
	// Config holds the built-in environments' own sections
	// (env.toolworld, env.textgame, env.sqlworld, env.mcp, env.avalon),
	// each its package's config type. The trainer never reads them: the
	// factory in Options.Environments that builds env.type does.
	builtin.Config `yaml:",inline"`
}

// ModelConfig chooses the policy.
type ModelConfig struct {
	// Path is a Hugging Face checkpoint directory (config.json and
	// safetensors), or a policy shipped with the module by name
	// ("builtin:toolworld-base", package models). Empty initialises a new
	// model from Shape.
	Path string `yaml:"path"`
	// Tokenizer is "byte" for the built-in byte-level tokenizer, "env" to
	// learn a byte-level BPE vocabulary from the built-in environment's
	// text (TokenizerFromEnv), or a directory with tokenizer.json; empty
	// means Path when Path is set, else "byte".
	Tokenizer string `yaml:"tokenizer"`
	// TokenizerVocab is the vocabulary size of a learned tokenizer.
	TokenizerVocab int `yaml:"tokenizer_vocab"`
	// Shape is the architecture of a newly initialised model.
	Shape ModelShape `yaml:"shape"`
}

// ModelShape is the architecture of a new Qwen2-family model. The vocabulary
// size comes from the tokenizer.
type ModelShape struct {
	HiddenSize        int     `yaml:"hidden_size"`
	NumLayers         int     `yaml:"num_layers"`
	NumHeads          int     `yaml:"num_heads"`
	NumKVHeads        int     `yaml:"num_kv_heads"`
	IntermediateSize  int     `yaml:"intermediate_size"`
	MaxPositions      int     `yaml:"max_positions"`
	RopeTheta         float64 `yaml:"rope_theta"`
	TieWordEmbeddings bool    `yaml:"tie_word_embeddings"`
}

// RolloutConfig controls episodes.
type RolloutConfig struct {
	// N is the number of rollouts per task (the GRPO group size).
	N int `yaml:"n"`
	// Temperature, TopP and TopK are the training sampling settings.
	Temperature float64 `yaml:"temperature"`
	TopP        float64 `yaml:"top_p"`
	TopK        int     `yaml:"top_k"`
	// ResponseLength bounds one policy turn, in tokens.
	ResponseLength int `yaml:"response_length"`
	// MaxModelLen is the policy's context length.
	MaxModelLen int `yaml:"max_model_len"`
	// MaxEnvLen clips environment observations, in tokens.
	MaxEnvLen int `yaml:"max_env_len"`
	// MaxSteps bounds the turns of an episode.
	MaxSteps int `yaml:"max_steps"`
	// Concurrency bounds parallel episodes.
	Concurrency int `yaml:"concurrency"`
	// Sparse asks the environment for 0/1 scores.
	Sparse bool `yaml:"sparse"`
	// ValN is k of the validation metrics (rollouts per validation task).
	ValN int `yaml:"val_n"`
	// ValTemperature is the validation sampling temperature; 0 is greedy.
	// (The reference validates greedily with n = 8, which makes its k
	// rollouts identical; a positive temperature makes pass@k mean
	// something.)
	ValTemperature float64 `yaml:"val_temperature"`
	// ContextTemplate is the context manager of every episode, by the
	// reference's names: "linear" (the default), "linear_think",
	// "context_selfclip" or "memory", or "per_call" (one sample per model
	// call, the environment's state as each prompt: the arena games).
	ContextTemplate string `yaml:"context_template"`
	// UseQwen3 appends "/no_think" to the task and to observations, the
	// Qwen3 switch that turns thinking off (rollout.use_qwen3).
	UseQwen3 bool `yaml:"use_qwen3"`
	// LinearThink, SelfClip and Memory are the settings of their
	// strategies; each is read only when ContextTemplate selects it.
	LinearThink contextmgr.LinearThinkConfig `yaml:"linear_think"`
	SelfClip    contextmgr.SelfClipConfig    `yaml:"context_selfclip"`
	Memory      contextmgr.MemoryConfig      `yaml:"memory"`
	PerCall     PerCallConfig                `yaml:"per_call"`
	// Engine samples the rollouts: EngineLocal ("local", the default; ""
	// too), the in-process policy, or EngineRemote ("remote"),
	// OpenAI-compatible servers configured by Remote, which needs
	// actor.lora (only adapters can be published cheaply after every
	// update). Validation and experience initialisation sample with it
	// too; the warm start replays demonstrations and samples nothing, and
	// Evaluate always samples in process.
	Engine string `yaml:"engine"`
	// Remote configures the servers of the remote engine.
	Remote RemoteConfig `yaml:"remote"`
	// WeightDType is the format of the weights the in-process policy
	// samples with (rollout.weight_dtype): "float32" (the default; ""
	// too), "bfloat16" or "int8" (per output channel), copies of the
	// float32 weights made again after every update (see
	// model.SamplerWeights). Decoding reads every weight once per token,
	// so on a CPU narrower weights decode large models faster; the rollout
	// log-probs then differ from the trainer's float32 ones by the
	// rounding, which the importance ratio sees. Training, log-probs,
	// checkpoints and exports stay float32. Needs actor.dtype float32.
	WeightDType string `yaml:"weight_dtype"`
}

// Values of PerCallConfig.GroupWeighting.
const (
	// GroupWeightingEpisode computes GRPO statistics over episodes and
	// weights each episode equally (see ComputeEpisodeGRPOAdvantages).
	GroupWeightingEpisode = "episode"
	// GroupWeightingCall is the reference's: every call-sample is a row
	// of its task's group, so long episodes weigh more (§1.9.8).
	GroupWeightingCall = "call"
)

// PerCallConfig is the rollout.per_call section: the context manager's
// settings (contextmgr.PerCallConfig) and how its call-samples enter GRPO,
// which is the trainer's.
type PerCallConfig struct {
	// The context manager's own settings (max_sample_per_task).
	contextmgr.PerCallConfig `yaml:",inline"`
	// GroupWeighting is how an episode's call-samples enter GRPO:
	// GroupWeightingEpisode ("episode", the default; "" means it) or
	// GroupWeightingCall ("call", the reference's).
	GroupWeighting string `yaml:"group_weighting"`
}

// Values of ActorConfig.OffPolicyOldLogProbs.
const (
	// OldLogProbsRollout takes a stripped sample's old log-probs from its
	// rollout: the behaviour policy, which saw the experience.
	OldLogProbsRollout = "rollout"
	// OldLogProbsRecompute recomputes them on the stripped sample (the
	// reference).
	OldLogProbsRecompute = "recompute"
)

// ActorConfig is the policy update (actor_rollout_ref.actor).
type ActorConfig struct {
	LR float64 `yaml:"lr"`
	// LRWarmupSteps ramps the learning rate linearly from LR/LRWarmupSteps
	// to LR over the first RL steps (veRL's optim.lr_warmup_steps); 0 means
	// no warm-up. Adam's first steps move every weight by about lr, so a
	// warm-up keeps a fresh optimiser from jolting a warm-started policy.
	LRWarmupSteps    int     `yaml:"lr_warmup_steps"`
	WeightDecay      float64 `yaml:"weight_decay"`
	GradClip         float64 `yaml:"grad_clip"`
	PPOEpochs        int     `yaml:"ppo_epochs"`
	PPOMiniBatchSize int     `yaml:"ppo_mini_batch_size"` // in samples; 0 = whole batch
	MicroBatchSize   int     `yaml:"micro_batch_size"`    // in samples; 0 = mini-batch
	ClipRatioLow     float64 `yaml:"clip_ratio_low"`
	ClipRatioHigh    float64 `yaml:"clip_ratio_high"`
	ClipRatioC       float64 `yaml:"clip_ratio_c"`
	OffClipRangeHigh float64 `yaml:"off_cliprange_high"`
	// OffPolicyOldLogProbs says which log-probs the HET loss's ratio
	// divides by on samples whose experience was stripped for training:
	// OldLogProbsRollout (the default) uses the ones the policy reported
	// while it sampled with the experience in its prompt, so the ratio is
	// the importance weight of the stripped prompt against the one the
	// tokens were drawn from and the off-policy clip range bounds it;
	// OldLogProbsRecompute recomputes them on the stripped prompt, as the
	// reference does, which makes the ratio 1 on the first update and
	// the off-policy clip a no-op with one PPO epoch. A stripped sample
	// without rollout log-probs falls back to the recomputed ones
	// (counted in actor/exp_recomputed_rows).
	OffPolicyOldLogProbs string  `yaml:"off_policy_old_log_probs"`
	UseKLLoss            bool    `yaml:"use_kl_loss"`
	KLLossCoef           float64 `yaml:"kl_loss_coef"`
	KLLossType           string  `yaml:"kl_loss_type"`
	EntropyCoeff         float64 `yaml:"entropy_coeff"`
	LossAggMode          string  `yaml:"loss_agg_mode"`
	// LoRA trains low-rank adapters instead of the whole policy
	// (actor.lora; off by default).
	LoRA LoRAConfig `yaml:"lora"`
	// DType is the compute precision of the policy (actor.dtype), for
	// training, old and reference log-probs and rollouts alike: "float32"
	// (the default; "" means it) or "bfloat16" ("bf16"), mixed precision:
	// the decoder blocks compute in bfloat16 while the weights, their
	// gradients and the AdamW moments stay float32, and so do the norms,
	// softmaxes, output head, log-probs and loss (see
	// model.Options.ComputeDType). Setup fails with
	// model.ErrUnsupportedDType, before any training, when the backend
	// cannot run bfloat16.
	DType string `yaml:"dtype"`
}

// computeDType is actor.dtype as a model compute dtype.
func (a ActorConfig) computeDType() (dtypes.DType, error) { return model.ParseComputeDType(a.DType) }

// LoRAConfig is actor.lora: low-rank adapters with PEFT's settings and
// names (see model.LoRAConfig). With R > 0 the policy's weights are frozen
// and only the adapters train: gradients and AdamW moments exist for them
// alone; the reference policy of the KL loss is the same model with its
// adapters switched off (model.AdaptersOff: no second copy of the weights,
// and no reference/ directory); checkpoints hold the adapters and resume
// them bit for bit; final/ holds the merged policy in Hugging Face format
// and, in final/adapter/ (AdapterDir), the adapters as a PEFT directory.
// A warm start trains the adapters too, so with one the reference is the
// model before the warm start. The zero value is off.
type LoRAConfig struct {
	// R is the adapters' rank (r); 0 turns LoRA off.
	R int `yaml:"r"`
	// Alpha scales the adapters by Alpha/R (lora_alpha); 0 means R.
	Alpha float64 `yaml:"lora_alpha"`
	// Dropout is PEFT's lora_dropout, in [0, 1). It is recorded in the
	// adapter's configuration for PEFT but not applied: the policy's
	// graphs have no dropout (a warning says so when it is set).
	Dropout float64 `yaml:"lora_dropout"`
	// TargetModules are the adapted projections by PEFT's names, from
	// q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj and down_proj
	// (model.LoRAModules); empty means all of them.
	TargetModules []string `yaml:"target_modules"`
}

// Enabled reports whether LoRA is on (R > 0).
func (c LoRAConfig) Enabled() bool { return c.R > 0 }

// Rollout engines of RolloutConfig.Engine.
const (
	// EngineLocal samples with the in-process policy (model.Policy).
	EngineLocal = "local"
	// EngineRemote samples through OpenAI-compatible servers (vLLM) that
	// load the policy's LoRA adapter after every update.
	EngineRemote = "remote"
)

// Load balancing of RemoteConfig.Balance.
const (
	// BalanceLeastOutstanding sends each request to the server with the
	// fewest requests in flight (ties in order).
	BalanceLeastOutstanding = "least_outstanding"
	// BalanceRoundRobin sends requests to the servers in turn.
	BalanceRoundRobin = "round_robin"
)

// RemoteConfig is rollout.remote: the OpenAI-compatible servers (vLLM
// with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True) that
// sample the rollouts when rollout.engine is remote. Every server serves
// the same base model as model.path; before the rollouts of each step the
// trainer writes the policy's adapter as a PEFT directory under AdapterDir
// (named per step), loads it into every server (POST
// /v1/load_lora_adapter), unloads the previous one and names it as the
// model of every request. A server that fails leaves the rotation and is
// health-checked with backoff until it answers (and has the current
// adapter loaded); an answer that names another model than the requested
// adapter is never trained on: its episode fails (cause policy, counted
// in remote/stale_responses). Old log-probs are always recomputed by the
// trainer: the servers' log-probs only feed rollout/logprob_diff.
type RemoteConfig struct {
	// BaseURLs are the servers' API roots, such as
	// "http://gpu1:8000/v1"; requests are spread over them.
	BaseURLs []string `yaml:"base_urls"`
	// ModelName is the base model's served name (vLLM
	// --served-model-name), recorded as the adapters'
	// base_model_name_or_path; empty records model.path.
	ModelName string `yaml:"model_name"`
	// APIKeyEnv names the environment variable holding the servers' API
	// key (vLLM --api-key); empty means OPENAI_API_KEY, and no key is sent
	// when the variable is unset.
	APIKeyEnv string `yaml:"api_key_env"`
	// Balance is least_outstanding (the default) or round_robin.
	Balance string `yaml:"balance"`
	// AdapterDir is where adapters are published, at a path every server
	// can read (a shared file system): relative paths lie under
	// trainer.output_dir. Empty means AdaptersDir in the output
	// directory. The last two adapters are kept.
	AdapterDir string `yaml:"adapter_dir"`
	// RequestTimeout bounds one request; 0 means fleet.DefaultRequestTimeout.
	RequestTimeout time.Duration `yaml:"request_timeout"`
	// RetryMin and RetryMax bound the backoff between health checks of a
	// server out of the rotation (doubling from RetryMin); 0 means the
	// fleet package's defaults (1s and 1m).
	RetryMin time.Duration `yaml:"retry_min"`
	RetryMax time.Duration `yaml:"retry_max"`
}

// AlgorithmConfig selects the advantage estimator.
type AlgorithmConfig struct {
	// AdvEstimator is "grpo".
	AdvEstimator string `yaml:"adv_estimator"`
	// NormAdvByStdInGRPO divides by the group's standard deviation.
	NormAdvByStdInGRPO bool `yaml:"norm_adv_by_std_in_grpo"`
}

// WarmStartConfig is the supervised warm start on expert demonstrations
// (built-in environment only: its expert solver writes them).
type WarmStartConfig struct {
	// Steps is the number of supervised steps; 0 disables the warm start.
	Steps     int     `yaml:"steps"`
	BatchSize int     `yaml:"batch_size"`
	LR        float64 `yaml:"lr"`
	// Demos is the number of training tasks whose expert solutions are
	// used; 0 means all.
	Demos int `yaml:"demos"`
	// ExperienceShare in [0, 1] is the share of demonstrated tasks
	// replayed a second time with experience in the prompt: the
	// demonstrations' worked examples fill the experience pool (which
	// must be configured), and each replay retrieves examples of other
	// tasks, never its own. A policy that meets experience only in RL
	// does not read it (examples/experiments/README.md); 0 (the
	// reference's behaviour) warm-starts on prompts without experience.
	ExperienceShare float64 `yaml:"experience_share"`
}

// DefaultConfig returns the main job: the shipped toolworld base policy
// (package models) evolved on toolworld's levels 1-3 with the three
// self-evolving mechanisms on (tasks synthesised during training, the
// embedded experience pool with HET, ADCA-GRPO with toolworld's step
// oracle), sized so that a 2-core machine finishes in minutes. Its
// validation tasks are the held-out tasks of the base's card (the same
// seed and split sizes), which the base never imitated.
// FromScratchConfig is the same job from a policy trained from scratch.
func DefaultConfig() Config {
	c := FromScratchConfig()
	c.Trainer.ExperimentName = "toolworld-base"
	c.Trainer.RLSteps, c.Trainer.TestFreq, c.Trainer.SaveFreq = 20, 10, 10
	c.Env.Toolworld = toolworld.Config{
		// The card's held-out environment: seed 1, 3 test tasks, then
		// 300 validation tasks (100 per level) that the base's corpus
		// left out.
		// The prompt is the base's (toolworld.OneLinePrompt; a test in
		// package pretrain keeps the two equal).
		Seed: 1, Compact: true, MaxLevel: 3, TrainSize: 1500, ValSize: 300, TestSize: 3,
		SystemPrompt: c.Env.Toolworld.SystemPrompt,
	}
	// The base's weights and tokenizer (the shape stays for a run that
	// sets model.path: "" to start afresh).
	c.Model.Path, c.Model.Tokenizer = models.Prefix+models.ToolworldBase, ""
	c.Model.TokenizerVocab = 0
	// The base was pretrained on episodes of at most 6 calls.
	c.Rollout.MaxSteps = 6
	// The base is far more certain than a policy trained from scratch
	// (0.03-0.08 nats per token): at temperature 0.7 every group of 4
	// episodes scored alike in all 10 RL steps of all 5 seeds of
	// examples/experiments/adca.yaml, so GRPO had no advantage to learn
	// from; at 1.0 groups differ from the first step.
	c.Rollout.Temperature = 1
	// Ten or twenty Adam steps at 2e-4 moved no held-out greedy answer of
	// the base (ADCA's updates had non-zero gradients and left all 100
	// level-3 validation results unchanged); the base was pretrained at
	// 1e-3 to 1e-4.
	c.Actor.LR, c.Actor.LRWarmupSteps = 5e-4, 2
	// Micro-batches bound the update's activations: the whole batch of
	// 64 samples at once peaked at 6.3 GB resident, 16 at a time at 2.3
	// GB, 8 at a time at 1.62 GB (under the command's 1.5 GiB soft memory
	// limit), with the same results.
	c.Actor.MicroBatchSize = 8
	c.WarmStart.Steps = 0
	// Self-questioning: every training task's world explored by random
	// walks, relabelled in hindsight, mixed one to one with the human
	// tasks.
	c.Tasks.N = 1
	c.Tasks.Explorer = taskgen.ExplorerRandom
	c.Tasks.MaxExploreSeeds = 64
	c.Tasks.Mixture = taskgen.MixtureConfig{UseOriginalTasks: true, SyntheticDataRatio: 1, Shuffle: true}
	// Self-navigating: the embedded pool, filled from the base's own
	// rollouts before training and after every step; half of each
	// group's rollouts see experience, and HET strips it from half of
	// those samples (off-policy clip).
	c.Experience.Pool = experience.PoolConfig{Type: "local"}
	c.Experience.InitExpBeforeTraining = true
	c.Experience.InitTasks = 32
	c.Experience.UpdatedFreq = 1
	c.Experience.TrainRolloutMode = "mixed"
	c.Experience.RolloutRatio = 0.5
	c.Experience.TrainSampleMode = "hybrid"
	c.Experience.TrainSampleKeepRatio = 0.5
	// Self-attributing: ADCA-GRPO with the environment's exact step
	// labels (no LLM judge).
	c.Attribution.Enable = true
	c.Attribution.Judge = attribution.JudgeOracle
	return c
}

// FromScratchConfig returns the built-in job from scratch: a small policy
// initialised at random learns toolworld's level-1 calls from the expert's
// demonstrations (the warm start) and then by GRPO, with no mechanism on,
// sized so a 2-core machine finishes in minutes.
func FromScratchConfig() Config {
	return Config{
		Trainer: RunConfig{
			ExperimentName: "toolworld-tiny",
			OutputDir:      "runs/${trainer.experiment_name}",
			Seed:           1,
			RLSteps:        60,
			TestFreq:       20,
			SaveFreq:       30,
			// Two checkpoints kept: the newest and one to fall back to
			// should the newest prove corrupt.
			MaxCheckpointsToKeep: 2,
			ValBeforeTrain:       true,
			Progress:             true,
		},
		Data: DataConfig{
			TrainBatchSize:    16,
			MaxPromptLength:   512,
			MaxResponseLength: 512,
			TrainSplit:        "train",
			ValSplit:          "val",
			ValTasks:          0, // all of them
			Shuffle:           true,
		},
		Env: EnvConfig{
			CompanionAddr: "127.0.0.1:0",
			Config: builtin.Config{Toolworld: toolworld.Config{
				Compact: true, MaxLevel: 1,
				// 1500 and 1200 tasks over three levels leave 500
				// level-1 training tasks (300 demonstrated, the rest
				// new to RL) and 400 level-1 validation tasks: with
				// 100, validation success moved by +-5 points between
				// nearby policies and hid the trend.
				TrainSize: 1500, ValSize: 1200,
				// A policy trained from scratch learns the calls from
				// the demonstrations; a one-line prompt keeps episodes
				// short for the CPU.
				SystemPrompt: "Call one tool per turn in a tool block; end with task.finish.",
			}},
		},
		Model: ModelConfig{
			Tokenizer:      TokenizerFromEnv,
			TokenizerVocab: 1024,
			Shape: ModelShape{
				HiddenSize: 128, NumLayers: 2, NumHeads: 4, NumKVHeads: 2,
				IntermediateSize: 384, MaxPositions: 1024, RopeTheta: 10000,
			},
		},
		Rollout: RolloutConfig{
			// Temperature 0.7 (the reference uses 0.9): a policy this
			// small samples too many broken calls at 1.0 for GRPO to
			// find successes to reinforce. Validation is greedy, as in
			// the reference, so one rollout per task suffices.
			N: 4, Temperature: 0.7, TopP: 1, ResponseLength: 64, MaxModelLen: 1024,
			MaxEnvLen: 256, MaxSteps: 3, Concurrency: 32, Sparse: true,
			ValN: 1, ValTemperature: 0, ContextTemplate: "linear",
		},
		Actor: ActorConfig{
			LR: 2e-4, LRWarmupSteps: 5, WeightDecay: 0.01, GradClip: 1, PPOEpochs: 1,
			ClipRatioLow: 0.2, ClipRatioHigh: 0.28, ClipRatioC: 3, OffClipRangeHigh: 0.6,
			OffPolicyOldLogProbs: OldLogProbsRollout,
			UseKLLoss:            true, KLLossCoef: 0.001, KLLossType: "low_var_kl", LossAggMode: "token-mean",
		},
		// Advantages are not divided by the group's standard deviation
		// (the reference divides): with 0/1 rewards that division gives a
		// group with one success in four the same weight as an even one,
		// and over seeds 1-4 the plain centred rewards raised held-out
		// success every time. Since the log-prob alignment fix the two
		// are level: 65.7% +- 14.7 vs 67.7% +- 15.3 over seeds 1-3
		// (examples/experiments/grpo-seeds.yaml), no effect either way.
		Algorithm: AlgorithmConfig{AdvEstimator: "grpo", NormAdvByStdInGRPO: false},
		// The warm start imitates the expert on 300 of the 500 training
		// tasks; RL then practises on all of them.
		WarmStart: WarmStartConfig{Steps: 250, BatchSize: 16, LR: 1e-3, Demos: 300},
		// The reference's defaults: no experience.
		Experience: experience.Config{
			ValRolloutMode: "woexp", TrainRolloutMode: "woexp", TrainSampleMode: "alldiscard",
			RetrieveTopK: 3, InitSplit: "train", SummaryBatchSize: 8,
		},
		// The reference's defaults: original tasks only.
		Tasks: taskgen.Config{
			Mixture: taskgen.MixtureConfig{UseOriginalTasks: true, Shuffle: true},
			Grader:  taskgen.GraderConfig{OriginalGrader: grader.NameEnv, SyntheticGrader: grader.DefaultSyntheticGrader},
		},
		// The reference's defaults, off.
		Attribution: attribution.DefaultConfig(),
	}
}

// LoadConfig returns DefaultConfig with the YAML files layered over it in
// order, then the "a.b=value" overrides, then ${...} placeholders
// resolved. Unknown keys are errors that name the key.
func LoadConfig(files []string, overrides []string) (Config, error) {
	return LoadConfigOver(DefaultConfig(), files, overrides)
}

// LoadConfigOver is LoadConfig over another starting configuration, such
// as FromScratchConfig for an environment of one's own (the shipped base
// knows only toolworld, and the main job's mechanisms need capabilities
// that not every environment offers).
//
// The original AgentEvolver's keys are accepted too (ReferenceAliases);
// those with no counterpart here are ignored, and LoadConfigWarnings says
// which.
func LoadConfigOver(cfg Config, files []string, overrides []string) (Config, error) {
	cfg, _, err := LoadConfigWarnings(cfg, files, overrides)
	return cfg, err
}

// Validate checks ranges and names.
func (c Config) Validate() error {
	var errs []string
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}
	check(c.Trainer.ExperimentName != "", "trainer.experiment_name is empty")
	check(c.Trainer.ExperimentName == "" || isPathElement(c.Trainer.ExperimentName),
		"trainer.experiment_name %q must be a plain name (no path separators, not . or ..): it names a directory under the output root", c.Trainer.ExperimentName)
	check(c.Trainer.OutputDir != "", "trainer.output_dir is empty")
	check(c.Trainer.RLSteps >= 0, "trainer.rl_steps %d < 0", c.Trainer.RLSteps)
	check(c.Trainer.Devices >= 0, "trainer.devices %d < 0", c.Trainer.Devices)
	check(c.Trainer.TestFreq >= 0, "trainer.test_freq %d < 0", c.Trainer.TestFreq)
	check(c.Trainer.SaveFreq >= 0, "trainer.save_freq %d < 0", c.Trainer.SaveFreq)
	check(c.Trainer.MaxCheckpointsToKeep >= 0, "trainer.max_checkpoints_to_keep %d < 0", c.Trainer.MaxCheckpointsToKeep)
	if err := track.CheckNames(c.Trainer.Logger); err != nil {
		errs = append(errs, "trainer.logger: "+err.Error())
	}
	if err := c.Trainer.EpisodeLog.Validate(); err != nil {
		errs = append(errs, "trainer.episode_log: "+err.Error())
	}
	check(c.Data.TrainBatchSize > 0, "data.train_batch_size %d must be > 0", c.Data.TrainBatchSize)
	check(c.Data.MaxPromptLength > 0, "data.max_prompt_length must be > 0")
	check(c.Data.MaxResponseLength > 0, "data.max_response_length must be > 0")
	check(c.Data.ValTasks >= 0, "data.val_tasks %d < 0", c.Data.ValTasks)
	check(c.Env.Type != "" || c.Env.URL == "", "env.type is required with env.url")
	check(c.Trainer.MaxFailedRatio >= 0 && c.Trainer.MaxFailedRatio <= 1, "trainer.max_failed_ratio %v not in [0, 1]", c.Trainer.MaxFailedRatio)
	check(c.Data.MaxDifficulty >= 0, "data.max_difficulty %d < 0", c.Data.MaxDifficulty)
	check(slices.Contains([]string{"", GroupWeightingEpisode, GroupWeightingCall}, c.Rollout.PerCall.GroupWeighting),
		"rollout.per_call.group_weighting %q: want %s or %s", c.Rollout.PerCall.GroupWeighting, GroupWeightingEpisode, GroupWeightingCall)
	switch c.Rollout.ContextTemplate {
	case "", contextmgr.StrategyLinear, contextmgr.StrategyLinearThink, contextmgr.StrategySelfClip, contextmgr.StrategyMemory, contextmgr.StrategyPerCall:
	default:
		errs = append(errs, fmt.Sprintf("rollout.context_template %q: want %s, %s, %s, %s or %s", c.Rollout.ContextTemplate,
			contextmgr.StrategyLinear, contextmgr.StrategyLinearThink, contextmgr.StrategySelfClip, contextmgr.StrategyMemory, contextmgr.StrategyPerCall))
	}
	for _, p := range []struct{ key, value string }{
		{"rollout.linear_think.think_preference", c.Rollout.LinearThink.ThinkPreference},
		{"rollout.context_selfclip.think_preference", c.Rollout.SelfClip.ThinkPreference},
	} {
		check(p.value == "" || p.value == contextmgr.PreferCode || p.value == contextmgr.PreferBox, "%s %q: want %q or %q", p.key, p.value, contextmgr.PreferCode, contextmgr.PreferBox)
	}
	check(c.Env.URL == "" || !c.Env.Companion, "env.url and env.companion are exclusive")
	if err := c.Env.Toolworld.Validate(); err != nil {
		errs = append(errs, "env.toolworld."+strings.TrimPrefix(err.Error(), "toolworld: "))
	}
	check(c.Tasks.N >= 0 && c.Tasks.MaxExploreSeeds >= 0 && c.Tasks.MaxExploreSteps >= 0 && c.Tasks.Concurrency >= 0 && c.Tasks.RegenerateEvery >= 0,
		"task_manager: n, max_explore_seeds, max_explore_steps, concurrency and regenerate_every must be >= 0")
	check(slices.Contains([]string{"", taskgen.ExplorerRandom, taskgen.ExplorerLLM}, c.Tasks.Explorer), "task_manager.explorer %q: want %s or %s", c.Tasks.Explorer, taskgen.ExplorerRandom, taskgen.ExplorerLLM)
	check(slices.Contains([]string{"", taskgen.ExploreSplit, taskgen.ExploreOriginal}, c.Tasks.ExploreSeeds), "task_manager.explore_seeds %q: want %s or %s", c.Tasks.ExploreSeeds, taskgen.ExploreSplit, taskgen.ExploreOriginal)
	if c.Model.Path == "" {
		s := c.Model.Shape
		check(s.HiddenSize > 0 && s.NumLayers > 0 && s.NumHeads > 0 && s.IntermediateSize > 0,
			"model.shape needs hidden_size, num_layers, num_heads and intermediate_size > 0")
		check(s.NumHeads == 0 || s.HiddenSize%s.NumHeads == 0, "model.shape.hidden_size %d is not a multiple of num_heads %d", s.HiddenSize, s.NumHeads)
		check(s.NumKVHeads == 0 || (s.NumKVHeads > 0 && s.NumHeads%s.NumKVHeads == 0), "model.shape.num_heads %d is not a multiple of num_kv_heads %d", s.NumHeads, s.NumKVHeads)
	}
	check(c.Rollout.N > 0, "rollout.n %d must be > 0", c.Rollout.N)
	check(c.Rollout.Temperature >= 0, "rollout.temperature < 0")
	check(c.Rollout.TopP >= 0 && c.Rollout.TopP <= 1, "rollout.top_p %v not in [0, 1]", c.Rollout.TopP)
	check(c.Rollout.TopK >= 0, "rollout.top_k < 0")
	check(c.Rollout.ResponseLength > 0, "rollout.response_length must be > 0")
	check(c.Rollout.MaxModelLen > c.Rollout.ResponseLength, "rollout.max_model_len must exceed rollout.response_length")
	check(c.Rollout.MaxSteps > 0, "rollout.max_steps must be > 0")
	check(c.Rollout.Concurrency >= 0, "rollout.concurrency < 0")
	check(c.Rollout.ValN > 0, "rollout.val_n %d must be > 0", c.Rollout.ValN)
	check(c.Rollout.ValTemperature >= 0, "rollout.val_temperature < 0")
	check(c.Actor.LR > 0, "actor.lr must be > 0")
	check(c.Actor.PPOEpochs > 0, "actor.ppo_epochs must be > 0")
	check(c.Actor.LRWarmupSteps >= 0, "actor.lr_warmup_steps < 0")
	computeDType, err := c.Actor.computeDType()
	if err != nil {
		errs = append(errs, "actor.dtype: "+err.Error())
	}
	if w, err := model.ParseSamplerWeights(c.Rollout.WeightDType); err != nil {
		errs = append(errs, "rollout.weight_dtype: "+err.Error())
	} else if w != model.SamplerFloat32 && computeDType != dtypes.Float32 {
		errs = append(errs, fmt.Sprintf("rollout.weight_dtype %s needs actor.dtype float32", w))
	}
	errs = append(errs, c.Actor.LoRA.problems()...)
	errs = append(errs, c.Rollout.remoteProblems(c.Actor.LoRA)...)
	check(c.Actor.PPOMiniBatchSize >= 0 && c.Actor.MicroBatchSize >= 0, "actor batch sizes must be >= 0")
	if c.Actor.KLLossType != "" {
		if err := objective.KLType(c.Actor.KLLossType).Validate(); err != nil {
			errs = append(errs, "actor.kl_loss_type: "+err.Error())
		}
	}
	switch c.Actor.OffPolicyOldLogProbs {
	case "", OldLogProbsRollout, OldLogProbsRecompute:
	default:
		errs = append(errs, fmt.Sprintf("actor.off_policy_old_log_probs %q: want %q or %q",
			c.Actor.OffPolicyOldLogProbs, OldLogProbsRollout, OldLogProbsRecompute))
	}
	if c.Actor.LossAggMode != "" {
		if err := objective.AggMode(c.Actor.LossAggMode).Validate(); err != nil {
			errs = append(errs, "actor.loss_agg_mode: "+err.Error())
		}
	}
	check(c.Algorithm.AdvEstimator == "grpo", "algorithm.adv_estimator %q: only \"grpo\" is supported", c.Algorithm.AdvEstimator)
	check(c.WarmStart.Steps >= 0, "warm_start.steps < 0")
	if c.WarmStart.Steps > 0 {
		check(c.WarmStart.BatchSize > 0, "warm_start.batch_size must be > 0")
		check(c.WarmStart.LR > 0, "warm_start.lr must be > 0")
	}
	check(c.WarmStart.ExperienceShare >= 0 && c.WarmStart.ExperienceShare <= 1, "warm_start.experience_share %v must be in [0, 1]", c.WarmStart.ExperienceShare)
	check(c.Experience.RetrieveTopK >= 0 && c.Experience.UpdatedFreq >= 0 && c.Experience.InitTasks >= 0 && c.Experience.SummaryBatchSize >= 0,
		"exp_manager: retrieve_top_k, updated_freq, init_tasks and summary_batch_size must be >= 0")
	m := c.Tasks.Mixture
	check(!math.IsNaN(m.SyntheticDataRatio) && m.SyntheticDataRatio >= 0,
		"task_manager.mixture.synthetic_data_ratio %v must be >= 0", m.SyntheticDataRatio)
	check(m.UseOriginalTasks || m.SyntheticDataRatio > 0, "task_manager.mixture uses neither original nor synthetic tasks")
	check(m.SyntheticDataRatio <= 0 || c.Tasks.TrainDataPath != "" || c.Tasks.N > 0,
		"task_manager.mixture.synthetic_data_ratio > 0 needs task_manager.n > 0 (synthesis during training) or task_manager.train_data_path (a task file: agentevolver gen-tasks writes one)")
	for _, g := range []struct{ key, name string }{
		{"task_manager.grader.original_grader", c.Tasks.Grader.OriginalGrader},
		{"task_manager.grader.synthetic_grader", c.Tasks.Grader.SyntheticGrader},
	} {
		check(g.name == "" || slices.Contains(grader.Names(), g.name), "%s %q: want one of %v", g.key, g.name, grader.Names())
	}
	check(!c.Experience.InitExpOnly || c.Experience.InitExpBeforeTraining,
		"exp_manager.init_exp_only needs exp_manager.init_exp_before_training: there would be nothing to do")
	check(!c.Experience.InitFromExpert || c.Experience.InitExpBeforeTraining,
		"exp_manager.init_from_expert needs exp_manager.init_exp_before_training")
	check(c.Experience.ExperienceTemplate == "" || strings.Contains(c.Experience.ExperienceTemplate, "{}"), "exp_manager.experience_template has no {} placeholder")
	switch p := c.Experience.Pool; p.Type {
	case "", experience.PoolReMe:
	case experience.PoolLocal:
		check(p.Path == "" || filepath.IsAbs(p.Path) || filepath.IsLocal(p.Path), "exp_manager.pool.path %q must be absolute or stay inside trainer.output_dir", p.Path)
	default:
		errs = append(errs, fmt.Sprintf("exp_manager.pool.type %q: want local or reme", p.Type))
	}
	for _, a := range []experience.Allocation{c.Experience.TrainAllocation(), c.Experience.ValAllocation()} {
		if err := a.Validate(); err != nil {
			errs = append(errs, "exp_manager: "+err.Error())
		}
	}
	if c.Attribution.Enable || c.Attribution.ADCA.EnableMetric {
		check(!c.Attribution.Enable || c.Attribution.ADCA.PRMSteps > 1, "attribution_driven_credit_assignment.adca_grpo.prm_steps %d must be > 1: ADCA replaces the advantages of RL steps 1 to prm_steps-1 (to train without ADCA set enable: false)", c.Attribution.ADCA.PRMSteps)
		check(c.Attribution.LLMEvaluationLogDir == "" || filepath.IsAbs(c.Attribution.LLMEvaluationLogDir) || filepath.IsLocal(c.Attribution.LLMEvaluationLogDir),
			"attribution_driven_credit_assignment.llm_evaluation_log_dir %q must be absolute or stay inside trainer.output_dir", c.Attribution.LLMEvaluationLogDir)
		if err := c.Attribution.Validate(); err != nil {
			errs = append(errs, "attribution_driven_credit_assignment: "+err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s", ErrConfig, strings.Join(errs, "; "))
	}
	return nil
}

// isPathElement reports whether name is one plain file name: it cannot
// lead a path built from it out of its parent directory.
func isPathElement(name string) bool {
	return name != "." && name != ".." && !strings.ContainsAny(name, `/\`) && filepath.IsLocal(name)
}

// modelConfig is the model.Config of a new model with vocabulary vocab.
func (s ModelShape) modelConfig(vocab int) model.Config {
	return model.Config{
		VocabSize:             vocab,
		HiddenSize:            s.HiddenSize,
		NumHiddenLayers:       s.NumLayers,
		NumAttentionHeads:     s.NumHeads,
		NumKeyValueHeads:      s.NumKVHeads,
		IntermediateSize:      s.IntermediateSize,
		RopeTheta:             s.RopeTheta,
		TieWordEmbeddings:     s.TieWordEmbeddings,
		MaxPositionEmbeddings: s.MaxPositions,
	}
}

// YAML returns the configuration as YAML, in the form LoadConfig reads.
func (c Config) YAML() ([]byte, error) { return yaml.Marshal(c) }

// Dir is the directory Path names: a shipped policy's copy on disk
// (models.Resolve), else Path itself.
func (m ModelConfig) Dir() (string, error) {
	dir, err := models.Resolve(m.Path)
	if err != nil {
		return "", fmt.Errorf("%w: model.path: %w", ErrConfig, err)
	}
	return dir, nil
}

// TokenizerSource is where the tokenizer comes from: Tokenizer ("byte",
// "env" or a directory, a shipped policy's resolved), or when it is empty
// the model's directory (Path) or "byte" without one.
func (m ModelConfig) TokenizerSource() (string, error) {
	src := m.Tokenizer
	if src == "" {
		src = cmp.Or(m.Path, "byte")
	}
	dir, err := models.Resolve(src)
	if err != nil {
		return "", fmt.Errorf("%w: model.tokenizer: %w", ErrConfig, err)
	}
	return dir, nil
}

// ModelConfig is the model configuration of a new policy of this shape
// over a vocabulary of vocab tokens.
func (s ModelShape) ModelConfig(vocab int) model.Config { return s.modelConfig(vocab) }
