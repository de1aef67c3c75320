package episodelog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/org/agentevolver"
)

var t0 = time.Date(2026, 12, 6, 21, 0, 0, 0, time.UTC)

func testTrajectory(task string, outcome float64) (agentevolver.Trajectory, []agentevolver.Sample) {
	tr := agentevolver.Trajectory{
		TaskID: task, DataID: "0", RolloutID: "1", Query: "find the price",
		Steps:  []agentevolver.Message{{Role: "user", Content: "find the price"}, {Role: "assistant", Content: "call(x)"}},
		Reward: agentevolver.NewReward(outcome, "", 0), IsTerminated: true,
	}
	s := agentevolver.Sample{
		PromptIDs: []int{1, 2}, ResponseIDs: []int{3, 4, 5},
		InputIDs: []int{1, 2, 3, 4, 5}, LossMask: []int{0, 0, 1, 1, 0},
	}
	return tr, []agentevolver.Sample{s}
}

func TestFromTrajectory(t *testing.T) {
	tr, samples := testTrajectory("t1", 1)
	ep := FromTrajectory(PhaseTrain, 3, t0, tr, samples, func(id int) string { return "<" + strconv.Itoa(id) + ">" })
	if !ep.Success || ep.Outcome != 1 || ep.Failed() || len(ep.Messages) != 2 {
		t.Errorf("episode %+v", ep)
	}
	if len(ep.Samples) != 1 {
		t.Fatalf("samples %+v", ep.Samples)
	}
	s := ep.Samples[0]
	if s.Mask != "00110" || s.PromptLen != 2 || strings.Join(s.Text, "") != "<1><2><3><4><5>" {
		t.Errorf("sample %+v", s)
	}
	if ep := FromTrajectory(PhaseTrain, 3, t0, tr, samples, nil); ep.Samples != nil {
		t.Error("samples without a decoder")
	}
}

// TestWriterBounds: MaxPerStep per step, phase and kind; MaxBytes stops
// recording with ErrFull; NoTokens drops samples.
func TestWriterBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path, Config{MaxPerStep: 2, MaxBytes: 2000, NoTokens: true})
	if err != nil {
		t.Fatal(err)
	}
	tr, samples := testTrajectory("t1", 0)
	dec := func(int) string { return "x" }
	var wrote []bool
	for range 3 {
		ok, err := w.Write(FromTrajectory(PhaseTrain, 1, t0, tr, samples, dec))
		if err != nil {
			t.Fatal(err)
		}
		wrote = append(wrote, ok)
	}
	ok, err := w.Write(Failure(PhaseTrain, 1, t0, "t2", "1", "0", "step", "boom"))
	if !ok || err != nil {
		t.Errorf("a failure was not written: %v %v", ok, err)
	}
	if wrote[0] != true || wrote[1] != true || wrote[2] != false {
		t.Errorf("written %v, want the third dropped", wrote)
	}
	for step := 2; ; step++ {
		_, err := w.Write(FromTrajectory(PhaseValidation, step, t0, tr, samples, dec))
		if errors.Is(err, ErrFull) {
			break
		}
		if err != nil || step > 100 {
			t.Fatalf("step %d: %v", step, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	if info.Size() > 2000 {
		t.Errorf("log %d bytes, limit 2000", info.Size())
	}
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte(`"samples"`)) {
		t.Error("NoTokens kept samples")
	}
}

// TestScanPartial: a final line without newline is not read; offsets
// lead ReadAt to each line; an offset inside a line is refused.
func TestScanPartial(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	tr, samples := testTrajectory("t1", 1)
	for step := 1; step <= 3; step++ {
		if _, err := w.Write(FromTrajectory(PhaseTrain, step, t0, tr, samples, func(int) string { return "é" })); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("\n" + `{"phase":"train","step":4,"task_id":"half`)
	info, _ := f.Stat()
	var offsets []int64
	_, skipped, err := Scan(io.NewSectionReader(f, 0, info.Size()), func(off int64, line []byte) error {
		offsets = append(offsets, off)
		return nil
	})
	if err != nil || len(offsets) != 3 || skipped != 1 {
		t.Fatalf("Scan: offsets %v skipped %d err %v; want 3 lines, the blank one skipped", offsets, skipped, err)
	}
	for i, off := range offsets {
		ep, err := ReadAt(f, off)
		if err != nil || ep.Step != i+1 || ep.Samples[0].Text[0] != "é" {
			t.Errorf("ReadAt(%d) = step %d, %v", off, ep.Step, err)
		}
	}
	if _, err := ReadAt(f, offsets[1]+3); !errors.Is(err, ErrLine) {
		t.Errorf("offset inside a line: %v", err)
	}
	if _, err := ReadAt(f, info.Size()-10); !errors.Is(err, ErrLine) {
		t.Errorf("offset in the torn line: %v", err)
	}
}

func TestOpenForResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := Create(path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	tr, samples := testTrajectory("t1", 1)
	for step := 1; step <= 4; step++ {
		w.Write(FromTrajectory(PhaseTrain, step, t0, tr, samples, nil))
	}
	w.Close()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"phase":"train","st`)
	f.Close()
	w, err = OpenForResume(path, 2, Config{})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(FromTrajectory(PhaseTrain, 3, t0, tr, samples, nil))
	w.Close()
	var steps []int
	data, _ := os.ReadFile(path)
	Scan(bytes.NewReader(data), func(_ int64, line []byte) error {
		ep, err := Decode(line)
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, ep.Step)
		return nil
	})
	if len(steps) != 3 || steps[0] != 1 || steps[1] != 2 || steps[2] != 3 {
		t.Errorf("steps after resume %v, want [1 2 3]", steps)
	}
}

func TestSampled(t *testing.T) {
	c := Config{SampleRate: 0.25}
	n := 0
	for i := range 4000 {
		if c.Sampled(PhaseTrain, 7, i) {
			n++
		}
		if c.Sampled(PhaseTrain, 7, i) != c.Sampled(PhaseTrain, 7, i) {
			t.Fatal("not deterministic")
		}
	}
	if n < 850 || n > 1150 {
		t.Errorf("rate 0.25 kept %d of 4000", n)
	}
	if !(Config{}).Sampled(PhaseTrain, 1, 1) {
		t.Error("the zero Config does not keep everything")
	}
	for _, bad := range []float64{-0.1, 1.5} {
		if (Config{SampleRate: bad}).Validate() == nil {
			t.Errorf("sample rate %v accepted", bad)
		}
	}
}
