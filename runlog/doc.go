// Package runlog holds the run-reporting pieces of a training job: a JSON-lines
// metrics log that survives crashes and resumes without duplicated steps, a PNG
// plot of training reward and validation success over steps, validation
// statistics (avg@k, best@k and the unbiased pass@k estimator), a summary.json
// with a human-readable final table, and a progress display that draws a bar
// only on a terminal.
//
// Files that a person or a later step reads as a whole (the plot, the summary,
// a rewritten metrics log) are written atomically: to a temporary file in the
// same directory that is then renamed over the target, so a crash leaves either
// the old file or the new one, never a torn one.
//
// The metrics log is appended line by line instead: each record is a single
// write of one complete line, so a crash loses nothing already written, and a
// line torn by a crash is repaired by [OpenForResume].
package runlog
