package runlog

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDecodeMetricsAccepts(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []Record
	}{
		{"empty file", "", nil},
		{"no final newline", `{"step":1,"time":"2026-01-02T15:04:05Z","a":1}`,
			[]Record{{Step: 1, Time: t0, Values: map[string]float64{"a": 1}}}},
		{"CRLF line ends", "{\"step\":1,\"time\":\"2026-01-02T15:04:05Z\"}\r\n{\"step\":2,\"time\":\"2026-01-02T15:04:05Z\"}\r\n",
			[]Record{{Step: 1, Time: t0, Values: map[string]float64{}}, {Step: 2, Time: t0, Values: map[string]float64{}}}},
		{"spaces, key order and offsets", ` { "b" : 2.5e3 , "time" : "2026-01-02T17:04:05.5+02:00", "step" : 4 } ` + "\n",
			[]Record{{Step: 4, Time: t0.Add(500 * time.Millisecond), Values: map[string]float64{"b": 2500}}}},
		{"non-finite spellings", `{"step":0,"time":"2026-01-02T15:04:05Z","a":"NaN","b":"+Inf","c":"Inf","d":"-Inf","e":null}` + "\n",
			[]Record{{Step: 0, Time: t0, Values: map[string]float64{"a": math.NaN(), "b": math.Inf(1), "c": math.Inf(1), "d": math.Inf(-1), "e": math.NaN()}}}},
		{"large step", `{"step":9223372036854775807,"time":"2026-01-02T15:04:05Z"}`,
			[]Record{{Step: math.MaxInt64, Time: t0, Values: map[string]float64{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeMetrics(strings.NewReader(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			sameRecords(t, got, tt.want)
		})
	}
}

func TestDecodeMetricsRejects(t *testing.T) {
	good := `{"step":1,"time":"2026-01-02T15:04:05Z","a":1}` + "\n"
	tests := []struct {
		name     string
		input    string
		wantLine int
		wantText string
	}{
		{"blank line", good + "\n" + good, 2, "empty line"},
		{"whitespace line", good + "  \t\n", 2, "empty line"},
		{"not JSON", good + good + "step=3\n", 3, "not a JSON object"},
		{"JSON array", "[1,2]\n", 1, "not a JSON object"},
		{"JSON null", "null\n", 1, "not a JSON object"},
		{"two objects on a line", `{"step":1,"time":"2026-01-02T15:04:05Z"}{"step":2,"time":"2026-01-02T15:04:05Z"}` + "\n", 1, "not a JSON object"},
		{"torn final line", good + `{"step":2,"time":"20`, 2, "not a JSON object"},
		{"missing step", `{"time":"2026-01-02T15:04:05Z"}`, 1, `missing "step"`},
		{"fractional step", `{"step":1.5,"time":"2026-01-02T15:04:05Z"}`, 1, "non-negative integer"},
		{"negative step", `{"step":-1,"time":"2026-01-02T15:04:05Z"}`, 1, "non-negative integer"},
		{"string step", `{"step":"1","time":"2026-01-02T15:04:05Z"}`, 1, "non-negative integer"},
		{"step overflow", `{"step":9223372036854775808,"time":"2026-01-02T15:04:05Z"}`, 1, "non-negative integer"},
		{"missing time", `{"step":1}`, 1, `missing "time"`},
		{"numeric time", `{"step":1,"time":12}`, 1, "not a string"},
		{"bad time", `{"step":1,"time":"yesterday"}`, 1, `"time"`},
		{"bool metric", `{"step":1,"time":"2026-01-02T15:04:05Z","ok":true}`, 1, `metric "ok"`},
		{"object metric", `{"step":1,"time":"2026-01-02T15:04:05Z","o":{}}`, 1, `metric "o"`},
		{"other string metric", `{"step":1,"time":"2026-01-02T15:04:05Z","s":"high"}`, 1, `metric "s"`},
		{"number out of range", `{"step":1,"time":"2026-01-02T15:04:05Z","x":1e400}`, 1, "out of range"},
		{"empty metric name", `{"step":1,"time":"2026-01-02T15:04:05Z","":1}`, 1, "invalid metric name"},
		{"line too long", `{"step":1,"time":"2026-01-02T15:04:05Z","a":"` + strings.Repeat("x", MaxMetricsLineBytes) + `"}`, 1, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeMetrics(strings.NewReader(tt.input))
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("got %d records and error %v, want a LineError", len(got), err)
			}
			if le.Line != tt.wantLine || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q, want line %d mentioning %q", err, tt.wantLine, tt.wantText)
			}
			if !strings.Contains(err.Error(), "line "+itoa(tt.wantLine)) {
				t.Errorf("error %q does not name line %d", err, tt.wantLine)
			}
			if got != nil {
				t.Errorf("records returned with an error: %v", got)
			}
		})
	}
}

func TestReadMetricsMissingFile(t *testing.T) {
	_, err := ReadMetrics(filepath.Join(t.TempDir(), "nope.jsonl"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v, want os.ErrNotExist", err)
	}
}
