package taskgen

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/internal/parallel"
	"github.com/org/agentevolver/runlog"
)

// Defaults of Generator.
const (
	// DefaultTasksPerSeed is Generator.N when it is zero: one exploration
	// of every seed task.
	DefaultTasksPerSeed = 1
	// DefaultConcurrency is the reference's num_explore_threads: how many
	// explorations (and post-filter checks) run at once.
	DefaultConcurrency = 8
)

// ErrConfig reports a Generator, explorer, summariser or post filter that
// cannot run: a required field missing, a negative count.
var ErrConfig = errors.New("taskgen: invalid config")

// Explorer explores one seed task: it runs an exploration episode
// (reference §4.3) and returns its trajectory, whose Steps start with the
// episode's initial messages. seed makes the episode reproducible: the
// same task and seed should give the same trajectory where the
// environment and the model allow it. An error is a failed exploration of
// this one task; the generation goes on without it, unless ctx has ended.
// Implementations must be safe for concurrent use.
type Explorer interface {
	Explore(ctx context.Context, task agentevolver.Task, seed int64) (agentevolver.Trajectory, error)
}

// Exploration is what a Summarizer turns into objectives: one exploration
// episode of one seed task.
type Exploration struct {
	// Task is the seed task that was explored.
	Task agentevolver.Task
	// Trajectory is the exploration episode (Explorer.Explore).
	Trajectory agentevolver.Trajectory
	// OldObjectives are the queries already accepted for the same seed
	// task, which the summariser should not repeat.
	OldObjectives []string
	// Seed makes the summary reproducible where the summariser allows it.
	Seed int64
}

// Summarizer turns an exploration into task objectives (reference §4.4).
// Returning no objective and no error is a summary that found nothing
// (the generation counts it); an error is a failed summary of this one
// exploration, and the generation goes on without it unless ctx has
// ended. The objectives must have a task id (that of the seed task, or
// of a task the environment can rebuild by id) and belong to the caller.
// Implementations must be safe for concurrent use.
type Summarizer interface {
	Summarize(ctx context.Context, ex Exploration) ([]agentevolver.TaskObjective, error)
}

// PostFilter checks one objective after generation (reference §4.6): it
// returns the objective to keep (possibly changed, with a rewritten
// ground truth, say) and keep == true, or keep == false to drop it. An
// error drops the objective too (the generation counts and logs it), as
// in the reference, where any exception drops the task; when ctx has
// ended the generation stops instead. Implementations must be safe for
// concurrent use.
type PostFilter interface {
	Filter(ctx context.Context, obj agentevolver.TaskObjective) (out agentevolver.TaskObjective, keep bool, err error)
}

// Generator is self-questioning's generation loop, the reference's
// TaskManager.generate_task (§4.5): it explores every seed task N times,
// summarises each exploration into objectives, keeps the survivors of the
// realtime filter after every batch (with a checkpoint to resume from),
// and at the end runs the realtime filter again, the post filter and a
// seeded shuffle.
//
// Explorer and Summarizer are required; every other zero value is a
// default. A Generator is safe for concurrent use as long as its fields
// are not changed meanwhile and concurrent runs use different
// CheckpointPaths.
type Generator struct {
	// Explorer runs the exploration episodes (required).
	Explorer Explorer
	// Summarizer turns them into objectives (required).
	Summarizer Summarizer
	// PostFilter, when set, checks every objective that survived the
	// final realtime filter.
	PostFilter PostFilter

	// N is the number of explorations of every seed task (the reference's
	// task_manager.n); the work list is the seed list repeated N times.
	// Zero means DefaultTasksPerSeed; negative is an error. (The
	// reference's n = 0 disables synthesis: do not call Generate then.)
	N int
	// Concurrency bounds the explorations that run at once, which is also
	// the batch size: min(Concurrency, len(seeds)), as in the reference.
	// It bounds the post filter's concurrent checks too. Zero means
	// DefaultConcurrency; negative is an error.
	Concurrency int
	// CheckpointPath is the checkpoint file (Checkpoint), written after
	// every batch and read at the start to resume; empty means no
	// checkpoint. A successful run leaves the file in place: a second
	// run with the same seed tasks then only repeats the final stages.
	CheckpointPath string
	// Progress, when set, shows the explorations done (and then the post
	// filter's checks) as a progress bar on a terminal, as plain lines
	// otherwise (runlog.Progress).
	Progress io.Writer
	// Logger receives one record per failure and per checkpoint decision
	// (zero: discard).
	Logger *slog.Logger
	// Seed derives every exploration's and summary's seed (from Seed and
	// the item's position in the work list, so that results do not depend
	// on scheduling) and the final shuffle.
	Seed int64
}

