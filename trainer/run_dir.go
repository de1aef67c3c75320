package trainer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/runlog/episodelog"
	"github.com/org/agentevolver/runlog/track"
)

// ErrRunExists reports an output directory that already holds a run, for a
// Fit that neither resumes nor overwrites it.
var ErrRunExists = errors.New("trainer: the output directory already holds a run")

// runFiles are the files and directories a run writes under its output
// directory: what marks a directory as holding a run, and what Overwrite
// removes (nothing else is touched, so a mistyped output_dir cannot wipe
// unrelated files).
var runFiles = []string{
	MetricsFile, WarmStartMetricsFile, PlotFile, SummaryFile,
	CheckpointDir, ReferenceDir, FinalModelDir, TokenizerDir, ExperienceFile,
	episodelog.FileName, track.TensorBoardDir,
}

// prepareRunDir creates dir. Unless resuming, a dir holding an earlier
// run's files is refused, or with overwrite cleaned of them first, so that
// old checkpoints never mix with new metrics.
func prepareRunDir(dir string, resume, overwrite bool) error {
	if !resume {
		var found []string
		for _, name := range runFiles {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				found = append(found, name)
			}
		}
		switch {
		case len(found) > 0 && !overwrite:
			return fmt.Errorf("%w: %s holds %v; resume it (--resume), overwrite it (--overwrite) or choose another trainer.output_dir", ErrRunExists, dir, found)
		case len(found) > 0:
			for _, name := range found {
				if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
					return fmt.Errorf("trainer: overwrite %s: %w", dir, err)
				}
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("trainer: %w", err)
	}
	return nil
}
