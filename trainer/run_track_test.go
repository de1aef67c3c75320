package trainer

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/runlog/episodelog"
	"github.com/org/agentevolver/runlog/track"
)

// recorder is a caller's tracker that keeps what it gets.
type recorder struct{ records []runlog.Record }

func (r *recorder) WriteRecord(rec runlog.Record) error {
	rec.Values = maps.Clone(rec.Values)
	r.records = append(r.records, rec)
	return nil
}

// TestFitTrackersAndEpisodeLog: trainer.logger's console and TensorBoard
// trackers and a caller's tracker get the records metrics.jsonl holds
// (whose bytes are what runlog writes for them), and the episode log
// holds capped training and validation episodes with their token view.
func TestFitTrackersAndEpisodeLog(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps = 0
	cfg.Trainer.RLSteps = 1
	cfg.Trainer.Logger = track.List{track.NameConsole, track.NameTensorBoard}
	cfg.Trainer.EpisodeLog = episodelog.Config{MaxPerStep: 3}
	cfg.Rollout.ValN = 2
	var out bytes.Buffer
	mine := &recorder{}
	if _, err := mustNew(t, cfg, Options{Output: &out, Trackers: []track.Tracker{mine}}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir := cfg.Trainer.OutputDir
	var want bytes.Buffer
	w := runlog.NewMetricsWriterTo(&want)
	for _, rec := range mine.records {
		if err := w.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(filepath.Join(dir, MetricsFile))
	if err != nil || len(mine.records) != 3 || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("metrics.jsonl (%v) differs from the %d records the caller's tracker got:\n%s\nwant\n%s", err, len(mine.records), got, want.Bytes())
	}
	if !strings.Contains(out.String(), "step:1 - ") || !strings.Contains(out.String(), " - val/success:") {
		t.Errorf("console lines missing from the output:\n%s", out.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, track.TensorBoardDir, "events.out.tfevents.*"))
	if len(files) != 1 {
		t.Fatalf("event files %v", files)
	}
	evs, err := track.ReadEventFile(files[0])
	if err != nil || len(evs) != 1+len(mine.records) {
		t.Fatalf("%d events, %v; want a version event and %d summaries", len(evs), err, len(mine.records))
	}
	for i, rec := range mine.records {
		ev := evs[i+1]
		if ev.Step != rec.Step || len(ev.Scalars) != len(rec.Values) {
			t.Errorf("event %d: step %d with %d scalars, want %d with %d", i, ev.Step, len(ev.Scalars), rec.Step, len(rec.Values))
		}
		for _, s := range ev.Scalars {
			if v := float32(rec.Values[s.Tag]); s.Value != v && v == v {
				t.Errorf("step %d %s = %v, want %v", rec.Step, s.Tag, s.Value, v)
			}
		}
	}

	f, err := os.Open(filepath.Join(dir, episodelog.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	count := map[string]int{}
	_, _, err = episodelog.Scan(f, func(_ int64, line []byte) error {
		ep, err := episodelog.Decode(line)
		if err != nil {
			return err
		}
		count[ep.Phase+"@"+itoa64(int64(ep.Step))]++
		if len(ep.Messages) == 0 || len(ep.Samples) == 0 {
			t.Errorf("episode %s/%s at %s %d has %d messages and %d samples", ep.TaskID, ep.RolloutID, ep.Phase, ep.Step, len(ep.Messages), len(ep.Samples))
			return nil
		}
		s := ep.Samples[0]
		if len(s.IDs) != len(s.Text) || len(s.IDs) != len(s.Mask) || !strings.Contains(s.Mask, "1") || strings.Contains(s.Mask[:s.PromptLen], "1") {
			t.Errorf("sample of %s: %d ids, %d texts, mask %q, prompt %d", ep.TaskID, len(s.IDs), len(s.Text), s.Mask, s.PromptLen)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 2 tasks x 2 rollouts per step and phase, capped at 3.
	if count["train@1"] != 3 || count["validation@0"] != 3 || count["validation@1"] != 3 {
		t.Errorf("episodes per phase and step %v, want 3 each", count)
	}
}
