package taskgen_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/taskgen"
)

// fakeExplorer returns a trajectory naming the task and the seed; it
// fails for the task ids in fail and calls onCall (with the 1-based call
// number) first.
type fakeExplorer struct {
	calls  atomic.Int64
	fail   map[string]bool
	onCall func(n int64)
}

func (e *fakeExplorer) Explore(ctx context.Context, task agentevolver.Task, seed int64) (agentevolver.Trajectory, error) {
	n := e.calls.Add(1)
	if e.onCall != nil {
		e.onCall(n)
	}
	if err := ctx.Err(); err != nil {
		return agentevolver.Trajectory{}, err
	}
	if e.fail[task.TaskID] {
		return agentevolver.Trajectory{}, errors.New("explorer broke")
	}
	return agentevolver.Trajectory{TaskID: task.TaskID, Steps: []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "sys"},
		{Role: agentevolver.RoleUser, Content: "explore " + task.TaskID},
		{Role: agentevolver.RoleAssistant, Content: fmt.Sprintf("act %d", seed)},
		{Role: agentevolver.RoleUser, Content: "ok"},
	}}, nil
}

// fakeSummarizer turns an exploration into one objective whose query is
// made of words unique to the call, and records the old objectives it
// was shown per seed task.
type fakeSummarizer struct {
	mu    sync.Mutex
	old   map[string][][]string
	fail  map[string]bool
	panic map[string]bool
	empty map[string]bool
}

func (s *fakeSummarizer) Summarize(_ context.Context, ex taskgen.Exploration) ([]agentevolver.TaskObjective, error) {
	s.mu.Lock()
	if s.old == nil {
		s.old = map[string][][]string{}
	}
	s.old[ex.Task.TaskID] = append(s.old[ex.Task.TaskID], ex.OldObjectives)
	s.mu.Unlock()
	switch id := ex.Task.TaskID; {
	case s.fail[id]:
		return nil, errors.New("summariser broke")
	case s.panic[id]:
		panic("summariser panicked")
	case s.empty[id]:
		return nil, nil
	}
	conf := float64(uint64(ex.Seed)%100) / 100
	t := ex.Task
	t.Query = fmt.Sprintf("%s-%d-a %s-%d-b", t.TaskID, ex.Seed, t.TaskID, ex.Seed)
	t.GroundTruth = ex.Trajectory.Steps[2].Content
	t.Evaluator = agentevolver.EvaluatorSynthetic
	return []agentevolver.TaskObjective{{Task: t, Confidence: &conf}}, nil
}