// GenerateReport counts what a generation did, stage by stage. Counts of
// explorations and summaries are of this run only: batches resumed from a
// checkpoint count in ResumedBatches and ResumedObjectives instead.
type GenerateReport struct {
	// Seeds is the number of seed tasks, TasksPerSeed the explorations
	// of each, Items their product: the length of the work list.
	Seeds, TasksPerSeed, Items int
	// BatchSize is min(Concurrency, Seeds); Batches is the number of
	// batches of the work list.
	BatchSize, Batches int

	// Checkpoint is what was found at CheckpointPath at the start
	// (CheckpointMissing when there is no path). A checkpoint of the
	// same seed tasks but another batch layout (other N or Concurrency)
	// counts as CheckpointStale.
	Checkpoint LoadStatus
	// ResumedBatches are the batches the checkpoint held, skipped;
	// ResumedObjectives the objectives it held.
	ResumedBatches, ResumedObjectives int

	// Explored counts the explorations that returned a trajectory;
	// ExploreFailures those that failed.
	Explored, ExploreFailures int
	// SummarizeFailures counts the summaries that failed; EmptySummaries
	// those that gave no objective (no valid task block, nothing
	// achieved).
	SummarizeFailures, EmptySummaries int
	// Objectives counts the objectives the summaries returned (parsed or
	// synthesised); InvalidObjectives those of them dropped at once for
	// having no task id or a non-finite confidence or reward.
	Objectives, InvalidObjectives int
	// BatchesDone is the number of batches processed by this run.
	BatchesDone int

	// BeforeRealtime is the number of objectives that entered the
	// realtime filter: ResumedObjectives (survivors of an earlier run)
	// plus this run's valid ones. AfterRealtime is the number that
	// survived it, batch after batch and once more at the end.
	BeforeRealtime, AfterRealtime int
	// PostFiltered reports that a post filter ran. PostRejected counts
	// the objectives it dropped, PostFailures those dropped because the
	// check failed with an error. AfterPostFilter is the final count
	// (AfterRealtime when there is no post filter).
	PostFiltered               bool
	PostRejected, PostFailures int
	AfterPostFilter            int
}

