package taskgen

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

func TestTasksHash(t *testing.T) {
	// Expectations: hashlib.md5("|".join(...).encode()).hexdigest().
	tests := []struct {
		name  string
		seeds []agentevolver.Task
		want  string
	}{
		{"empty", nil, "d41d8cd98f00b204e9800998ecf8427e"},
		{"one", []agentevolver.Task{{TaskID: "0", EnvType: "appworld"}}, "6132f306e349bf92c5c6f9b4bc513759"},
		{"several, UTF-8", []agentevolver.Task{{TaskID: "t1", EnvType: "appworld"}, {TaskID: "t2", EnvType: "toolworld", Query: "ignored"}, {TaskID: "日本", EnvType: "x"}}, "d7f3a72c6e2cbc931f99ba3de31a1bd9"},
	}
	for _, tt := range tests {
		if got := TasksHash(tt.seeds); got != tt.want {
			t.Errorf("%s: TasksHash = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func sampleCheckpoint() Checkpoint {
	conf := 0.9
	return Checkpoint{
		Results: []agentevolver.TaskObjective{
			{Task: agentevolver.Task{TaskID: "0", EnvType: "toolworld", OpenQuery: true, Query: "q", GroundTruth: "gt",
				Evaluator: agentevolver.EvaluatorSynthetic, Metadata: map[string]any{"k": "v"}}, Confidence: &conf},
		},
		ProcessedIndices: []int{0, 2},
		TotalBatches:     3,
		TasksHash:        "abc",
		Timestamp:        1712345678.25,
	}
}

func TestCheckpointRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", DefaultCheckpointFile)
	want := sampleCheckpoint()
	if err := want.Save(path); err != nil {
		t.Fatal(err)
	}
	got, status, err := LoadCheckpoint(path, "abc")
	if err != nil || status != CheckpointResumed {
		t.Fatalf("LoadCheckpoint: %v, %v", status, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if !got.Processed(2) || got.Processed(1) {
		t.Error("Processed")
	}
	// No temporary file is left behind, and the file is readable by all.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries", len(entries))
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v", info.Mode(), err)
	}
	// Saving again replaces the file.
	want.ProcessedIndices = []int{2, 1, 0, 1}
	if err := want.Save(path); err != nil {
		t.Fatal(err)
	}
	got, _, _ = LoadCheckpoint(path, "abc")
	if !reflect.DeepEqual(got.ProcessedIndices, []int{0, 1, 2}) {
		t.Errorf("indices %v, want sorted without repeats", got.ProcessedIndices)
	}
}

func TestCheckpointSaveDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	if err := (Checkpoint{TasksHash: "h"}).Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, s := range []string{`"results": []`, `"processed_indices": []`, `"total_batches": 0`, `"tasks_hash": "h"`, `"timestamp": `} {
		if !strings.Contains(string(data), s) {
			t.Errorf("file lacks %s:\n%s", s, data)
		}
	}
	c, status, err := LoadCheckpoint(path, "h")
	if err != nil || status != CheckpointResumed || c.Timestamp < 1.7e9 {
		t.Errorf("LoadCheckpoint = %+v, %v, %v", c, status, err)
	}
}

func TestCheckpointSaveRefusesInvalid(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		mutate func(*Checkpoint)
	}{
		{"index out of range", func(c *Checkpoint) { c.ProcessedIndices = []int{3} }},
		{"negative index", func(c *Checkpoint) { c.ProcessedIndices = []int{-1} }},
		{"negative total", func(c *Checkpoint) { c.TotalBatches = -1; c.ProcessedIndices = nil }},
		{"no task id", func(c *Checkpoint) { c.Results[0].Task.TaskID = " " }},
	}
	for _, tt := range tests {
		c := sampleCheckpoint()
		tt.mutate(&c)
		path := filepath.Join(dir, tt.name)
		if err := c.Save(path); err == nil {
			t.Errorf("%s: Save succeeded", tt.name)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a file was written", tt.name)
		}
	}
}

func TestLoadCheckpoint(t *testing.T) {
	// The reference's own file: json.dump(indent=2) of TaskObjective.dict().
	const pythonFile = `{
  "results": [
    {
      "task": {"task_id": "0", "env_type": "appworld", "open_query": true, "metadata": {},
               "query": "Pay Bob", "ground_truth": "bank.pay", "evaluator": "synthetic"},
      "confidence": 0.9,
      "reward": null
    },
    {
      "task": {"task_id": "1", "env_type": "appworld", "open_query": true, "metadata": {},
               "query": "Call Ann", "ground_truth": null, "evaluator": "synthetic"},
      "confidence": null,
      "reward": null
    }
  ],
  "processed_indices": [2, 0],
  "total_batches": 3,
  "tasks_hash": "h",
  "timestamp": 1712345678.123,
  "future_field": true
}`
	tests := []struct {
		name       string
		content    *string // nil: no file
		wantStatus LoadStatus
		wantErr    bool
	}{
		{"missing", nil, CheckpointMissing, false},
		{"reference file", ptrTo(pythonFile), CheckpointResumed, false},
		{"stale hash", ptrTo(strings.Replace(pythonFile, `"tasks_hash": "h"`, `"tasks_hash": "other"`, 1)), CheckpointStale, false},
		{"stale even if otherwise broken", ptrTo(`{"tasks_hash": "other", "processed_indices": [99]}`), CheckpointStale, false},
		{"no hash", ptrTo(`{"results": []}`), CheckpointCorrupt, true},
		{"null hash", ptrTo(`{"tasks_hash": null}`), CheckpointCorrupt, true},
		{"truncated", ptrTo(pythonFile[:len(pythonFile)/2]), CheckpointCorrupt, true},
		{"empty file", ptrTo(""), CheckpointCorrupt, true},
		{"not an object", ptrTo(`[1]`), CheckpointCorrupt, true},
		{"NaN (Python writes it)", ptrTo(strings.Replace(pythonFile, `"confidence": 0.9`, `"confidence": NaN`, 1)), CheckpointCorrupt, true},
		{"index out of range", ptrTo(strings.Replace(pythonFile, `[2, 0]`, `[3, 0]`, 1)), CheckpointCorrupt, true},
		{"negative index", ptrTo(strings.Replace(pythonFile, `[2, 0]`, `[-1]`, 1)), CheckpointCorrupt, true},
		{"indices without a total", ptrTo(`{"tasks_hash": "h", "processed_indices": [0]}`), CheckpointCorrupt, true},
		{"index not an integer", ptrTo(strings.Replace(pythonFile, `[2, 0]`, `["2"]`, 1)), CheckpointCorrupt, true},
		{"result without task id", ptrTo(strings.Replace(pythonFile, `"task_id": "1"`, `"task_id": ""`, 1)), CheckpointCorrupt, true},
		{"minimal", ptrTo(`{"tasks_hash": "h"}`), CheckpointResumed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ckpt.json")
			if tt.content != nil {
				if err := os.WriteFile(path, []byte(*tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c, status, err := LoadCheckpoint(path, "h")
			if status != tt.wantStatus || (err != nil) != tt.wantErr {
				t.Fatalf("LoadCheckpoint = %v, %v; want %v, error %v", status, err, tt.wantStatus, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrCorruptCheckpoint) {
				t.Errorf("error %v does not wrap ErrCorruptCheckpoint", err)
			}
			if status != CheckpointResumed && !reflect.DeepEqual(c, Checkpoint{}) {
				t.Errorf("checkpoint %+v returned with status %v", c, status)
			}
			if tt.content != nil && status != CheckpointResumed {
				if _, err := os.Stat(path); err != nil {
					t.Error("LoadCheckpoint removed the file")
				}
			}
		})
	}
	// The reference file's content.
	path := filepath.Join(t.TempDir(), "ckpt.json")
	os.WriteFile(path, []byte(pythonFile), 0o644)
	c, _, _ := LoadCheckpoint(path, "h")
	if len(c.Results) != 2 || c.Results[0].Task.Query != "Pay Bob" || *c.Results[0].Confidence != 0.9 ||
		c.Results[1].Confidence != nil || c.Results[1].Task.GroundTruth != "" ||
		!reflect.DeepEqual(c.ProcessedIndices, []int{0, 2}) || c.TotalBatches != 3 || c.Timestamp != 1712345678.123 {
		t.Errorf("reference checkpoint read as %+v", c)
	}
}

func ptrTo(s string) *string { return &s }

func TestLoadCheckpointUnreadable(t *testing.T) {
	dir := t.TempDir()
	// A directory where the file should be.
	if _, status, err := LoadCheckpoint(dir, "h"); status != CheckpointCorrupt || !errors.Is(err, ErrCorruptCheckpoint) {
		t.Errorf("directory: %v, %v", status, err)
	}
	// A file over the size limit is refused before it is read.
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxCheckpointBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, status, err := LoadCheckpoint(big, "h"); status != CheckpointCorrupt || !errors.Is(err, ErrCorruptCheckpoint) || !strings.Contains(err.Error(), "too large") {
		t.Errorf("large file: %v, %v", status, err)
	}
}

func TestLoadStatusString(t *testing.T) {
	for s, want := range map[LoadStatus]string{CheckpointMissing: "missing", CheckpointResumed: "resumed", CheckpointStale: "stale", CheckpointCorrupt: "corrupt", 9: "LoadStatus(9)"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q", int(s), s.String())
		}
	}
}
