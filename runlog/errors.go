package runlog

import "errors"

var (
	// ErrInvalidK reports a k outside 1 <= k <= n for an @k statistic.
	ErrInvalidK = errors.New("runlog: k must satisfy 1 <= k <= n")
	// ErrInvalidCount reports a sample count n < 1 or a success count c
	// outside 0 <= c <= n.
	ErrInvalidCount = errors.New("runlog: counts must satisfy n >= 1 and 0 <= c <= n")
	// ErrNoTasks reports validation statistics asked for with no tasks.
	ErrNoTasks = errors.New("runlog: no tasks")
	// ErrNonFinite reports a NaN or infinite number where a finite one is
	// required (a score, or a summary field that JSON cannot hold).
	ErrNonFinite = errors.New("runlog: value is not finite")
	// ErrMetricName reports a metric name the metrics log cannot hold: empty,
	// not valid UTF-8, or one of the reserved keys "step" and "time".
	ErrMetricName = errors.New("runlog: invalid metric name")
	// ErrNoData reports a plot asked for metrics that have no finite points.
	ErrNoData = errors.New("runlog: no data to plot")
)

// LineError reports a malformed line of a metrics log. Line counts from 1.
type LineError struct {
	// Line is the number of the offending line.
	Line int
	// Err says what is wrong with it.
	Err error
}

// Error implements error.
func (e *LineError) Error() string {
	return "runlog: metrics line " + itoa(e.Line) + ": " + e.Err.Error()
}

// Unwrap returns the underlying cause.
func (e *LineError) Unwrap() error { return e.Err }
