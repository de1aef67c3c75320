package pretrain

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/trainer"
)

// tinyConfig is a pretraining run small enough for a test.
func tinyConfig(t *testing.T) Config {
	t.Helper()
	cfg := DefaultConfig()
	cfg.OutputDir = t.TempDir()
	cfg.TokenizerVocab = 400
	cfg.Shape.HiddenSize, cfg.Shape.NumLayers, cfg.Shape.NumHeads, cfg.Shape.NumKVHeads, cfg.Shape.IntermediateSize = 16, 1, 2, 1, 32
	cfg.Corpus.Worlds, cfg.Corpus.TasksPerSplit = 20, 120
	cfg.Train.Steps, cfg.Train.BatchSize, cfg.Train.SortWindow, cfg.Train.WarmupSteps = 6, 4, 2, 2
	cfg.Train.EvalEvery, cfg.Train.SaveEvery = 3, 2
	cfg.Eval.Worlds, cfg.Eval.TasksPerLevel, cfg.Eval.QuickTasksPerLevel, cfg.Eval.CheckTasks = 3, 2, 1, 3
	cfg.Context.ResponseLength, cfg.Context.MaxSteps = 12, 2
	return cfg
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Config){
		"same world seeds": func(c *Config) { c.Corpus.Worlds = 8; c.Eval.WorldSeed = c.Corpus.WorldSeed },
		"stop step":        func(c *Config) { c.Train.StopStep = -1 },
		"share above 1":    func(c *Config) { c.Corpus.ExampleShare = 1.5 },
		"min lr above lr":  func(c *Config) { c.Train.MinLR = 2 * c.Train.LR },
		"heads":            func(c *Config) { c.Shape.NumHeads = 3 },
		"dtype":            func(c *Config) { c.ExportDType = "f16" },
		"context":          func(c *Config) { c.Context.ResponseLength = c.Context.MaxModelLen },
	} {
		c := DefaultConfig()
		mutate(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := LoadConfig(nil, []string{"train.nonesuch=1"}); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown key: %v", err)
	}
}

func TestLearningRateSchedule(t *testing.T) {
	tc := TrainConfig{Steps: 100, LR: 1e-3, MinLR: 1e-4, WarmupSteps: 10}
	if got := tc.lr(0); math.Abs(got-1e-4) > 1e-12 {
		t.Errorf("lr(0) = %v", got)
	}
	if got := tc.lr(10); math.Abs(got-1e-3) > 1e-12 {
		t.Errorf("lr(10) = %v, want the peak", got)
	}
	if got := tc.lr(100); math.Abs(got-1e-4) > 1e-12 {
		t.Errorf("lr(100) = %v, want the floor", got)
	}
	for s := 11; s < 100; s++ {
		if tc.lr(s) > tc.lr(s-1) {
			t.Fatalf("lr rises at %d", s)
		}
	}
}

func TestWholeSequence(t *testing.T) {
	s := agentevolver.Sample{PromptIDs: []int{1, 2, 3}, ResponseIDs: []int{4, 5, 6}, ResponseLossMask: []int{1, 0, 1}}
	w := wholeSequence(s, false)
	if len(w.PromptIDs) != 1 || w.PromptIDs[0] != 1 || len(w.ResponseIDs) != 5 || w.ResponseIDs[4] != 6 {
		t.Fatalf("ids %v %v", w.PromptIDs, w.ResponseIDs)
	}
	if want := []int{0, 0, 1, 0, 1}; !equalInts(w.ResponseLossMask, want) {
		t.Fatalf("mask %v, want %v", w.ResponseLossMask, want)
	}
	all := wholeSequence(s, true)
	if want := []int{1, 1, 1, 1, 1}; !equalInts(all.ResponseLossMask, want) || !equalInts(all.ResponseIDs, w.ResponseIDs) {
		t.Fatalf("loss on all: ids %v mask %v, want the same ids and mask %v", all.ResponseIDs, all.ResponseLossMask, want)
	}
}

