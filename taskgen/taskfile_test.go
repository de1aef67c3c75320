package taskgen

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

func sampleObjectives() []agentevolver.TaskObjective {
	return []agentevolver.TaskObjective{
		{Task: agentevolver.Task{TaskID: "train-3", EnvType: "toolworld", OpenQuery: true, Query: "Find Sam's phone number.",
			GroundTruth: "contacts.find name=Sam", Evaluator: "env", Metadata: map[string]any{"seed_task_id": "train-3", "level": 2.0}},
			Confidence: ptr(0.75)},
		{Task: agentevolver.Task{TaskID: "train-4", EnvType: "toolworld"}, Reward: ptr(1)},
		{Task: agentevolver.Task{TaskID: "ünïcode \"quoted\"\nline", Query: "<b>&</b>"}},
	}
}

// TestTaskFileRoundTrip writes the same tasks as JSON lines and as Parquet
// and reads back the same rows from both.
func TestTaskFileRoundTrip(t *testing.T) {
	want := sampleObjectives()
	dir := t.TempDir()
	for _, name := range []string{"tasks.jsonl", "tasks.parquet", "tasks.json"} {
		path := filepath.Join(dir, name)
		if err := WriteTaskFile(path, want); err != nil {
			t.Fatalf("%s: write: %v", name, err)
		}
		got, err := ReadTaskFile(path)
		if err != nil {
			t.Fatalf("%s: read: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read back\n%+v\nwant\n%+v", name, got, want)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if err := WriteTaskFile(filepath.Join(dir, "tasks.csv"), want); !errors.Is(err, ErrTaskFile) {
		t.Errorf("unknown extension: %v", err)
	}
}

// TestReadJSONLReferenceLines reads lines as the reference's loader does:
// bare tasks and TaskObjectives, open_query defaulting to true, the
// top-level ground_truth as a fallback.
func TestReadJSONLReferenceLines(t *testing.T) {
	in := `{"task": {"task_id": "a", "query": "q1"}, "confidence": 0.5, "ground_truth": "step 1"}

{"task_id": "b", "open_query": false, "query": "q2", "ground_truth": "own"}
{"task": {"task_id": "c", "ground_truth": "inner", "open_query": false}, "ground_truth": "outer", "reward": null}
`
	got, err := ReadJSONL(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []agentevolver.TaskObjective{
		{Task: agentevolver.Task{TaskID: "a", Query: "q1", OpenQuery: true, GroundTruth: "step 1"}, Confidence: ptr(0.5)},
		{Task: agentevolver.Task{TaskID: "b", Query: "q2", GroundTruth: "own"}},
		{Task: agentevolver.Task{TaskID: "c", GroundTruth: "inner"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestReadTaskFileErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"no task id", `{"task": {"query": "q"}}`, "task_id is empty"},
		{"blank task id", `{"task_id": "  "}`, "task_id is empty"},
		{"not an object", `["a"]`, "not a JSON object"},
		{"task not an object", `{"task": 3}`, `"task" is not a JSON object`},
		{"bad JSON", `{"task_id": "a"`, "line 1"},
		{"wrong type", `{"task_id": 5}`, "line 1"},
		{"long line", `{"task_id": "` + strings.Repeat("x", MaxTaskLineBytes) + `"}`, "longer than"},
	} {
		_, err := ReadJSONL(strings.NewReader(tt.in))
		if !errors.Is(err, ErrTaskFile) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want ErrTaskFile with %q", tt.name, err, tt.want)
		}
	}
	junk := []byte("PAR1 this is not a parquet file PAR1")
	if _, err := ReadParquet(bytes.NewReader(junk), int64(len(junk))); !errors.Is(err, ErrTaskFile) {
		t.Errorf("junk parquet: %v", err)
	}
	var buf bytes.Buffer
	if err := WriteParquet(&buf, []agentevolver.TaskObjective{{Task: agentevolver.Task{TaskID: "a"}}}); err != nil {
		t.Fatal(err)
	}
	cut := buf.Bytes()[:buf.Len()/2]
	if _, err := ReadParquet(bytes.NewReader(cut), int64(len(cut))); !errors.Is(err, ErrTaskFile) {
		t.Errorf("truncated parquet: %v", err)
	}
	if _, err := ReadTaskFile(filepath.Join(t.TempDir(), "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	nan := []agentevolver.TaskObjective{{Task: agentevolver.Task{TaskID: "a"}, Confidence: ptr(nanValue())}}
	if err := WriteJSONL(&buf, nan); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("NaN confidence written: %v", err)
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

func FuzzReadJSONL(f *testing.F) {
	f.Add(`{"task": {"task_id": "a"}, "confidence": 0.5}`)
	f.Add(`{"task_id": "b", "metadata": {"k": [1, 2]}}`)
	f.Add("\n\n{}\n")
	f.Fuzz(func(t *testing.T, in string) {
		objs, err := ReadJSONL(strings.NewReader(in))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteJSONL(&buf, objs); err != nil {
			t.Fatalf("tasks read cannot be written: %v", err)
		}
		again, err := ReadJSONL(&buf)
		if err != nil || len(again) != len(objs) {
			t.Fatalf("written tasks do not read back: %v (%d vs %d)", err, len(again), len(objs))
		}
	})
}

func FuzzReadParquet(f *testing.F) {
	var buf bytes.Buffer
	if err := WriteParquet(&buf, sampleObjectives()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, _ = ReadParquet(bytes.NewReader(data), int64(len(data))) // must not panic or hang
		runtime.ReadMemStats(&m1)
		if d := m1.TotalAlloc - m0.TotalAlloc; d > 100<<20 {
			t.Fatalf("%d MB allocated for a %d-byte file", d>>20, len(data))
		}
	})
}
