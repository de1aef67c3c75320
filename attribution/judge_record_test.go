package attribution_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/attribution"
)

// TestWriteJudgeRecords writes the reference's per-sample judge records:
// one file per judged or fallen-back sample, none for a skipped one, at
// the reference's path and with its fields.
func TestWriteJudgeRecords(t *testing.T) {
	dir := t.TempDir()
	episodes := []attribution.Episode{
		{TaskID: "t0", Query: "find x", Outcome: 1, Steps: []agentevolver.SampleStep{{Action: " look ", Observation: "x is 3\n"}, {Action: "answer 3"}}},
		{TaskID: "t0", Query: "find x", Outcome: 0, Steps: []agentevolver.SampleStep{{Action: "guess"}}},
		{TaskID: "t1", Query: "find y", Outcome: 0, Steps: []agentevolver.SampleStep{{Action: "guess"}}},
	}
	prompt := []agentevolver.Message{{Role: agentevolver.RoleSystem, Content: "judge"}, {Role: agentevolver.RoleUser, Content: "steps"}}
	judgments := []attribution.Judgment{
		{Good: []bool{true, false}, Source: attribution.SourceJudged, Calls: 1, Response: "Step 0 Judgment: GOOD\nStep 1 Judgment: BAD", Prompt: prompt, Elapsed: 1500 * time.Millisecond},
		{Good: []bool{false}, Source: attribution.SourceFallback, Calls: 4, Prompt: prompt, Err: errors.New("endpoint down")},
		{Good: []bool{false}, Source: attribution.SourceSkipped},
	}
	at := time.Unix(1700000000, 123456789)
	paths, err := attribution.WriteJudgeRecords(dir, 7, episodes, judgments, attribution.JudgeRecordOptions{
		ModelName: "qwen-max", Now: func() time.Time { return at },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(dir, "step_000007", "step000007_sample000_1700000000_123.json"),
		filepath.Join(dir, "step_000007", "step000007_sample001_1700000000_123.json"),
	}
	if len(paths) != len(want) || paths[0] != want[0] || paths[1] != want[1] {
		t.Fatalf("paths %v, want %v", paths, want)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "step_000007"))
	if len(entries) != 2 {
		t.Fatalf("%d files, want 2 (the skipped sample has none)", len(entries))
	}
	var recs []map[string]any
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, m)
	}
	r := recs[0]
	for key, v := range map[string]any{
		"sample_idx": 0.0, "query": "find x", "rollout": " look \nx is 3\n\nanswer 3", "overall_score": 1.0,
		"llm_raw_output": "Step 0 Judgment: GOOD\nStep 1 Judgment: BAD", "response_time": 1.5,
		"model_name": "qwen-max", "evaluation_type": "api", "global_step": 7.0, "task_id": "t0", "source": "judged",
	} {
		if r[key] != v {
			t.Errorf("record 0: %s = %#v, want %#v", key, r[key], v)
		}
	}
	if steps := r["steps"].([]any); len(steps) != 2 || steps[0] != "look\n\n[OBSERVATION]\nx is 3" || steps[1] != "answer 3" {
		t.Errorf("record 0: steps %#v", steps)
	}
	if got := r["llm_parsed_results"].([]any); len(got) != 2 || got[0] != true || got[1] != false {
		t.Errorf("record 0: llm_parsed_results %#v", got)
	}
	if msgs := r["llm_input_messages"].([]any); len(msgs) != 2 {
		t.Errorf("record 0: llm_input_messages %#v", msgs)
	}
	if md := r["_metadata"].(map[string]any); md["num_steps"] != 2.0 || md["step_directory"] != "step_000007" || md["full_path"] != want[0] {
		t.Errorf("record 0: _metadata %#v", md)
	}
	if f := recs[1]; f["llm_raw_output"] != "ERROR: endpoint down" || f["source"] != "fallback" || f["overall_score"] != -1.0 || f["error"] != "endpoint down" {
		t.Errorf("record 1 (a fallback): %#v", f)
	}
}
