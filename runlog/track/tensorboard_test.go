package track

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/org/agentevolver/runlog"
)

var t0 = time.Date(2026, 12, 6, 21, 0, 0, 250_000_000, time.UTC)

// records are what TestTensorBoard* write: several metrics per step,
// values float32 cannot hold exactly, a NaN, an infinity, a value beyond
// float32's range and a tag with non-ASCII text.
func testRecords() []runlog.Record {
	return []runlog.Record{
		{Step: 1, Time: t0, Values: map[string]float64{"reward/mean": 0.42, "reward/success": 0.5, "time/step_s": 3.125}},
		{Step: 2, Time: t0.Add(time.Second), Values: map[string]float64{"reward/mean": math.NaN(), "actor/kl": math.Inf(1), "big": 1e300, "prm/été": -2.5}},
		{Step: 2, Time: t0.Add(2 * time.Second), Values: map[string]float64{"val/success": 0.75}},
		{Step: 3, Time: t0.Add(3 * time.Second)}, // nothing to write
	}
}

func writeTestEvents(t *testing.T, dir string, opts TensorBoardOptions) string {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return t0 }
	}
	tb, err := NewTensorBoard(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range testRecords() {
		if err := tb.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tb.WriteRecord(testRecords()[0]); err == nil {
		t.Fatal("write after Close succeeded")
	}
	return tb.Path()
}

func sameFloat32(a, b float32) bool {
	return a == b || (a != a && b != b)
}

// TestTensorBoardRoundTrip reads the events back with ReadEvents.
func TestTensorBoardRoundTrip(t *testing.T) {
	path := writeTestEvents(t, t.TempDir(), TensorBoardOptions{Resume: true, ResumeStep: 7})
	if ok, _ := filepath.Match("events.out.tfevents.*.*.*.0", filepath.Base(path)); !ok {
		t.Errorf("file name %s is not what TensorBoard looks for", filepath.Base(path))
	}
	evs, err := ReadEventFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 5 {
		t.Fatalf("%d events, want 5 (version, session start, 3 summaries): %+v", len(evs), evs)
	}
	if evs[0].FileVersion != FileVersion || evs[0].WallTime.Sub(t0).Abs() > time.Microsecond {
		t.Errorf("first event %+v", evs[0])
	}
	if evs[1].SessionStatus != SessionStart || evs[1].Step != 8 {
		t.Errorf("session event %+v, want START at step 8", evs[1])
	}
	for i, r := range testRecords()[:3] {
		ev := evs[i+2]
		if ev.Step != r.Step || ev.WallTime.Sub(r.Time).Abs() > time.Microsecond {
			t.Errorf("event %d: step %d time %v, want %d %v", i, ev.Step, ev.WallTime, r.Step, r.Time)
		}
		if len(ev.Scalars) != len(r.Values) {
			t.Fatalf("event %d: %d scalars, want %d", i, len(ev.Scalars), len(r.Values))
		}
		for _, s := range ev.Scalars {
			if want := toFloat32(r.Values[s.Tag]); !sameFloat32(s.Value, want) {
				t.Errorf("%s = %v, want %v", s.Tag, s.Value, want)
			}
		}
	}
	if got := toFloat32(1e300); got != math.MaxFloat32 {
		t.Errorf("toFloat32(1e300) = %v", got)
	}
}

// TestTensorBoardIndependentReader has testdata/tbcheck.py read the event
// file: TensorBoard's own loader when Python has the tensorboard package,
// else protoc-compiled messages on Google's protobuf runtime with crcmod's
// CRC-32C. It skips when neither is installed, except under CI, whose
// .ci/run installs them.
func TestTensorBoardIndependentReader(t *testing.T) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		py = "python3"
	}
	probe := exec.Command(py, "-c", "import tensorboard")
	if probe.Run() != nil {
		probe = exec.Command(py, "-c", "import crcmod.predefined, google.protobuf")
		_, protocErr := exec.LookPath("protoc")
		if err := probe.Run(); err != nil || protocErr != nil {
			msg := "no independent reader: needs Python with tensorboard, or python3-protobuf, python3-crcmod and protobuf-compiler (Debian)"
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	path := writeTestEvents(t, t.TempDir(), TensorBoardOptions{Resume: true, ResumeStep: 7})
	cmd := exec.Command(py, "testdata/tbcheck.py", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tbcheck.py: %v\n%s", err, stderr.Bytes())
	}
	type line struct {
		Reader        string            `json:"reader"`
		WallTime      float64           `json:"wall_time"`
		Step          int64             `json:"step"`
		What          string            `json:"what"`
		FileVersion   string            `json:"file_version"`
		SessionStatus int               `json:"session_status"`
		Values        map[string]string `json:"values"`
	}
	var lines []line
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("tbcheck output %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 6 {
		t.Fatalf("tbcheck printed %d lines, want the reader and 5 events:\n%s", len(lines), out)
	}
	t.Logf("independent reader: %s", lines[0].Reader)
	evs := lines[1:]
	if evs[0].What != "file_version" || evs[0].FileVersion != FileVersion || math.Abs(evs[0].WallTime-float64(t0.UnixNano())/1e9) > 1e-6 {
		t.Errorf("first event %+v", evs[0])
	}
	if evs[1].What != "session_log" || evs[1].SessionStatus != SessionStart || evs[1].Step != 8 {
		t.Errorf("second event %+v, want session_log START at step 8", evs[1])
	}
	for i, r := range testRecords()[:3] {
		ev := evs[i+2]
		if ev.What != "summary" || ev.Step != r.Step || math.Abs(ev.WallTime-float64(r.Time.UnixNano())/1e9) > 1e-6 {
			t.Errorf("event %d: %+v, want a summary at step %d", i, ev, r.Step)
		}
		if len(ev.Values) != len(r.Values) {
			t.Errorf("event %d: tags %v, want %d", i, ev.Values, len(r.Values))
		}
		for tag, v := range r.Values {
			s, ok := ev.Values[tag]
			if !ok {
				t.Errorf("event %d: tag %q missing", i, tag)
				continue
			}
			got, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("value %q: %v", s, err)
			}
			if !sameFloat32(float32(got), toFloat32(v)) || (got == got && float64(float32(got)) != got) {
				t.Errorf("event %d: %s = %s, want %v", i, tag, s, toFloat32(v))
			}
		}
	}
}

