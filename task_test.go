package agentevolver

import (
	"encoding/json"
	"testing"
)

func TestTaskJSONMatchesReference(t *testing.T) {
	// A task objective as the Python task manager writes it (one JSON line).
	in := `{"task": {"task_id": "t1", "env_type": "appworld", "open_query": true, "metadata": {}, "query": "book a table", "ground_truth": "call a then b", "evaluator": "llm-binary-gt"}, "confidence": 0.9, "reward": null}`
	var o TaskObjective
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	if o.Task.TaskID != "t1" || !o.Task.OpenQuery || o.Objective() != "book a table" || o.GroundTruth() != "call a then b" {
		t.Fatalf("decoded %+v", o)
	}
	if o.Confidence == nil || *o.Confidence != 0.9 || o.Reward != nil {
		t.Fatalf("confidence/reward: %v %v", o.Confidence, o.Reward)
	}
	// A seed task has query null: it must decode as "use the env's query".
	var seed Task
	if err := json.Unmarshal([]byte(`{"task_id":"5","env_type":"appworld","query":null,"ground_truth":null}`), &seed); err != nil {
		t.Fatal(err)
	}
	if seed.Query != "" || seed.EvaluatorOrDefault() != EvaluatorEnv {
		t.Fatalf("seed task %+v", seed)
	}
}

func TestNewReward(t *testing.T) {
	tests := []struct {
		score       float64
		reason      string
		successRate float64
		success     bool
		desc        string
	}{
		{1, "", 1, true, DefaultRewardDescription},
		{0.5, "half", 0, true, "half"},
		{0, "", 0, false, DefaultRewardDescription},
		{1.5, "x", 1, true, "x"},
	}
	for _, tt := range tests {
		r := NewReward(tt.score, tt.reason, 0)
		if r.SuccessRate != tt.successRate || r.Success() != tt.success || r.Description != tt.desc {
			t.Errorf("NewReward(%v, %q) = %+v", tt.score, tt.reason, r)
		}
	}
	data, _ := json.Marshal(NewReward(1, "", -1))
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	for _, k := range []string{"outcome", "success_rate", "madness", "description", "metadata"} {
		if _, ok := m[k]; !ok {
			t.Errorf("reward JSON lacks %q: %s", k, data)
		}
	}
}
