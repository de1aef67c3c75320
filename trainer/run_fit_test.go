package trainer

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/runlog"
)

// tinyConfig is a configuration small enough to run Fit end to end in a
// test: a one-layer model, two tasks per step, short turns.
func tinyConfig(t *testing.T) Config {
	t.Helper()
	cfg := FromScratchConfig()
	cfg.Trainer.ExperimentName = "test"
	cfg.Trainer.OutputDir = t.TempDir()
	cfg.Trainer.RLSteps = 2
	cfg.Trainer.TestFreq = 1
	cfg.Trainer.SaveFreq = 1
	cfg.Trainer.Progress = false
	cfg.Data.TrainBatchSize = 2
	cfg.Data.ValTasks = 2
	cfg.Env.Toolworld.TrainSize = 12
	cfg.Env.Toolworld.ValSize = 6
	cfg.Env.Toolworld.TestSize = 3
	cfg.Model.Shape = ModelShape{HiddenSize: 16, NumLayers: 1, NumHeads: 2, NumKVHeads: 1, IntermediateSize: 32, MaxPositions: 1024, RopeTheta: 10000}
	cfg.Rollout.N = 2
	cfg.Rollout.ResponseLength = 12
	cfg.Rollout.MaxSteps = 2
	cfg.Rollout.Concurrency = 1 // serial rollouts: bit-for-bit reproducible
	cfg.WarmStart = WarmStartConfig{Steps: 2, BatchSize: 2, LR: 1e-3, Demos: 3}
	return cfg
}

func TestFitEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model end to end")
	}
	cfg := tinyConfig(t)
	var out bytes.Buffer
	tr, err := New(cfg, withToolworld(Options{Output: &out}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := tr.Fit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkMetricsDocumented(t, cfg.Trainer.OutputDir)
	if s.RLSteps != 2 || s.Seed != cfg.Trainer.Seed || !(s.WallSeconds > 0) {
		t.Fatalf("summary %+v", s)
	}
	records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	// Validation at 0, then each step's RL record and validation.
	var rlSteps, valSteps []int64
	for _, r := range records {
		if _, ok := r.Value("reward/mean"); ok {
			rlSteps = append(rlSteps, r.Step)
			for _, k := range []string{"reward/success", "actor/pg_loss", "actor/grad_norm", "actor/kl_loss", "rollout/episodes", "time/step_s"} {
				if _, ok := r.Value(k); !ok {
					t.Errorf("step %d lacks %s", r.Step, k)
				}
			}
			if n, _ := r.Value("rollout/episodes"); n != 4 {
				t.Errorf("step %d ran %v episodes, want 4", r.Step, n)
			}
		}
		if _, ok := r.Value("val/success"); ok {
			valSteps = append(valSteps, r.Step)
		}
	}
	if !equalInts(rlSteps, []int64{1, 2}) || !equalInts(valSteps, []int64{0, 1, 2}) {
		t.Fatalf("RL records at %v, validation at %v", rlSteps, valSteps)
	}
	for _, f := range []string{SummaryFile, PlotFile, WarmStartMetricsFile, filepath.Join(FinalModelDir, "config.json"),
		filepath.Join(ReferenceDir, "config.json"), filepath.Join(CheckpointDir, "latest"), filepath.Join(CheckpointDir, "step_000002", "state.json")} {
		if _, err := os.Stat(filepath.Join(cfg.Trainer.OutputDir, f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	if _, err := runlog.ReadSummary(filepath.Join(cfg.Trainer.OutputDir, SummaryFile)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "after RL") {
		t.Fatalf("no summary table in the output:\n%s", out.String())
	}
}

// failAt is a recorder that fails at one step, simulating a crash.
type failAt int

var errCrash = errors.New("simulated crash")

func (f failAt) Record(_ context.Context, step int, _ []agentevolver.Trajectory) error {
	if step == int(f) {
		return errCrash
	}
	return nil
}

func TestResumeMatchesUninterruptedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model three times")
	}
	straight := tinyConfig(t)
	straight.WarmStart.Steps = 1
	if _, err := mustNew(t, straight, Options{}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}

	resumed := straight
	resumed.Trainer.OutputDir = t.TempDir()
	_, err := mustNew(t, resumed, Options{Hooks: Hooks{Recorder: failAt(1)}}).Fit(context.Background())
	if !errors.Is(err, errCrash) {
		t.Fatalf("first leg: err = %v, want the simulated crash", err)
	}
	if _, err := mustNew(t, resumed, Options{Resume: true}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}

	for _, f := range []string{filepath.Join(FinalModelDir, "model.safetensors"), filepath.Join(ReferenceDir, "model.safetensors")} {
		a, err := os.ReadFile(filepath.Join(straight.Trainer.OutputDir, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(resumed.Trainer.OutputDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the uninterrupted and the resumed run", f)
		}
	}
	a := metricsWithoutTimes(t, straight.Trainer.OutputDir)
	b := metricsWithoutTimes(t, resumed.Trainer.OutputDir)
	if a != b {
		t.Errorf("metrics differ:\nuninterrupted:\n%s\nresumed:\n%s", a, b)
	}
}

func TestResumeRefusesAnotherSeed(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps = 0
	cfg.Trainer.RLSteps = 1
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg.Trainer.Seed++
	_, err := mustNew(t, cfg, Options{Resume: true}).Fit(context.Background())
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "seed") {
		t.Fatalf("err = %v, want a seed mismatch", err)
	}
}

func mustNew(t *testing.T, cfg Config, opts Options) *Trainer {
	t.Helper()
	tr, err := New(cfg, withToolworld(opts))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// metricsWithoutTimes renders the metrics file without wall-clock values.
func metricsWithoutTimes(t *testing.T, dir string) string {
	t.Helper()
	records, err := runlog.ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range records {
		b.WriteString("step ")
		b.WriteString(itoa64(r.Step))
		for _, k := range slices.Sorted(maps.Keys(r.Values)) {
			if strings.HasPrefix(k, "time/") {
				continue
			}
			b.WriteString(" " + k + "=" + ftoa(r.Values[k]))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestFitWithCompanionEnvService trains against the built-in environment
// served over HTTP on loopback, as a remote env service would be used.
func TestFitWithCompanionEnvService(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.Env.Companion = true
	cfg.WarmStart.Steps = 1
	cfg.Trainer.RLSteps = 1
	s, err := mustNew(t, cfg, Options{}).Fit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.RLSteps != 1 {
		t.Fatalf("summary %+v", s)
	}
}

// TestFitWithLearnedTokenizer learns the tokenizer from the environment,
// saves it beside every policy, and evaluates the final policy with it.
func TestFitWithLearnedTokenizer(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.Model.Tokenizer = TokenizerFromEnv
	cfg.Model.TokenizerVocab = 400
	cfg.Trainer.RLSteps = 1
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{TokenizerDir, FinalModelDir, ReferenceDir} {
		if _, err := os.Stat(filepath.Join(cfg.Trainer.OutputDir, d, "tokenizer.json")); err != nil {
			t.Errorf("no tokenizer in %s: %v", d, err)
		}
	}
	var transcripts bytes.Buffer
	stats, err := Evaluate(context.Background(), cfg, withToolworld(Options{}), EvalOptions{Checkpoint: filepath.Join(cfg.Trainer.OutputDir, FinalModelDir), K: 2, Tasks: 2, Trajectories: &transcripts})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Tasks != 2 || stats.K != 2 {
		t.Fatalf("evaluated %+v", stats)
	}
	trajs, err := agentflow.ReadTrajectories(&transcripts)
	if err != nil {
		t.Fatal(err)
	}
	if len(trajs) != 4 {
		t.Fatalf("%d trajectories written, want 4 (2 tasks x 2)", len(trajs))
	}
	for i, tr := range trajs {
		if want := strconv.Itoa(i / 2); tr.DataID != want || len(tr.Steps) == 0 {
			t.Errorf("trajectory %d: data id %q (want %q), %d steps", i, tr.DataID, want, len(tr.Steps))
		}
	}
}

// TestResumeFinishedRun resumes a run that had already finished: nothing
// is trained or validated again and the summary is the same.
func TestResumeFinishedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps = 1
	first, err := mustNew(t, cfg, Options{}).Fit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := metricsWithoutTimes(t, cfg.Trainer.OutputDir)
	again, err := mustNew(t, cfg, Options{Resume: true}).Fit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if after := metricsWithoutTimes(t, cfg.Trainer.OutputDir); after != before {
		t.Fatalf("metrics changed:\n%s\nthen\n%s", before, after)
	}
	if again.ValSuccessFinal != first.ValSuccessFinal || again.RLSteps != first.RLSteps {
		t.Fatalf("summaries differ: %+v vs %+v", first, again)
	}
}
