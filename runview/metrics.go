package runview

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"

	"github.com/org/agentevolver/runlog"
)

// maxMetricsBytes bounds the metrics log the viewer reads: a run of a
// million steps with fifty metrics is below it.
const maxMetricsBytes = 512 << 20

// Metrics is the answer of GET /api/metrics: a run's records in file
// order, with the metric names they use.
type Metrics struct {
	// Names are the metric names, sorted.
	Names []string `json:"names"`
	// Records are the complete, well-formed lines.
	Records []Record `json:"records"`
	// Skipped counts malformed lines left out.
	Skipped int `json:"skipped"`
}

// Record is one metrics line; NaN and infinities are null.
type Record struct {
	Step   int64                `json:"step"`
	Values map[string]jsonFloat `json:"values"`
}

// jsonFloat writes NaN and the infinities as null, which JSON can hold.
type jsonFloat float64

// MarshalJSON implements json.Marshaler.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// readMetrics reads the metrics log name of fsys. A final line without its
// newline is being written and is left out; malformed lines are skipped
// and counted. A missing log is no records.
func readMetrics(fsys fs.FS, name string) (Metrics, error) {
	out := Metrics{Names: []string{}, Records: []Record{}}
	f, err := fsys.Open(name)
	if err != nil {
		if isNotExist(err) {
			return out, nil
		}
		return out, fmt.Errorf("runview: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMetricsBytes+1))
	if err != nil {
		return out, fmt.Errorf("runview: read metrics: %w", err)
	}
	if len(data) > maxMetricsBytes {
		return out, fmt.Errorf("runview: metrics log larger than %d bytes", maxMetricsBytes)
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	records, err := runlog.DecodeMetrics(bytes.NewReader(data))
	if err != nil {
		// One bad line spoils the strict reader: read line by line.
		records = records[:0]
		for line := range bytes.Lines(data) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			recs, err := runlog.DecodeMetrics(bytes.NewReader(line))
			if err != nil {
				out.Skipped++
				continue
			}
			records = append(records, recs...)
		}
	}
	names := map[string]bool{}
	for _, r := range records {
		rec := Record{Step: r.Step, Values: make(map[string]jsonFloat, len(r.Values))}
		for k, v := range r.Values {
			rec.Values[k] = jsonFloat(v)
			names[k] = true
		}
		out.Records = append(out.Records, rec)
	}
	for k := range names {
		out.Names = append(out.Names, k)
	}
	slices.Sort(out.Names)
	return out, nil
}
