package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
	"github.com/org/agentevolver/tokenizer"
)

// shutdownTimeout bounds releasing the built-in environment's instances at
// the end.
const shutdownTimeout = 10 * time.Second

// run is the whole program: it parses args, runs the episodes and prints
// their transcripts to stdout; progress, warnings and logs go to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	stderr = &lockedWriter{w: stderr} // shared by the logger and the progress lines
	level := slog.LevelWarn
	if o.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	noticed := make(chan struct{})
	stopNotice := context.AfterFunc(ctx, func() {
		defer close(noticed)
		fmt.Fprintln(stderr, "interrupted: stopping the episodes and releasing their environment instances...")
	})
	defer func() {
		// The notice runs in its own goroutine; wait for it so nothing
		// writes to stderr after run returns.
		if !stopNotice() {
			<-noticed
		}
	}()

	var out *os.File
	if o.out != "" {
		// Opened first, so that a bad path fails before any episode runs.
		if out, err = os.Create(o.out); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		defer func() {
			if cerr := out.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("--out: %w", cerr)
			}
		}()
	}

	cmCfg, err := contextConfig(o, logger)
	if err != nil {
		return err
	}
	if o.apiKey == "" {
		// What the SDK would send; the endpoint check must send it too.
		o.apiKey = os.Getenv("OPENAI_API_KEY")
	}
	httpClient := newHTTPClient(o.concurrency)
	warning, err := checkEndpoint(ctx, httpClient, o.baseURL, o.apiKey, o.model)
	if err != nil {
		return err
	}
	if warning != "" {
		fmt.Fprintln(stderr, "warning:", warning)
	}
	policy, err := openai.New(openai.Config{
		BaseURL:        o.baseURL,
		APIKey:         o.apiKey,
		Model:          o.model,
		MaxConcurrency: o.concurrency,
		RequestTimeout: o.requestTimeout,
		MaxRetries:     cmpRetries(o.retries),
		Stream:         o.stream,
		HTTPClient:     httpClient,
		Logger:         logger,
	})
	if err != nil {
		return err
	}
	cmCfg.ClipModel = policy // used by the context_selfclip strategy only

	env, closeEnv, err := openEnv(o, logger)
	if err != nil {
		return err
	}
	defer closeEnv()
	tasks, err := selectTasks(ctx, env, o, stderr)
	if err != nil {
		return err
	}

	rollouts := agentflow.Expand(tasks, o.n)
	rec := newRecorder(env)
	defer rec.forgetAll()
	runner := &agentflow.Runner{
		Flow: &agentflow.Flow{
			Env:      rec,
			Policy:   policy,
			Chat:     chatOptions(o),
			Context:  cmCfg,
			Strategy: o.strategy,
			EnvType:  o.envType,
			MaxSteps: o.maxSteps,
			Reward:   &progress{inner: agentflow.EnvEvaluator{Sparse: o.sparse}, w: stderr, total: len(rollouts)},
			Logger:   logger,
		},
		Concurrency: o.concurrency,
		MaxAttempts: o.attempts,
		Logger:      logger,
	}
	if out != nil {
		runner.Trajectories = out
	}
	fmt.Fprintf(stderr, "running %d episodes (%d tasks x %d) with %s at %s\n", len(rollouts), len(tasks), o.n, sanitize(o.model), o.baseURL)
	results, runErr := runner.Run(ctx, rollouts)

	eps := make([]episode, len(results))
	for i, res := range results {
		eps[i] = episode{res: res, exchange: rec.take(res.InstanceID)}
	}
	failures, other := splitErrors(runErr)
	p := &printer{w: stdout, width: o.width, maxChars: o.maxChars, showSystem: o.showSystem, maxSteps: o.maxSteps}
	for i, e := range eps {
		p.transcript(i+1, len(eps), e)
	}
	interrupted := ctx.Err() != nil
	p.summary(eps, failures, len(rollouts), o.n, interrupted)

	switch {
	case interrupted:
		return fmt.Errorf("interrupted after %d of %d episodes: %w", len(eps), len(rollouts), context.Cause(ctx))
	case len(other) > 0:
		return errors.Join(other...)
	case len(failures) > 0 && len(eps) == 0:
		return fmt.Errorf("all %d episodes failed; the first: %w", len(failures), failures[0].Err)
	case len(failures) > 0:
		return fmt.Errorf("%d of %d episodes failed", len(failures), len(rollouts))
	}
	return nil
}

// splitErrors separates the episodes that failed from other errors
// (writing trajectories, cancellation) in the Runner's joined error.
func splitErrors(err error) (failures []*agentflow.RolloutError, other []error) {
	if err == nil {
		return nil, nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var re *agentflow.RolloutError
		switch {
		case errors.As(e, &re):
			failures = append(failures, re)
		case errors.Is(e, context.Canceled), errors.Is(e, context.DeadlineExceeded):
			// Reported as the interruption.
		default:
			other = append(other, e)
		}
	}
	return failures, other
}