func equalInts(a, b []int) bool {
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

// TestCorpusSpecs: specs are a pure function of the seed and index; their
// examples come from the task's world, relevant ones from its family.
func TestCorpusSpecs(t *testing.T) {
	ctx := context.Background()
	cfg := DefaultConfig().Corpus
	cfg.Worlds, cfg.TasksPerSplit, cfg.ExampleShare, cfg.RelevantShare, cfg.SameTaskShare = 10, 300, 1, 1, 0
	c, err := newCorpus(ctx, cfg, 3, DefaultSystemPrompt, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := newCorpus(ctx, cfg, 3, DefaultSystemPrompt, nil)
	if err != nil {
		t.Fatal(err)
	}
	hindsight, relevant := 0, 0
	for i := range int64(200) {
		sp, err := c.spec(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		sp2, _ := again.spec(ctx, i)
		if sp.taskID != sp2.taskID || strings.Join(sp.examples, ",") != strings.Join(sp2.examples, ",") {
			t.Fatalf("spec %d differs between two corpora of one seed", i)
		}
		info, err := c.env.Task(sp.taskID)
		if err != nil {
			t.Fatal(err)
		}
		if sp.hindsight != strings.HasPrefix(sp.taskID, toolworld.HindsightPrefix) {
			t.Fatalf("spec %d: hindsight %v for %s", i, sp.hindsight, sp.taskID)
		}
		if sp.hindsight {
			hindsight++
		}
		for j, ex := range sp.examples {
			ei, err := c.env.Task(ex)
			if err != nil {
				t.Fatal(err)
			}
			if ei.World != info.World || ex == sp.taskID {
				t.Fatalf("spec %d: example %s of world %d for task %s of world %d", i, ex, ei.World, sp.taskID, info.World)
			}
			if j == 0 && sp.relevant {
				relevant++
				if familyOverlap(strings.Split(ei.Family, "+"), strings.Split(info.Family, "+")) == 0 {
					t.Fatalf("spec %d: relevant example of family %s for %s", i, ei.Family, info.Family)
				}
			}
		}
	}
	if hindsight < 20 || relevant < 100 {
		t.Fatalf("%d hindsight and %d relevant of 200", hindsight, relevant)
	}
}

// TestRunResumesToTheSameWeights: a run stopped after some steps and
// resumed gives the same policy, bit for bit, as one that never stopped;
// the result is a loadable Hugging Face directory whose card's check
// reproduces.
func TestRunResumesToTheSameWeights(t *testing.T) {
	if testing.Short() {
		t.Skip("pretrains a tiny model twice")
	}
	ctx := context.Background()
	whole := tinyConfig(t)
	res, err := Run(ctx, whole, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"config.json", "model.safetensors", "tokenizer.json", CardFile, ReadmeFile, ConfigFile} {
		if _, err := os.Stat(filepath.Join(res.PolicyDir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if res.Card.Corpus.Steps != 6 || res.Card.Corpus.Episodes != 24 || len(res.Card.Success) != 3 || len(res.Card.Check.Tasks) != 3 {
		t.Fatalf("card %+v", res.Card)
	}
	if _, err := Check(ctx, res.PolicyDir, CheckOptions{}); err != nil {
		t.Fatal(err)
	}
	split := whole
	split.OutputDir = t.TempDir()
	if _, err := Run(ctx, split, Options{stopAt: 3}); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	if _, err := Run(ctx, split, Options{}); err == nil {
		t.Fatal("a second run started over an existing one")
	}
	resumed, err := Run(ctx, split, Options{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(res.PolicyDir, "model.safetensors"))
	b, _ := os.ReadFile(filepath.Join(resumed.PolicyDir, "model.safetensors"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatal("the resumed run's weights differ from the uninterrupted run's")
	}
	if resumed.Card.Corpus.Episodes != res.Card.Corpus.Episodes {
		t.Fatalf("resumed corpus counts %+v, uninterrupted %+v", resumed.Card.Corpus, res.Card.Corpus)
	}
	// A configuration change is refused on resume.
	changed := split
	changed.Train.LR *= 2
	if _, err := Run(ctx, changed, Options{Resume: true}); !errors.Is(err, ErrConfig) {
		t.Fatalf("resume with another learning rate: %v", err)
	}
}

// TestCheckDetectsDrift: a card whose recorded outcomes differ from what
// the policy does fails the check, naming the task.
func TestCheckDetectsDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("pretrains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.Train.Steps, cfg.Train.EvalEvery = 2, 0
	res, err := Run(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	card := res.Card
	card.Check.Solved[1] = !card.Check.Solved[1]
	if err := card.Write(res.PolicyDir); err != nil {
		t.Fatal(err)
	}
	_, err = Check(context.Background(), res.PolicyDir, CheckOptions{})
	if !errors.Is(err, ErrCheckMismatch) || !strings.Contains(err.Error(), card.Check.Tasks[1]) {
		t.Fatalf("drift: %v", err)
	}
}

func TestFocusTools(t *testing.T) {
	prompt := "Intro.\nOne call per turn:\n```tool\nwallet.send payee=Ann value=5\n```\nTools:\nnotes.cat file=FILE: print\nwallet.send payee=NAME value=N: hand cash over\nagenda.drop id=N: call off\nwallet.funds: cash left\nchat.end [output=TEXT]: close out"
	keep := calledTools([]agentevolver.Message{{Content: "```tool\nwallet.send payee=Bo value=3\n```"}, {Content: "```tool\nchat.end\n```"}})
	got := focusTools(prompt, keep, 1)
	want := "Intro.\nOne call per turn:\n```tool\nwallet.send payee=Ann value=5\n```\nTools:\nnotes.cat file=FILE: print\nwallet.send payee=NAME value=N: hand cash over\nchat.end [output=TEXT]: close out"
	if got != want {
		t.Fatalf("focused:\n%s\nwant:\n%s", got, want)
	}
	if focusTools("no tools here", keep, 0) != "no tools here" {
		t.Fatal("a prompt without a tool list changed")
	}
	c := CorpusConfig{FocusStart: 1, FocusEpisodes: 100}
	if c.focusShare(0) != 1 || c.focusShare(50) != 0.5 || c.focusShare(100) != 0 || c.focusShare(1000) != 0 {
		t.Fatal("focus share schedule")
	}
}

// The trainer's main job starts from the shipped base with the base's
// system prompt; the two live in packages that cannot import each other.
func TestMainJobUsesTheBasePrompt(t *testing.T) {
	cfg := trainer.DefaultConfig()
	if got := cfg.Env.Toolworld.SystemPrompt; got != DefaultSystemPrompt {
		t.Errorf("trainer main job system prompt %q, base's %q", got, DefaultSystemPrompt)
	}
	if got := DefaultConfig().Context.SystemPrompt; got != DefaultSystemPrompt {
		t.Errorf("pretrain default system prompt %q, want %q", got, DefaultSystemPrompt)
	}
}