func seedTasks(ids ...string) []agentevolver.Task {
	out := make([]agentevolver.Task, len(ids))
	for i, id := range ids {
		out[i] = agentevolver.Task{TaskID: id, EnvType: "fake"}
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGenerateBatches checks the work list, the counts and that each
// summary sees the objectives accepted for its seed task in earlier
// batches, and only those.
func TestGenerateBatches(t *testing.T) {
	ex, sum := &fakeExplorer{}, &fakeSummarizer{}
	g := &taskgen.Generator{Explorer: ex, Summarizer: sum, N: 3, Concurrency: 2, Seed: 7}
	objs, rep, err := g.Generate(context.Background(), seedTasks("a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	want := taskgen.GenerateReport{
		Seeds: 3, TasksPerSeed: 3, Items: 9, BatchSize: 2, Batches: 5,
		Explored: 9, Objectives: 9, BatchesDone: 5, BeforeRealtime: 9, AfterRealtime: 9, AfterPostFilter: 9,
	}
	if rep != want {
		t.Errorf("report %+v\nwant   %+v", rep, want)
	}
	if len(objs) != 9 || ex.calls.Load() != 9 {
		t.Fatalf("%d objectives, %d explorations", len(objs), ex.calls.Load())
	}
	for _, id := range []string{"a", "b", "c"} {
		olds := sum.old[id]
		slices.SortFunc(olds, func(x, y []string) int { return len(x) - len(y) })
		for k, old := range olds {
			if len(old) != k {
				t.Errorf("%s: summary %d saw %d old objectives, want %d", id, k, len(old), k)
			}
			for _, q := range old {
				if !strings.HasPrefix(q, id+"-") {
					t.Errorf("%s: old objective %q of another seed", id, q)
				}
			}
		}
	}
	// Deterministic: the same configuration gives the same list, in the
	// same (shuffled) order; another seed another order.
	again, _, err := (&taskgen.Generator{Explorer: &fakeExplorer{}, Summarizer: &fakeSummarizer{}, N: 3, Concurrency: 2, Seed: 7}).Generate(context.Background(), seedTasks("a", "b", "c"))
	if err != nil || mustJSON(t, again) != mustJSON(t, objs) {
		t.Errorf("second run differs (%v)", err)
	}
	serial, _, err := (&taskgen.Generator{Explorer: &fakeExplorer{}, Summarizer: &fakeSummarizer{}, N: 3, Concurrency: 1, Seed: 7}).Generate(context.Background(), seedTasks("a", "b", "c"))
	if err != nil || len(serial) != 9 {
		t.Fatalf("serial run: %d objectives, %v", len(serial), err)
	}
}

// TestGenerateFailuresAreCounted checks that failed explorations and
// summaries, panics and empty summaries are counted and logged, never
// fatal.
func TestGenerateFailuresAreCounted(t *testing.T) {
	ex := &fakeExplorer{fail: map[string]bool{"b": true}}
	sum := &fakeSummarizer{fail: map[string]bool{"c": true}, panic: map[string]bool{"d": true}, empty: map[string]bool{"e": true}}
	var logs strings.Builder
	g := &taskgen.Generator{Explorer: ex, Summarizer: sum, N: 2, Concurrency: 3, Logger: newTextLogger(&logs)}
	objs, rep, err := g.Generate(context.Background(), seedTasks("a", "b", "c", "d", "e"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || rep.ExploreFailures != 2 || rep.Explored != 8 || rep.SummarizeFailures != 4 || rep.EmptySummaries != 2 || rep.Objectives != 2 {
		t.Errorf("%d objectives, report %+v", len(objs), rep)
	}
	for _, want := range []string{"exploration failed", "explorer broke", "summary failed", "summariser broke", "panic: summariser panicked"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, logs.String())
		}
	}
}

// TestGenerateResume interrupts a run in its third batch, then runs it
// again: the second run skips the two finished batches and ends with the
// same objectives as a run that was never interrupted.
func TestGenerateResume(t *testing.T) {
	dir := t.TempDir()
	seeds := seedTasks("a", "b", "c")
	base := taskgen.Generator{N: 3, Concurrency: 2, Seed: 3, PostFilter: keepAll{}}

	ref := base
	ref.Explorer, ref.Summarizer, ref.CheckpointPath = &fakeExplorer{}, &fakeSummarizer{}, filepath.Join(dir, "ref.json")
	want, _, err := ref.Generate(context.Background(), seeds)
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(dir, "cp.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := base
	first.CheckpointPath = path
	first.Explorer = &fakeExplorer{onCall: func(n int64) {
		if n == 5 { // the first item of the third batch
			cancel()
		}
	}}
	first.Summarizer = &fakeSummarizer{}
	_, rep, err := first.Generate(ctx, seeds)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "after 2 of 5 batches") || !strings.Contains(err.Error(), path) {
		t.Fatalf("interrupted run: %v", err)
	}
	if rep.BatchesDone != 2 {
		t.Errorf("interrupted run did %d batches", rep.BatchesDone)
	}
	cp, status, err := taskgen.LoadCheckpoint(path, taskgen.TasksHash(seeds))
	if err != nil || status != taskgen.CheckpointResumed || !slices.Equal(cp.ProcessedIndices, []int{0, 1}) || len(cp.Results) != 4 || cp.TotalBatches != 5 {
		t.Fatalf("checkpoint %+v, %v, %v", cp, status, err)
	}

	second := base
	second.CheckpointPath = path
	ex := &fakeExplorer{}
	second.Explorer, second.Summarizer = ex, &fakeSummarizer{}
	got, rep, err := second.Generate(context.Background(), seeds)
	if err != nil {
		t.Fatal(err)
	}
	if ex.calls.Load() != 5 {
		t.Errorf("resumed run explored %d items, want the 5 of the unfinished batches", ex.calls.Load())
	}
	if rep.Checkpoint != taskgen.CheckpointResumed || rep.ResumedBatches != 2 || rep.ResumedObjectives != 4 || rep.BatchesDone != 3 {
		t.Errorf("resumed report %+v", rep)
	}
	if mustJSON(t, got) != mustJSON(t, want) {
		t.Errorf("resumed run gave\n%s\nwant\n%s", mustJSON(t, got), mustJSON(t, want))
	}

	// Resuming a finished run repeats only the final stages.
	third := base
	third.CheckpointPath = path
	ex = &fakeExplorer{}
	third.Explorer, third.Summarizer = ex, &fakeSummarizer{}
	got, rep, err = third.Generate(context.Background(), seeds)
	if err != nil || ex.calls.Load() != 0 || rep.ResumedBatches != 5 || mustJSON(t, got) != mustJSON(t, want) {
		t.Errorf("rerun of a finished run: %d explorations, %+v, %v", ex.calls.Load(), rep, err)
	}
}

// TestGenerateStartsOver checks that a checkpoint of other seed tasks, of
// another batch layout or a corrupt one is replaced.
func TestGenerateStartsOver(t *testing.T) {
	seeds := seedTasks("a", "b")
	for _, tc := range []struct {
		name   string
		write  func(t *testing.T, path string)
		status taskgen.LoadStatus
	}{
		{"missing", func(*testing.T, string) {}, taskgen.CheckpointMissing},
		{"other seeds", func(t *testing.T, path string) {
			cp := taskgen.Checkpoint{TotalBatches: 2, ProcessedIndices: []int{0}, TasksHash: taskgen.TasksHash(seedTasks("x"))}
			if err := cp.Save(path); err != nil {
				t.Fatal(err)
			}
		}, taskgen.CheckpointStale},
		{"other layout", func(t *testing.T, path string) {
			cp := taskgen.Checkpoint{TotalBatches: 7, ProcessedIndices: []int{0}, TasksHash: taskgen.TasksHash(seeds)}
			if err := cp.Save(path); err != nil {
				t.Fatal(err)
			}
		}, taskgen.CheckpointStale},
		{"corrupt", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, taskgen.CheckpointCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cp.json")
			tc.write(t, path)
			ex := &fakeExplorer{}
			var logs strings.Builder
			g := &taskgen.Generator{Explorer: ex, Summarizer: &fakeSummarizer{}, N: 2, CheckpointPath: path, Logger: newTextLogger(&logs)}
			objs, rep, err := g.Generate(context.Background(), seeds)
			if err != nil || len(objs) != 4 || ex.calls.Load() != 4 || rep.Checkpoint != tc.status || rep.ResumedBatches != 0 {
				t.Fatalf("%d objectives, %d explorations, %+v, %v", len(objs), ex.calls.Load(), rep, err)
			}
			if tc.status != taskgen.CheckpointMissing && !strings.Contains(logs.String(), "starting over") {
				t.Errorf("not logged:\n%s", logs.String())
			}
			cp, status, err := taskgen.LoadCheckpoint(path, taskgen.TasksHash(seeds))
			if err != nil || status != taskgen.CheckpointResumed || len(cp.ProcessedIndices) != 2 || len(cp.Results) != 4 {
				t.Errorf("checkpoint after the run: %+v %v %v", cp, status, err)
			}
		})
	}
}

// keepAll is a post filter that keeps everything.
type keepAll struct{}

func (keepAll) Filter(_ context.Context, o agentevolver.TaskObjective) (agentevolver.TaskObjective, bool, error) {
	return o, true, nil
}

// scriptedFilter rejects objectives of seed "a", fails on "b", rewrites
// the ground truth of the others.
type scriptedFilter struct{}

func (scriptedFilter) Filter(_ context.Context, o agentevolver.TaskObjective) (agentevolver.TaskObjective, bool, error) {
	switch o.Task.TaskID {
	case "a":
		return o, false, nil
	case "b":
		return o, false, errors.New("filter broke")
	}
	o.Task.GroundTruth = "rewritten"
	return o, true, nil
}

func TestGeneratePostFilter(t *testing.T) {
	g := &taskgen.Generator{Explorer: &fakeExplorer{}, Summarizer: &fakeSummarizer{}, PostFilter: scriptedFilter{}, N: 2}
	objs, rep, err := g.Generate(context.Background(), seedTasks("a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.PostFiltered || rep.AfterRealtime != 6 || rep.PostRejected != 2 || rep.PostFailures != 2 || rep.AfterPostFilter != 2 || len(objs) != 2 {
		t.Fatalf("%d objectives, report %+v", len(objs), rep)
	}
	for _, o := range objs {
		if o.Task.TaskID != "c" || o.Task.GroundTruth != "rewritten" {
			t.Errorf("kept %+v", o.Task)
		}
	}
}

// TestGeneratePostFilterInterrupted checks that a run stopped in the post
// filter keeps its checkpoint and that a rerun repeats only the final
// stages.
func TestGeneratePostFilterInterrupted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cp.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := postFilterFunc(func(ctx context.Context, o agentevolver.TaskObjective) (agentevolver.TaskObjective, bool, error) {
		cancel()
		<-ctx.Done()
		return o, false, ctx.Err()
	})
	g := &taskgen.Generator{Explorer: &fakeExplorer{}, Summarizer: &fakeSummarizer{}, PostFilter: stop, CheckpointPath: path}
	if _, _, err := g.Generate(ctx, seedTasks("a", "b")); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "post filter") {
		t.Fatalf("got %v", err)
	}
	ex := &fakeExplorer{}
	g = &taskgen.Generator{Explorer: ex, Summarizer: &fakeSummarizer{}, PostFilter: keepAll{}, CheckpointPath: path}
	objs, rep, err := g.Generate(context.Background(), seedTasks("a", "b"))
	if err != nil || len(objs) != 2 || ex.calls.Load() != 0 || rep.ResumedBatches != 1 {
		t.Fatalf("%d objectives, %d explorations, %+v, %v", len(objs), ex.calls.Load(), rep, err)
	}
}

type postFilterFunc func(context.Context, agentevolver.TaskObjective) (agentevolver.TaskObjective, bool, error)

func (f postFilterFunc) Filter(ctx context.Context, o agentevolver.TaskObjective) (agentevolver.TaskObjective, bool, error) {
	return f(ctx, o)
}

func TestGenerateConfigErrors(t *testing.T) {
	ok := taskgen.Generator{Explorer: &fakeExplorer{}, Summarizer: &fakeSummarizer{}}
	for _, tc := range []struct {
		name  string
		g     taskgen.Generator
		seeds []agentevolver.Task
	}{
		{"no explorer", taskgen.Generator{Summarizer: &fakeSummarizer{}}, seedTasks("a")},
		{"no summariser", taskgen.Generator{Explorer: &fakeExplorer{}}, seedTasks("a")},
		{"negative n", func() taskgen.Generator { g := ok; g.N = -1; return g }(), seedTasks("a")},
		{"negative concurrency", func() taskgen.Generator { g := ok; g.Concurrency = -1; return g }(), seedTasks("a")},
		{"no seeds", ok, nil},
		{"seed without id", ok, seedTasks("a", " ")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := tc.g.Generate(context.Background(), tc.seeds); !errors.Is(err, taskgen.ErrConfig) {
				t.Errorf("got %v, want ErrConfig", err)
			}
		})
	}
}
