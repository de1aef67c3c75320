package taskgen

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/fsutil"
)

// MaxCheckpointBytes bounds a checkpoint file; a larger one is corrupt.
const MaxCheckpointBytes = 256 << 20

// DefaultCheckpointFile is the reference's checkpoint file name (in the
// working directory).
const DefaultCheckpointFile = ".generate_task.checkpoint.json"

// ErrCorruptCheckpoint reports a checkpoint file that exists but cannot be
// used: unreadable, too large, malformed or inconsistent.
var ErrCorruptCheckpoint = errors.New("taskgen: corrupt generation checkpoint")

// Checkpoint is the state of a task generation run after some batches
// (reference §4.5), enough to resume it: the objectives that survived the
// realtime filter so far and which batches are done. Its JSON form is the
// reference's checkpoint file, so either implementation can resume the
// other's run.
type Checkpoint struct {
	// Results are the objectives generated and kept so far.
	Results []agentevolver.TaskObjective `json:"results"`
	// ProcessedIndices are the indices of the batches done, each in
	// [0, TotalBatches). LoadCheckpoint and Save sort them and drop
	// repeats (the reference keeps a set).
	ProcessedIndices []int `json:"processed_indices"`
	// TotalBatches is the number of batches of the run.
	TotalBatches int `json:"total_batches"`
	// TasksHash identifies the seed tasks of the run (TasksHash).
	TasksHash string `json:"tasks_hash"`
	// Timestamp is when the checkpoint was written, in seconds since the
	// Unix epoch (Python's time.time()); Save fills it in when it is 0.
	Timestamp float64 `json:"timestamp"`
}

// Processed reports whether batch is among c.ProcessedIndices.
func (c Checkpoint) Processed(batch int) bool { return slices.Contains(c.ProcessedIndices, batch) }

// LoadStatus says what LoadCheckpoint found.
type LoadStatus int

// What LoadCheckpoint found.
const (
	// CheckpointMissing: there is no checkpoint file; start a fresh run.
	CheckpointMissing LoadStatus = iota
	// CheckpointResumed: the checkpoint belongs to this run; resume it.
	CheckpointResumed
	// CheckpointStale: the checkpoint belongs to other seed tasks (its
	// hash differs); start over. The next Save replaces it.
	CheckpointStale
	// CheckpointCorrupt: the file cannot be used (the error says why);
	// start over, as the reference does, or stop. The next Save replaces
	// it.
	CheckpointCorrupt
)

// String returns the status's name: "missing", "resumed", "stale" or
// "corrupt".
func (s LoadStatus) String() string {
	switch s {
	case CheckpointMissing:
		return "missing"
	case CheckpointResumed:
		return "resumed"
	case CheckpointStale:
		return "stale"
	case CheckpointCorrupt:
		return "corrupt"
	}
	return fmt.Sprintf("LoadStatus(%d)", int(s))
}

// TasksHash returns the identity of a list of seed tasks that a checkpoint
// records: the MD5 hex digest of their "task_id:env_type" joined by "|",
// in order, as the reference computes it. EnvType is used as it is (the
// reference's Task defaults an absent env_type to "appworld" before
// hashing; Go's Task has no such default).
func TasksHash(seeds []agentevolver.Task) string {
	parts := make([]string, len(seeds))
	for i, t := range seeds {
		parts[i] = t.TaskID + ":" + t.EnvType
	}
	sum := md5.Sum([]byte(strings.Join(parts, "|")))
	return hex.EncodeToString(sum[:])
}

// checkpointJSON tells a missing tasks_hash (the reference fails on it)
// from an empty one. Unknown fields are ignored.
type checkpointJSON struct {
	Results          []agentevolver.TaskObjective `json:"results"`
	ProcessedIndices []int                        `json:"processed_indices"`
	TotalBatches     int                          `json:"total_batches"`
	TasksHash        *string                      `json:"tasks_hash"`
	Timestamp        float64                      `json:"timestamp"`
}

