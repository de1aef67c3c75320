package trainer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/attribution"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/runlog"
)

// adcaTestConfig is the tiny configuration with ADCA on for the first RL
// step of two (RL steps count from 1, so prm_steps 2 replaces step 1's
// advantages only), on toolworld tasks of two and three calls.
func adcaTestConfig(t *testing.T, judge string) Config {
	t.Helper()
	cfg := tinyConfig(t)
	cfg.Env.Toolworld.MaxLevel, cfg.Env.Toolworld.MinLevel = 3, 2
	cfg.Rollout.MaxSteps = 4
	cfg.WarmStart.Steps = 1
	cfg.Attribution.Enable = true
	cfg.Attribution.Judge = judge
	cfg.Attribution.ADCA.PRMSteps = 2
	return cfg
}

// prmKeys returns the prm/* metric keys of each RL step of a run.
func prmKeys(t *testing.T, dir string) map[int64][]string {
	t.Helper()
	records, err := runlog.ReadMetrics(dir + "/" + MetricsFile)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64][]string{}
	for _, r := range records {
		if _, ok := r.Value("reward/mean"); !ok {
			continue
		}
		out[r.Step] = nil
		for k := range r.Values {
			if strings.HasPrefix(k, "prm/") {
				out[r.Step] = append(out[r.Step], k)
			}
		}
	}
	return out
}

// TestFitWithADCAOracle trains with ADCA-GRPO and toolworld's step oracle:
// the first step records the judge's and the fusion's metrics, the second
// (past prm_steps) trains on GRPO advantages but, as in the reference,
// still judges and records the judge's metrics.
func TestFitWithADCAOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := adcaTestConfig(t, attribution.JudgeOracle)
	s, err := mustNew(t, cfg, Options{}).Fit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.RLSteps != 2 {
		t.Fatalf("summary %+v", s)
	}
	checkMetricsDocumented(t, cfg.Trainer.OutputDir)
	keys := prmKeys(t, cfg.Trainer.OutputDir)
	for _, want := range []string{"prm/parse_success_rate", "prm/decouple/attr_mean", "prm/decouple/sum_step_reward_sign_agree", "prm/alpha"} {
		found := false
		for _, k := range keys[1] {
			found = found || k == want
		}
		if !found {
			t.Errorf("step 1 lacks %s (has %v)", want, keys[1])
		}
	}
	checkPastPRMSteps(t, keys[2])
}

// checkPastPRMSteps checks the prm/* keys of a step past prm_steps: the
// judge's metrics, none of the fusion's.
func checkPastPRMSteps(t *testing.T, keys []string) {
	t.Helper()
	judged := false
	for _, k := range keys {
		judged = judged || k == "prm/parse_success_rate"
		if strings.HasPrefix(k, "prm/decouple/") || k == "prm/alpha" {
			t.Errorf("step 2 is past prm_steps but records the fusion's %s", k)
		}
	}
	if !judged {
		t.Errorf("step 2 records no judge metrics (has %v); the reference judges every step", keys)
	}
}

// TestFitWithADCALLMJudge runs the LLM judge over a scripted model: one
// call per sample at every step, past prm_steps too, as the reference
// does; the records of every judged sample land in
// llm_evaluation_log_dir.
func TestFitWithADCALLMJudge(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	var calls atomic.Int64
	judge := llm.ChatModelFunc(func(_ context.Context, msgs []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
		calls.Add(1)
		// Label every step GOOD, whatever the count, through the free-word
		// fallback of the parser.
		n := strings.Count(msgs[len(msgs)-1].Content, ">>> EVAL-STEP")
		return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: strings.Repeat("GOOD ", n)}}, nil
	})
	cfg := adcaTestConfig(t, attribution.JudgeLLM)
	cfg.Attribution.LLMEvaluationLogDir = "judge_records"
	if _, err := mustNew(t, cfg, Options{JudgeModel: judge}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Two tasks x two rollouts in each step, every one with a policy turn.
	if got := calls.Load(); got != 8 {
		t.Errorf("the judge was called %d times, want 8 (4 in each step)", got)
	}
	keys := prmKeys(t, cfg.Trainer.OutputDir)
	if len(keys[1]) == 0 {
		t.Errorf("no prm metrics at step 1")
	}
	checkPastPRMSteps(t, keys[2])
	for step := 1; step <= 2; step++ {
		files, err := filepath.Glob(filepath.Join(cfg.Trainer.OutputDir, "judge_records", fmt.Sprintf("step_%06d", step), "*.json"))
		if err != nil || len(files) != 4 {
			t.Errorf("step %d: %d judge records (%v), want 4", step, len(files), err)
		}
	}
}

