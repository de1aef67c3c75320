package runlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Record is one line of a metrics log: the step it belongs to, when it was
// written, and named metric values.
type Record struct {
	// Step is the training step, >= 0.
	Step int64
	// Time is when the record was written.
	Time time.Time
	// Values maps metric names (e.g. "reward/mean", "val/success") to values.
	// NaN and ±Inf are allowed; see [MetricsWriter] for how they are written.
	Values map[string]float64
}

// Value returns the named metric and whether the record has it.
func (r Record) Value(name string) (float64, bool) {
	v, ok := r.Values[name]
	return v, ok
}

// Reserved keys of a metrics line; metric names may not use them.
const (
	stepKey = "step"
	timeKey = "time"
)

// JSON strings that stand for the numbers JSON cannot hold.
const (
	nanString    = "NaN"
	posInfString = "+Inf"
	negInfString = "-Inf"
)

// MetricsWriter appends records to a metrics log, one JSON object per line:
//
//	{"step":12,"time":"2026-01-02T15:04:05.123Z","reward/mean":0.42,"val/success":0.5}
//
// "step" and "time" (RFC 3339, UTC, with nanoseconds when non-zero) come
// first, then the metrics sorted by name. JSON has no NaN or infinities: NaN
// (a mean over nothing, say) is written as null, which every JSON tool
// reads, and the infinities as the strings "+Inf" and "-Inf", which keep
// their sign; [ReadMetrics] turns all three back into numbers.
//
// Every record is written with a single write call straight to the file, with
// no buffering in between, so a process crash loses nothing already written;
// call [MetricsWriter.Sync] for durability against power loss. A
// MetricsWriter is safe for concurrent use.
type MetricsWriter struct {
	mu      sync.Mutex
	out     io.Writer
	file    *os.File // non-nil when the writer owns the file
	err     error    // sticky: after a failed write the log may end in a torn line
	now     func() time.Time
	dropped int
	line    []byte
}

// NewMetricsWriter starts a new metrics log at path, creating parent
// directories and replacing any existing file: a fresh run starts again at
// step 0, and appending would duplicate steps. To continue a run use
// [OpenForResume].
func NewMetricsWriter(path string) (*MetricsWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("runlog: create directory for %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("runlog: create metrics log: %w", err)
	}
	return &MetricsWriter{out: f, file: f, now: time.Now}, nil
}

// NewMetricsWriterTo returns a MetricsWriter that writes lines to w. Close
// does not close w.
func NewMetricsWriterTo(w io.Writer) *MetricsWriter {
	return &MetricsWriter{out: w, now: time.Now}
}

