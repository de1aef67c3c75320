package cues

import (
	"time"

	"github.com/org/agentevolver"
)

// Triplet is one step of a Stage-1 exploration: the recent history the
// explorer saw, the action it took and what the environment answered
// (reference §2.5). It is stored the moment it happens.
type Triplet struct {
	// TripletID identifies the triplet (8 hex digits).
	TripletID string `json:"triplet_id"`
	// EnvID is the environment task id the rollout explored, EnvType its
	// environment.
	EnvID   string `json:"env_id"`
	EnvType string `json:"env_type"`
	// SessionID is the run's session.
	SessionID string `json:"session_id"`
	// Rollout is the rollout's index, RunID the attempt that produced the
	// triplet (a rollout interrupted midway is run again under a new
	// RunID, and the triplets of the unfinished attempt are ignored), Step
	// the step within the rollout, from 0.
	Rollout int    `json:"rollout"`
	RunID   string `json:"run_id"`
	Step    int    `json:"step"`
	// History is the last (at most 3) "Action: …" / "Observation: …"
	// entries before this action, joined by newlines.
	History string `json:"history"`
	// Action is the parsed action, Observation the environment's answer.
	Action      string    `json:"action"`
	Observation string    `json:"observation"`
	Reward      float64   `json:"reward"`
	Done        bool      `json:"done"`
	Timestamp   time.Time `json:"timestamp"`
	// ExplorationMemory is the memory text the explorer saw (empty: none).
	ExplorationMemory string `json:"exploration_memory,omitempty"`
	// OriginalAction is the model's whole reply.
	OriginalAction string `json:"original_action,omitempty"`
	// NoAction reports a reply that held no action (no <action> tags, or
	// nothing at all): the action is then the whole reply, or "look
	// around" for an empty one, as in the reference.
	NoAction bool `json:"no_action,omitempty"`
}

// RolloutRecord marks a finished Stage-1 rollout (a line of
// triplets/rollouts.jsonl): its triplets are those of RunID.
type RolloutRecord struct {
	Rollout int    `json:"rollout"`
	RunID   string `json:"run_id"`
	EnvID   string `json:"env_id"`
	// Steps is the number of triplets, Done whether the environment ended
	// the episode.
	Steps int  `json:"steps"`
	Done  bool `json:"done"`
	// Error is why the rollout stopped early (an environment step that
	// failed, a model that could not answer), empty when it did not.
	Error string `json:"error,omitempty"`
}

// Task origins (Task.Origin).
const (
	// OriginLLM is a task abstracted by a model from a batch of triplets
	// (the reference's Stage 2).
	OriginLLM = "llm"
	// OriginHindsight is a task the environment relabelled in hindsight
	// from one rollout's actions (envservice.TaskSynthesizer): what a
	// model that cannot write task blocks (a small policy) gets instead.
	OriginHindsight = "hindsight"
)

// Task is an abstracted task (reference §2.5), with its provenance.
type Task struct {
	// TaskID identifies the task (8 hex digits).
	TaskID string `json:"task_id"`
	// EnvID is the environment task whose world the task lives in (the
	// batch's first triplet's), EnvType its environment.
	EnvID   string `json:"env_id"`
	EnvType string `json:"env_type"`
	// SessionID is the run's session.
	SessionID   string `json:"session_id"`
	Description string `json:"description"`
	Query       string `json:"query"`
	// SourceTriplets are the ids of the triplets of the batch it came from.
	SourceTriplets []string `json:"source_triplets"`
	// Confidence is the abstractor's confidence (1 when it gave none).
	Confidence float64   `json:"confidence"`
	Timestamp  time.Time `json:"timestamp"`
	// GT is the abstracted action sequence, indentation kept.
	GT string `json:"gt"`
	// Batch names the Stage-2 batch.
	Batch string `json:"batch"`
	// Origin is OriginLLM or OriginHindsight.
	Origin string `json:"origin"`
	// CheckTaskID, when set, is a task id the environment itself can score
	// (a hindsight task whose goal is what GT achieves): Stage 3's
	// environment check and the exported task use it.
	CheckTaskID string `json:"check_task_id,omitempty"`
}

