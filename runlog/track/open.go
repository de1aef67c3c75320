package track

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
)

// TensorBoardDir is the folder under a run directory that [Open] writes
// TensorBoard event files into (point `tensorboard --logdir` at it, or at
// a folder of runs).
const TensorBoardDir = "tensorboard"

// List is a list of tracker names as a configuration gives it: a YAML
// sequence ([console, tensorboard]) or, as the reference also accepts, a
// single name.
type List []string

// UnmarshalYAML accepts a sequence of names or one name.
func (l *List) UnmarshalYAML(unmarshal func(any) error) error {
	var one string
	if err := unmarshal(&one); err == nil {
		*l = List{one}
		if one == "" {
			*l = nil
		}
		return nil
	}
	var many []string
	if err := unmarshal(&many); err != nil {
		return fmt.Errorf("track: want a tracker name or a list of them: %w", err)
	}
	*l = many
	return nil
}

// OpenOptions are what [Open] needs besides the names.
type OpenOptions struct {
	// Dir is the run directory; TensorBoard event files go to
	// Dir/TensorBoardDir.
	Dir string
	// JSONL is the run's metrics log (a *runlog.MetricsWriter), the
	// tracker NameJSONL stands for. It is required when names list it.
	JSONL Tracker
	// Console receives NameConsole's lines; nil discards them.
	Console io.Writer
	// Resume and ResumeStep mark a run resumed after the checkpoint of
	// ResumeStep (TensorBoardOptions).
	Resume     bool
	ResumeStep int64
}

// Open returns a Multi with the trackers names lists, in that order.
// Unknown names are an error (CheckNames) and nothing is opened; if one
// tracker fails to open, those already opened are closed.
func Open(names []string, opts OpenOptions) (*Multi, error) {
	if err := CheckNames(names); err != nil {
		return nil, err
	}
	m := &Multi{}
	for _, n := range names {
		switch n {
		case NameJSONL:
			if opts.JSONL == nil {
				return nil, errors.Join(errors.New("track: jsonl listed without a metrics log (OpenOptions.JSONL)"), m.Close())
			}
			m.Trackers = append(m.Trackers, opts.JSONL)
		case NameConsole:
			w := opts.Console
			if w == nil {
				w = io.Discard
			}
			m.Trackers = append(m.Trackers, NewConsole(w))
		case NameTensorBoard:
			tb, err := NewTensorBoard(filepath.Join(opts.Dir, TensorBoardDir), TensorBoardOptions{Resume: opts.Resume, ResumeStep: opts.ResumeStep})
			if err != nil {
				return nil, errors.Join(err, m.Close())
			}
			m.Trackers = append(m.Trackers, tb)
		}
	}
	return m, nil
}