// LoadCheckpoint reads the checkpoint at path and says whether the run
// whose seed tasks hash to wantHash (TasksHash) can resume from it:
//   - no file: CheckpointMissing, nil error;
//   - a valid checkpoint of this run: the checkpoint, CheckpointResumed,
//     nil error;
//   - a checkpoint of other seed tasks: CheckpointStale, nil error (the
//     reference deletes the file; here it is left for the next Save to
//     replace, so that nothing is destroyed on load);
//   - a file that cannot be read, is larger than MaxCheckpointBytes, is
//     not the checkpoint JSON, lacks "tasks_hash", or holds a batch index
//     outside [0, total_batches), a negative total or an objective without
//     a task id: CheckpointCorrupt and an error wrapping
//     ErrCorruptCheckpoint that says why.
//
// Only for CheckpointResumed is the returned Checkpoint non-zero.
func LoadCheckpoint(path, wantHash string) (Checkpoint, LoadStatus, error) {
	data, err := fsutil.ReadFile(path, MaxCheckpointBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Checkpoint{}, CheckpointMissing, nil
	case err != nil:
		return Checkpoint{}, CheckpointCorrupt, fmt.Errorf("%w: %w", ErrCorruptCheckpoint, err)
	}
	var raw checkpointJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return Checkpoint{}, CheckpointCorrupt, fmt.Errorf("%w: %s: %w", ErrCorruptCheckpoint, path, err)
	}
	if raw.TasksHash == nil {
		return Checkpoint{}, CheckpointCorrupt, fmt.Errorf(`%w: %s: no "tasks_hash"`, ErrCorruptCheckpoint, path)
	}
	if *raw.TasksHash != wantHash {
		return Checkpoint{}, CheckpointStale, nil
	}
	c := Checkpoint{
		Results:          raw.Results,
		ProcessedIndices: normalizeIndices(raw.ProcessedIndices),
		TotalBatches:     raw.TotalBatches,
		TasksHash:        *raw.TasksHash,
		Timestamp:        raw.Timestamp,
	}
	if err := c.validate(); err != nil {
		return Checkpoint{}, CheckpointCorrupt, fmt.Errorf("%w: %s: %w", ErrCorruptCheckpoint, path, err)
	}
	return c, CheckpointResumed, nil
}

// normalizeIndices returns the indices sorted, without repeats, never nil.
func normalizeIndices(idx []int) []int {
	out := slices.Clone(idx)
	slices.Sort(out)
	out = slices.Compact(out)
	if out == nil {
		out = []int{}
	}
	return out
}

func (c Checkpoint) validate() error {
	if c.TotalBatches < 0 {
		return fmt.Errorf("total_batches %d is negative", c.TotalBatches)
	}
	for _, i := range c.ProcessedIndices {
		if i < 0 || i >= c.TotalBatches {
			return fmt.Errorf("processed batch %d outside [0, %d)", i, c.TotalBatches)
		}
	}
	for i, o := range c.Results {
		if strings.TrimSpace(o.Task.TaskID) == "" {
			return fmt.Errorf("results[%d]: task_id is empty", i)
		}
		if o.Confidence != nil && !isFinite(*o.Confidence) {
			return fmt.Errorf("results[%d]: confidence is not finite", i)
		}
		if o.Reward != nil && !isFinite(*o.Reward) {
			return fmt.Errorf("results[%d]: reward is not finite", i)
		}
	}
	if !isFinite(c.Timestamp) {
		return errors.New("timestamp is not finite")
	}
	return nil
}

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Save writes c to path as the reference's checkpoint JSON (indented),
// atomically: it writes a temporary file in the same directory (creating
// the directory), syncs it, renames it over path and syncs the directory,
// so that a crash leaves either the previous checkpoint or this one. It
// sorts ProcessedIndices and drops repeats, writes nil slices as [] and a
// zero Timestamp as the current time, and refuses a checkpoint that
// LoadCheckpoint would call corrupt.
func (c Checkpoint) Save(path string) error {
	if c.Results == nil {
		c.Results = []agentevolver.TaskObjective{}
	}
	c.ProcessedIndices = normalizeIndices(c.ProcessedIndices)
	if c.Timestamp == 0 {
		c.Timestamp = float64(time.Now().UnixNano()) / 1e9
	}
	if err := c.validate(); err != nil {
		return fmt.Errorf("taskgen: save checkpoint %s: %w", path, err)
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("taskgen: save checkpoint %s: %w", path, err)
	}
	if err := writeFileAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("taskgen: save checkpoint: %w", err)
	}
	return nil
}

// writeFileAtomic replaces path with data: temporary file in the same
// directory, fsync, rename, fsync of the directory, every failure
// reported.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return fsutil.SyncDir(dir)
}
