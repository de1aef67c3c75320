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