// Generate runs the generation over seeds (reference §4.5) and returns
// the synthetic objectives in a shuffled order, with a report of what
// each stage did.
//
// The work list is seeds repeated N times (seeds[i % len(seeds)] at
// position i); it is processed in consecutive batches of min(Concurrency,
// len(seeds)) items, the items of a batch concurrently. Each item is
// explored (Explorer) and summarised (Summarizer) with the queries
// already accepted for its seed task as old objectives; so items of one
// batch, which are all of different seed tasks, see only the objectives of
// earlier batches, and the result does not depend on scheduling. A failed
// exploration or summary is logged and counted, never fatal. After each
// batch its objectives are appended to the results, the realtime filter
// (FilterRealtime) runs over the whole list (computed incrementally, with
// the same result: the list before the batch is already filtered, so
// only pairs with a new objective are compared), the objective memory is
// replaced by the survivors (keyed by their seed task: Metadata
// "seed_task_id" when it is a string, else the task id), the batch is
// marked processed and the checkpoint is saved.
//
// At the start a checkpoint at CheckpointPath of the same seed tasks
// (TasksHash) and batch count is resumed: its results are loaded and its
// batches skipped. A checkpoint of other seed tasks or another batch
// layout, or a corrupt one, is logged and replaced: the run starts over.
// (The hash covers the seed tasks only, as in the reference: resume with
// the same N, Concurrency, Seed, explorer and summariser.)
//
// At the end the realtime filter runs again, then the post filter (when
// set) on every survivor, Concurrency at a time, then a shuffle seeded by
// Seed.
//
// When ctx ends, Generate stops promptly: the batch in flight is dropped
// (a later run redoes it), the checkpoint of the finished batches is
// saved, and the error wraps ctx's error; the report says how far it got.
// Other errors are configuration errors (ErrConfig) and a checkpoint that
// cannot be saved, which stops the run because resuming it would be
// impossible.
func (g *Generator) Generate(ctx context.Context, seeds []agentevolver.Task) ([]agentevolver.TaskObjective, GenerateReport, error) {
	var rep GenerateReport
	if err := g.check(seeds); err != nil {
		return nil, rep, err
	}
	log := g.logger()
	n := cmp.Or(g.N, DefaultTasksPerSeed)
	size := min(cmp.Or(g.Concurrency, DefaultConcurrency), len(seeds))
	items := len(seeds) * n
	total := (items + size - 1) / size
	rep = GenerateReport{Seeds: len(seeds), TasksPerSeed: n, Items: items, BatchSize: size, Batches: total}

	state := g.resume(seeds, total, &rep, log)
	var memory ObjectiveMemory
	memory.Replace(memoryView(state.Results))

	prog := runlog.NewProgress(g.Progress, int64(items), runlog.ProgressOptions{Description: "exploring"})
	for _, b := range state.ProcessedIndices {
		prog.Add(int64(min((b+1)*size, items) - b*size))
	}
	for b := range total {
		if state.Processed(b) {
			continue
		}
		if err := ctx.Err(); err != nil {
			prog.Finish()
			return nil, rep, g.interrupted(err, state, &rep)
		}
		lo, hi := b*size, min((b+1)*size, items)
		objs, complete := g.batch(ctx, seeds, lo, hi, &memory, &rep, prog, log)
		if !complete {
			prog.Finish()
			return nil, rep, g.interrupted(ctx.Err(), state, &rep)
		}
		state.Results = mergeRealtime(state.Results, objs)
		memory.Replace(memoryView(state.Results))
		state.ProcessedIndices = append(state.ProcessedIndices, b)
		rep.BatchesDone++
		if err := g.save(state); err != nil {
			prog.Finish()
			return nil, rep, err
		}
		log.Debug("taskgen: batch done", "batch", b, "of", total, "objectives", len(state.Results))
	}
	prog.Finish()

	rep.BeforeRealtime = rep.ResumedObjectives + rep.Objectives - rep.InvalidObjectives
	final := FilterRealtime(state.Results)
	rep.AfterRealtime = len(final)
	if g.PostFilter != nil {
		rep.PostFiltered = true
		var err error
		if final, err = g.postFilter(ctx, final, size, &rep, log); err != nil {
			return nil, rep, fmt.Errorf("taskgen: generation interrupted in the post filter (the checkpoint holds every batch; a rerun repeats only the final stages): %w", err)
		}
	}
	rep.AfterPostFilter = len(final)
	r := rand.New(rand.NewPCG(uint64(g.Seed), shuffleStream))
	r.Shuffle(len(final), func(i, j int) { final[i], final[j] = final[j], final[i] })
	return final, rep, nil
}

// Seed streams: the items' seeds and the shuffle never share a stream.
const (
	exploreStream   = 1
	summarizeStream = 2
	shuffleStream   = 0x73687566666c65 // "shuffle"
)

// itemSeed is the seed of work item i for one stream.
func itemSeed(seed int64, stream, i int) int64 {
	return agentflow.TurnSeed(agentflow.TurnSeed(seed, stream), i)
}