// TestReadEventsDamage: a record cut short ends the events quietly; a
// flipped byte is an error naming the record.
func TestReadEventsDamage(t *testing.T) {
	path := writeTestEvents(t, t.TempDir(), TensorBoardOptions{})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	all, err := ReadEvents(bytes.NewReader(data))
	if err != nil || len(all) != 4 {
		t.Fatalf("ReadEvents = %d events, %v", len(all), err)
	}
	cut, err := ReadEvents(bytes.NewReader(data[:len(data)-3]))
	if err != nil || len(cut) != 3 {
		t.Errorf("cut file: %d events, %v; want 3, nil", len(cut), err)
	}
	for _, at := range []int{2, 9, 20, len(data) - 1} {
		bad := bytes.Clone(data)
		bad[at] ^= 0x40
		if _, err := ReadEvents(bytes.NewReader(bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("byte %d flipped: err %v, want ErrCorrupt", at, err)
		}
	}
}

// TestNewTensorBoardFreshNames: two trackers opened in the same second
// write two files.
func TestNewTensorBoardFreshNames(t *testing.T) {
	dir := t.TempDir()
	a := writeTestEvents(t, dir, TensorBoardOptions{})
	b := writeTestEvents(t, dir, TensorBoardOptions{})
	if a == b {
		t.Fatalf("both trackers wrote %s", a)
	}
	if _, err := NewTensorBoard(filepath.Join(a, "sub"), TensorBoardOptions{}); err == nil {
		t.Error("a directory under a file was accepted")
	}
}
