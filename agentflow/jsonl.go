package agentflow

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/jsonl"
)

// MaxTrajectoryLineBytes bounds one JSON line ReadTrajectories accepts.
// Trajectories record clipped observations, so even a 30-turn episode at
// the default limits stays far below it.
const MaxTrajectoryLineBytes = 32 << 20

// ErrTrajectoryLine reports a JSON line that is not a trajectory.
var ErrTrajectoryLine = errors.New("agentflow: bad trajectory line")

// TrajectoryWriter writes trajectories as JSON lines, one object per line
// in the reference's field names. It is safe for concurrent use.
type TrajectoryWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewTrajectoryWriter returns a writer to w.
func NewTrajectoryWriter(w io.Writer) *TrajectoryWriter { return &TrajectoryWriter{w: w} }

// Write writes one trajectory and its newline with a single Write call.
func (t *TrajectoryWriter) Write(traj agentevolver.Trajectory) error {
	line, err := json.Marshal(traj)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	t.mu.Lock()
	defer t.mu.Unlock()
	_, err = t.w.Write(line)
	return err
}

// ReadTrajectories reads JSON-lines trajectories, skipping blank lines.
// A line longer than MaxTrajectoryLineBytes or that does not decode to a
// trajectory with a task id is an error wrapping ErrTrajectoryLine that
// names the line.
func ReadTrajectories(r io.Reader) ([]agentevolver.Trajectory, error) {
	var out []agentevolver.Trajectory
	err := jsonl.Lines(r, MaxTrajectoryLineBytes, func(n int, line []byte) error {
		var t agentevolver.Trajectory
		dec := json.NewDecoder(bytes.NewReader(line))
		if err := dec.Decode(&t); err != nil {
			return fmt.Errorf("%w %d: %w", ErrTrajectoryLine, n, err)
		}
		if dec.More() {
			return fmt.Errorf("%w %d: trailing data", ErrTrajectoryLine, n)
		}
		if t.TaskID == "" {
			return fmt.Errorf("%w %d: no task_id", ErrTrajectoryLine, n)
		}
		out = append(out, t)
		return nil
	})
	if errors.Is(err, bufio.ErrTooLong) {
		return out, fmt.Errorf("%w: %w", ErrTrajectoryLine, err)
	}
	return out, err
}
