package track

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/org/agentevolver/runlog"
)

type failing struct{ closed, synced int }

func (f *failing) WriteRecord(runlog.Record) error { return errors.New("boom") }
func (f *failing) Sync() error                     { f.synced++; return nil }
func (f *failing) Close() error                    { f.closed++; return errors.New("close boom") }

// TestMultiWritesEveryTracker: one tracker failing neither stops the
// others nor hides its error; Sync and Close reach those that have them.
func TestMultiWritesEveryTracker(t *testing.T) {
	var a, b bytes.Buffer
	bad := &failing{}
	m := &Multi{Trackers: []Tracker{NewConsole(&a), bad, runlog.NewMetricsWriterTo(&b)}}
	rec := runlog.Record{Step: 3, Time: t0, Values: map[string]float64{"x": 1}}
	if err := m.WriteRecord(rec); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("WriteRecord error %v, want the failing tracker's", err)
	}
	if a.Len() == 0 || b.Len() == 0 {
		t.Error("a tracker after the failing one got nothing")
	}
	if err := m.Sync(); err != nil || bad.synced != 1 {
		t.Errorf("Sync = %v, synced %d", err, bad.synced)
	}
	if err := m.Close(); err == nil || bad.closed != 1 {
		t.Errorf("Close = %v, closed %d", err, bad.closed)
	}
	var zero Multi
	if err := zero.WriteRecord(rec); err != nil {
		t.Error(err)
	}
}

func TestConsoleLine(t *testing.T) {
	var buf bytes.Buffer
	c := NewConsole(&buf)
	err := c.WriteRecord(runlog.Record{Step: 12, Time: t0, Values: map[string]float64{
		"reward/mean": 0.4213, "a": 1234567, "n": math.NaN(), "i": math.Inf(-1)}})
	if err != nil {
		t.Fatal(err)
	}
	want := "step:12 - a:1.235e+06 - i:-Inf - n:NaN - reward/mean:0.4213\n"
	if buf.String() != want {
		t.Errorf("line %q, want %q", buf.String(), want)
	}
}

func TestCheckNames(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string // "" = no error
	}{
		{nil, ""},
		{[]string{"console", "jsonl", "tensorboard"}, ""},
		{[]string{"wandb"}, "implement track.Tracker"},
		{[]string{"consle"}, "want jsonl, console, tensorboard"},
		{[]string{"console", "console"}, "listed twice"},
	} {
		err := CheckNames(tc.names)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.names, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: error %v, want one containing %q", tc.names, err, tc.want)
		}
	}
}

func TestListYAML(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want []string
	}{
		{"logger: [console, tensorboard]", []string{"console", "tensorboard"}},
		{"logger:\n  - jsonl\n", []string{"jsonl"}},
		{"logger: console", []string{"console"}},
		{"logger: []", []string{}},
	} {
		var v struct {
			Logger List `yaml:"logger"`
		}
		if err := yaml.Unmarshal([]byte(tc.doc), &v); err != nil {
			t.Errorf("%q: %v", tc.doc, err)
			continue
		}
		if strings.Join(v.Logger, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: %q, want %q", tc.doc, v.Logger, tc.want)
		}
	}
	var v struct {
		Logger List `yaml:"logger"`
	}
	if err := yaml.Unmarshal([]byte("logger: {a: 1}"), &v); err == nil {
		t.Error("a mapping was accepted as tracker names")
	}
}

// TestOpen builds every built-in tracker; the JSON-lines one is the
// caller's metrics log, untouched in format.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	mw, err := runlog.NewMetricsWriter(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var console bytes.Buffer
	m, err := Open([]string{NameConsole, NameJSONL, NameTensorBoard}, OpenOptions{Dir: dir, JSONL: mw, Console: &console})
	if err != nil {
		t.Fatal(err)
	}
	rec := runlog.Record{Step: 1, Time: t0, Values: map[string]float64{"reward/mean": 0.5}}
	if err := m.WriteRecord(rec); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := runlog.NewMetricsWriterTo(&want).WriteRecord(rec); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "metrics.jsonl"))
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("metrics.jsonl = %q, %v; want %q", got, err, want.Bytes())
	}
	files, _ := filepath.Glob(filepath.Join(dir, TensorBoardDir, "events.out.tfevents.*"))
	if len(files) != 1 {
		t.Fatalf("event files %v", files)
	}
	evs, err := ReadEventFile(files[0])
	if err != nil || len(evs) != 2 || evs[1].Scalars[0] != (Scalar{"reward/mean", 0.5}) {
		t.Errorf("events %+v, %v", evs, err)
	}
	if console.String() != "step:1 - reward/mean:0.5\n" {
		t.Errorf("console %q", console.String())
	}
	if _, err := Open([]string{NameJSONL}, OpenOptions{Dir: dir}); err == nil {
		t.Error("jsonl without a metrics log was accepted")
	}
	if _, err := Open([]string{"mlflow"}, OpenOptions{Dir: dir}); !errors.Is(err, ErrUnknownName) {
		t.Errorf("mlflow: %v", err)
	}
}
