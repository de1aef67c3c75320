package optim

import (
	"errors"

	"github.com/org/agentevolver/internal/graphrun"
)

// Errors of the optimiser, for errors.Is. Package trainer reports the same
// values (trainer.ErrShape, trainer.ErrGraph).
var (
	// ErrConfig reports an invalid optimiser, clipping, loss or reference
	// configuration.
	ErrConfig = errors.New("optim: invalid configuration")

	// ErrShape reports batches whose shapes do not fit together: ragged
	// rows, mismatched batch or sequence sizes, tokens outside the
	// vocabulary. It is objective.ErrShape.
	ErrShape = graphrun.ErrShape

	// ErrGraph reports a failure while building, compiling or running a
	// GoMLX graph (GoMLX reports these by panicking; this package recovers
	// them and wraps them with ErrGraph).
	ErrGraph = errors.New("optim: graph failed")
)