// ExecStep is one step of a Stage-3 re-execution (reference §2.9.1).
type ExecStep struct {
	// History is the truncated initial observation (step 0) or the
	// previous observation.
	History     string  `json:"history"`
	Action      string  `json:"action"`
	Observation string  `json:"observation"`
	Reward      float64 `json:"reward"`
	Done        bool    `json:"done"`
	StepNumber  int     `json:"step_number"`
	// Response is the actor's whole reply.
	Response string `json:"response"`
}

// EnvCheck is the environment's own verdict on a re-execution.
type EnvCheck struct {
	// Method is CheckHindsight or CheckReplay.
	Method string `json:"method"`
	// Success is the verdict; Score the environment's score (hindsight).
	Success bool    `json:"success"`
	Score   float64 `json:"score"`
	// TaskID is the environment task that was scored (hindsight).
	TaskID string `json:"task_id,omitempty"`
	// Detail says why, in words.
	Detail string `json:"detail,omitempty"`
}

// Trajectory is a Stage-3 re-execution and its verdicts (reference
// §2.9.4), stored under trajectories/ when accepted and under
// trajectories/failed_tasks/ when not.
type Trajectory struct {
	TaskID      string  `json:"task_id"`
	EnvID       string  `json:"env_id"`
	EnvType     string  `json:"env_type"`
	Description string  `json:"description"`
	Query       string  `json:"query"`
	GroundTruth string  `json:"ground_truth"`
	FinalReward float64 `json:"final_reward"`
	// Success is the final verdict: the judge's and the environment
	// check's, both where both ran.
	Success bool `json:"success"`
	// Reason is the judge's reply (or the environment check's detail when
	// no judge ran).
	Reason     string `json:"reason"`
	TotalSteps int    `json:"total_steps"`
	// Attempt is the re-execution attempt (from 1) this trajectory is.
	Attempt      int    `json:"attempt"`
	StrategyUsed string `json:"strategy_used"`
	// JudgeSuccess is the LLM judge's verdict, nil when no judge ran.
	JudgeSuccess *bool `json:"judge_success,omitempty"`
	// EnvCheck is the environment's verdict, nil when it has none.
	EnvCheck *EnvCheck `json:"env_check,omitempty"`
	// Disagreement reports a judge and an environment check that differ.
	Disagreement bool                   `json:"disagreement,omitempty"`
	Messages     []agentevolver.Message `json:"messages"`
	Steps        []ExecStep             `json:"steps"`
	// Task is the task that was re-executed.
	Task Task `json:"task"`
}

// Failure kinds of a FailedRecord.
const (
	// FailNoTrajectory: the actor's first reply held no action, so nothing
	// ran.
	FailNoTrajectory = "no_trajectory"
	// FailInvalidTask: the task lacks an id, a description or a query.
	FailInvalidTask = "invalid_task_structure"
	// FailError: the environment or the model failed; a resumed run tries
	// the task again.
	FailError = "error"
)

// FailedRecord is a task that produced no judged trajectory
// (trajectories/failed_tasks/failed_<task_id>.json).
type FailedRecord struct {
	Task          Task      `json:"task"`
	Kind          string    `json:"kind"`
	FailureReason string    `json:"failure_reason"`
	Timestamp     time.Time `json:"timestamp"`
}

// RewriteRecord is the query rewrite of one accepted trajectory
// (rewrites/rewrite_<task_id>.json); each variant is also written as a
// copy of the trajectory with its query replaced
// (rewrites/trajectories/trajectory_<task_id>_rw<i>.json).
type RewriteRecord struct {
	TaskID   string   `json:"task_id"`
	Query    string   `json:"query"`
	Variants []string `json:"variants"`
	// Missing counts the variants the model did not give. The reference
	// pads with placeholders ("<query> (rewrite i)"); this package does
	// not, since a placeholder is the same query again.
	Missing int `json:"missing"`
}
