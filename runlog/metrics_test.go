package runlog

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)

// sameRecords compares records with NaN equal to NaN and times by instant.
func sameRecords(t *testing.T, got, want []Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Step != w.Step || !g.Time.Equal(w.Time) || len(g.Values) != len(w.Values) {
			t.Fatalf("record %d = %+v, want %+v", i, g, w)
		}
		for name, wv := range w.Values {
			gv, ok := g.Values[name]
			if !ok || !(gv == wv && math.Signbit(gv) == math.Signbit(wv) || math.IsNaN(gv) && math.IsNaN(wv)) {
				t.Fatalf("record %d %q = %v (present %v), want %v", i, name, gv, ok, wv)
			}
		}
	}
}

func TestMetricsWriterLineFormat(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		want string
	}{
		{"no metrics", Record{Step: 0, Time: t0}, `{"step":0,"time":"2026-01-02T15:04:05Z"}`},
		{"sorted names and shortest floats",
			Record{Step: 12, Time: t0.Add(123 * time.Millisecond), Values: map[string]float64{"val/success": 0.5, "reward/mean": 0.1, "a": 3, "big": 1e21, "tiny": -2.5e-7}},
			`{"step":12,"time":"2026-01-02T15:04:05.123Z","a":3,"big":1e+21,"reward/mean":0.1,"tiny":-2.5e-07,"val/success":0.5}`},
		{"non-finite as null and strings",
			Record{Step: 3, Time: t0, Values: map[string]float64{"nan": math.NaN(), "pinf": math.Inf(1), "ninf": math.Inf(-1)}},
			`{"step":3,"time":"2026-01-02T15:04:05Z","nan":null,"ninf":"-Inf","pinf":"+Inf"}`},
		{"names are JSON-escaped",
			Record{Step: 1, Time: t0, Values: map[string]float64{`q"uote\n<é>`: 1}},
			`{"step":1,"time":"2026-01-02T15:04:05Z","q\"uote\\n\u003cé\u003e":1}`},
		{"time is written in UTC",
			Record{Step: 1, Time: time.Date(2026, 1, 2, 17, 4, 5, 0, time.FixedZone("x", 2*3600))},
			`{"step":1,"time":"2026-01-02T15:04:05Z"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewMetricsWriterTo(&buf)
			if err := w.WriteRecord(tt.rec); err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != tt.want+"\n" {
				t.Errorf("line\n got %s\nwant %s", got, tt.want)
			}
			back, err := DecodeMetrics(&buf)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.rec
			if want.Values == nil {
				want.Values = map[string]float64{}
			}
			sameRecords(t, back, []Record{want})
		})
	}
}

func TestMetricsWriterRejects(t *testing.T) {
	tests := []struct {
		name    string
		rec     Record
		wantErr error
	}{
		{"negative step", Record{Step: -1, Time: t0}, nil},
		{"empty name", Record{Time: t0, Values: map[string]float64{"": 1}}, ErrMetricName},
		{"reserved step", Record{Time: t0, Values: map[string]float64{"step": 1}}, ErrMetricName},
		{"reserved time", Record{Time: t0, Values: map[string]float64{"time": 1}}, ErrMetricName},
		{"invalid UTF-8", Record{Time: t0, Values: map[string]float64{"a\xff": 1}}, ErrMetricName},
		{"year beyond RFC 3339", Record{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewMetricsWriterTo(&buf)
			err := w.WriteRecord(tt.rec)
			if err == nil {
				t.Fatalf("WriteRecord(%+v) succeeded", tt.rec)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v is not %v", err, tt.wantErr)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %q for a rejected record", buf.String())
			}
			// A rejected record is the caller's mistake, not a torn log:
			// the writer stays usable.
			if err := w.WriteRecord(Record{Step: 1, Time: t0}); err != nil {
				t.Errorf("write after rejected record: %v", err)
			}
		})
	}
}

type failingWriter struct{ calls int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.calls++
	return 0, errors.New("disk full")
}

func TestMetricsWriterErrorIsSticky(t *testing.T) {
	fw := &failingWriter{}
	w := NewMetricsWriterTo(fw)
	if err := w.Write(1, nil); err == nil {
		t.Fatal("write to failing writer succeeded")
	}
	if err := w.Write(2, nil); err == nil || fw.calls != 1 {
		t.Fatalf("second write: err %v after %d calls; want the first error without another write", err, fw.calls)
	}
}

func TestMetricsFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run", "logs", "metrics.jsonl")
	w, err := NewMetricsWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	clock := t0
	w.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	want := []Record{
		{Step: 0, Values: map[string]float64{"val/success": 0.25}},
		{Step: 1, Values: map[string]float64{"reward/mean": 0.1, "loss": math.NaN()}},
		{Step: 2, Values: map[string]float64{"reward/mean": -0.0, "grad_norm": math.Inf(1)}},
	}
	for i, r := range want {
		if err := w.Write(r.Step, r.Values); err != nil {
			t.Fatal(err)
		}
		want[i].Time = t0.Add(time.Duration(i+1) * time.Second)
		// Each line is on disk as soon as Write returns.
		got, err := ReadMetrics(path)
		if err != nil {
			t.Fatal(err)
		}
		sameRecords(t, got, want[:i+1])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(3, nil); err == nil {
		t.Error("write after Close succeeded")
	}
	// A fresh run replaces the old log instead of appending to it.
	w2, err := NewMetricsWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.WriteRecord(Record{Step: 0, Time: t0}); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	got, err := ReadMetrics(path)
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, got, []Record{{Step: 0, Time: t0, Values: map[string]float64{}}})
}

func TestMetricsWriterConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	w, err := NewMetricsWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				if err := w.Write(int64(g*each+i), map[string]float64{"writer": float64(g), "pad/" + strings.Repeat("x", 200): 1}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMetrics(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[int64]bool)
	for _, r := range got {
		if seen[r.Step] || r.Values["writer"] != float64(r.Step/each) {
			t.Fatalf("bad or duplicate record %+v", r)
		}
		seen[r.Step] = true
	}
	if len(seen) != writers*each {
		t.Fatalf("read %d distinct records, want %d", len(seen), writers*each)
	}
}

func TestOpenForResume(t *testing.T) {
	line := func(step int) string {
		return `{"step":` + itoa(step) + `,"time":"2026-01-02T15:04:05Z","m":` + itoa(step) + "}\n"
	}
	tests := []struct {
		name        string
		content     *string // nil: no file
		lastStep    int64
		want        string // file content after opening, before the new record
		wantDropped int
		wantLine    int // non-zero: expect a LineError for this line
	}{
		{name: "missing file is created", lastStep: 5, want: ""},
		{name: "nothing after the checkpoint", content: ptr(line(0) + line(1) + line(2)), lastStep: 2,
			want: line(0) + line(1) + line(2)},
		{name: "steps after the checkpoint are dropped", content: ptr(line(0) + line(1) + line(2) + line(3)), lastStep: 1,
			want: line(0) + line(1), wantDropped: 2},
		{name: "several lines per step and out of order", content: ptr(line(1) + line(3) + line(2) + line(2) + line(4)), lastStep: 2,
			want: line(1) + line(2) + line(2), wantDropped: 2},
		{name: "negative step drops everything", content: ptr(line(0) + line(1)), lastStep: -1,
			want: "", wantDropped: 2},
		{name: "torn final line is dropped", content: ptr(line(0) + line(1) + `{"step":2,"ti`), lastStep: 10,
			want: line(0) + line(1), wantDropped: 1},
		{name: "complete final line without newline is kept", content: ptr(line(0) + strings.TrimSuffix(line(1), "\n")), lastStep: 10,
			want: line(0) + line(1)},
		{name: "lines are kept byte for byte", content: ptr(`{ "time": "2026-01-02T17:04:05+02:00", "step": 0 }` + "\n" + line(1)), lastStep: 0,
			want: `{ "time": "2026-01-02T17:04:05+02:00", "step": 0 }` + "\n", wantDropped: 1},
		{name: "malformed middle line is an error", content: ptr(line(0) + "garbage\n" + line(2)), lastStep: 0, wantLine: 2},
		{name: "blank middle line is an error", content: ptr(line(0) + "\n" + line(2)), lastStep: 0, wantLine: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out", "metrics.jsonl")
			if tt.content != nil {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(*tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w, err := OpenForResume(path, tt.lastStep)
			if tt.wantLine != 0 {
				var le *LineError
				if !errors.As(err, &le) || le.Line != tt.wantLine {
					t.Fatalf("error %v, want a LineError on line %d", err, tt.wantLine)
				}
				if data, _ := os.ReadFile(path); string(data) != *tt.content {
					t.Errorf("file changed after a failed resume:\n%s", data)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := w.DroppedOnResume(); got != tt.wantDropped {
				t.Errorf("dropped %d lines, want %d", got, tt.wantDropped)
			}
			if data, _ := os.ReadFile(path); string(data) != tt.want {
				t.Errorf("after resume\n got %q\nwant %q", data, tt.want)
			}
			if err := w.WriteRecord(Record{Step: 7, Time: t0, Values: map[string]float64{"m": 7}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(path); string(data) != tt.want+line(7) {
				t.Errorf("after append\n got %q\nwant %q", data, tt.want+line(7))
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only the log (a temporary file left behind?)", len(entries))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
