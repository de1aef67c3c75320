package experience

// Config is a run configuration's exp_manager section, the reference's (§5.1, §5.8):
// per task a train mode (keep: experience stays in the training sample;
// discard: it is stripped and the sample trains off-policy), per rollout
// whether to ask the pool for experience. The method presets are:
//
//	baseline  train_rollout_mode woexp
//	EC        mixed, train_sample_mode allkeep
//	EI        mixed, alldiscard
//	HET       mixed, hybrid with train_sample_keepratio in (0, 1)
//
// Experience comes from the trainer's Options.Hooks.Experience (an
// agentflow.ExperienceInjector, usually an Injector over a
// pool); without one no rollout gets any, whatever the modes.
type Config struct {
	// ValRolloutMode and TrainRolloutMode are woexp, mixed or all.
	ValRolloutMode   RolloutMode `yaml:"val_rollout_mode"`
	TrainRolloutMode RolloutMode `yaml:"train_rollout_mode"`
	// RolloutRatio is mixed's share of a task's rollouts with experience.
	RolloutRatio float64 `yaml:"rollout_ratio"`
	// TrainSampleMode is allkeep, alldiscard or hybrid, with
	// TrainSampleKeepRatio the share of keep tasks for hybrid.
	TrainSampleMode      SampleMode `yaml:"train_sample_mode"`
	TrainSampleKeepRatio float64    `yaml:"train_sample_keepratio"`
	// ExperienceTemplate wraps injected experience ("{}" marks it) and is
	// what training strips; empty means the reference's template.
	ExperienceTemplate string `yaml:"experience_template"`
	// RetrieveTopK is how many experiences a rollout retrieves
	// (reme.retrieve_top_k).
	RetrieveTopK int `yaml:"retrieve_top_k"`
	// UpdatedFreq updates the pool with the trajectories of every
	// UpdatedFreq-th RL step (in the background, waited for after the
	// step's policy update); 0 never updates during training.
	UpdatedFreq int `yaml:"updated_freq"`
	// InitExpBeforeTraining fills the pool before RL from episodes of
	// InitSplit's tasks (at the validation temperature, in
	// SummaryBatchSize chunks per task). The reference rolls out the
	// validation split here, which leaks held-out tasks into the
	// experience; the default is the training split.
	InitExpBeforeTraining bool   `yaml:"init_exp_before_training"`
	InitSplit             string `yaml:"init_split"`
	// InitExpOnly stops after the initialisation (and the warm start and
	// the validation before RL, when configured), taking no RL step: the
	// reference's "Init Only" mode, which builds a pool for later runs to
	// use. It needs InitExpBeforeTraining and a pool.
	InitExpOnly bool `yaml:"init_exp_only"`
	// InitFromExpert makes the initialisation replay the environment's
	// expert (envservice.Expert) on the init tasks instead of rolling out
	// the policy: experience distilled from demonstrations, as a team
	// seeds a pool with solved examples, for tasks the policy cannot yet
	// solve. It needs InitExpBeforeTraining.
	InitFromExpert bool `yaml:"init_from_expert"`
	// InitTasks bounds the tasks of the initialisation; 0 means all.
	InitTasks        int `yaml:"init_tasks"`
	SummaryBatchSize int `yaml:"summary_batch_size"`
	// Pool builds the experience pool when the trainer's Options.ExperiencePool is nil.
	Pool PoolConfig `yaml:"pool"`
}

// PoolConfig chooses the experience pool of a run.
type PoolConfig struct {
	// Type is "" (no pool), "local" (an embedded store file, the built-in
	// local embedder and the worked-example summariser: no service and no
	// LLM) or "reme" (the ReMe service at BaseURL).
	Type string `yaml:"type"`
	// Path is the local store file: relative paths lie under
	// trainer.output_dir (and must stay inside it); an absolute path
	// shares a pool between runs. Empty means ExperienceFile in the output
	// directory.
	Path string `yaml:"path"`
	// WorkspaceID names the pool in the store or at the service.
	WorkspaceID string `yaml:"workspace_id"`
	// BaseURL is the ReMe service root.
	BaseURL string `yaml:"base_url"`
	// InitFrom is a local store file (another run's experience.db, say)
	// that a local pool starts as a copy of when a run starts afresh (not
	// when it resumes): an experiment's arms start from their start
	// run's pool this way. Empty starts an empty pool.
	InitFrom string `yaml:"init_from"`
}

// Experience pool types of PoolConfig.Type.
const (
	PoolLocal = "local"
	PoolReMe  = "reme"
)

// TrainAllocation is the section's allocation of RL rollouts.
func (c Config) TrainAllocation() Allocation {
	return Allocation{
		SampleMode:   c.TrainSampleMode,
		KeepRatio:    c.TrainSampleKeepRatio,
		RolloutMode:  c.TrainRolloutMode,
		RolloutRatio: c.RolloutRatio,
	}
}

// ValAllocation is its allocation of validation rollouts: the validation
// rollout mode; the train mode is irrelevant (nothing trains).
func (c Config) ValAllocation() Allocation {
	return Allocation{RolloutMode: c.ValRolloutMode, RolloutRatio: c.RolloutRatio}
}
