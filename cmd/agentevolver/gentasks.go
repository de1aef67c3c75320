package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
	"github.com/org/agentevolver/taskgen"
	"github.com/org/agentevolver/trainer"
)

func init() {
	register(command{
		name:    "gen-tasks",
		summary: "write synthetic training tasks by self-questioning (explore, summarise, filter)",
		run:     runGenTasks,
	})
}

// Output files of gen-tasks, in its --out directory.
const (
	genTasksJSONL   = "tasks.jsonl"
	genTasksParquet = "tasks.parquet"
)

// genTasksOptions are the flags of gen-tasks.
type genTasksOptions struct {
	env, out, split, checkpoint string
	seeds, n, concurrency       int
	maxSteps                    int
	seed                        int64
	configs, sets               stringList
	llmURL, llmModel, policy    string
	temperature                 float64
	postFilter                  bool
	logLevel                    string
}

func runGenTasks(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	o, err := parseGenTasks(args, stderr)
	if err != nil {
		return err
	}
	if _, ok := stderr.(*os.File); !ok {
		// Shared by the logger and the progress lines. (A file is safe
		// for concurrent writes, and stays one so that the progress bar
		// can see a terminal.)
		stderr = &lockedWriter{w: stderr}
	}
	log, err := newLogger(stderr, o.logLevel)
	if err != nil {
		return err
	}
	// The environment exactly as `train` builds it from the same
	// configuration: a synthetic task names its seed task by id, which
	// means the same task only in the same environment.
	cfg, err := trainer.LoadConfig(o.configs, o.sets)
	if err != nil {
		return err
	}
	if o.env == "" {
		o.env = cmp.Or(cfg.Env.Type, trainer.DefaultEnvType)
	}
	cfg.Env.Type = o.env
	cfg.Env.LoadPolicy = trainer.LoadChatModel
	env, err := builtin.Open(ctx, o.env, cfg.Env.Config, log.With("env_type", o.env))
	if err != nil {
		return fmt.Errorf("--env: %w", err)
	}
	m := envservice.NewManager(envservice.ManagerConfig{Logger: log})
	defer m.Close()
	if err := m.Register(o.env, env); err != nil {
		return err
	}

	var g *taskgen.Generator
	var how, filterName string
	switch {
	case o.llmURL != "" && o.policy != "":
		return fmt.Errorf("--llm-url and --policy both choose the explorer; give one")
	case o.llmURL != "":
		g, err = llmGenerator(o, m, env, log)
		how, filterName = "LLM "+o.llmModel+" at "+o.llmURL, "LLM post filter"
	case o.policy != "":
		g, err = policyGenerator(ctx, o, cfg, m, env, log)
		how, filterName = "the policy "+o.policy+" and hindsight tasks (no LLM)", "environment check"
	default:
		g, err = noLLMGenerator(o, m, env, log)
		how, filterName = "random walks and hindsight tasks (no LLM)", "environment check"
	}
	if err != nil {
		return err
	}
	g.N, g.Concurrency, g.Seed = o.n, o.concurrency, o.seed
	g.CheckpointPath, g.Progress, g.Logger = o.checkpoint, stderr, log

	seeds, available, err := seedTasks(ctx, m, o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(stdout, "gen-tasks: %d of %d %s/%s tasks as seeds, %d per seed, with %s\n",
		len(seeds), available, o.env, o.split, max(o.n, 1), how)

	objs, rep, genErr := g.Generate(ctx, seeds)
	printGenReport(stdout, rep, filterName, genErr == nil)
	if genErr != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w\nrun the same command again to resume: agentevolver gen-tasks %s", genErr, quoteArgs(args))
		}
		return genErr
	}
	if failed := rep.ExploreFailures + rep.SummarizeFailures; rep.ResumedBatches == 0 && failed == rep.Items {
		// An outage rather than a run: nothing is worth resuming, and a
		// rerun (after fixing the endpoint, say) starts afresh.
		if err := os.Remove(o.checkpoint); err != nil && !errors.Is(err, os.ErrNotExist) {
			log.Warn("gen-tasks: could not remove the checkpoint", "path", o.checkpoint, "err", err)
		}
		return fmt.Errorf("all %d explorations failed (%d in exploring, %d in summarising); the warnings above say why",
			failed, rep.ExploreFailures, rep.SummarizeFailures)
	}
	jsonl, parquet := filepath.Join(o.out, genTasksJSONL), filepath.Join(o.out, genTasksParquet)
	for _, path := range []string{jsonl, parquet} {
		if err := taskgen.WriteTaskFile(path, objs); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "wrote %d tasks to %s and %s\n", len(objs), jsonl, parquet)
	// The run is complete: a later run starts afresh rather than
	// resuming this one with other flags.
	if err := os.Remove(o.checkpoint); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Warn("gen-tasks: could not remove the checkpoint", "path", o.checkpoint, "err", err)
	}
	return nil
}

