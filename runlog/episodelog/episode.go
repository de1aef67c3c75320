package episodelog

import (
	"strings"
	"time"

	"github.com/org/agentevolver"
)

// Phases of an episode.
const (
	PhaseTrain      = "train"
	PhaseValidation = "validation"
)

// Episode is one line of an episode log.
type Episode struct {
	// Phase is PhaseTrain, PhaseValidation or another phase of the run
	// (the experience pool's initial rollouts, say).
	Phase string `json:"phase"`
	// Step is the metrics step the episode belongs to: the RL step for
	// training, the number of steps done for validation.
	Step int `json:"step"`
	// Time is when it was recorded.
	Time time.Time `json:"time"`
	// TaskID, DataID and RolloutID name the episode (agentevolver.Trajectory).
	TaskID    string `json:"task_id"`
	DataID    string `json:"data_id"`
	RolloutID string `json:"rollout_id"`
	// Query is the task's instruction.
	Query string `json:"query,omitempty"`
	// Outcome is the reward; Success its success rate >= 1.
	Outcome float64 `json:"outcome"`
	Success bool    `json:"success"`
	// Reason is the grader's description of the score.
	Reason string `json:"reason,omitempty"`
	// Cause is the failure cause of an episode that failed in the
	// environment or the policy (agentflow.FailureCause); Error its
	// message. A failed episode has no score, messages or samples.
	Cause string `json:"cause,omitempty"`
	Error string `json:"error,omitempty"`
	// Terminated reports that the environment ended the episode (else it
	// was cut by the step or context limit).
	Terminated bool `json:"terminated,omitempty"`
	// Experience reports that experience was injected into the prompt.
	Experience bool `json:"experience,omitempty"`
	// Messages is the conversation.
	Messages []agentevolver.Message `json:"messages,omitempty"`
	// Samples are the episode's training samples (one, or one per model
	// call with the per-call context manager).
	Samples []Sample `json:"samples,omitempty"`
}

// Failed reports whether the episode failed.
func (e Episode) Failed() bool { return e.Cause != "" }

// Sample is the token view of one training sample: the prompt's and the
// response's tokens in order.
type Sample struct {
	// IDs are the token ids (the sample's input_ids).
	IDs []int `json:"ids"`
	// Text holds each token's decoded text.
	Text []string `json:"text"`
	// Mask holds each token's loss mask as '0' (context) or '1' (trained).
	Mask string `json:"mask"`
	// PromptLen is the number of prompt tokens at the start.
	PromptLen int `json:"prompt_len"`
}

// FromTrajectory builds the episode of a finished trajectory. decode
// returns one token's text; nil leaves the samples out.
func FromTrajectory(phase string, step int, now time.Time, tr agentevolver.Trajectory, samples []agentevolver.Sample, decode func(id int) string) Episode {
	ep := Episode{
		Phase: phase, Step: step, Time: now,
		TaskID: tr.TaskID, DataID: tr.DataID, RolloutID: tr.RolloutID, Query: tr.Query,
		Outcome: tr.Reward.Outcome, Success: tr.Reward.SuccessRate >= 1, Reason: tr.Reward.Description,
		Terminated: tr.IsTerminated, Experience: len(tr.Experience.Injected) > 0,
		Messages: tr.Steps,
	}
	if decode == nil {
		return ep
	}
	for _, s := range samples {
		ids := s.InputIDs
		if len(ids) == 0 {
			ids = append(append([]int(nil), s.PromptIDs...), s.ResponseIDs...)
		}
		mask := s.LossMask
		if len(mask) != len(ids) {
			mask = append(append([]int(nil), s.PromptLossMask...), s.ResponseLossMask...)
		}
		var m strings.Builder
		text := make([]string, len(ids))
		for i, id := range ids {
			text[i] = decode(id)
			if i < len(mask) && mask[i] != 0 {
				m.WriteByte('1')
			} else {
				m.WriteByte('0')
			}
		}
		ep.Samples = append(ep.Samples, Sample{IDs: ids, Text: text, Mask: m.String(), PromptLen: len(s.PromptIDs)})
	}
	return ep
}

// Failure builds the episode of a rollout that failed with cause.
func Failure(phase string, step int, now time.Time, taskID, dataID, rolloutID, cause, msg string) Episode {
	return Episode{Phase: phase, Step: step, Time: now, TaskID: taskID, DataID: dataID, RolloutID: rolloutID, Cause: cause, Error: msg}
}
