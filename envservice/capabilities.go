package envservice

import (
	"context"

	"github.com/org/agentevolver"
)

// Optional capabilities of an Environment.
//
// Environment is all a Manager and the trainer need to run episodes. An
// environment may offer more by implementing any of the one-method
// interfaces below; users of an Environment find them by type assertion (the
// database/sql/driver pattern) and say up front which feature needs which
// capability. This is the one place they are documented:
//
//   - ProfileProvider: an environment profile (reference §4.2), for task
//     synthesis and the env-service route get_env_profile.
//   - Expert: demonstrations of how to solve a task, for the trainer's
//     supervised warm start (warm_start.steps > 0).
//   - CorpusProvider: the text of a split, for learning a tokenizer from the
//     environment (model.tokenizer: env).
//   - TaskMetadataProvider: per-task metadata such as difficulty, for
//     filtering tasks (data.max_difficulty > 0).
//   - StepOracle: exact GOOD/BAD labels for the steps of an episode, for
//     attribution without an LLM (attribution.OracleJudge in place of an
//     LLM step judge).
//
// A Manager exposes the environments it serves through Manager.Environment,
// so code holding only the Manager (as an envclient.Env) can still reach
// them. An environment behind HTTP offers none of them to its clients.

// ProfileProvider is implemented by environments that can describe
// themselves with an environment profile (reference §4.2) for task
// synthesis.
type ProfileProvider interface {
	Profile() agentevolver.EnvProfile
}

// Expert is implemented by environments that can demonstrate a solution:
// Demonstrate returns the assistant messages that, sent as the actions of a
// fresh instance of taskID one per step, solve it (the episode scores 1 and
// ends after the last one). Demonstrations are training data for the
// trainer's supervised warm start, which replays them through the same
// episode loop and context manager as the policy.
type Expert interface {
	Demonstrate(ctx context.Context, taskID string) ([]agentevolver.Message, error)
}

// CorpusProvider is implemented by environments that can hand out the text
// a policy will read and write in a split (system prompts, instructions,
// typical actions and observations), to learn a tokenizer from. Corpus
// returns the documents in a deterministic order.
type CorpusProvider interface {
	Corpus(ctx context.Context, split string) ([]string, error)
}

// TaskMetadataProvider is implemented by environments that describe their
// tasks beyond an id.
type TaskMetadataProvider interface {
	TaskMetadata(ctx context.Context, taskID string) (TaskMetadata, error)
}

// TaskMetadata describes one task of an environment.
type TaskMetadata struct {
	// Difficulty grades the task, 1 the easiest; 0 means unknown. Tasks are
	// filtered by it (data.max_difficulty).
	Difficulty int
}

// StepOracle is implemented by environments that know which steps of an
// episode helped. JudgeSteps replays actions, the assistant messages of one
// episode in order, on a fresh instance of taskID and returns one verdict
// per action: true (GOOD) for a step that made progress towards solving
// the task, false (BAD) for one that did not (what counts as progress is
// the environment's to document). It returns an error, and no verdicts,
// for an unknown task or when ctx ends; a malformed action is a BAD step,
// not an error. The result has len(actions) entries. JudgeSteps must be
// safe for concurrent use and must not change any instance a Manager
// serves.
//
// A step oracle stands in for the LLM judge of ADCA (reference §7.2-7.3)
// so that credit assignment can be studied, and trained with, without a
// judge model and its cost and noise.
type StepOracle interface {
	JudgeSteps(ctx context.Context, taskID string, actions []agentevolver.Message) ([]bool, error)
}
