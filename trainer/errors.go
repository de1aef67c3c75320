package trainer

import "errors"

var (
	// ErrUnknownAggMode reports a loss aggregation mode other than the four
	// of [AggMode] (the reference raises ValueError).
	ErrUnknownAggMode = errors.New("trainer: unknown loss aggregation mode")

	// ErrUnknownKLType reports a KL penalty type other than those of
	// [KLType], including the reference's unimplemented "full".
	ErrUnknownKLType = errors.New("trainer: unknown KL penalty type")

	// ErrShape reports inputs whose shapes do not fit together: ragged
	// rows, mismatched batch or sequence sizes, group indices out of range.
	ErrShape = errors.New("trainer: bad shape")

	// ErrConfig reports an invalid configuration value.
	ErrConfig = errors.New("trainer: invalid configuration")

	// ErrGraph reports a failure while building, compiling or running a
	// GoMLX graph (GoMLX reports these by panicking; this package recovers
	// them and wraps them with ErrGraph).
	ErrGraph = errors.New("trainer: graph failed")
)
