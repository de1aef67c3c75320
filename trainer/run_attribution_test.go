package trainer

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/runlog"
)

// adcaConfig is the tiny configuration with ADCA on for the first RL step
// of two, on toolworld tasks of two and three calls.
func adcaTestConfig(t *testing.T, judge string) Config {
	t.Helper()
	cfg := tinyConfig(t)
	cfg.Env.Toolworld.MaxLevel, cfg.Env.Toolworld.MinLevel = 3, 2
	cfg.Rollout.MaxSteps = 4
	cfg.WarmStart.Steps = 1
	cfg.Attribution.Enable = true
	cfg.Attribution.Judge = judge
	cfg.Attribution.ADCA.PRMSteps = 1
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
// (past prm_steps) trains on GRPO advantages and judges nothing.
func TestFitWithADCAOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := adcaTestConfig(t, JudgeOracle)
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
	if len(keys[2]) != 0 {
		t.Errorf("step 2 is past prm_steps but records %v", keys[2])
	}
}

// TestFitWithADCALLMJudge runs the LLM judge over a scripted model: one
// call per sample in the first step, none after prm_steps.
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
	cfg := adcaTestConfig(t, JudgeLLM)
	if _, err := mustNew(t, cfg, Options{JudgeModel: judge}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Two tasks x two rollouts in step 1, every one with a policy turn.
	if got := calls.Load(); got != 4 {
		t.Errorf("the judge was called %d times, want 4 (step 1 only)", got)
	}
	keys := prmKeys(t, cfg.Trainer.OutputDir)
	if len(keys[1]) == 0 || len(keys[2]) != 0 {
		t.Errorf("prm metrics at step 1: %v, step 2: %v", keys[1], keys[2])
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
	cfg.Attribution.Judge = JudgeLLM
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
			c.Attribution.ADCA.PRMScheme = "allocation"
			c.Attribution.ADCA.ORMDistribution = "only_prm"
		},
		func(c *Config) { c.Attribution.ADCA.PRMSteps = 0 },
		func(c *Config) { c.Attribution.ADCA.SkipType = "skip_everything" },
	} {
		c := FromScratchConfig()
		c.Attribution.Enable = true
		bad(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "attribution_driven_credit_assignment") {
			t.Errorf("Validate = %v", err)
		}
	}
}