func TestADCAConfigErrors(t *testing.T) {
	env := &echoEnv{}
	cfg := echoConfig(t)
	cfg.Attribution.Enable = true
	_, err := New(cfg, Options{Env: echoManager(t, env)})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "StepOracle") {
		t.Errorf("oracle judge over an environment without one: err = %v", err)
	}
	cfg.Attribution.Judge = attribution.JudgeLLM
	tr, err := New(cfg, Options{Env: echoManager(t, env)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Fit(context.Background()); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "JudgeModel") {
		t.Errorf("LLM judge without a model: err = %v", err)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Attribution.Judge = "crystal-ball" },
		func(c *Config) {
			c.Attribution.ADCA.Scheme = attribution.ADCAAllocation
			c.Attribution.ADCA.ORMDistribution = attribution.ORMOnlyPRM
		},
		func(c *Config) { c.Attribution.ADCA.PRMSteps = 0 },
		// Steps count from 1: prm_steps 1 would never replace anything.
		func(c *Config) { c.Attribution.ADCA.PRMSteps = 1 },
		func(c *Config) { c.Attribution.LLMEvaluationLogDir = "../outside" },
		func(c *Config) { c.Attribution.ADCA.Skip = "skip_everything" },
	} {
		c := FromScratchConfig()
		c.Attribution.Enable = true
		bad(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "attribution_driven_credit_assignment") {
			t.Errorf("Validate = %v", err)
		}
	}
}

// judgeFirstGood is a judge that labels the first step GOOD, the others
// BAD.
var judgeFirstGood = attribution.JudgeFunc(func(_ context.Context, eps []attribution.Episode) ([]attribution.Judgment, error) {
	out := make([]attribution.Judgment, len(eps))
	for i, ep := range eps {
		out[i].Good = make([]bool, len(ep.Steps))
		out[i].Good[0] = true
	}
	return out, nil
})

// adcaInput is one RL step of two groups of two samples with two steps
// each, one success and one failure per group.
func adcaInput(step int) AdvantageInput {
	steps := []agentevolver.SampleStep{{Action: "a"}, {Action: "b"}}
	in := AdvantageInput{Step: step, Groups: []int32{0, 0, 1, 1}}
	for i := range 4 {
		in.Samples = append(in.Samples, agentevolver.Sample{TaskID: fmt.Sprint(i / 2), Steps: steps})
		in.LossMask = append(in.LossMask, []float32{0, 1, 1, 0, 1, 1})
		in.GRPO = append(in.GRPO, make([]float32, 6))
		r := make([]float32, 6)
		r[5] = float32(i % 2)
		in.Rewards = append(in.Rewards, r)
		in.StepIDs = append(in.StepIDs, []int{-1, 0, 0, -1, 1, 1})
	}
	return in
}

