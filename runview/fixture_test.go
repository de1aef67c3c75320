package runview

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/runlog/episodelog"
)

var t0 = time.Date(2026, 12, 6, 21, 0, 0, 0, time.UTC)

// writeMetrics writes records made by value(step) for steps 0..n.
func writeMetrics(t *testing.T, dir string, n int, value func(step int) map[string]float64) {
	t.Helper()
	w, err := runlog.NewMetricsWriter(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s <= n; s++ {
		if v := value(s); len(v) > 0 {
			if err := w.WriteRecord(runlog.Record{Step: int64(s), Time: t0.Add(time.Duration(s) * time.Second), Values: v}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// tokenEpisode is a finished episode whose single sample has a prompt of
// 4 tokens and a response of 3 trained tokens and 2 context ones.
func tokenEpisode(phase string, step int, task string, rollout int, outcome float64) episodelog.Episode {
	tr := agentevolver.Trajectory{
		TaskID: task, DataID: "0", RolloutID: strconv.Itoa(rollout), Query: "What does " + task + " cost?",
		Steps: []agentevolver.Message{
			{Role: "system", Content: "You call shop APIs."},
			{Role: "user", Content: "What does " + task + " cost?"},
			{Role: "assistant", Content: "price(" + task + ")"},
			{Role: "tool", Content: "42"},
		},
		Reward: agentevolver.NewReward(outcome, "", 0), IsTerminated: true,
	}
	ids := []int{101, 102, 103, 104, 7001, 7002, 7003, 9, 10}
	text := []string{"<|im_start|>", "user", "\n", "What", "price", "(", task + ")", "\n", "42"}
	s := agentevolver.Sample{
		PromptIDs: ids[:4], ResponseIDs: ids[4:], InputIDs: ids,
		LossMask: []int{0, 0, 0, 0, 1, 1, 1, 0, 0},
	}
	vocab := map[int]string{}
	for i, id := range ids {
		vocab[id] = text[i]
	}
	return episodelog.FromTrajectory(phase, step, t0, tr, []agentevolver.Sample{s}, func(id int) string { return vocab[id] })
}

// makeRuns lays out a single run (run-a, with episodes and a line being
// written at the end of both logs) and an experiment of two arms with two
// seeds each, and returns the directory holding them.
func makeRuns(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	runA := filepath.Join(dir, "run-a")
	if err := os.MkdirAll(runA, 0o755); err != nil {
		t.Fatal(err)
	}
	writeMetrics(t, runA, 10, func(s int) map[string]float64 {
		v := map[string]float64{
			"reward/mean": 0.1 + 0.06*float64(s), "reward/success": 0.05 * float64(s),
			"actor/kl_loss": 0.001 * float64(s*s), "actor/pg_loss": -0.02 * math.Sin(float64(s)),
			"time/step_s": 3 + 0.1*float64(s%3), "prm/step_accuracy": 0.5 + 0.03*float64(s),
			"exp/injected_share": 0.5,
		}
		if s == 0 {
			v = map[string]float64{}
		}
		if s%5 == 0 {
			v["val/success"] = 0.2 + 0.05*float64(s)
		}
		if s == 3 {
			v["reward/mean"] = math.NaN()
		}
		return v
	})
	appendTo(t, filepath.Join(runA, MetricsFile), `{"step":11,"time":"2026-12-06T21:00:11Z","reward/mean":0.9`)

	w, err := episodelog.Create(filepath.Join(runA, EpisodesFile), episodelog.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for step := 1; step <= 3; step++ {
		for r := range 3 {
			outcome := 0.0
			if (step+r)%2 == 0 {
				outcome = 1
			}
			if _, err := w.Write(tokenEpisode(episodelog.PhaseTrain, step, "task-"+strconv.Itoa(r), r, outcome)); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Write(tokenEpisode(episodelog.PhaseValidation, 3, "val-task-0", 0, 1))
	w.Write(episodelog.Failure(episodelog.PhaseTrain, 2, t0, "task-9", "2", "1", "step", "environment step: connection reset"))
	w.Write(episodelog.Failure(episodelog.PhaseTrain, 3, t0, "task-8", "1", "0", "create", "no instance available"))
	w.Close()
	appendTo(t, filepath.Join(runA, EpisodesFile), `{"phase":"train","step":4,"task_id":"task-being-writ`)

	for ai, arm := range []string{"arm-a", "arm-b"} {
		for seed := 1; seed <= 2; seed++ {
			d := filepath.Join(dir, "exp", arm, "seed-"+strconv.Itoa(seed))
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			writeMetrics(t, d, 8, func(s int) map[string]float64 {
				if s%2 != 0 {
					return map[string]float64{"reward/mean": 0.3}
				}
				return map[string]float64{"val/success": 0.2 + float64(ai+1)*0.04*float64(s) + 0.02*float64(seed)}
			})
		}
	}
	return dir
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
