package cues

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/internal/jsonl"
)

// Limits of the files a Store reads back, which a resumed run trusts no
// more than any input.
const (
	// MaxRecordBytes bounds one JSON line or JSON file.
	MaxRecordBytes = 16 << 20
	// maxTextFileBytes bounds env_init and memory files.
	maxTextFileBytes = 4 << 20
)

// Store is the output directory of a run, in the reference's layout
// (§2.5) under one root:
//
//	session.json                               the session and its configuration
//	requirement.json, concepts.json            requirement confirmation
//	env_init/<env>.txt                         first observation of each environment task
//	memories/memory_<env>_exploration.txt      latest exploration memory
//	triplets/triplets_<session>.jsonl          Stage 1, one Triplet per line, appended as made
//	triplets/rollouts.jsonl                    Stage 1, one RolloutRecord per finished rollout
//	tasks/batches/<batch>.json                 Stage 2, one file per finished batch (before dedup)
//	tasks/tasks_<session>.jsonl                Stage 2, the deduplicated tasks
//	trajectories/trajectory_<task>.json        Stage 3, accepted
//	trajectories/failed_tasks/trajectory_<task>.json   Stage 3, rejected
//	trajectories/failed_tasks/failed_<task>.json       Stage 3, no trajectory
//	trajectories/statistics.json               Stage 3 counters
//	rewrites/rewrite_<task>.json, rewrites/trajectories/trajectory_<task>_rw<i>.json
//	tasks.jsonl, tasks.parquet                 the accepted tasks, as train reads them
//	statistics.json                            the run's statistics
//
// Every file but the two appended JSON-lines files is written atomically
// (a temporary file renamed into place), so a crash leaves either the old
// file or the new one; appended lines are synced one by one, and a torn
// last line is skipped when read back. Unlike the reference, nothing is
// written relative to the working directory. A Store is safe for
// concurrent use.
type Store struct {
	root string
	mu   sync.Mutex // serialises appends
}

// OpenStore opens (creating) the output directory root.
func OpenStore(root string) (*Store, error) {
	if root == "" {
		return nil, fmt.Errorf("%w: no output directory", ErrConfig)
	}
	for _, d := range []string{"triplets", "tasks/batches", "trajectories/failed_tasks", "rewrites/trajectories", "env_init", "memories"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return nil, fmt.Errorf("cues: output directory: %w", err)
		}
	}
	return &Store{root: root}, nil
}

// Root returns the output directory.
func (s *Store) Root() string { return s.root }

// Path returns the path of a file under the root.
func (s *Store) Path(elem ...string) string {
	return filepath.Join(append([]string{s.root}, elem...)...)
}

// safeName turns an id into a file-name part: itself when it is made of
// [A-Za-z0-9._-] only (and not "." or ".."), else its safe characters and
// a hash of the whole.
func safeName(id string) string {
	ok := id != "" && id != "." && id != ".." && len(id) <= 100
	var b strings.Builder
	for _, r := range id {
		if r < 128 && (r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			if b.Len() < 60 {
				b.WriteRune(r)
			}
			continue
		}
		ok = false
		if b.Len() < 60 {
			b.WriteByte('_')
		}
	}
	if ok {
		return id
	}
	h := sha256.Sum256([]byte(id))
	return b.String() + "-" + hex.EncodeToString(h[:6])
}

// WriteJSON writes v as indented JSON to the file at rel, atomically.
func (s *Store) WriteJSON(rel string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("cues: %s: %w", rel, err)
	}
	if err := fsutil.WriteFile(s.Path(rel), append(data, '\n')); err != nil {
		return fmt.Errorf("cues: %w", err)
	}
	return nil
}

// ReadJSON reads the JSON file at rel into v; ok is false when it does not
// exist.
func (s *Store) ReadJSON(rel string, v any) (ok bool, err error) {
	data, err := fsutil.ReadFile(s.Path(rel), MaxRecordBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cues: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("cues: %s: %w", rel, err)
	}
	return true, nil
}

// Exists reports whether the file at rel exists.
func (s *Store) Exists(rel string) bool {
	_, err := os.Stat(s.Path(rel))
	return err == nil
}

// Remove removes the file at rel; a missing file is no error.
func (s *Store) Remove(rel string) error {
	if err := os.Remove(s.Path(rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cues: %w", err)
	}
	return nil
}

// WriteText writes text to rel atomically.
func (s *Store) WriteText(rel, text string) error {
	if err := fsutil.WriteFile(s.Path(rel), []byte(text)); err != nil {
		return fmt.Errorf("cues: %w", err)
	}
	return nil
}

// ReadText reads the text file at rel; "" when it does not exist.
func (s *Store) ReadText(rel string) (string, error) {
	data, err := fsutil.ReadFile(s.Path(rel), maxTextFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("cues: %w", err)
	}
	return string(data), nil
}

// Append appends v as one JSON line to rel and syncs the file.
func (s *Store) Append(rel string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cues: %s: %w", rel, err)
	}
	if len(data) >= MaxRecordBytes {
		return fmt.Errorf("cues: %s: a record of %d bytes, limit %d", rel, len(data), MaxRecordBytes)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.OpenFile(s.Path(rel), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("cues: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("cues: %s: %w", rel, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("cues: %s: %w", rel, err)
	}
	return f.Close()
}

// ReadLines decodes each line of the JSON-lines file rel with decode. A
// line that does not decode (the torn last line of a crash) is skipped
// and counted in bad. A missing file has no lines.
func ReadLines[T any](s *Store, rel string, decode func(T) error) (bad int, err error) {
	f, err := os.Open(s.Path(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cues: %w", err)
	}
	defer f.Close()
	err = jsonl.Lines(bufio.NewReader(f), MaxRecordBytes, func(_ int, line []byte) error {
		var v T
		if json.Unmarshal(line, &v) != nil {
			bad++
			return nil
		}
		return decode(v)
	})
	if err != nil && !errors.Is(err, io.EOF) {
		return bad, fmt.Errorf("cues: %s: %w", rel, err)
	}
	return bad, nil
}

// ListJSON returns the names of the *.json files directly in dir (rel to
// the root) whose name starts with prefix, sorted.
func (s *Store) ListJSON(dir, prefix string) ([]string, error) {
	entries, err := os.ReadDir(s.Path(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cues: %w", err)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ".json") {
			out = append(out, n)
		}
	}
	return out, nil
}
