package envclient

import (
	"encoding/json"

	"github.com/org/agentevolver"
)

// The placeholder results of Config.Fallback, as the Python standalone client
// (env_service/env_client.py) returns them after its last failed try. Their
// texts are the reference's, typos included, so that logs and prompts match.

// fallbackTaskIDs is the placeholder of TaskIDs: no tasks.
func fallbackTaskIDs() []string { return []string{} }

// fallbackInitState is the placeholder of Create. The reference payload also
// carries "reward": 0 and "is_terminated": false, which InitState has no
// fields for.
func fallbackInitState(taskID, instanceID string) InitState {
	return InitState{
		State: []agentevolver.Message{
			{Role: agentevolver.RoleSystem, Content: "create query failed, this is a empty task."},
			{Role: agentevolver.RoleUser, Content: "create failed, this is a empty task,please close this task."},
		},
		Info: map[string]any{"instance_id": instanceID, "task_id": taskID},
	}
}

// fallbackStepResult is the placeholder of Step.
func fallbackStepResult(instanceID string) StepResult {
	return StepResult{
		State: []agentevolver.Message{
			{Role: agentevolver.RoleAssistant, Content: "Step failed (timeout or exception),please retry"},
		},
		Reward:       0,
		IsTerminated: false,
		Info:         map[string]any{"instance_id": instanceID, "task_id": ""},
	}
}

// fallbackScore is the placeholder of Evaluate.
const fallbackScore = 0.0

// fallbackInfo is the placeholder of Info: JSON null.
func fallbackInfo() json.RawMessage { return json.RawMessage("null") }

// fallbackReleased is the placeholder of Release.
const fallbackReleased = false
