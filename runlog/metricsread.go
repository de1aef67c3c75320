package runlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"
)

// MaxMetricsLineBytes bounds one line of a metrics log, newline excluded. A
// line of a few hundred metrics fits many times over; a longer line means the
// file is not a metrics log.
const MaxMetricsLineBytes = 1 << 20

// ReadMetrics reads the metrics log at path. See [DecodeMetrics].
func ReadMetrics(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("runlog: open metrics log: %w", err)
	}
	defer f.Close()
	return DecodeMetrics(f)
}

// DecodeMetrics parses a metrics log as written by [MetricsWriter], in file
// order. It skips nothing: an empty line, a line longer than
// [MaxMetricsLineBytes], a line that is not one JSON object, a missing or
// non-integer "step", a missing or non-RFC 3339 "time", or a metric whose
// value is not a number is an error of type *[LineError] naming the line.
// Metric values are JSON numbers or the strings "NaN", "+Inf", "-Inf" (also
// "Inf"); null, which some tools write for NaN, reads as NaN.
func DecodeMetrics(r io.Reader) ([]Record, error) {
	var records []Record
	err := scanLines(r, func(lineNo int, line []byte, _ bool) error {
		rec, err := parseRecord(line)
		if err != nil {
			return &LineError{Line: lineNo, Err: err}
		}
		records = append(records, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return records, nil
}

// scanLines calls fn for every line of r without its newline; terminated is
// false only for a final line that has no newline. An empty file has no
// lines. Lines longer than MaxMetricsLineBytes are a *LineError.
func scanLines(r io.Reader, fn func(lineNo int, line []byte, terminated bool) error) error {
	br := bufio.NewReaderSize(r, MaxMetricsLineBytes+1)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return &LineError{Line: lineNo, Err: fmt.Errorf("longer than %d bytes", MaxMetricsLineBytes)}
		case errors.Is(err, io.EOF):
			if len(line) == 0 {
				return nil
			}
			return fn(lineNo, line, false)
		case err != nil:
			return fmt.Errorf("runlog: read metrics log: %w", err)
		}
		if err := fn(lineNo, line[:len(line)-1], true); err != nil {
			return err
		}
	}
}

// parseRecord parses one metrics line (without its newline).
func parseRecord(line []byte) (Record, error) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(bytes.TrimSpace(line)) == 0 {
		return Record{}, errors.New("empty line")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return Record{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if fields == nil {
		return Record{}, errors.New("not a JSON object")
	}
	rec := Record{Values: make(map[string]float64, len(fields))}
	rawStep, ok := fields[stepKey]
	if !ok {
		return Record{}, errors.New(`missing "step"`)
	}
	step, err := strconv.ParseInt(string(rawStep), 10, 64)
	if err != nil || step < 0 {
		return Record{}, fmt.Errorf(`"step" %s is not a non-negative integer`, truncate(rawStep))
	}
	rec.Step = step
	rawTime, ok := fields[timeKey]
	if !ok {
		return Record{}, errors.New(`missing "time"`)
	}
	var stamp string
	if err := json.Unmarshal(rawTime, &stamp); err != nil {
		return Record{}, fmt.Errorf(`"time" %s is not a string`, truncate(rawTime))
	}
	if rec.Time, err = time.Parse(time.RFC3339Nano, stamp); err != nil {
		return Record{}, fmt.Errorf(`"time": %w`, err)
	}
	if err := checkTime(rec.Time); err != nil {
		return Record{}, err
	}
	for name, raw := range fields {
		if name == stepKey || name == timeKey {
			continue
		}
		if err := checkMetricName(name); err != nil {
			return Record{}, err
		}
		v, err := parseValue(raw)
		if err != nil {
			return Record{}, fmt.Errorf("metric %q: %w", name, err)
		}
		rec.Values[name] = v
	}
	return rec, nil
}

// parseValue reads a metric value: a JSON number, null (NaN) or one of the
// strings that stand for non-finite numbers.
func parseValue(raw json.RawMessage) (float64, error) {
	switch raw[0] {
	case 'n':
		return math.NaN(), nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		switch s {
		case nanString:
			return math.NaN(), nil
		case posInfString, "Inf":
			return math.Inf(1), nil
		case negInfString:
			return math.Inf(-1), nil
		}
		return 0, fmt.Errorf("string %s is not a number", truncate(raw))
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		v, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return 0, fmt.Errorf("number %s out of range", truncate(raw))
		}
		return v, nil
	}
	return 0, fmt.Errorf("%s is not a number", truncate(raw))
}

// truncate shortens untrusted text quoted in an error message.
func truncate(b []byte) string {
	const max = 40
	if len(b) <= max {
		return string(b)
	}
	return string(b[:max]) + "..."
}
