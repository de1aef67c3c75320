package trainer

import (
	"errors"

	"github.com/org/agentevolver/trainer/objective"
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
	// them and wraps them with ErrGraph).
	ErrGraph = errors.New("trainer: graph failed")
)
