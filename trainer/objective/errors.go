package objective

import (
	"errors"

	"github.com/org/agentevolver/internal/graphrun"
)

// Errors of the objective, for errors.Is. Package trainer reports the same
// values for its batches and configuration of the objective.
var (
	// ErrUnknownAggMode reports a loss aggregation mode other than the four
	// of [AggMode] (the reference raises ValueError).
	ErrUnknownAggMode = errors.New("objective: unknown loss aggregation mode")

	// ErrUnknownKLType reports a KL penalty type other than those of
	// [KLType], including the reference's unimplemented "full".
	ErrUnknownKLType = errors.New("objective: unknown KL penalty type")

	// ErrShape reports inputs whose shapes do not fit together: ragged
	// rows, mismatched batch or sequence sizes, group indices out of range.
	ErrShape = graphrun.ErrShape

	// ErrConfig reports an invalid configuration value of the objective.
	ErrConfig = errors.New("objective: invalid configuration")

	// ErrGraph reports a failure while building, compiling or running a
	// GoMLX graph (GoMLX reports these by panicking; this package recovers
	// them and wraps them with ErrGraph).
	ErrGraph = errors.New("objective: graph failed")
)
