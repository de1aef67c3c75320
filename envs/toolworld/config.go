package toolworld

import (
	"fmt"
	"log/slog"
)

// Config configures an Env. The zero value is ready to use: seed 0, the
// default split sizes and the full system prompt. Its YAML keys are those
// of a run configuration's env.toolworld section.
type Config struct {
	// Seed selects the generated tasks; the same seed always gives the same
	// tasks, observations and scores.
	Seed int64 `yaml:"seed"`
	// TrainSize, ValSize and TestSize are the numbers of tasks per split;
	// zero means DefaultTrainSize, DefaultValSize and DefaultTestSize.
	TrainSize int `yaml:"train_size"`
	ValSize   int `yaml:"val_size"`
	TestSize  int `yaml:"test_size"`
	// Compact selects a terse system prompt (under 300 bytes; with any task
	// instruction under 400) for small policies with short contexts. Tasks,
	// syntax and scoring are the same.
	Compact bool `yaml:"compact"`
	// SystemPrompt, when not empty, replaces the built-in system prompt
	// (full or compact). A policy trained from scratch on demonstrations
	// needs no API documentation, and every prompt token costs it compute.
	SystemPrompt string `yaml:"system_prompt"`
	// MaxLevel, when positive, lists only the tasks of level <= MaxLevel
	// (1..NumLevels) in TaskIDs, in their usual order; zero lists all.
	// Generation is unchanged: ids and tasks are those of MaxLevel 0, and
	// every task stays reachable by id (Task, New, Solve, TaskMetadata).
	// Corpus ignores it (see Env.Corpus).
	MaxLevel int `yaml:"max_level"`
	// MinLevel, when positive, lists only the tasks of level >= MinLevel,
	// like MaxLevel (MinLevel 2 with MaxLevel 3: the tasks of several
	// calls, for studying credit assignment).
	MinLevel int `yaml:"min_level"`
	// Worlds, when positive, gives the environment that many varied
	// worlds. Each draws from WorldSeed its own surface (the names of its
	// apps, APIs and arguments, their descriptions and the order of the
	// tool list, all shown in its system prompt) and its own people, event
	// titles, file texts and file names. Task i of a split lives in world
	// i mod Worlds (TaskInfo.World). The apps behave the same in every
	// world and tasks are asked in the same words, so a policy acts well
	// only by reading the tools its prompt lists. A world's system prompt
	// is SystemPrompt (when set) followed by the syntax and the tool list;
	// Compact is ignored. Zero keeps the one classic world: the catalog's
	// own names and the prompt Compact or SystemPrompt choose.
	Worlds int `yaml:"worlds"`
	// ValuesOnly, with Worlds, varies only each world's values (people,
	// event titles, file texts and file names); app, API and argument
	// names and the system prompt stay the classic world's. A policy
	// then acts well by copying values from the instruction and what it
	// read, without reading its tools.
	ValuesOnly bool `yaml:"values_only"`
	// Drift, with Worlds and ValuesOnly, is the chance that a world renames
	// each of its APIs (all but the finishing one) to a synonym without
	// saying so: its system prompt stays the classic one, so the new name
	// shows only in a worked example of the world (experience) or in the
	// error text of a call by the old name. The apps and argument names
	// stay. It models an API that changed since the policy learnt it, the
	// regime where past experience carries what the prompt does not. 0
	// renames nothing; a world's values are those of Drift 0.
	Drift float64 `yaml:"drift"`
	// WorldSeed selects the varied worlds' surfaces and values: two
	// environments with different world seeds share no world (but by a
	// chance too small to matter), which keeps the worlds of an
	// evaluation unseen by a corpus drawn with another seed.
	WorldSeed int64 `yaml:"world_seed"`
	// TrainReserved, when positive (at most 1), keeps in the train split
	// only the tasks whose instruction is reserved with that share
	// (ReservedInstruction): the instructions a pretraining corpus built
	// with the same reserve share never showed, so that reinforcement
	// learning practises on tasks the policy never imitated. Train tasks
	// are drawn until TrainSize of them are reserved; the val and test
	// splits are unchanged.
	TrainReserved float64 `yaml:"train_reserved"`
	// Logger receives debug records; nil discards them.
	Logger *slog.Logger `yaml:"-"`
}

// Validate reports a field outside its range, by its YAML key: split sizes outside
// 0..MaxSplitSize, levels outside 0..NumLevels or MinLevel above
// MaxLevel, Worlds outside 0..MaxWorlds, TrainReserved or Drift outside 0..1, Drift
// without Worlds and ValuesOnly. New calls it.
func (c Config) Validate() error {
	for _, s := range []struct {
		split string
		n     int
	}{{SplitTrain, c.TrainSize}, {SplitVal, c.ValSize}, {SplitTest, c.TestSize}} {
		if s.n < 0 || s.n > MaxSplitSize {
			return fmt.Errorf("toolworld: %s_size %d outside 0..%d", s.split, s.n, MaxSplitSize)
		}
	}
	if c.MaxLevel < 0 || c.MaxLevel > NumLevels {
		return fmt.Errorf("toolworld: max_level %d outside 0..%d", c.MaxLevel, NumLevels)
	}
	if c.MinLevel < 0 || c.MinLevel > NumLevels || (c.MaxLevel > 0 && c.MinLevel > c.MaxLevel) {
		return fmt.Errorf("toolworld: min_level %d outside 0..%d or above max_level %d", c.MinLevel, NumLevels, c.MaxLevel)
	}
	if c.Worlds < 0 || c.Worlds > MaxWorlds {
		return fmt.Errorf("toolworld: worlds %d outside 0..%d", c.Worlds, MaxWorlds)
	}
	if !(c.TrainReserved >= 0 && c.TrainReserved <= 1) { // NaN too
		return fmt.Errorf("toolworld: train_reserved %v outside 0..1", c.TrainReserved)
	}
	if !(c.Drift >= 0 && c.Drift <= 1) {
		return fmt.Errorf("toolworld: drift %v outside 0..1", c.Drift)
	}
	if c.Drift > 0 && (c.Worlds == 0 || !c.ValuesOnly) {
		return fmt.Errorf("toolworld: drift %v needs worlds and values_only", c.Drift)
	}
	return nil
}
