package taskgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/internal/jsonl"
)

// Limits of a task file, which is untrusted input (it may come from
// anywhere): a file or line beyond them is an error, never truncated.
const (
	// MaxTaskFileBytes bounds a task file.
	MaxTaskFileBytes = 1 << 30
	// MaxTaskLineBytes bounds one JSON line, one task.
	MaxTaskLineBytes = 1 << 20
	// MaxTasksPerFile bounds the number of tasks in a file.
	MaxTasksPerFile = 10_000_000
	// MaxParquetValueBytes bounds one string value (a task's query, ground
	// truth, metadata as JSON, …) in a Parquet task file: a value lies
	// whole in one page, and pages are bounded. JSON-lines files bound a
	// whole task by MaxTaskLineBytes instead.
	MaxParquetValueBytes = 64 << 20
)

// ErrTooLarge reports tasks that a writer refuses because the reader would
// refuse the file: a JSON line over MaxTaskLineBytes, a Parquet value over
// MaxParquetValueBytes, more than MaxTasksPerFile tasks or a file over
// MaxTaskFileBytes. Nothing usable is written then (WriteTaskFile leaves no
// file behind).
var ErrTooLarge = errors.New("taskgen: tasks exceed the task file limits")

// ErrTaskFile reports a task file that cannot be read: malformed, too
// large, of an unknown format, or holding an invalid task.
var ErrTaskFile = errors.New("taskgen: bad task file")

// Task file formats, chosen by the file name's extension.
const (
	// FormatJSONL is one JSON object per line (".jsonl", ".json").
	FormatJSONL = "jsonl"
	// FormatParquet is an Apache Parquet file (".parquet").
	FormatParquet = "parquet"
)

// FormatOf returns the task file format of path from its extension, or an
// error naming the known ones.
func FormatOf(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".json":
		return FormatJSONL, nil
	case ".parquet":
		return FormatParquet, nil
	}
	return "", fmt.Errorf("%w: %s: unknown extension (want .jsonl, .json or .parquet)", ErrTaskFile, path)
}

