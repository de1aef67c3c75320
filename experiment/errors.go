package experiment

import "errors"

var (
	// ErrInvalid reports an experiment file that cannot be used: malformed
	// YAML, unknown keys, missing or repeated names and seeds, or a
	// configuration layer the trainer rejects.
	ErrInvalid = errors.New("experiment: invalid experiment")
	// ErrRunFailed reports that at least one arm × seed run failed; the
	// others ran and the comparison holds them all, the failed ones with
	// their error.
	ErrRunFailed = errors.New("experiment: runs failed")
	// ErrNoData reports a plot of a comparison in which no run has a
	// validation point.
	ErrNoData = errors.New("experiment: no validation data to plot")
)
