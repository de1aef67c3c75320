package track

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/org/agentevolver/runlog"
)

// Tracker receives the metrics of a run, one record per step (a step may
// have several records: the RL step's and its validation's). Calls come
// from one goroutine at a time, with steps that never decrease except
// after a resume. WriteRecord must not keep rec.Values after it returns.
// An error stops the run that reports to it, so a tracker that talks to a
// service should retry or buffer on its own and fail only when a record is
// lost.
type Tracker interface {
	WriteRecord(rec runlog.Record) error
}

// Syncer is implemented by trackers that buffer: Sync makes every record
// written so far durable (on disk, or accepted by the service).
type Syncer interface {
	Sync() error
}

// The tracker names a configuration may list (trainer.logger).
const (
	// NameJSONL is the run's metrics log, metrics.jsonl
	// (runlog.MetricsWriter). The trainer always writes it: its plot,
	// summary, resume and the run viewer read it.
	NameJSONL = "jsonl"
	// NameConsole prints one line per record to the run's output.
	NameConsole = "console"
	// NameTensorBoard writes TensorBoard event files under the run
	// directory's tensorboard/ folder.
	NameTensorBoard = "tensorboard"
)

// Names lists the built-in tracker names.
func Names() []string { return []string{NameJSONL, NameConsole, NameTensorBoard} }

// ErrUnknownName reports a tracker name that is not built in.
var ErrUnknownName = errors.New("track: unknown tracker")

// external are the reference's trackers that need a service of their own:
// named so that the error says how to plug them in rather than that the
// name is misspelt.
var external = []string{"wandb", "mlflow", "swanlab", "vemlp_wandb", "clearml"}

// CheckNames reports every name that is not built in, in one error
// wrapping ErrUnknownName, and a name listed twice. The reference's
// hosted backends get an error that says how to add one.
func CheckNames(names []string) error {
	var errs []error
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case seen[n]:
			errs = append(errs, fmt.Errorf("track: tracker %q listed twice", n))
		case slices.Contains(Names(), n):
		case slices.Contains(external, n):
			errs = append(errs, fmt.Errorf("%w %q: it is a hosted service this SDK does not call; implement track.Tracker (one method) with its client and pass it in trainer.Options.Trackers", ErrUnknownName, n))
		default:
			errs = append(errs, fmt.Errorf("%w %q: want %s", ErrUnknownName, n, strings.Join(Names(), ", ")))
		}
		seen[n] = true
	}
	return errors.Join(errs...)
}

// Multi fans each record out to all its trackers, in order. The zero value
// tracks nothing. A Multi is not safe for concurrent use (Tracker's
// contract).
type Multi struct {
	// Trackers receive every record.
	Trackers []Tracker
}

// WriteRecord writes rec to every tracker, even after one fails, and
// returns their errors joined.
func (m *Multi) WriteRecord(rec runlog.Record) error {
	var errs []error
	for _, t := range m.Trackers {
		if err := t.WriteRecord(rec); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Sync syncs every tracker that is a Syncer and returns their errors
// joined.
func (m *Multi) Sync() error {
	var errs []error
	for _, t := range m.Trackers {
		if s, ok := t.(Syncer); ok {
			if err := s.Sync(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Close closes every tracker that is an io.Closer, in reverse order, and
// returns their errors joined.
func (m *Multi) Close() error {
	var errs []error
	for _, t := range slices.Backward(m.Trackers) {
		if c, ok := t.(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

var (
	_ Tracker   = (*Multi)(nil)
	_ Syncer    = (*Multi)(nil)
	_ io.Closer = (*Multi)(nil)
	_ Tracker   = (*runlog.MetricsWriter)(nil)
	_ Syncer    = (*runlog.MetricsWriter)(nil)
)
