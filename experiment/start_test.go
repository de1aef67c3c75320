package experiment

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver/trainer"
)

const withStart = `
name: st
base:
  config: {trainer: {test_freq: 2}, warm_start: {steps: 7}, model: {tokenizer_vocab: 512}}
start:
  set: [warm_start.steps=9, warm_start.demos=30]
seeds: [1, 2]
steps: 4
arms:
  - name: a
  - name: b
    base: a
    set: [rollout.n=3, warm_start.demos=5]
quick:
  set: [warm_start.batch_size=2]
`

// TestPlanStart checks the start runs: one per seed before its arms, no RL
// step, the start layer over the base; every arm of the seed loads the start
// run's final policy with its tokenizer and no warm start of its own.
func TestPlanStart(t *testing.T) {
	root := t.TempDir()
	p, err := NewPlan(mustParse(t, withStart), Options{OutputRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range p.Jobs {
		got = append(got, j.Config.Trainer.ExperimentName)
	}
	want := []string{"st-start-s1", "st-a-s1", "st-b-s1", "st-start-s2", "st-a-s2", "st-b-s2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("jobs %q, want %q", got, want)
	}
	if !reflect.DeepEqual(p.Arms, []string{"a", "b"}) {
		t.Errorf("arms %q: the start runs are not an arm", p.Arms)
	}
	for _, j := range p.Jobs {
		c := j.Config
		startDir := filepath.Join(root, "st", StartDir, "seed-"+map[int64]string{1: "1", 2: "2"}[j.Seed])
		if j.Start {
			if j.Arm != StartDir || c.Trainer.RLSteps != 0 || c.Trainer.OutputDir != startDir {
				t.Errorf("start job %+v: rl_steps %d dir %s", j.Arm, c.Trainer.RLSteps, c.Trainer.OutputDir)
			}
			if c.WarmStart.Steps != 9 || c.WarmStart.Demos != 30 || c.Model.TokenizerVocab != 512 {
				t.Errorf("start job: warm start %+v vocab %d, want the start layer over the base", c.WarmStart, c.Model.TokenizerVocab)
			}
			continue
		}
		if c.Trainer.RLSteps != 4 || c.Model.Path != filepath.Join(startDir, trainer.FinalModelDir) {
			t.Errorf("%s: rl_steps %d model.path %q", c.Trainer.ExperimentName, c.Trainer.RLSteps, c.Model.Path)
		}
		if c.WarmStart.Steps != 0 || c.Model.Tokenizer != "" || c.Model.TokenizerVocab != 0 {
			t.Errorf("%s: warm start %d, tokenizer %q/%d: an arm starts from the start policy as it is", c.Trainer.ExperimentName, c.WarmStart.Steps, c.Model.Tokenizer, c.Model.TokenizerVocab)
		}
		// The arm's own keys stay its own, including those the start run
		// ignores (warm_start.demos).
		if j.Arm == "b" && (c.Rollout.N != 3 || c.WarmStart.Demos != 5) {
			t.Errorf("arm b: rollout.n %d demos %d", c.Rollout.N, c.WarmStart.Demos)
		}
	}
	q, err := NewPlan(mustParse(t, withStart), Options{OutputRoot: root, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if j := q.Jobs[0]; !j.Start || j.Config.WarmStart.BatchSize != 2 || j.Config.WarmStart.Steps != 9 {
		t.Errorf("quick start job %+v: the quick layer goes over the start layer", j.Config.WarmStart)
	}
}

func TestPlanStartErrors(t *testing.T) {
	const head = "name: x\nseeds: [1]\nstart: {}\n"
	tests := []struct{ name, yaml, want string }{
		{"arm named start", head + "arms: [{name: Start}]\n", `the start runs' directory`},
		{"arm sets model.path", head + "arms: [{name: a, set: [model.path=elsewhere]}]\n", `arm "a" sets model.path`},
		{"arm sets the warm start", head + "arms: [{name: a, set: [warm_start.steps=3]}]\n", `arm "a" sets warm_start.steps`},
		{"arm sets the tokenizer", head + "arms: [{name: a, set: [model.tokenizer=byte]}]\n", `arm "a" sets model.tokenizer`},
		{"start sets the budget", "name: x\nseeds: [1]\nstart: {set: [trainer.rl_steps=3]}\narms: [{name: a}]\n", "the start layer sets trainer.rl_steps"},
		{"start has an unknown key", "name: x\nseeds: [1]\nstart: {set: [warm_start.stepz=3]}\narms: [{name: a}]\n", "start: "},
		{"start set not key=value", "name: x\nseeds: [1]\nstart: {set: [nope]}\narms: [{name: a}]\n", `start: set "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.yaml), t.TempDir())
			if err == nil {
				_, err = NewPlan(f, Options{OutputRoot: t.TempDir()})
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
	// Without a start layer an arm may be named start and set those keys.
	f := mustParse(t, "name: x\nseeds: [1]\narms: [{name: start, set: [warm_start.steps=3]}]\n")
	if _, err := NewPlan(f, Options{OutputRoot: t.TempDir()}); err != nil {
		t.Errorf("no start layer: %v", err)
	}
}

// TestRunStart checks that the start runs train first and are recorded
// apart from the arms, and that a seed whose start run failed runs none of
// its arms (they would start from nothing) while other seeds go on.
func TestRunStart(t *testing.T) {
	root := t.TempDir()
	fake := &fakeTrainer{t: t, fail: func(cfg trainer.Config) error {
		if cfg.Trainer.ExperimentName == "st-start-s2" {
			return errors.New("out of demonstrations")
		}
		return nil
	}}
	var progress, table bytes.Buffer
	c, err := Run(context.Background(), mustParse(t, withStart), Options{OutputRoot: root, Train: fake.train, Progress: &progress, Output: &table})
	if !errors.Is(err, ErrRunFailed) || !strings.Contains(err.Error(), "3 of 6 runs") {
		t.Fatalf("Run: %v, want ErrRunFailed for the start run and the two arms of seed 2", err)
	}
	if got, want := fake.names(), []string{"st-start-s1", "st-a-s1", "st-b-s1", "st-start-s2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("trained %q, want %q", got, want)
	}
	if len(c.Starts) != 2 || c.Starts[0].Error != "" || !strings.Contains(c.Starts[1].Error, "out of demonstrations") {
		t.Fatalf("starts %+v", c.Starts)
	}
	if c.Starts[0].Final == nil || *c.Starts[0].Final != 0.1 {
		t.Errorf("start seed 1 final %v, want its step-0 validation 0.1", deref(c.Starts[0].Final))
	}
	for _, a := range c.Arms {
		if len(a.Seeds) != 2 || !a.Seeds[0].OK() || !strings.Contains(a.Seeds[1].Error, "the seed's start run failed: out of demonstrations") {
			t.Errorf("arm %s seeds %+v", a.Name, a.Seeds)
		}
	}
	if !strings.Contains(progress.String(), "[5/6] a seed 2: not run") {
		t.Errorf("progress:\n%s", progress.String())
	}
	for _, want := range []string{"start  from: s1 0.100  s2 failed", "failed: start seed 2: out of demonstrations"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	back, err := ReadComparison(filepath.Join(root, "st", ComparisonFile))
	if err != nil || len(back.Starts) != 2 {
		t.Errorf("comparison.json read back: %v, %d starts", err, len(back.Starts))
	}
}

// TestPlanStartPool checks that an arm with a local experience pool starts
// from a copy of its start run's pool, when the start kept one, and that an
// arm naming its own source keeps it.
func TestPlanStartPool(t *testing.T) {
	const file = `
name: sp
start:
  config: {exp_manager: {pool: {type: local}}}
seeds: [3]
steps: 2
arms:
  - name: none
    config: {exp_manager: {pool: {type: ""}}}
  - name: pooled
    config: {exp_manager: {pool: {type: local}}}
  - name: own
    config: {exp_manager: {pool: {type: local, init_from: /elsewhere.db}}}
`
	root := t.TempDir()
	p, err := NewPlan(mustParse(t, file), Options{OutputRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	startPool := filepath.Join(root, "sp", StartDir, "seed-3", trainer.ExperienceFile)
	want := map[string]string{StartDir: "", "none": "", "pooled": startPool, "own": "/elsewhere.db"}
	for _, j := range p.Jobs {
		if got := j.Config.Experience.Pool.InitFrom; got != want[j.Arm] {
			t.Errorf("%s: init_from %q, want %q", j.Arm, got, want[j.Arm])
		}
	}
	// Without a pool in the start run there is nothing to copy.
	p, err = NewPlan(mustParse(t, strings.Replace(file, "start:\n  config: {exp_manager: {pool: {type: local}}}", "start: {}", 1)), Options{OutputRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range p.Jobs {
		if j.Arm == "pooled" && j.Config.Experience.Pool.InitFrom != "" {
			t.Errorf("pooled: init_from %q from a start without a pool", j.Config.Experience.Pool.InitFrom)
		}
	}
}
