package toolworld_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

// legacyEnvCorpus is trainer/envtokenizer.go's envCorpus as it was before
// the corpus moved into toolworld, copied verbatim but for its signature
// (the split is a parameter instead of cfg.Data.TrainSplit). Env.Corpus
// must return exactly its strings: the main training job's learned
// tokenizer, and so its results, depend on them.
func legacyEnvCorpus(ctx context.Context, tw *toolworld.Env, split string) ([]string, error) {
	ids, err := tw.TaskIDs(ctx, split, nil)
	if err != nil {
		return nil, err
	}
	var corpus []string
	for i, id := range ids {
		inst, err := tw.New(ctx, id, fmt.Sprintf("corpus-%d", i), nil)
		if err != nil {
			return nil, err
		}
		st, err := inst.InitState(ctx, nil)
		if err != nil {
			inst.Close()
			return nil, err
		}
		for j, m := range st.State {
			if j > 0 || i == 0 { // the system prompt once
				corpus = append(corpus, m.Content)
			}
		}
		actions, err := tw.Solve(id)
		if err != nil {
			inst.Close()
			return nil, err
		}
		for _, a := range actions {
			res, err := inst.Step(ctx, a, nil)
			if err != nil {
				inst.Close()
				return nil, err
			}
			corpus = append(corpus, a.Content)
			for _, m := range res.State {
				corpus = append(corpus, m.Content)
			}
		}
		inst.Close()
	}
	return corpus, nil
}

func mustNew(t testing.TB, cfg toolworld.Config) *toolworld.Env {
	t.Helper()
	e, err := toolworld.New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return e
}

// The trainer's default toolworld settings (trainer.DefaultConfig), copied
// so that this package's tests do not import the trainer.
const trainerPrompt = "Call one tool per turn in a tool block; end with task.finish."

func TestCorpusMatchesLegacyEnvCorpus(t *testing.T) {
	tests := []struct {
		name string
		cfg  toolworld.Config
		slow bool
	}{
		{"small full prompt", toolworld.Config{Seed: 3, TrainSize: 12, ValSize: 6, TestSize: 3}, false},
		{"small compact", toolworld.Config{Seed: 11, TrainSize: 30, ValSize: 9, TestSize: 4, Compact: true}, false},
		{"custom prompt", toolworld.Config{TrainSize: 20, ValSize: 5, TestSize: 5, SystemPrompt: trainerPrompt}, false},
		// Before MaxLevel existed the trainer filtered levels itself and
		// learned its tokenizer on the whole split: Corpus must not
		// depend on MaxLevel.
		{"max level 1", toolworld.Config{Seed: 5, TrainSize: 24, ValSize: 6, TestSize: 3, Compact: true, MaxLevel: 1}, false},
		{"max level 2", toolworld.Config{Seed: 5, TrainSize: 24, ValSize: 6, TestSize: 3, MaxLevel: 2}, false},
		{"trainer default", toolworld.Config{
			Compact: true, MaxLevel: 1, TrainSize: 1500, ValSize: 1200, SystemPrompt: trainerPrompt,
		}, true},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.slow && testing.Short() {
				t.Skip("full-size split in -short mode")
			}
			env := mustNew(t, tt.cfg)
			legacyCfg := tt.cfg
			legacyCfg.MaxLevel = 0 // the trainer built toolworld without it
			legacy := mustNew(t, legacyCfg)
			for _, split := range []string{toolworld.SplitTrain, toolworld.SplitVal} {
				want, err := legacyEnvCorpus(ctx, legacy, split)
				if err != nil {
					t.Fatal(err)
				}
				got, err := env.Corpus(ctx, split)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					i := 0
					for i < min(len(got), len(want)) && got[i] == want[i] {
						i++
					}
					t.Fatalf("%s: Corpus differs from the legacy corpus at document %d (lengths %d and %d)", split, i, len(got), len(want))
				}
				if len(got) == 0 {
					t.Fatalf("%s: empty corpus", split)
				}
			}
		})
	}
}

func TestCorpusShape(t *testing.T) {
	ctx := context.Background()
	env := mustNew(t, toolworld.Config{TrainSize: 3, ValSize: 1, TestSize: 1, SystemPrompt: trainerPrompt})
	got, err := env.Corpus(ctx, toolworld.SplitTest)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := env.TaskIDs(ctx, toolworld.SplitTest, nil)
	info, _ := env.Task(ids[0])
	actions, _ := env.Solve(ids[0])
	// The system prompt, the instruction, then an action and its
	// observation per expert call.
	if len(got) != 2+2*len(actions) || got[0] != trainerPrompt || got[1] != info.Instruction || got[2] != actions[0].Content {
		t.Fatalf("Corpus(test) = %q", got)
	}
	if n := slices.Index(got[1:], trainerPrompt); n >= 0 {
		t.Errorf("the system prompt repeats at %d", n+1)
	}
}