// TestADCAEstimatorSteps: RL steps count from 1 as the reference's
// global_steps (prm_steps 2 replaces the advantages of the first RL step
// only, and the cosine progress of the first step is 1/total_steps); the
// judge runs and its metrics are logged past prm_steps; explicit zeros of
// fix_base, consistent_scale and total_steps are honoured; with
// enable_adca_metric alone nothing is replaced.
func TestADCAEstimatorSteps(t *testing.T) {
	backend, err := model.NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(backend.Finalize)
	ctx := context.Background()
	base := FromScratchConfig().Attribution
	base.Enable = true
	base.ADCA.PRMSteps = 2
	est := func(a attribution.Config) *adcaEstimator {
		return &adcaEstimator{cfg: a.ADCAConfig(), judge: judgeFirstGood, backend: backend, overwrite: a.Enable}
	}

	e := est(base)
	first, err := e.Advantages(ctx, adcaInput(0))
	if err != nil {
		t.Fatal(err)
	}
	if first.Advantages == nil {
		t.Fatal("RL step 1 (global step 1 < prm_steps 2): no ADCA advantages")
	}
	second, err := e.Advantages(ctx, adcaInput(1))
	if err != nil {
		t.Fatal(err)
	}
	if second.Advantages != nil {
		t.Fatal("RL step 2 (global step 2, not < prm_steps 2): ADCA replaced the advantages")
	}
	if _, ok := second.Metrics["prm/parse_success_rate"]; !ok {
		t.Errorf("past prm_steps: metrics %v lack the judge's", second.Metrics)
	}
	if _, ok := second.Metrics["prm/alpha"]; ok {
		t.Errorf("past prm_steps: metrics %v have the fusion's", second.Metrics)
	}

	decay := base
	decay.ADCA.AlphaCosineDecay = true
	decay.ADCA.TotalSteps = new(2)
	got, err := est(decay).Advantages(ctx, adcaInput(0))
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Metrics["prm/alpha"]; math.Abs(a-0.05) > 1e-12 {
		t.Errorf("first RL step with total_steps 2: alpha %v, want 0.05 (progress 1/2)", a)
	}
	decay.ADCA.TotalSteps = new(0) // explicit: no progress
	if got, err = est(decay).Advantages(ctx, adcaInput(0)); err != nil {
		t.Fatal(err)
	}
	if a := got.Metrics["prm/alpha"]; math.Abs(a-0.1) > 1e-12 {
		t.Errorf("total_steps 0: alpha %v, want 0.1 (no progress, as the reference)", a)
	}

	zero := base
	zero.ADCA.FixBase = new(0.0)
	if got, err = est(zero).Advantages(ctx, adcaInput(0)); err != nil {
		t.Fatal(err)
	}
	// fix_base 0: no process reward, so every token of a sample carries
	// its standardised outcome.
	for i, row := range got.Advantages {
		if row[1] != row[4] {
			t.Errorf("fix_base 0: sample %d advantages %v differ between steps", i, row)
		}
	}
	alloc := base
	alloc.ADCA.Scheme = attribution.ADCAAllocation
	def, err := est(alloc).Advantages(ctx, adcaInput(0))
	if err != nil {
		t.Fatal(err)
	}
	alloc.ConsistentScale = new(0.0)
	if got, err = est(alloc).Advantages(ctx, adcaInput(0)); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Advantages) == fmt.Sprint(def.Advantages) {
		t.Errorf("consistent_scale 0 gives the default's advantages %v", def.Advantages)
	}

	metric := base
	metric.Enable, metric.ADCA.EnableMetric = false, true
	if err := metric.Validate(); err != nil {
		t.Fatal(err)
	}
	only := est(metric)
	only.recordDir = t.TempDir()
	got, err = only.Advantages(ctx, adcaInput(0))
	if err != nil {
		t.Fatal(err)
	}
	if got.Advantages != nil || got.Metrics["prm/good_steps_total"] != 4 {
		t.Errorf("enable_adca_metric alone: advantages %v, metrics %v; want none and the judge's", got.Advantages, got.Metrics)
	}
	if entries, err := os.ReadDir(filepath.Join(only.recordDir, "step_000001")); err != nil || len(entries) != 4 {
		t.Errorf("judge records of global step 1: %d (%v), want 4", len(entries), err)
	}
}

// TestADCAExplicitZerosLoad: zeros written in a user's file reach ADCA
// as zeros.
func TestADCAExplicitZerosLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "adca.yaml")
	if err := os.WriteFile(file, []byte(`
attribution_driven_credit_assignment:
  enable: true
  consistent_scale: 0
  adca_grpo: {fix_base: 0, total_steps: 0, do_batch_norm: false}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfigOver(FromScratchConfig(), []string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Attribution.ADCAConfig()
	if a.FixBase == nil || *a.FixBase != 0 || a.ConsistentScale == nil || *a.ConsistentScale != 0 || a.TotalSteps == nil || *a.TotalSteps != 0 {
		t.Fatalf("ADCA config %+v: explicit zeros lost", a)
	}
	if a.BatchNorm == nil || *a.BatchNorm || a.EqualTrajectoryWeight == nil || !*a.EqualTrajectoryWeight {
		t.Fatalf("ADCA config %+v: do_batch_norm false or equal_trajectory_weight's default true lost", a)
	}
}
