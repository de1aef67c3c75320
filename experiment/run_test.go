package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/trainer"
)

// fakeTrainer stands in for the trainer: it records the configurations it
// is given and writes a metrics log whose validation success is a known
// function of the run.
type fakeTrainer struct {
	t *testing.T
	// value returns the validation success at step of a run; nil uses
	// fakeValue.
	value func(cfg trainer.Config, step int) float64
	// fail returns the error of a run (nil for success); before failing
	// the run still logs its first validation.
	fail func(cfg trainer.Config) error

	mu   sync.Mutex
	runs []trainer.Config
}

// fakeValue: 0.1*seed at step 0, rising by 0.01 a step, plus 0.05 for the
// arm that divides by the std.
func fakeValue(cfg trainer.Config, step int) float64 {
	v := 0.1*float64(cfg.Trainer.Seed) + 0.01*float64(step)
	if cfg.Algorithm.NormAdvByStdInGRPO {
		v += 0.05
	}
	return v
}

func (f *fakeTrainer) train(ctx context.Context, cfg trainer.Config) error {
	f.mu.Lock()
	f.runs = append(f.runs, cfg)
	f.mu.Unlock()
	dir := cfg.Trainer.OutputDir
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("output directory %s is not empty", dir)
	}
	w, err := runlog.NewMetricsWriter(filepath.Join(dir, metricsFile))
	if err != nil {
		return err
	}
	defer w.Close()
	value := f.value
	if value == nil {
		value = fakeValue
	}
	freq := max(cfg.Trainer.TestFreq, 1)
	for step := 0; step <= cfg.Trainer.RLSteps; step++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		values := map[string]float64{"reward/mean": 0.5}
		if step%freq == 0 || step == cfg.Trainer.RLSteps {
			values[ValSuccessMetric] = value(cfg, step)
		}
		if err := w.Write(int64(step), values); err != nil {
			return err
		}
		if step == 0 && f.fail != nil {
			if err := f.fail(cfg); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *fakeTrainer) names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.runs {
		out = append(out, c.Trainer.ExperimentName)
	}
	return out
}

const twoArms = `
name: demo
base:
  config: {trainer: {test_freq: 2}}
  set: [rollout.n=2]
seeds: [1, 2, 3]
steps: 4
arms:
  - name: grpo
  - name: grpo-std
    config: {algorithm: {norm_adv_by_std_in_grpo: true}}
quick:
  seeds: [9]
  steps: 1
  set: [rollout.n=3, trainer.test_freq=1]
`