func parseGenTasks(args []string, stderr io.Writer) (genTasksOptions, error) {
	var o genTasksOptions
	known := strings.Join(builtin.Names(), ", ")
	fs := flag.NewFlagSet("gen-tasks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: agentevolver gen-tasks --out DIR [--env NAME] [flags]

Self-questioning: explores seed tasks of a built-in environment (%s), turns
each exploration into new tasks, filters them and writes the synthetic tasks
to DIR/%s and DIR/%s (the same rows), printing the counts of every stage.

With --llm-url and --llm-model, an OpenAI-compatible endpoint explores,
summarises the explorations into tasks and, as the post filter, solves and
validates them. Without them no LLM is used: the environment's own random
actions explore, its hindsight relabelling turns each walk into a task it can
verify, and replaying each task's expert solution is the post filter; the
environment must implement envservice.RandomExplorer, TaskSynthesizer and
Expert.

The run saves a checkpoint after every batch. After an interrupt (Ctrl-C)
run the same command again to resume; a finished run removes it.

Flags:
`, known, genTasksJSONL, genTasksParquet)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.env, "env", "", "built-in environment ("+known+"; default env.type of the configuration, else "+trainer.DefaultEnvType+")")
	fs.Var(&o.configs, "config", "training configuration whose env section builds the environment, as train does (repeatable; train on the tasks with the same configuration)")
	fs.Var(&o.sets, "set", "override one configuration key, for example --set env.toolworld.seed=2 (repeatable)")
	fs.StringVar(&o.out, "out", "", "output directory (required)")
	fs.StringVar(&o.split, "split", "train", "split of the seed tasks; synthetic tasks belong to it")
	fs.IntVar(&o.seeds, "seeds", 30, "number of seed tasks, the first of the split (0: all)")
	fs.IntVar(&o.n, "n", 1, "explorations of every seed task")
	fs.IntVar(&o.concurrency, "concurrency", taskgen.DefaultConcurrency, "explorations at once (also the batch size, at most --seeds)")
	fs.IntVar(&o.maxSteps, "max-steps", 0, fmt.Sprintf("turns of an exploration (0: %d with an LLM, %d for a random walk)", taskgen.DefaultExploreSteps, taskgen.DefaultRandomWalkSteps))
	fs.Int64Var(&o.seed, "seed", 0, "generation seed: explorations, summaries and the final shuffle")
	fs.StringVar(&o.checkpoint, "checkpoint", "", "checkpoint file (default DIR/"+taskgen.DefaultCheckpointFile+")")
	fs.StringVar(&o.llmURL, "llm-url", "", "OpenAI-compatible API root for exploration, summaries and the post filter, e.g. http://127.0.0.1:8000/v1 (key: $OPENAI_API_KEY)")
	fs.StringVar(&o.llmModel, "llm-model", "", "model name at --llm-url")
	fs.StringVar(&o.policy, "policy", "", "explore with this saved policy (a run's final/ directory) instead of random walks, then hindsight tasks; no LLM")
	fs.Float64Var(&o.temperature, "temperature", 1.0, "sampling temperature of --policy")
	fs.BoolVar(&o.postFilter, "post-filter", true, "run the post filter (LLM solve-and-validate, or the environment check without an LLM)")
	fs.StringVar(&o.logLevel, "log-level", "warn", "log level: debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return o, err
	}
	switch {
	case o.out == "":
		return o, errors.New("--out is required")
	case o.seeds < 0:
		return o, errors.New("--seeds must not be negative")
	case o.n < 1:
		return o, errors.New("--n must be positive")
	case o.concurrency < 1:
		return o, errors.New("--concurrency must be positive")
	case o.maxSteps < 0:
		return o, errors.New("--max-steps must not be negative")
	case (o.llmURL == "") != (o.llmModel == ""):
		return o, errors.New("--llm-url and --llm-model go together")
	}
	if o.checkpoint == "" {
		o.checkpoint = filepath.Join(o.out, taskgen.DefaultCheckpointFile)
	}
	return o, nil
}

// seedTasks lists the first --seeds tasks of the split, and how many the
// split has.
func seedTasks(ctx context.Context, m *envservice.Manager, o genTasksOptions) ([]agentevolver.Task, int, error) {
	ids, err := m.TaskIDs(ctx, o.env, o.split)
	if err != nil {
		return nil, 0, fmt.Errorf("--split %s: %w", o.split, err)
	}
	if len(ids) == 0 {
		return nil, 0, fmt.Errorf("--split %s: %s has no tasks in it", o.split, o.env)
	}
	n := len(ids)
	if o.seeds > 0 {
		n = min(n, o.seeds)
	}
	seeds := make([]agentevolver.Task, n)
	for i, id := range ids[:n] {
		seeds[i] = agentevolver.Task{TaskID: id, EnvType: o.env}
	}
	return seeds, len(ids), nil
}

// llmGenerator explores, summarises and post-filters with the model at
// --llm-url.
func llmGenerator(o genTasksOptions, m *envservice.Manager, env envservice.Environment, log *slog.Logger) (*taskgen.Generator, error) {
	model, err := openai.New(openai.Config{BaseURL: o.llmURL, Model: o.llmModel, MaxConcurrency: o.concurrency, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--llm-url: %w", err)
	}
	var profile *agentevolver.EnvProfile
	if pp, ok := env.(envservice.ProfileProvider); ok {
		p := pp.Profile()
		profile = &p
	} else {
		log.Warn("gen-tasks: the environment has no profile (envservice.ProfileProvider); the prompts describe no environment", "env", o.env)
	}
	g := &taskgen.Generator{
		Explorer:   &taskgen.LLMExplorer{Env: m, Model: model, EnvType: o.env, Profile: profile, MaxSteps: o.maxSteps, Logger: log},
		Summarizer: &taskgen.LLMSummarizer{Model: model, Profile: profile, Logger: log},
	}
	if o.postFilter {
		g.PostFilter = &taskgen.LLMPostFilter{Env: m, Model: model, EnvType: o.env, MaxSteps: o.maxSteps, Seed: o.seed, Logger: log}
	}
	return g, nil
}

// policyGenerator explores with a saved policy (--policy) in the
// environment's own prompt, sampling at --temperature, then relabels and
// checks like noLLMGenerator.
func policyGenerator(ctx context.Context, o genTasksOptions, cfg trainer.Config, m *envservice.Manager, env envservice.Environment, log *slog.Logger) (*taskgen.Generator, error) {
	g, err := noLLMGenerator(o, m, env, log)
	if err != nil {
		return nil, err
	}
	lp, err := trainer.LoadPolicy(ctx, cfg, o.policy)
	if err != nil {
		return nil, fmt.Errorf("--policy: %w", err)
	}
	lp.Context.Logger = log
	g.Explorer = &taskgen.LLMExplorer{
		Env: m, Model: lp.Model, EnvType: o.env, Context: lp.Context, EnvPrompt: true,
		MaxSteps: cmp.Or(o.maxSteps, cfg.Rollout.MaxSteps), Chat: llm.ChatOptions{Temperature: llm.Float(o.temperature)},
		Logger: log,
	}
	return g, nil
}

// noLLMGenerator explores with the environment's random actions,
// relabels the walks in hindsight and replays the expert's solutions; it
// names the capability env lacks.
func noLLMGenerator(o genTasksOptions, m *envservice.Manager, env envservice.Environment, log *slog.Logger) (*taskgen.Generator, error) {
	missing := func(what string) error {
		return fmt.Errorf("--env %s: without --llm-url, gen-tasks needs an environment that implements %s, and %s does not; "+
			"give --llm-url and --llm-model to explore and summarise with an LLM", o.env, what, o.env)
	}
	walker, ok := env.(envservice.RandomExplorer)
	if !ok {
		return nil, missing("envservice.RandomExplorer (random valid actions)")
	}
	synth, ok := env.(envservice.TaskSynthesizer)
	if !ok {
		return nil, missing("envservice.TaskSynthesizer (hindsight tasks)")
	}
	g := &taskgen.Generator{
		Explorer:   &taskgen.RandomWalkExplorer{Env: m, Actions: walker, EnvType: o.env, MaxSteps: o.maxSteps, Logger: log},
		Summarizer: &taskgen.HindsightSummarizer{Synthesizer: synth},
	}
	if o.postFilter {
		expert, ok := env.(envservice.Expert)
		if !ok {
			return nil, fmt.Errorf("--env %s: the environment check replays expert solutions, and %s does not implement envservice.Expert; "+
				"give --post-filter=false to skip it", o.env, o.env)
		}
		g.PostFilter = &taskgen.EnvPostFilter{Env: m, Expert: expert, EnvType: o.env, Logger: log}
	}
	return g, nil
}

// printGenReport prints the counts before and after every stage; finished
// is false when the generation stopped early.
func printGenReport(w io.Writer, r taskgen.GenerateReport, filterName string, finished bool) {
	if r.Items == 0 {
		return
	}
	batches := "batches"
	if r.Batches == 1 {
		batches = "batch"
	}
	fmt.Fprintf(w, "work: %d explorations in %d %s of %d\n", r.Items, r.Batches, batches, r.BatchSize)
	switch r.Checkpoint {
	case taskgen.CheckpointResumed:
		fmt.Fprintf(w, "checkpoint: resumed %d of %d batches (%d objectives)\n", r.ResumedBatches, r.Batches, r.ResumedObjectives)
	case taskgen.CheckpointStale:
		fmt.Fprintln(w, "checkpoint: of another run (other seeds, --n or --concurrency); started over")
	case taskgen.CheckpointCorrupt:
		fmt.Fprintln(w, "checkpoint: unusable; started over")
	}
	fmt.Fprintf(w, "explored:          %d of %d (%d failed)\n", r.Explored, r.Explored+r.ExploreFailures, r.ExploreFailures)
	fmt.Fprintf(w, "summarised:        %d objectives from %d explorations (%d without an objective, %d failed)\n",
		r.Objectives, r.Explored, r.EmptySummaries, r.SummarizeFailures)
	if r.InvalidObjectives > 0 {
		fmt.Fprintf(w, "invalid:           %d objectives dropped\n", r.InvalidObjectives)
	}
	if r.BatchesDone+r.ResumedBatches < r.Batches {
		fmt.Fprintf(w, "stopped after %d of %d batches\n", r.BatchesDone+r.ResumedBatches, r.Batches)
		return
	}
	fmt.Fprintf(w, "realtime filter:   %d -> %d\n", r.BeforeRealtime, r.AfterRealtime)
	if r.PostFiltered {
		if !finished {
			fmt.Fprintf(w, "post filter (%s): stopped\n", filterName)
			return
		}
		fmt.Fprintf(w, "post filter (%s): %d -> %d (%d rejected, %d failed)\n", filterName, r.AfterRealtime, r.AfterPostFilter, r.PostRejected, r.PostFailures)
	}
}

// lockedWriter serialises writes to w from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// quoteArgs writes args back as a POSIX shell command line.
func quoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=./:,@%+", r))
		}) {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