// OpenForResume reopens the metrics log at path for appending after a run
// restarted from the checkpoint of lastStep. Records with a step greater than
// lastStep were written after that checkpoint and will be written again, so
// they are removed first (the file is rewritten atomically; the remaining
// lines are kept byte for byte). A final line without its newline is what a
// crash in the middle of a write leaves: it is dropped when it does not parse
// and completed when it does. Any other malformed line is an error
// (a *[LineError]) and leaves the file untouched. A missing file is created;
// a negative lastStep drops every record.
func OpenForResume(path string, lastStep int64) (*MetricsWriter, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return NewMetricsWriter(path)
	}
	if err != nil {
		return nil, fmt.Errorf("runlog: open metrics log: %w", err)
	}
	var kept [][]byte
	dropped, rewrite := 0, false
	err = scanLines(f, func(lineNo int, line []byte, terminated bool) error {
		rec, err := parseRecord(line)
		if err != nil {
			if !terminated {
				dropped, rewrite = dropped+1, true
				return nil
			}
			return &LineError{Line: lineNo, Err: err}
		}
		if rec.Step > lastStep {
			dropped, rewrite = dropped+1, true
			return nil
		}
		kept = append(kept, append(slices.Clone(line), '\n'))
		if !terminated {
			rewrite = true
		}
		return nil
	})
	f.Close()
	if err != nil {
		return nil, err
	}
	if rewrite {
		err := writeFileAtomic(path, func(w io.Writer) error {
			for _, line := range kept {
				if _, err := w.Write(line); err != nil {
					return fmt.Errorf("runlog: rewrite metrics log: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("runlog: reopen metrics log: %w", err)
	}
	return &MetricsWriter{out: out, file: out, now: time.Now, dropped: dropped}, nil
}

// DroppedOnResume reports how many lines [OpenForResume] removed: records
// after the resume step and a torn final line.
func (w *MetricsWriter) DroppedOnResume() int { return w.dropped }

// Write appends a record for step with the current time.
func (w *MetricsWriter) Write(step int64, values map[string]float64) error {
	return w.WriteRecord(Record{Step: step, Time: w.now(), Values: values})
}

// WriteRecord appends rec as one line, with rec.Time as it is.
func (w *MetricsWriter) WriteRecord(rec Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	line, err := appendRecord(w.line[:0], rec)
	if err != nil {
		return err
	}
	w.line = line
	if _, err := w.out.Write(line); err != nil {
		w.err = fmt.Errorf("runlog: write metrics: %w", err)
		return w.err
	}
	return nil
}

// Sync commits the log to stable storage when it is a file.
func (w *MetricsWriter) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.file == nil {
		return nil
	}
	if err := w.file.Sync(); err != nil {
		return fmt.Errorf("runlog: sync metrics: %w", err)
	}
	return nil
}

// Close syncs and closes the file the writer opened; for a writer made by
// [NewMetricsWriterTo] it does nothing. Writes after Close fail.
func (w *MetricsWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = errors.New("runlog: metrics writer closed")
	}
	if w.file == nil {
		return nil
	}
	f := w.file
	w.file = nil
	syncErr := f.Sync()
	if err := f.Close(); err != nil {
		return fmt.Errorf("runlog: close metrics: %w", err)
	}
	if syncErr != nil {
		return fmt.Errorf("runlog: sync metrics: %w", syncErr)
	}
	return nil
}

// checkMetricName reports whether name can be a key of a metrics line that
// reads back as the same name.
func checkMetricName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty", ErrMetricName)
	case name == stepKey || name == timeKey:
		return fmt.Errorf("%w: %q is reserved", ErrMetricName, name)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrMetricName, name)
	}
	return nil
}

// checkTime rejects times RFC 3339 cannot write (a year outside 0000-9999
// once in UTC).
func checkTime(t time.Time) error {
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return fmt.Errorf("runlog: time %v outside RFC 3339 years", t)
	}
	return nil
}

// appendRecord encodes rec as one JSON line ending in '\n'.
func appendRecord(b []byte, rec Record) ([]byte, error) {
	if rec.Step < 0 {
		return b, fmt.Errorf("runlog: negative step %d", rec.Step)
	}
	if err := checkTime(rec.Time); err != nil {
		return b, err
	}
	names := make([]string, 0, len(rec.Values))
	for name := range rec.Values {
		if err := checkMetricName(name); err != nil {
			return b, err
		}
		names = append(names, name)
	}
	slices.Sort(names)
	b = append(b, `{"step":`...)
	b = strconv.AppendInt(b, rec.Step, 10)
	b = append(b, `,"time":"`...)
	b = rec.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	for _, name := range names {
		key, err := json.Marshal(name)
		if err != nil {
			return b, fmt.Errorf("%w: %v", ErrMetricName, err)
		}
		b = append(b, ',')
		b = append(b, key...)
		b = append(b, ':')
		b = appendValue(b, rec.Values[name])
	}
	return append(b, '}', '\n'), nil
}

func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "null"...)
	case math.IsInf(v, 1):
		return append(b, `"`+posInfString+`"`...)
	case math.IsInf(v, -1):
		return append(b, `"`+negInfString+`"`...)
	}
	// Shortest representation that parses back to the same float64; 'g'
	// output is valid JSON for every finite value.
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
