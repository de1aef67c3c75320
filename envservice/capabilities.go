package envservice

import (
	"context"
	"errors"

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
//   - TaskSynthesizer: new tasks relabelled in hindsight from what an
//     episode achieved, with the environment's own verifiable reward, for
//     self-questioning without an LLM summariser (reference §4.4).
//   - RandomExplorer: random valid actions chosen by the environment, for
//     exploration episodes without an LLM or a policy (reference §4.3).
//   - ProcessBacked: whether each instance is an operating-system process,
//     for the Manager's separate, lower limit on such instances
//     (ManagerConfig.MaxProcessInstances).
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

// ErrNothingAchieved is returned, possibly wrapped, by
// TaskSynthesizer.SynthesizeTask when the actions achieved nothing to make
// a task of: they changed no state and read nothing that could be asked
// about. It is a property of the episode, not a failure of the
// environment; a caller skips the episode.
var ErrNothingAchieved = errors.New("envservice: the actions achieved nothing to make a task of")

// TaskSynthesizer is implemented by environments that can relabel an
// episode in hindsight: SynthesizeTask replays actions, the assistant
// messages of one episode of seedTaskID in order, on a fresh copy of that
// task's starting state (malformed and failing actions do nothing, as they
// did in the episode; nothing after the episode's end counts), and returns
// a new task whose goal is exactly what they achieved: the state changes
// they made and, where the environment can tell, a question about what
// they read. The returned task must be
//
//   - self-describing: its TaskID alone lets the environment rebuild it,
//     so that create, evaluate and every other capability taking a task
//     id (Expert, TaskMetadataProvider, StepOracle) accept it, in this
//     process or another one, in process or over the env-service
//     protocol, after a round trip through a task file;
//   - verifiable: Evaluator is agentevolver.EvaluatorEnv and the
//     environment's own evaluate scores episodes of it by the rules of its
//     other tasks; Query is its instruction (the one the instance's
//     initial state shows) and GroundTruth an action sequence that scores
//     1; OpenQuery is true;
//   - of the seed's split: a task synthesised from a training task is a
//     training task, from a held-out task a held-out one. Callers that
//     train on synthetic tasks synthesise from training tasks only.
//
// Hindsight needs an environment whose task ids reproduce their starting
// state exactly. Synthesis is deterministic: the same seed and actions
// give the same task. It returns an error matching ErrNothingAchieved when the actions
// achieved nothing, an error for an unknown seed task, and ctx's error
// when ctx ends. It must be safe for concurrent use and must not change
// any instance a Manager serves.
type TaskSynthesizer interface {
	SynthesizeTask(ctx context.Context, seedTaskID string, actions []agentevolver.Message) (agentevolver.Task, error)
}

// RandomExplorer is implemented by environments that can choose actions
// themselves, so that an exploration episode (reference §4.3) can run on
// the environment's own random valid actions when no LLM or policy is at
// hand. RandomAction replays history, the actions (assistant messages)
// sent so far in an episode of taskID, on a fresh instance, counting
// malformed and failing ones as the episode did, and returns a random
// action that the instance accepts in the state they reach: it parses and
// is carried out, rather than answered with an error. It never ends the
// episode, so the caller chooses the length of the walk, and may mix the
// explorer's actions with a policy's.
//
// The action is a deterministic function of taskID, history and seed; the
// step number len(history) is part of the draw, so one seed gives a
// different random stream at each step. A walk of n steps is n calls,
// each with the walk so far as history; its actions, sent to an instance
// of taskID in order, are exactly those replayed, so the live instance is
// always in the state the explorer chose for. RandomAction returns an
// error for an unknown task, for a history that has already ended the
// episode and when ctx ends. It must be safe for concurrent use and must
// not change any instance a Manager serves.
type RandomExplorer interface {
	RandomAction(ctx context.Context, taskID string, history []agentevolver.Message, seed int64) (agentevolver.Message, error)
}

// ProcessBacked is implemented by environments that may start an
// operating-system process (and perhaps a pseudo-terminal and a temporary
// directory) for each instance, such as textgame and an MCP server started
// per instance. ProcessBacked reports whether this environment does, as
// configured (an MCP environment on a shared HTTP server does not). It
// must return the same answer every time; the Manager asks once, when the
// environment is registered, and then counts the instances of those that
// answer true against ManagerConfig.MaxProcessInstances, so that a client
// cannot start more processes than the machine can hold.
type ProcessBacked interface {
	ProcessBacked() bool
}