// ReadTaskFile reads the tasks of a JSON-lines or Parquet file (see
// ReadJSONL and ReadParquet), by extension.
func ReadTaskFile(path string) ([]agentevolver.TaskObjective, error) {
	format, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("taskgen: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("taskgen: %w", err)
	}
	if st.Size() > MaxTaskFileBytes {
		return nil, fmt.Errorf("%w: %s: %d bytes, limit %d", ErrTaskFile, path, st.Size(), MaxTaskFileBytes)
	}
	var objs []agentevolver.TaskObjective
	if format == FormatParquet {
		objs, err = ReadParquet(f, st.Size())
	} else {
		objs, err = ReadJSONL(f)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return objs, nil
}

// WriteTaskFile writes objs to path in the format its extension names,
// atomically: a temporary file in the same directory, flushed and renamed
// into place, so a reader never sees half a file.
func WriteTaskFile(path string, objs []agentevolver.TaskObjective) (err error) {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("taskgen: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriter(tmp)
	if format == FormatParquet {
		err = WriteParquet(w, objs)
	} else {
		err = WriteJSONL(w, objs)
	}
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("taskgen: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it 0600
		return fmt.Errorf("taskgen: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("taskgen: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("taskgen: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("taskgen: %w", err)
	}
	return fsutil.SyncDir(dir)
}

// WriteJSONL writes one TaskObjective per line, as the reference's task
// cache does ({"task": {...}, "confidence": …, "reward": …}).
//
// It refuses, with an error wrapping ErrTooLarge, what ReadJSONL would
// refuse: a task whose line (newline included) is longer than
// MaxTaskLineBytes, more than MaxTasksPerFile tasks, or more than
// MaxTaskFileBytes in all. Lines before the refused task may already have
// been written to w; WriteTaskFile then removes its temporary file. Write
// tasks with large texts to Parquet (MaxParquetValueBytes).
func WriteJSONL(w io.Writer, objs []agentevolver.TaskObjective) error {
	if len(objs) > MaxTasksPerFile {
		return fmt.Errorf("taskgen: %w: %d tasks, limit %d", ErrTooLarge, len(objs), MaxTasksPerFile)
	}
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	var total int64
	for i, o := range objs {
		if err := checkObjective(o); err != nil {
			return fmt.Errorf("taskgen: task %d: %w", i, err)
		}
		line.Reset()
		if err := enc.Encode(o); err != nil { // appends the newline
			return fmt.Errorf("taskgen: task %d: %w", i, err)
		}
		// ReadJSONL's scanner holds a line and its newline in a buffer of
		// MaxTaskLineBytes.
		if line.Len() > MaxTaskLineBytes {
			return fmt.Errorf("taskgen: %w: task %d (%.64q) is a JSON line of %d bytes, limit %d; write it to a .parquet file",
				ErrTooLarge, i, o.Task.TaskID, line.Len(), MaxTaskLineBytes)
		}
		if total += int64(line.Len()); total > MaxTaskFileBytes {
			return fmt.Errorf("taskgen: %w: more than %d bytes of JSON lines", ErrTooLarge, int64(MaxTaskFileBytes))
		}
		if _, err := w.Write(line.Bytes()); err != nil {
			return fmt.Errorf("taskgen: task %d: %w", i, err)
		}
	}
	return nil
}

// ReadJSONL reads a JSON-lines task file. Each non-blank line is a
// TaskObjective ({"task": {...}, "confidence", "reward"}) or a bare Task
// object. As in the reference's loader, a task without "open_query" is an
// open query, and a TaskObjective whose task has no ground truth takes the
// line's top-level "ground_truth". Every task needs a task_id; lines are
// bounded by MaxTaskLineBytes and tasks by MaxTasksPerFile.
func ReadJSONL(r io.Reader) ([]agentevolver.TaskObjective, error) {
	var out []agentevolver.TaskObjective
	err := jsonl.Lines(r, MaxTaskLineBytes, func(n int, line []byte) error {
		if len(out) >= MaxTasksPerFile {
			return fmt.Errorf("%w: more than %d tasks", ErrTaskFile, MaxTasksPerFile)
		}
		o, err := decodeLine(line)
		if err != nil {
			return fmt.Errorf("%w: line %d: %w", ErrTaskFile, n, err)
		}
		out = append(out, o)
		return nil
	})
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, ErrTaskFile):
		return nil, err
	case errors.Is(err, bufio.ErrTooLong):
		return nil, fmt.Errorf("%w: a line is longer than %d bytes", ErrTaskFile, MaxTaskLineBytes)
	}
	return nil, fmt.Errorf("%w: %w", ErrTaskFile, err)
}

// decodeLine decodes one line: a TaskObjective when it has a "task" key,
// else a bare Task.
func decodeLine(line []byte) (agentevolver.TaskObjective, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil || fields == nil {
		return agentevolver.TaskObjective{}, errors.New("not a JSON object")
	}
	var o agentevolver.TaskObjective
	var topGroundTruth string
	taskJSON, wrapped := fields["task"]
	if wrapped {
		var top struct {
			Confidence  *float64 `json:"confidence"`
			Reward      *float64 `json:"reward"`
			GroundTruth string   `json:"ground_truth"`
		}
		if err := json.Unmarshal(line, &top); err != nil {
			return o, err
		}
		o.Confidence, o.Reward, topGroundTruth = top.Confidence, top.Reward, top.GroundTruth
	} else {
		taskJSON = line
	}
	var taskFields map[string]json.RawMessage
	if err := json.Unmarshal(taskJSON, &taskFields); err != nil || taskFields == nil {
		return o, errors.New(`"task" is not a JSON object`)
	}
	if err := json.Unmarshal(taskJSON, &o.Task); err != nil {
		return o, err
	}
	if _, ok := taskFields["open_query"]; !ok {
		o.Task.OpenQuery = true
	}
	if o.Task.GroundTruth == "" {
		o.Task.GroundTruth = topGroundTruth
	}
	return o, checkObjective(o)
}

// checkObjective rejects what no trainer can use: a task without an id,
// non-finite confidence or reward.
func checkObjective(o agentevolver.TaskObjective) error {
	switch {
	case strings.TrimSpace(o.Task.TaskID) == "":
		return errors.New("task_id is empty")
	case o.Confidence != nil && (math.IsNaN(*o.Confidence) || math.IsInf(*o.Confidence, 0)):
		return fmt.Errorf("confidence %v is not finite", *o.Confidence)
	case o.Reward != nil && (math.IsNaN(*o.Reward) || math.IsInf(*o.Reward, 0)):
		return fmt.Errorf("reward %v is not finite", *o.Reward)
	}
	return nil
}