func mustParse(t *testing.T, text string) File {
	t.Helper()
	f, err := Parse([]byte(text), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRunComparison(t *testing.T) {
	root := t.TempDir()
	fake := &fakeTrainer{t: t}
	var out, progress bytes.Buffer
	c, err := Run(context.Background(), mustParse(t, twoArms), Options{OutputRoot: root, Train: fake.train, Output: &out, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	// Seed by seed, every arm for a seed before the next.
	wantNames := []string{"demo-grpo-s1", "demo-grpo-std-s1", "demo-grpo-s2", "demo-grpo-std-s2", "demo-grpo-s3", "demo-grpo-std-s3"}
	if got := fake.names(); !reflect.DeepEqual(got, wantNames) {
		t.Errorf("runs %q, want %q", got, wantNames)
	}
	for _, cfg := range fake.runs {
		arm := strings.TrimPrefix(cfg.Trainer.ExperimentName[:strings.LastIndex(cfg.Trainer.ExperimentName, "-s")], "demo-")
		if want := filepath.Join(root, "demo", arm, fmt.Sprintf("seed-%d", cfg.Trainer.Seed)); cfg.Trainer.OutputDir != want {
			t.Errorf("%s: output dir %q, want %q", cfg.Trainer.ExperimentName, cfg.Trainer.OutputDir, want)
		}
		if cfg.Trainer.RLSteps != 4 || cfg.Trainer.TestFreq != 2 || cfg.Rollout.N != 2 {
			t.Errorf("%s: rl_steps %d test_freq %d rollout.n %d, want 4, 2, 2", cfg.Trainer.ExperimentName, cfg.Trainer.RLSteps, cfg.Trainer.TestFreq, cfg.Rollout.N)
		}
		if cfg.Algorithm.NormAdvByStdInGRPO != (arm == "grpo-std") {
			t.Errorf("%s: norm_adv_by_std_in_grpo %v", cfg.Trainer.ExperimentName, cfg.Algorithm.NormAdvByStdInGRPO)
		}
		if _, err := os.Stat(cfg.Trainer.OutputDir + ".config.yaml"); err != nil {
			t.Errorf("no resolved configuration beside the run: %v", err)
		}
	}

	if c.Name != "demo" || c.Quick || c.Steps != 4 || len(c.Arms) != 2 {
		t.Fatalf("comparison %+v", c)
	}
	g := c.Arms[0]
	wantCurve := []Point{{0, 0.1}, {2, 0.12}, {4, 0.14}}
	if g.Name != "grpo" || len(g.Seeds) != 3 || !closePoints(g.Seeds[0].ValSuccess, wantCurve) {
		t.Errorf("grpo seeds %+v", g.Seeds)
	}
	// Finals 0.14, 0.24, 0.34: mean 0.24, sample std 0.1.
	if !closeTo(g.FinalMean, 0.24) || !closeTo(g.FinalStd, 0.1) {
		t.Errorf("grpo final %v ± %v, want 0.24 ± 0.1", deref(g.FinalMean), deref(g.FinalStd))
	}
	if s := c.Arms[1]; !closeTo(s.FinalMean, 0.29) || !closeTo(s.FinalStd, 0.1) {
		t.Errorf("grpo-std final %v ± %v, want 0.29 ± 0.1", deref(s.FinalMean), deref(s.FinalStd))
	}

	dir := filepath.Join(root, "demo")
	checkComparisonJSON(t, filepath.Join(dir, ComparisonFile), 2, 3)
	checkPNG(t, filepath.Join(dir, PlotFile))

	table := out.String()
	for _, want := range []string{
		"experiment demo: 4 RL steps per run",
		"arm       runs  final mean ± std  min    max    mean wall",
		"grpo      3/3   0.240 ± 0.100     0.140  0.340",
		"grpo-std  3/3   0.290 ± 0.100     0.190  0.390",
		"grpo      finals: s1 0.140  s2 0.240  s3 0.340",
		"grpo-std  finals: s1 0.190  s2 0.290  s3 0.390",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if n := strings.Count(progress.String(), "final validation success"); n != 6 {
		t.Errorf("%d progress lines of finished runs, want 6:\n%s", n, progress.String())
	}
}

// checkComparisonJSON checks the JSON shape of comparison.json key by key.
func checkComparisonJSON(t *testing.T, path string, arms, seeds int) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("NaN")) || bytes.Contains(data, []byte("Inf")) {
		t.Errorf("comparison.json holds a non-finite number:\n%s", data)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		return sortStrings(ks)
	}
	if got := keys(doc); !reflect.DeepEqual(got, []string{"arms", "name", "quick", "steps", "wall_seconds"}) {
		t.Errorf("top-level keys %q", got)
	}
	as, _ := doc["arms"].([]any)
	if len(as) != arms {
		t.Fatalf("%d arms in JSON, want %d", len(as), arms)
	}
	for _, a := range as {
		am := a.(map[string]any)
		if got := keys(am); !reflect.DeepEqual(got, []string{"final_mean", "final_std", "name", "seeds"}) {
			t.Errorf("arm keys %q", got)
		}
		ss := am["seeds"].([]any)
		if len(ss) != seeds {
			t.Errorf("arm %v: %d seeds, want %d", am["name"], len(ss), seeds)
		}
		for _, s := range ss {
			sm := s.(map[string]any)
			want := []string{"final", "seed", "val_success", "wall_seconds"}
			if _, failed := sm["error"]; failed {
				want = []string{"error", "final", "seed", "val_success", "wall_seconds"}
			}
			if got := keys(sm); !reflect.DeepEqual(got, want) {
				t.Errorf("seed keys %q, want %q", got, want)
			}
			for _, p := range sm["val_success"].([]any) {
				pair, ok := p.([]any)
				if !ok || len(pair) != 2 {
					t.Errorf("val_success point %v is not [step, value]", p)
				}
			}
		}
	}
	return doc
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
	if cfg.Width != plotWidthPx || cfg.Height != plotHeightPx {
		t.Errorf("plot is %dx%d, want %dx%d", cfg.Width, cfg.Height, plotWidthPx, plotHeightPx)
	}
}

func closeTo(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func closePoints(got, want []Point) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Step != want[i].Step || math.Abs(got[i].Value-want[i].Value) > 1e-9 {
			return false
		}
	}
	return true
}

func TestRunFailedRunsAreReported(t *testing.T) {
	root := t.TempDir()
	fake := &fakeTrainer{t: t, fail: func(cfg trainer.Config) error {
		switch cfg.Trainer.ExperimentName {
		case "demo-grpo-s2":
			return errors.New("the environment went away")
		case "demo-grpo-std-s1":
			panic("boom")
		}
		return nil
	}}
	noMetrics := func(ctx context.Context, cfg trainer.Config) error {
		if cfg.Trainer.ExperimentName == "demo-grpo-std-s3" {
			return nil // "succeeds" without validating
		}
		return fake.train(ctx, cfg)
	}
	var out bytes.Buffer
	c, err := Run(context.Background(), mustParse(t, twoArms), Options{OutputRoot: root, Train: noMetrics, Output: &out})
	if !errors.Is(err, ErrRunFailed) || !strings.Contains(err.Error(), "3 of 6 runs") {
		t.Fatalf("Run: %v, want ErrRunFailed for 3 of 6 runs", err)
	}
	if len(fake.runs) != 5 {
		t.Errorf("%d runs trained, want 5 (the others go on after a failure)", len(fake.runs))
	}
	g, s := c.Arms[0], c.Arms[1]
	if len(g.Seeds) != 3 || len(s.Seeds) != 3 {
		t.Fatalf("seeds %d and %d, want 3 each", len(g.Seeds), len(s.Seeds))
	}
	if e := g.Seeds[1].Error; e != "the environment went away" || g.Seeds[1].Final != nil {
		t.Errorf("failed run: error %q final %v", e, deref(g.Seeds[1].Final))
	}
	if len(g.Seeds[1].ValSuccess) != 1 {
		t.Errorf("a failed run keeps the curve it logged, got %v", g.Seeds[1].ValSuccess)
	}
	if e := s.Seeds[0].Error; !strings.Contains(e, "panicked: boom") {
		t.Errorf("panicking run: error %q", e)
	}
	if e := s.Seeds[2].Error; !strings.Contains(e, "read the validation results") {
		t.Errorf("run without metrics: error %q", e)
	}
	// grpo: seeds 1 and 3 (0.14, 0.34); grpo-std: seed 2 only.
	if !closeTo(g.FinalMean, 0.24) || !closeTo(g.FinalStd, math.Sqrt(0.02)) {
		t.Errorf("grpo final %v ± %v", deref(g.FinalMean), deref(g.FinalStd))
	}
	if !closeTo(s.FinalMean, 0.29) || !closeTo(s.FinalStd, 0) {
		t.Errorf("grpo-std final %v ± %v, want 0.29 ± 0 over one seed", deref(s.FinalMean), deref(s.FinalStd))
	}
	doc := checkComparisonJSON(t, filepath.Join(root, "demo", ComparisonFile), 2, 3)
	seed2 := doc["arms"].([]any)[0].(map[string]any)["seeds"].([]any)[1].(map[string]any)
	if seed2["error"] != "the environment went away" || seed2["final"] != nil {
		t.Errorf("failed run in JSON: %v", seed2)
	}
	for _, want := range []string{
		"grpo      2/3", "grpo-std  1/3",
		"grpo      finals: s1 0.140  s2 failed  s3 0.340",
		"failed: grpo seed 2: the environment went away",
		"failed: grpo-std seed 1: training panicked: boom",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunAllFailed(t *testing.T) {
	root := t.TempDir()
	fail := func(context.Context, trainer.Config) error { return errors.New("no") }
	// A stale plot from an earlier experiment must not outlive its data.
	stale := filepath.Join(root, "demo", PlotFile)
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c, err := Run(context.Background(), mustParse(t, twoArms), Options{OutputRoot: root, Train: fail, Output: &out})
	if !errors.Is(err, ErrRunFailed) {
		t.Fatalf("Run: %v", err)
	}
	if c.Arms[0].FinalMean != nil || c.Arms[0].FinalStd != nil {
		t.Errorf("an arm without a successful run has final %v ± %v, want null", deref(c.Arms[0].FinalMean), deref(c.Arms[0].FinalStd))
	}
	data, err := os.ReadFile(filepath.Join(root, "demo", ComparisonFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"final_mean": null`)) {
		t.Errorf("final_mean is not null:\n%s", data)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale plot left behind: %v", err)
	}
	if !strings.Contains(out.String(), "grpo      0/3   -") {
		t.Errorf("table:\n%s", out.String())
	}
}

func TestRunCancel(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fake := &fakeTrainer{t: t}
	started := make(chan struct{})
	train := func(ctx context.Context, cfg trainer.Config) error {
		if cfg.Trainer.ExperimentName != "demo-grpo-std-s1" {
			return fake.train(ctx, cfg)
		}
		close(started)
		<-ctx.Done() // a long run, stopped by the cancellation
		return fmt.Errorf("trainer: %w", ctx.Err())
	}
	go func() {
		<-started
		cancel()
	}()
	began := time.Now()
	c, err := Run(ctx, mustParse(t, twoArms), Options{OutputRoot: root, Train: train})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after 2 of 6 runs") {
		t.Fatalf("Run: %v, want an interruption after 2 of 6 runs", err)
	}
	if time.Since(began) > 10*time.Second {
		t.Errorf("cancellation took %v", time.Since(began))
	}
	if got := fake.names(); !reflect.DeepEqual(got, []string{"demo-grpo-s1"}) {
		t.Errorf("runs after the cancellation: %q", got)
	}
	if len(c.Arms[0].Seeds) != 1 || !c.Arms[0].Seeds[0].OK() {
		t.Errorf("the finished run is not kept: %+v", c.Arms[0].Seeds)
	}
	if s := c.Arms[1].Seeds; len(s) != 1 || !strings.HasPrefix(s[0].Error, "interrupted: ") {
		t.Errorf("the interrupted run: %+v", s)
	}
	saved, err := ReadComparison(filepath.Join(root, "demo", ComparisonFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Arms) != 2 || len(saved.Arms[0].Seeds) != 1 || !closeTo(saved.Arms[0].FinalMean, 0.14) {
		t.Errorf("comparison.json after cancellation: %+v", saved)
	}
	checkPNG(t, filepath.Join(root, "demo", PlotFile))
}

func TestRunCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fake := &fakeTrainer{t: t}
	root := t.TempDir()
	c, err := Run(ctx, mustParse(t, twoArms), Options{OutputRoot: root, Train: fake.train})
	if !errors.Is(err, context.Canceled) || len(fake.runs) != 0 {
		t.Fatalf("Run: %v after %d runs", err, len(fake.runs))
	}
	if len(c.Arms) != 2 || len(c.Arms[0].Seeds) != 0 {
		t.Errorf("comparison %+v", c)
	}
	checkComparisonJSON(t, filepath.Join(root, "demo", ComparisonFile), 2, 0)
}

func TestRunCleansRunDirectory(t *testing.T) {
	root := t.TempDir()
	f := mustParse(t, "name: demo\nseeds: [1]\nsteps: 1\narms: [{name: a}]\n")
	stale := filepath.Join(root, "demo", "a", "seed-1", "checkpoints", "old")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := &fakeTrainer{t: t}
	if _, err := Run(context.Background(), f, Options{OutputRoot: root, Train: fake.train}); err != nil {
		t.Fatalf("Run over an earlier run's directory: %v", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the earlier run's files are still there: %v", err)
	}
}

func TestRunQuick(t *testing.T) {
	root := t.TempDir()
	fake := &fakeTrainer{t: t}
	c, err := Run(context.Background(), mustParse(t, twoArms), Options{OutputRoot: root, Train: fake.train, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := fake.names(); !reflect.DeepEqual(got, []string{"demo-quick-grpo-s9", "demo-quick-grpo-std-s9"}) {
		t.Errorf("quick runs %q", got)
	}
	for _, cfg := range fake.runs {
		if cfg.Trainer.RLSteps != 1 || cfg.Rollout.N != 3 || cfg.Trainer.TestFreq != 1 || cfg.Trainer.Seed != 9 {
			t.Errorf("quick run %s: rl_steps %d rollout.n %d test_freq %d seed %d", cfg.Trainer.ExperimentName,
				cfg.Trainer.RLSteps, cfg.Rollout.N, cfg.Trainer.TestFreq, cfg.Trainer.Seed)
		}
		if !strings.HasPrefix(cfg.Trainer.OutputDir, filepath.Join(root, "demo-quick")+string(filepath.Separator)) {
			t.Errorf("quick run outside demo-quick: %s", cfg.Trainer.OutputDir)
		}
	}
	if !c.Quick || c.Name != "demo-quick" || c.Steps != 1 {
		t.Errorf("comparison %+v", c)
	}
	if _, err := os.Stat(filepath.Join(root, "demo", ComparisonFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a quick run wrote the real experiment's results: %v", err)
	}
	checkComparisonJSON(t, filepath.Join(root, "demo-quick", ComparisonFile), 2, 1)
}

func TestPlanLayerOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("base.yaml", "rollout: {n: 5, top_k: 5, max_steps: 5}\nactor: {lr: 0.5}\ntrainer: {rl_steps: 9, seed: 99, experiment_name: other}\n")
	write("arm.yaml", "rollout: {top_k: 6}\n")
	write("e.yaml", `
name: order
base:
  files: [base.yaml]
  config: {rollout: {n: 6, top_k: 6}}
  set: [rollout.n=7, warm_start.steps=3]
seeds: [4]
arms:
  - name: a
  - name: b
    files: [arm.yaml]
    config: {rollout: {top_k: 8}, warm_start: {steps: 8}}
    set: [rollout.top_k=9]
quick:
  config: {rollout: {max_steps: 2}}
  set: [rollout.top_k=1]
`)
	f, err := Load(filepath.Join(dir, "e.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(f, Options{OutputRoot: "out"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Steps != 9 {
		t.Errorf("steps %d: without steps the base's trainer.rl_steps (9) is the budget", p.Steps)
	}
	type got struct{ N, TopK, MaxSteps, Warm int }
	of := func(c trainer.Config) got {
		return got{c.Rollout.N, c.Rollout.TopK, c.Rollout.MaxSteps, c.WarmStart.Steps}
	}
	// Base: file, then mapping, then overrides; the arm's layer over all
	// of the base (the base's overrides included).
	if g, want := of(p.Jobs[0].Config), (got{7, 6, 5, 3}); g != want {
		t.Errorf("arm a: %+v, want %+v", g, want)
	}
	if g, want := of(p.Jobs[1].Config), (got{7, 9, 5, 8}); g != want {
		t.Errorf("arm b: %+v, want %+v", g, want)
	}
	if c := p.Jobs[1].Config.Trainer; c.Seed != 4 || c.RLSteps != 9 || c.ExperimentName != "order-b-s4" || c.OutputDir != filepath.Join("out", "order", "b", "seed-4") {
		t.Errorf("arm b's trainer section %+v", c)
	}
	q, err := NewPlan(f, Options{OutputRoot: "out", Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	// The quick layer goes over each arm's.
	if g, want := of(q.Jobs[1].Config), (got{7, 1, 2, 8}); g != want {
		t.Errorf("quick arm b: %+v, want %+v", g, want)
	}
	if q.Steps != DefaultQuickSteps || q.Dir != filepath.Join("out", "order-quick") || len(q.Jobs) != 2 {
		t.Errorf("quick plan: steps %d dir %s jobs %d", q.Steps, q.Dir, len(q.Jobs))
	}
}

func TestPlanErrors(t *testing.T) {
	const head = "name: x\nseeds: [1]\n"
	tests := []struct {
		name, yaml string
		quick      bool
		want       string
	}{
		{"unknown key in an arm", head + "arms: [{name: a}, {name: b, config: {rollout: {nn: 2}}}]\n", false, `arm "b": `},
		{"unknown key named", head + "arms: [{name: a, set: [rollout.nn=2]}]\n", false, `unknown key "rollout.nn"`},
		{"unknown key in the base", head + "base: {config: {rollot: {n: 2}}}\narms: [{name: a}]\n", false, `base: `},
		{"invalid value", head + "arms: [{name: a, set: [rollout.n=0]}]\n", false, "rollout.n 0 must be > 0"},
		{"mistyped value", head + "arms: [{name: a, set: [rollout.n=many]}]\n", false, `arm "a"`},
		{"missing file", head + "base: {files: [nope.yaml]}\narms: [{name: a}]\n", false, "nope.yaml"},
		{"arm sets the budget", head + "arms: [{name: a, set: [trainer.rl_steps=3]}]\n", false, `arm "a" sets trainer.rl_steps`},
		{"arm sets the seed", head + "arms: [{name: a, config: {trainer: {seed: 3}}}]\n", false, `arm "a" sets trainer.seed`},
		{"arm sets the output", head + "arms: [{name: a, set: [trainer.output_dir=elsewhere]}]\n", false, `arm "a" sets trainer.output_dir`},
		{"arm sets the name", head + "arms: [{name: a, set: [trainer.experiment_name=y]}]\n", false, `arm "a" sets trainer.experiment_name`},
		{"quick sets the budget", head + "arms: [{name: a}]\nquick: {set: [trainer.rl_steps=1]}\n", true, "the quick layer sets trainer.rl_steps"},
		{"quick layer invalid", head + "arms: [{name: a}]\nquick: {set: [rollout.n=-1]}\n", true, `quick layer over arm "a"`},
		{"conflicting overrides", head + "arms: [{name: a, set: [rollout.n=2, rollout.n.x=3]}]\n", false, "not a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.yaml)
			_, err := NewPlan(f, Options{OutputRoot: t.TempDir(), Quick: tt.quick})
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewPlan: %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
	// A plan error trains nothing and writes nothing.
	root := t.TempDir()
	fake := &fakeTrainer{t: t}
	_, err := Run(context.Background(), mustParse(t, head+"arms: [{name: a}, {name: b, set: [rollout.nn=1]}]\n"), Options{OutputRoot: root, Train: fake.train})
	if !errors.Is(err, ErrInvalid) || len(fake.runs) != 0 {
		t.Errorf("Run with a bad arm: %v after %d runs", err, len(fake.runs))
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("Run with a bad arm wrote %d entries", len(entries))
	}
}

func TestTrainerOptionsPerRun(t *testing.T) {
	// Without Train, a run builds the real trainer with the options
	// TrainerOptions returns for its configuration. A configuration that
	// trainer.New rejects shows the path without training anything.
	var seen []string
	opts := Options{TrainerOptions: func(cfg trainer.Config) trainer.Options {
		seen = append(seen, cfg.Trainer.ExperimentName)
		return trainer.Options{}
	}}
	cfg, err := trainer.LoadConfig(nil, []string{"trainer.experiment_name=x"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Trainer.OutputDir = "" // invalid: trainer.New refuses it
	if err := opts.train(context.Background(), cfg); err == nil {
		t.Fatal("train with an invalid configuration succeeded")
	}
	if !reflect.DeepEqual(seen, []string{"x"}) {
		t.Errorf("TrainerOptions saw %q", seen)
	}
}

// TestRunBaseDiffAndAtK checks what a comparison reads beyond the success
// curve: the final avg@k and best@k of every run, their spread per arm, the
// difference of an arm from its base arm paired by seed, and the table's
// columns for them.
func TestRunBaseDiffAndAtK(t *testing.T) {
	const text = `
name: ablation
seeds: [1, 2, 3]
steps: 2
base:
  config: {rollout: {val_n: 4}}
arms:
  - name: base
  - name: plus
    base: base
    config: {rollout: {n: 8}}
`
	train := func(ctx context.Context, cfg trainer.Config) error {
		w, err := runlog.NewMetricsWriter(filepath.Join(cfg.Trainer.OutputDir, metricsFile))
		if err != nil {
			return err
		}
		defer w.Close()
		seed := float64(cfg.Trainer.Seed)
		gain, start, turns := 0.0, 0.0, 3.0
		if cfg.Rollout.N == 8 {
			// The plus arm gains 1, 2 and 3 points, starting 5 below
			// and reaching the base's final at the last step.
			gain, start, turns = 0.01*seed, -0.05, 2.5
		}
		steps := float64(cfg.Trainer.RLSteps)
		for step := range cfg.Trainer.RLSteps + 1 {
			v := 0.1*seed + start + (gain-start)*float64(step)/steps
			if step == cfg.Trainer.RLSteps {
				v = 0.1*seed + gain
			}
			if err := w.Write(int64(step), map[string]float64{
				ValSuccessMetric: v, "val/avg@4": 0.1*seed + gain + 0.001*float64(step), "val/best@4": 2 * (0.1*seed + gain),
				TurnsPerSuccessMetric: turns,
			}); err != nil {
				return err
			}
		}
		return nil
	}
	var out bytes.Buffer
	c, err := Run(context.Background(), mustParse(t, text), Options{OutputRoot: t.TempDir(), Train: train, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	base, plus := c.Arms[0], c.Arms[1]
	if base.Base != "" || base.DiffFromBase != nil {
		t.Errorf("base arm: base %q diff %+v, want none", base.Base, base.DiffFromBase)
	}
	if plus.Base != "base" || plus.DiffFromBase == nil || plus.DiffFromBase.N != 3 ||
		math.Abs(plus.DiffFromBase.Mean-0.02) > 1e-9 || math.Abs(plus.DiffFromBase.Std-0.01) > 1e-9 {
		t.Errorf("plus arm diff %+v, want 0.02 ± 0.01 over 3 pairs", plus.DiffFromBase)
	}
	// t(2 df) = 4.303: 0.02 ± 4.303·0.01/√3.
	if d := plus.DiffFromBase; d == nil || d.CILow == nil || d.CIHigh == nil ||
		math.Abs(*d.CILow-(0.02-0.024843)) > 1e-5 || math.Abs(*d.CIHigh-(0.02+0.024843)) > 1e-5 || d.Excludes0() ||
		!slices.Equal(d.Seeds, []int64{1, 2, 3}) {
		t.Errorf("plus arm interval %+v", d)
	}
	if plus.StepsToBase == nil || plus.StepsToBase.Mean != 2 || plus.ReachedBase != 3 || base.StepsToBase != nil {
		t.Errorf("steps to base: plus %+v (%d), base %+v", plus.StepsToBase, plus.ReachedBase, base.StepsToBase)
	}
	if plus.TurnsPerSuccess == nil || plus.TurnsPerSuccess.Mean != 2.5 || base.TurnsPerSuccess.Mean != 3 {
		t.Errorf("turns per success: plus %+v base %+v", plus.TurnsPerSuccess, base.TurnsPerSuccess)
	}
	if base.K != 4 || base.AvgAtK == nil || math.Abs(base.AvgAtK.Mean-0.202) > 1e-9 ||
		base.BestAtK == nil || math.Abs(base.BestAtK.Mean-0.4) > 1e-9 || math.Abs(base.BestAtK.Std-0.2) > 1e-9 {
		t.Errorf("base arm k %d avg@k %+v best@k %+v, want 4, 0.202 (the last step's), 0.4 ± 0.2", base.K, base.AvgAtK, base.BestAtK)
	}
	if s := base.Seeds[0]; s.K != 4 || s.AvgAtK == nil || math.Abs(*s.AvgAtK-0.102) > 1e-12 || s.BestAtK == nil || *s.BestAtK != 0.2 {
		t.Errorf("seed 1: k %d avg@k %v best@k %v", s.K, deref(s.AvgAtK), deref(s.BestAtK))
	}
	if c.WallSeconds <= 0 {
		t.Errorf("experiment wall time %v", c.WallSeconds)
	}
	table := out.String()
	for _, want := range []string{"avg@4", "best@4", "vs base (paired, 95% CI)", "+0.020 ± 0.010 [-0.005, +0.045] vs base",
		"2.0 ± 0.000 (3/3 seeds)", "turns/success", "2.50 ± 0.000", "0.202 ± 0.100", "wall time of the experiment:"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	read, err := ReadComparison(filepath.Join(t.TempDir(), "none.json"))
	if err == nil {
		t.Errorf("ReadComparison of a missing file: %+v", read)
	}
}

// TestTableWithoutAtKOrBase keeps the plain table free of empty columns.
func TestTableWithoutAtKOrBase(t *testing.T) {
	var out bytes.Buffer
	c := Comparison{Name: "x", Steps: 1, Arms: []ArmResult{{Name: "a", Seeds: []SeedResult{{Seed: 1, Final: fp(0.5), K: 1, AvgAtK: fp(0.5), BestAtK: fp(0.5)}}}}}
	c.summarize()
	if err := WriteTable(&out, c); err != nil {
		t.Fatal(err)
	}
	for _, unwanted := range []string{"avg@", "vs base", "wall time of the experiment"} {
		if strings.Contains(out.String(), unwanted) {
			t.Errorf("table has %q with k = 1, no base and no wall time:\n%s", unwanted, out.String())
		}
	}
}