func (g *Generator) check(seeds []agentevolver.Task) error {
	switch {
	case g.Explorer == nil || g.Summarizer == nil:
		return fmt.Errorf("%w: Generator needs an Explorer and a Summarizer", ErrConfig)
	case g.N < 0:
		return fmt.Errorf("%w: N %d is negative", ErrConfig, g.N)
	case g.Concurrency < 0:
		return fmt.Errorf("%w: Concurrency %d is negative", ErrConfig, g.Concurrency)
	case len(seeds) == 0:
		return fmt.Errorf("%w: no seed tasks", ErrConfig)
	}
	for i, t := range seeds {
		if strings.TrimSpace(t.TaskID) == "" {
			return fmt.Errorf("%w: seed task %d has no task id", ErrConfig, i)
		}
	}
	return nil
}

func (g *Generator) logger() *slog.Logger {
	if g.Logger != nil {
		return g.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// resume returns the state to start from: the checkpoint's when it belongs
// to this run, else an empty one.
func (g *Generator) resume(seeds []agentevolver.Task, total int, rep *GenerateReport, log *slog.Logger) Checkpoint {
	fresh := Checkpoint{TotalBatches: total, TasksHash: TasksHash(seeds), ProcessedIndices: []int{}}
	if g.CheckpointPath == "" {
		return fresh
	}
	cp, status, err := LoadCheckpoint(g.CheckpointPath, fresh.TasksHash)
	rep.Checkpoint = status
	switch status {
	case CheckpointResumed:
		if cp.TotalBatches != total {
			rep.Checkpoint = CheckpointStale
			log.Warn("taskgen: the checkpoint has another batch layout (N or Concurrency changed); starting over",
				"path", g.CheckpointPath, "checkpoint_batches", cp.TotalBatches, "batches", total)
			return fresh
		}
		// Filtered once more, so that the results are a realtime
		// filter's (as this package's checkpoints always are) and
		// mergeRealtime may rely on it.
		cp.Results = FilterRealtime(cp.Results)
		rep.ResumedBatches, rep.ResumedObjectives = len(cp.ProcessedIndices), len(cp.Results)
		log.Info("taskgen: resuming from the checkpoint", "path", g.CheckpointPath,
			"batches_done", len(cp.ProcessedIndices), "of", total, "objectives", len(cp.Results))
		return cp
	case CheckpointStale:
		log.Warn("taskgen: the checkpoint belongs to other seed tasks; starting over", "path", g.CheckpointPath)
	case CheckpointCorrupt:
		log.Warn("taskgen: the checkpoint cannot be used; starting over", "path", g.CheckpointPath, "err", err)
	}
	return fresh
}

func (g *Generator) save(state Checkpoint) error {
	if g.CheckpointPath == "" {
		return nil
	}
	state.Timestamp = 0 // now
	return state.Save(g.CheckpointPath)
}

// interrupted saves the checkpoint of the finished batches and returns the
// error of a run stopped by ctx.
func (g *Generator) interrupted(cause error, state Checkpoint, rep *GenerateReport) error {
	done := len(state.ProcessedIndices)
	if err := g.save(state); err != nil {
		return fmt.Errorf("taskgen: generation interrupted after %d of %d batches, and the checkpoint could not be saved (%v): %w",
			done, rep.Batches, err, cause)
	}
	where := ""
	if g.CheckpointPath != "" {
		where = "; checkpoint saved to " + g.CheckpointPath
	}
	return fmt.Errorf("taskgen: generation interrupted after %d of %d batches%s: %w", done, rep.Batches, where, cause)
}

// mergeRealtime returns FilterRealtime(append(kept, batch...)) when kept
// is itself a result of FilterRealtime, in O(len(kept) * len(batch))
// comparisons instead of FilterRealtime's O(len(kept)^2): the elements of
// kept are eligible and never near-duplicates of each other, so in the
// merged greedy pass an element of kept is dropped only by a kept element
// of batch before it, and an element of batch is compared with everything
// kept before it. After every batch of a long run this is the difference
// between milliseconds and seconds.
func mergeRealtime(kept, batch []agentevolver.TaskObjective) []agentevolver.TaskObjective {
	type entry struct {
		obj   agentevolver.TaskObjective
		new   bool
		words map[string]struct{}
	}
	all := make([]entry, 0, len(kept)+len(batch))
	for _, o := range kept {
		all = append(all, entry{obj: o})
	}
	for _, o := range batch {
		all = append(all, entry{obj: o, new: true})
	}
	// The stable order of SelectRealtime: confidence, highest first, ties
	// in input order (kept before batch).
	slices.SortStableFunc(all, func(a, b entry) int {
		return cmp.Compare(confidenceKey(b.obj.Confidence), confidenceKey(a.obj.Confidence))
	})
	var out, newKept []*entry
	for i := range all {
		e := &all[i]
		if e.new && (e.obj.Task.GroundTruth == "" || e.obj.Task.Query == "") {
			continue
		}
		e.words = wordSet(e.obj.Task.Query)
		against := newKept
		if e.new {
			against = out
		}
		dup := false
		for _, k := range against {
			if jaccardSets(e.words, k.words) >= DuplicateThreshold {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		out = append(out, e)
		if e.new {
			newKept = append(newKept, e)
		}
	}
	res := make([]agentevolver.TaskObjective, len(out))
	for i, e := range out {
		res[i] = e.obj
	}
	return res
}

// itemResult is what one work item produced.
type itemResult struct {
	objs       []agentevolver.TaskObjective
	exploreErr error
	summaryErr error
}

// batch explores and summarises work items [lo, hi) concurrently and
// returns their valid objectives in item order, counting into rep. When
// ctx ended before every item finished, complete is false and nothing is
// counted: the batch must be dropped.
func (g *Generator) batch(ctx context.Context, seeds []agentevolver.Task, lo, hi int, memory *ObjectiveMemory, rep *GenerateReport, prog *runlog.Progress, log *slog.Logger) (objs []agentevolver.TaskObjective, complete bool) {
	results := make([]itemResult, hi-lo)
	var wg sync.WaitGroup
	for i := lo; i < hi; i++ {
		task := seeds[i%len(seeds)]
		old := memory.Queries(task.TaskID)
		wg.Go(func() {
			defer prog.Add(1)
			results[i-lo] = g.item(ctx, task, i, old)
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, false
	}
	for k, r := range results {
		i := lo + k
		task := seeds[i%len(seeds)]
		switch {
		case r.exploreErr != nil:
			rep.ExploreFailures++
			log.Warn("taskgen: exploration failed", "task_id", task.TaskID, "item", i, "err", r.exploreErr)
			continue
		case r.summaryErr != nil:
			rep.Explored++
			rep.SummarizeFailures++
			log.Warn("taskgen: summary failed", "task_id", task.TaskID, "item", i, "err", r.summaryErr)
			continue
		}
		rep.Explored++
		if len(r.objs) == 0 {
			rep.EmptySummaries++
			log.Debug("taskgen: the summary found no objective", "task_id", task.TaskID, "item", i)
			continue
		}
		rep.Objectives += len(r.objs)
		for _, o := range r.objs {
			if err := validObjective(o); err != nil {
				rep.InvalidObjectives++
				log.Warn("taskgen: invalid objective dropped", "task_id", task.TaskID, "item", i, "err", err)
				continue
			}
			objs = append(objs, cloneObjective(o))
		}
	}
	return objs, true
}

// item explores and summarises work item i, recovering panics of the
// explorer and the summariser as failures of the item.
func (g *Generator) item(ctx context.Context, task agentevolver.Task, i int, old []string) (res itemResult) {
	stage := &res.exploreErr
	defer func() {
		if p := recover(); p != nil {
			*stage = fmt.Errorf("taskgen: panic: %v", p)
		}
	}()
	traj, err := g.Explorer.Explore(ctx, task, itemSeed(g.Seed, exploreStream, i))
	if err != nil {
		res.exploreErr = err
		return res
	}
	if ctx.Err() != nil {
		res.exploreErr = ctx.Err()
		return res
	}
	stage = &res.summaryErr
	res.objs, res.summaryErr = g.Summarizer.Summarize(ctx, Exploration{
		Task:          task,
		Trajectory:    traj,
		OldObjectives: old,
		Seed:          itemSeed(g.Seed, summarizeStream, i),
	})
	return res
}

// validObjective rejects what a checkpoint could not hold.
func validObjective(o agentevolver.TaskObjective) error {
	switch {
	case strings.TrimSpace(o.Task.TaskID) == "":
		return errors.New("no task id")
	case o.Confidence != nil && !isFinite(*o.Confidence):
		return errors.New("confidence is not finite")
	case o.Reward != nil && !isFinite(*o.Reward):
		return errors.New("reward is not finite")
	}
	return nil
}

// SeedTaskID returns the seed task an objective was made from: its
// Metadata "seed_task_id" when that is a non-empty string (hindsight tasks
// of envservice.TaskSynthesizer have their own ids and record their seed
// there), else its task id (objectives parsed from a summary keep the
// seed's id).
func SeedTaskID(o agentevolver.TaskObjective) string {
	if s, ok := o.Task.Metadata["seed_task_id"].(string); ok && s != "" {
		return s
	}
	return o.Task.TaskID
}

// memoryView returns the objectives as the objective memory keys them: by
// their seed task.
func memoryView(objs []agentevolver.TaskObjective) []agentevolver.TaskObjective {
	out := make([]agentevolver.TaskObjective, len(objs))
	for i, o := range objs {
		out[i] = agentevolver.TaskObjective{Task: agentevolver.Task{TaskID: SeedTaskID(o), Query: o.Task.Query}}
	}
	return out
}

// postFilter runs the post filter over objs, concurrency at a time, and
// returns the kept objectives in order; the error is ctx's.
func (g *Generator) postFilter(ctx context.Context, objs []agentevolver.TaskObjective, concurrency int, rep *GenerateReport, log *slog.Logger) ([]agentevolver.TaskObjective, error) {
	type verdict struct {
		obj  agentevolver.TaskObjective
		keep bool
		err  error
	}
	if len(objs) == 0 {
		return nil, nil
	}
	verdicts := make([]verdict, len(objs))
	prog := runlog.NewProgress(g.Progress, int64(len(objs)), runlog.ProgressOptions{Description: "post-filtering"})
	defer prog.Finish()
	// A cancellation is reported by ctx.Err below, also after the last start.
	_ = parallel.ForEach(ctx, len(objs), concurrency, func(i int) {
		defer prog.Add(1)
		defer func() {
			if p := recover(); p != nil {
				verdicts[i] = verdict{err: fmt.Errorf("taskgen: post filter panic: %v", p)}
			}
		}()
		out, keep, err := g.PostFilter.Filter(ctx, cloneObjective(objs[i]))
		verdicts[i] = verdict{obj: out, keep: keep, err: err}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var kept []agentevolver.TaskObjective
	for i, v := range verdicts {
		switch {
		case v.err != nil:
			rep.PostFailures++
			log.Warn("taskgen: post filter failed; objective dropped", "task_id", objs[i].Task.TaskID, "query", objs[i].Task.Query, "err", v.err)
		case !v.keep:
			rep.PostRejected++
			log.Debug("taskgen: post filter rejected the objective", "task_id", objs[i].Task.TaskID, "query", objs[i].Task.Query)
		default:
			if err := validObjective(v.obj); err != nil {
				rep.PostFailures++
				log.Warn("taskgen: post filter returned an invalid objective; dropped", "task_id", objs[i].Task.TaskID, "err", err)
				continue
			}
			kept = append(kept, v.obj)
		}
	}
	return kept, nil
}