// cmpRetries maps the --retries flag to openai.Config.MaxRetries, where
// zero means the default and a negative value none.
func cmpRetries(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// chatOptions are the sampling settings of the flags.
func chatOptions(o options) llm.ChatOptions {
	return llm.ChatOptions{
		Temperature: llm.Float(o.temperature),
		TopP:        o.topP,
		MaxTokens:   o.maxTokens,
		Seed:        o.sampleSeed,
	}
}

// newHTTPClient returns the client of the model requests, with enough idle
// connections for the episodes in flight.
func newHTTPClient(concurrency int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(concurrency, 2)
	return &http.Client{Transport: t}
}

// contextConfig is the context managers' configuration: the tokenizer of
// --tokenizer, or the byte-level one, which over-counts tokens (one per
// byte) and so ends episodes early rather than late.
func contextConfig(o options, logger *slog.Logger) (contextmgr.Config, error) {
	var tok tokenizer.Tokenizer
	if o.tokenizerDir == "" {
		bl, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
		if err != nil {
			return contextmgr.Config{}, err
		}
		tok = bl
	} else {
		bpe, err := tokenizer.Load(o.tokenizerDir)
		if err != nil {
			return contextmgr.Config{}, fmt.Errorf("--tokenizer: %w", err)
		}
		tok = bpe
	}
	var tpl tokenizer.ChatTemplate = tokenizer.Qwen25ChatML()
	if tp, ok := tok.(tokenizer.TemplateProvider); ok {
		if t, err := tp.ChatTemplate(); err == nil {
			tpl = t
		} else {
			logger.Warn("tokenizer has no chat template this program can render; using Qwen2.5's", "err", err)
		}
	}
	return contextmgr.Config{
		Tokenizer:      tok,
		Template:       tpl,
		MaxModelLen:    o.maxModelLen,
		ResponseLength: o.maxTokens,
		// The samples are not trained on here; any prompt that fits the
		// context window is fine.
		MaxPromptLen: o.maxModelLen,
		Logger:       logger,
	}, nil
}

// openEnv returns the environment: a client of the env service at
// --env-url, or the built-in toolworld run in process. closeEnv releases
// what is left of it.
func openEnv(o options, logger *slog.Logger) (env envclient.Env, closeEnv func(), err error) {
	if o.envURL != "" {
		c, err := envclient.New(envclient.Config{BaseURL: o.envURL, EnvType: o.envType, Logger: logger})
		if err != nil {
			return nil, nil, fmt.Errorf("--env-url: %w", err)
		}
		return c, func() {}, nil
	}
	tw, err := toolworld.New(toolworld.Config{Seed: o.seed, Compact: o.compact, Logger: logger})
	if err != nil {
		return nil, nil, err
	}
	m := envservice.NewManager(envservice.ManagerConfig{Logger: logger})
	if err := m.Register(toolworld.Name, tw); err != nil {
		return nil, nil, err
	}
	return m, func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			logger.Warn("releasing environment instances", "err", err)
		}
	}, nil
}

// selectTasks lists the split's tasks and picks --task-ids, or the first
// --tasks.
func selectTasks(ctx context.Context, env envclient.Env, o options, stderr io.Writer) ([]agentevolver.Task, error) {
	where := "the built-in " + toolworld.Name
	if o.envURL != "" {
		where = fmt.Sprintf("the env service at %s (env type %q)", o.envURL, o.envType)
	}
	ids, err := env.TaskIDs(ctx, o.envType, o.split)
	if err != nil {
		return nil, fmt.Errorf("listing the %q tasks of %s: %w", o.split, where, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("split %q of %s has no tasks", o.split, where)
	}
	picked := ids[:min(o.tasks, len(ids))]
	if len(o.taskIDs) > 0 {
		for _, id := range o.taskIDs {
			if !slices.Contains(ids, id) {
				return nil, usagef("--task-ids: %q is not a task of split %q (its tasks run %s ... %s)", id, o.split, sanitize(ids[0]), sanitize(ids[len(ids)-1]))
			}
		}
		picked = o.taskIDs
	} else if o.tasks > len(ids) {
		fmt.Fprintf(stderr, "split %q has only %d tasks; running them all\n", o.split, len(ids))
	}
	tasks := make([]agentevolver.Task, len(picked))
	for i, id := range picked {
		tasks[i] = agentevolver.Task{TaskID: id, EnvType: o.envType}
	}
	return tasks, nil
}

// progress is a RewardCalculator that reports each scored episode on
// stderr, so that a long run shows signs of life before the transcripts.
type progress struct {
	inner agentflow.RewardCalculator
	w     io.Writer
	total int

	mu   sync.Mutex
	done int
}

// CalculateReward implements agentflow.RewardCalculator.
func (p *progress) CalculateReward(ctx context.Context, in agentflow.RewardInput) (float64, string, error) {
	score, reason, err := p.inner.CalculateReward(ctx, in)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	t := in.Trajectory
	if err != nil {
		fmt.Fprintf(p.w, "[%d/%d] task %s rollout %s: cannot score: %v\n", p.done, p.total, sanitize(t.TaskID), sanitize(t.RolloutID), err)
	} else {
		fmt.Fprintf(p.w, "[%d/%d] task %s rollout %s: score %.2f\n", p.done, p.total, sanitize(t.TaskID), sanitize(t.RolloutID), score)
	}
	return score, reason, err
}

// lockedWriter serialises writes from concurrent episodes.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// exitCode reports err on stderr and returns the process's exit status: 0
// on success or help, 2 for a bad command line, 130 when interrupted, 1
// otherwise.
func exitCode(err error, stderr io.Writer) int {
	var usage *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "rollout: %v\nRun with -h for the flags.\n", err)
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "rollout: %v\n", err)
		return 130
	}
	fmt.Fprintf(stderr, "rollout: %s\n", strings.TrimSpace(err.Error()))
	return 1
}