func TestCorpusErrors(t *testing.T) {
	env := mustNew(t, toolworld.Config{TrainSize: 3, ValSize: 1, TestSize: 1})
	if _, err := env.Corpus(context.Background(), "dev"); !errors.Is(err, toolworld.ErrUnknownSplit) || !errors.Is(err, envclient.ErrBadRequest) {
		t.Errorf("Corpus(dev) error = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := env.Corpus(ctx, toolworld.SplitTrain); !errors.Is(err, context.Canceled) {
		t.Errorf("Corpus with a cancelled context: %v", err)
	}
}

func TestDemonstrate(t *testing.T) {
	ctx := context.Background()
	env := mustNew(t, toolworld.Config{TrainSize: 6, ValSize: 3, TestSize: 3})
	var expert envservice.Expert = env
	for _, split := range []string{toolworld.SplitTrain, toolworld.SplitVal, toolworld.SplitTest} {
		ids, err := env.TaskIDs(ctx, split, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			got, err := expert.Demonstrate(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			want, err := env.Solve(id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, want, func(a, b agentevolver.Message) bool { return a.Role == b.Role && a.Content == b.Content }) {
				t.Fatalf("Demonstrate(%s) = %+v, Solve = %+v", id, got, want)
			}
			if score := replay(t, env, id, got); score != 1 {
				t.Errorf("the demonstration of %s scores %v", id, score)
			}
		}
	}
	if _, err := expert.Demonstrate(ctx, "tw-train-9999"); !errors.Is(err, toolworld.ErrUnknownTask) {
		t.Errorf("Demonstrate(unknown) error = %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := expert.Demonstrate(cctx, "tw-train-0000"); !errors.Is(err, context.Canceled) {
		t.Errorf("Demonstrate with a cancelled context: %v", err)
	}
}

// replay plays actions on a fresh sparse instance of id and returns the
// final reward.
func replay(t *testing.T, env *toolworld.Env, id string, actions []agentevolver.Message) float64 {
	t.Helper()
	ctx := context.Background()
	inst, err := env.New(ctx, id, "replay", map[string]any{"sparse": true})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	if _, err := inst.InitState(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var res envclient.StepResult
	for _, a := range actions {
		if res, err = inst.Step(ctx, a, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !res.IsTerminated {
		t.Fatalf("%s: the episode did not end", id)
	}
	return res.Reward
}

func TestTaskMetadata(t *testing.T) {
	ctx := context.Background()
	env := mustNew(t, toolworld.Config{Seed: 2, TrainSize: 9, ValSize: 4, TestSize: 2})
	var meta envservice.TaskMetadataProvider = env
	seen := map[int]bool{}
	for _, split := range []string{toolworld.SplitTrain, toolworld.SplitVal, toolworld.SplitTest} {
		ids, _ := env.TaskIDs(ctx, split, nil)
		for _, id := range ids {
			md, err := meta.TaskMetadata(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			info, _ := env.Task(id)
			if md.Difficulty != info.Level || md.Difficulty < 1 || md.Difficulty > toolworld.NumLevels {
				t.Fatalf("TaskMetadata(%s) = %+v, level %d", id, md, info.Level)
			}
			seen[md.Difficulty] = true
		}
	}
	if len(seen) != toolworld.NumLevels {
		t.Errorf("difficulties seen: %v", seen)
	}
	_, err := meta.TaskMetadata(ctx, "nope")
	if !errors.Is(err, toolworld.ErrUnknownTask) || !errors.Is(err, envclient.ErrBadRequest) {
		t.Errorf("TaskMetadata(unknown) error = %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := meta.TaskMetadata(cctx, "tw-train-0000"); !errors.Is(err, context.Canceled) {
		t.Errorf("TaskMetadata with a cancelled context: %v", err)
	}
}

func TestMaxLevel(t *testing.T) {
	ctx := context.Background()
	base := toolworld.Config{Seed: 4, TrainSize: 20, ValSize: 10, TestSize: 7}
	all := mustNew(t, base)
	for level := 0; level <= toolworld.NumLevels; level++ {
		cfg := base
		cfg.MaxLevel = level
		env := mustNew(t, cfg)
		for _, split := range []string{toolworld.SplitTrain, toolworld.SplitVal, toolworld.SplitTest} {
			full, _ := all.TaskIDs(ctx, split, nil)
			var want []string
			for _, id := range full {
				info, _ := all.Task(id)
				if level == 0 || info.Level <= level {
					want = append(want, id)
				}
			}
			got, err := env.TaskIDs(ctx, split, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("max level %d, %s: TaskIDs = %v, want %v", level, split, got, want)
			}
			// Generation is unchanged: every task, listed or not, is the
			// same as without MaxLevel and can still be run by id.
			for _, id := range full {
				a, _ := all.Task(id)
				b, err := env.Task(id)
				if err != nil || a != b {
					t.Fatalf("max level %d: Task(%s) = %+v, %v; want %+v", level, id, b, err, a)
				}
			}
		}
	}
	one := base
	one.MaxLevel = 1
	env := mustNew(t, one)
	inst, err := env.New(ctx, "tw-train-0002", "level-3", nil) // level 3, not listed
	if err != nil {
		t.Fatalf("New on an unlisted task: %v", err)
	}
	inst.Close()
	for _, bad := range []int{-1, toolworld.NumLevels + 1} {
		cfg := base
		cfg.MaxLevel = bad
		if _, err := toolworld.New(cfg); err == nil {
			t.Errorf("New accepted MaxLevel %d", bad)
		}
	}
}

func TestMinLevel(t *testing.T) {
	ctx := context.Background()
	base := toolworld.Config{Seed: 4, TrainSize: 20, ValSize: 10, TestSize: 7}
	all := mustNew(t, base)
	cfg := base
	cfg.MinLevel, cfg.MaxLevel = 2, 3
	env := mustNew(t, cfg)
	full, _ := all.TaskIDs(ctx, toolworld.SplitTrain, nil)
	var want []string
	for _, id := range full {
		if info, _ := all.Task(id); info.Level >= 2 {
			want = append(want, id)
		}
	}
	if got, _ := env.TaskIDs(ctx, toolworld.SplitTrain, nil); !slices.Equal(got, want) || len(want) == 0 {
		t.Fatalf("min level 2: TaskIDs = %v, want %v", got, want)
	}
	for _, bad := range []toolworld.Config{{MinLevel: -1}, {MinLevel: toolworld.NumLevels + 1}, {MinLevel: 3, MaxLevel: 2}} {
		if _, err := toolworld.New(bad); err == nil {
			t.Errorf("New(%+v) accepted", bad)
		}
	}
}
