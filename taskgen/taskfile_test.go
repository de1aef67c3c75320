package taskgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
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
		if err := WriteJSONL(&buf, objs); errors.Is(err, ErrTooLarge) {
			// A line near the limit may grow when written again
			// (invalid UTF-8 becomes U+FFFD, fields are added): the
			// writer refuses it rather than write an unreadable file.
			return
		} else if err != nil {
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

// TestParquetLargeValuesRoundTrip writes tasks with string values from
// 17 KB (the size at which page statistics used to overflow the reader's
// bound on page headers) to 50 MB and reads them back; the file's overhead
// beyond the values stays small, so no statistics repeat them. To keep the
// test's memory low, the large values are compared by length and content
// rather than kept beside the tasks read back.
func TestParquetLargeValuesRoundTrip(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	dir := t.TempDir()
	for _, size := range []int{17 << 10, 70 << 10, 1 << 20, 50_000_000} {
		if size > 1<<20 && testing.Short() {
			continue
		}
		// Every string column holds a large value, in one task or, for
		// the largest, in the query of one task among small ones.
		objs := func() []agentevolver.TaskObjective {
			big := strings.Repeat("x", size)
			objs := []agentevolver.TaskObjective{
				{Task: agentevolver.Task{TaskID: "small", Query: "q"}},
				{Task: agentevolver.Task{TaskID: "big", Query: big}, Confidence: ptr(0.5)},
			}
			if size <= 1<<20 {
				objs = append(objs, agentevolver.TaskObjective{Task: agentevolver.Task{TaskID: big, EnvType: big, Query: big,
					GroundTruth: big, Evaluator: big, Metadata: map[string]any{"k": big}}})
			}
			return objs
		}
		want := objs()
		path := filepath.Join(dir, "tasks.parquet")
		if err := WriteTaskFile(path, want); err != nil {
			t.Fatalf("%d bytes: write: %v", size, err)
		}
		want = nil
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		values := int64(size)
		if size <= 1<<20 {
			values += 6*int64(size) + 8
		}
		if over := st.Size() - values; over > 64<<10 {
			t.Errorf("%d bytes: a file of %d bytes for %d bytes of values: statistics repeat them", size, st.Size(), values)
		}
		got, err := ReadTaskFile(path)
		if err != nil {
			t.Fatalf("%d bytes: read: %v", size, err)
		}
		if !reflect.DeepEqual(got, objs()) {
			t.Fatalf("%d bytes: read back other tasks (%d of them)", size, len(got))
		}
		got = nil
		runtime.GC()
	}
}

func TestWriteParquetRefusesOversizedValue(t *testing.T) {
	objs := []agentevolver.TaskObjective{{Task: agentevolver.Task{TaskID: "a", GroundTruth: strings.Repeat("g", MaxParquetValueBytes+1)}}}
	err := WriteParquet(io.Discard, objs)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "ground_truth") {
		t.Fatalf("err = %v, want ErrTooLarge naming ground_truth", err)
	}
}

// TestWriteJSONLRefusesWhatReadJSONLRefuses finds the longest line the
// reader takes and checks that the writer writes it and refuses one byte
// more, which the reader indeed refuses.
func TestWriteJSONLRefusesWhatReadJSONLRefuses(t *testing.T) {
	task := func(n int) []agentevolver.TaskObjective {
		return []agentevolver.TaskObjective{{Task: agentevolver.Task{TaskID: "a", Query: strings.Repeat("q", n)}}}
	}
	var probe bytes.Buffer
	if err := WriteJSONL(&probe, task(1)); err != nil {
		t.Fatal(err)
	}
	fits := MaxTaskLineBytes - probe.Len() + 1 // query length whose line, newline included, is the limit
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, task(fits)); err != nil {
		t.Fatalf("a line of exactly %d bytes: %v", MaxTaskLineBytes, err)
	}
	if buf.Len() != MaxTaskLineBytes {
		t.Fatalf("line of %d bytes", buf.Len())
	}
	if got, err := ReadJSONL(bytes.NewReader(buf.Bytes())); err != nil || len(got) != 1 {
		t.Fatalf("the longest written line does not read back: %v", err)
	}
	// One byte more: the reader refuses it, so must the writer.
	line, err := json.Marshal(task(fits + 1)[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJSONL(bytes.NewReader(append(line, '\n', '\n'))); !errors.Is(err, ErrTaskFile) {
		t.Fatalf("the reader takes a line of %d bytes: %v", len(line)+1, err)
	}
	buf.Reset()
	err = WriteJSONL(&buf, task(fits+1))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "parquet") {
		t.Fatalf("err = %v, want ErrTooLarge suggesting parquet", err)
	}
	// Through WriteTaskFile no file is left behind; Parquet takes the task.
	dir := t.TempDir()
	if err := WriteTaskFile(filepath.Join(dir, "t.jsonl"), task(fits+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("WriteTaskFile: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("files left: %v", left)
	}
	if err := WriteTaskFile(filepath.Join(dir, "t.parquet"), task(fits+1)); err != nil {
		t.Fatalf("parquet: %v", err)
	}
}
