package taskgen

import "github.com/org/agentevolver/llm"

// Config is a run configuration's task_manager section: which synthetic tasks
// train, mixed how with the original ones, graded by what. Synthetic
// tasks are made during training (N > 0: the trainer explores, summarises,
// filters and mixes them itself, as the reference's task manager does) or
// come from a task file (agentevolver gen-tasks writes one); they never
// reach validation.
type Config struct {
	// TrainDataPath is a JSON-lines or Parquet file of synthetic tasks
	// (the reference's task cache); required when the mixture asks for
	// synthetic tasks and N is 0. With N > 0 it is the cache the
	// reference makes of it: an existing file is read instead of the first
	// synthesis round, and otherwise that round's tasks are written there.
	TrainDataPath string `yaml:"train_data_path"`
	// N is the number of explorations of every seed task in a synthesis
	// round (the reference's task_manager.n). Zero turns in-training
	// synthesis off; positive makes the trainer synthesise the mixture's
	// synthetic tasks itself: before the first RL step, and again every
	// RegenerateEvery epochs. Each round's tasks are written to
	// <output_dir>/task_manager/round_NNNN.jsonl (resumed runs read them
	// back; a round interrupted midway resumes from its checkpoint there)
	// and depend only on the run's seed and the round.
	N int `yaml:"n"`
	// Explorer is how the environment is explored: "random" (the
	// default: its own random valid actions, each walk relabelled in
	// hindsight as the task of what it achieved, and kept when the
	// environment's expert replays it; no LLM) or "llm" (the reference's
	// LLM explorer, summariser and post filter, with the model of LLM).
	// The random walks' lengths cycle through the difficulties the
	// environment's profile names (relation_difficulty): one call, two or
	// three, three to five.
	Explorer string `yaml:"explorer"`
	// ExploreSeeds is whose worlds are explored: "split" (the default:
	// every task of data.train_split, including worlds with no human task
	// when data.train_files names fewer; only their worlds are used, never
	// their instructions) or "original" (the original training tasks).
	ExploreSeeds string `yaml:"explore_seeds"`
	// MaxExploreSeeds bounds the seed tasks of a round, drawn anew each
	// round; 0 explores them all.
	MaxExploreSeeds int `yaml:"max_explore_seeds"`
	// MaxExploreSteps bounds an LLM exploration (0: the explorer's
	// default).
	MaxExploreSteps int `yaml:"max_explore_steps"`
	// Concurrency bounds the explorations in flight (0: the generator's
	// default).
	Concurrency int `yaml:"concurrency"`
	// RegenerateEvery synthesises a new round every RegenerateEvery
	// epochs; 0 makes one round for the whole run.
	RegenerateEvery int `yaml:"regenerate_every"`
	// LLM is the explorer's and summariser's endpoint (explorer llm;
	// unused when the trainer's Options.ExplorerModel is set).
	LLM llm.EndpointConfig `yaml:"llm"`
	// Mixture mixes them with the original tasks each epoch.
	Mixture MixtureConfig `yaml:"mixture"`
	// Grader picks the graders of original and synthetic tasks.
	Grader GraderConfig `yaml:"grader"`
}

// MixtureConfig is task_manager.mixture (reference §4.7): the original
// tasks (UseOriginalTasks) plus int(originals × SyntheticDataRatio)
// synthetic ones (all of them when fewer), shuffled (Shuffle). Unlike the
// reference, which re-mixes with the same seed (42) every epoch, each
// epoch draws its own seeded sample, so a ratio below what the file holds
// shows the policy different synthetic tasks over the epochs.
type MixtureConfig struct {
	UseOriginalTasks   bool    `yaml:"use_original_tasks"`
	SyntheticDataRatio float64 `yaml:"synthetic_data_ratio"`
	Shuffle            bool    `yaml:"shuffle"`
}

// GraderConfig is task_manager.grader: grader names of package
// taskgen/grader, chosen by each task's evaluator.
type GraderConfig struct {
	// OriginalGrader grades original tasks that name no evaluator
	// (default "env", the environment's own evaluation).
	OriginalGrader string `yaml:"original_grader"`
	// SyntheticGrader grades synthetic tasks whose evaluator is
	// "synthetic" (an LLM's task without a verifiable check; default
	// llm-binary-gt-no_constraint, the reference's). Synthetic tasks that
	// name their own evaluator keep it: toolworld's hindsight tasks are
	// "env", verified by the environment. The reference overwrote every
	// synthetic task's evaluator.
	SyntheticGrader string `yaml:"synthetic_grader"`
	// LLM is the judge endpoint of the LLM graders; unused when no task
	// needs one, or when the trainer's Options.JudgeModel is set.
	LLM llm.EndpointConfig `yaml:"llm"`
}

// Explorers of Config.Explorer.
const (
	// ExplorerRandom walks the environment with its own random valid
	// actions (envservice.RandomExplorer) and relabels each walk in
	// hindsight (envservice.TaskSynthesizer): no LLM, rewards the
	// environment verifies.
	ExplorerRandom = "random"
	// ExplorerLLM explores and summarises with the model of
	// task_manager.llm, as the reference does.
	ExplorerLLM = "llm"
)

// Seed sets of Config.ExploreSeeds.
const (
	// ExploreSplit explores every task of data.train_split: their worlds,
	// never their instructions (a random walk does not read them; an LLM
	// explorer's record masks them), so worlds that have no human task in
	// data.train_files are explored too.
	ExploreSplit = "split"
	// ExploreOriginal explores the original training tasks only.
	ExploreOriginal = "original"
)
