package trainer

import (
	"errors"
	"fmt"

	"github.com/org/agentevolver/trainer/checkpoint"
	"github.com/org/agentevolver/trainer/objective"
	"github.com/org/agentevolver/trainer/optim"
)

var (
	// ErrShape reports inputs whose shapes do not fit together: ragged
	// rows, mismatched batch or sequence sizes, group indices out of
	// range. It is objective.ErrShape, so that one errors.Is test covers
	// the objective's graphs and the trainer's batches.
	ErrShape = objective.ErrShape

	// ErrConfig reports an invalid configuration value.
	ErrConfig = errors.New("trainer: invalid configuration")

	// ErrGraph reports a failure while building, compiling or running a
	// GoMLX graph (GoMLX reports these by panicking; this package recovers
	// them and wraps them with ErrGraph). It is optim.ErrGraph, so that one
	// errors.Is test covers the optimiser's steps and the run's own graphs.
	ErrGraph = optim.ErrGraph
)

// asConfigErr makes the optimiser's configuration errors, which are the
// run configuration's, match ErrConfig as well.
func asConfigErr(err error) error {
	if errors.Is(err, optim.ErrConfig) && !errors.Is(err, ErrConfig) {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return err
}

// ErrCorruptCheckpoint reports a checkpoint that cannot be trusted: a file
// missing, truncated or altered since it was written, state that does not
// fit the configured model. Resume falls back to the previous checkpoint;
// when none is good it fails with this error rather than train from fresh
// weights. It is checkpoint.ErrCorrupt.
var ErrCorruptCheckpoint = checkpoint.ErrCorrupt
