package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envs/toolworld"
)

// usageError reports a bad command line; main exits with status 2.
type usageError struct{ msg string }

// Error implements error.
func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// options are the parsed and validated flags.
type options struct {
	// Model endpoint.
	baseURL, apiKey, model string
	requestTimeout         time.Duration
	retries                int
	stream                 bool

	// Sampling.
	temperature float64
	topP        float64
	maxTokens   int
	sampleSeed  *int64

	// Environment: the built-in toolworld, or a remote env service.
	envURL  string
	envType string
	seed    int64
	compact bool

	// Episodes.
	split       string
	tasks       int
	taskIDs     []string
	n           int
	maxSteps    int
	concurrency int
	attempts    int
	sparse      bool

	// Context bookkeeping.
	strategy     string
	tokenizerDir string
	maxModelLen  int

	// Output.
	out        string
	width      int
	maxChars   int
	showSystem bool
	verbose    bool
}

// Defaults of the flags.
const (
	defaultSplit          = toolworld.SplitVal
	defaultTasks          = 3
	defaultRollouts       = 1
	defaultMaxSteps       = 10
	defaultTemperature    = 0.7
	defaultMaxTokens      = 1024
	defaultMaxModelLen    = 32768
	defaultConcurrency    = 8
	defaultAttempts       = 2
	defaultRetries        = 4
	defaultRequestTimeout = 5 * time.Minute
	defaultWidth          = 100
	defaultMaxChars       = 4000
	minWidth              = 40
)

var strategies = []string{contextmgr.StrategyLinear, contextmgr.StrategyLinearThink, contextmgr.StrategyMemory, contextmgr.StrategySelfClip, contextmgr.StrategyPerCall}

// parseOptions parses the command line. Help goes to stderr and returns
// flag.ErrHelp.
func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("rollout", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `rollout runs toolworld episodes with an OpenAI-compatible model and prints
readable transcripts and scores.

Usage:
  go run ./examples/rollout --base-url http://127.0.0.1:8000/v1 --model qwen2.5-7b-instruct [flags]

Flags:
`)
		fs.PrintDefaults()
	}

	fs.StringVar(&o.baseURL, "base-url", "", "OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1 (vLLM) or http://127.0.0.1:11434/v1 (ollama) (required)")
	fs.StringVar(&o.model, "model", "", "model name the server serves (required)")
	fs.StringVar(&o.apiKey, "api-key", "", "API key sent as a bearer token (default: $OPENAI_API_KEY if set, else none)")
	fs.DurationVar(&o.requestTimeout, "request-timeout", defaultRequestTimeout, "time limit of one chat request")
	fs.IntVar(&o.retries, "retries", defaultRetries, "retries of a failed chat request (429, 5xx, dropped connections)")
	fs.BoolVar(&o.stream, "stream", false, "stream completions (server-sent events)")

	fs.Float64Var(&o.temperature, "temperature", defaultTemperature, "sampling temperature (0: greedy)")
	fs.Float64Var(&o.topP, "top-p", 0, "nucleus sampling mass (0: the server's default)")
	fs.IntVar(&o.maxTokens, "max-tokens", defaultMaxTokens, "maximum tokens of one model turn")
	var sampleSeed int64
	fs.Int64Var(&sampleSeed, "sample-seed", 0, "sampling seed sent to the server (default: unseeded)")

	fs.StringVar(&o.envURL, "env-url", "", "use the env service at this URL instead of the built-in toolworld")
	fs.StringVar(&o.envType, "env-type", toolworld.Name, "environment type to ask the env service for")
	fs.Int64Var(&o.seed, "seed", 0, "seed of the built-in toolworld's generated tasks")
	fs.BoolVar(&o.compact, "compact", false, "give the built-in toolworld's short system prompt (for small models)")

	fs.StringVar(&o.split, "split", defaultSplit, "task split: train, val or test")
	fs.IntVar(&o.tasks, "tasks", defaultTasks, "number of tasks, the first of the split")
	var taskIDs string
	fs.StringVar(&taskIDs, "task-ids", "", "comma-separated task ids of the split to run instead of the first --tasks")
	fs.IntVar(&o.n, "n", defaultRollouts, "episodes per task")
	fs.IntVar(&o.maxSteps, "max-steps", defaultMaxSteps, "maximum model turns per episode")
	fs.IntVar(&o.concurrency, "concurrency", defaultConcurrency, "episodes run at once")
	fs.IntVar(&o.attempts, "attempts", defaultAttempts, "tries of an episode that fails (model or environment unavailable)")
	fs.BoolVar(&o.sparse, "sparse", false, "score 1 only when every check passes, else 0 (default: the fraction of checks passed)")

	fs.StringVar(&o.strategy, "context", contextmgr.StrategyLinear, "context strategy: "+strings.Join(strategies, ", "))
	fs.StringVar(&o.tokenizerDir, "tokenizer", "", "directory with the model's Hugging Face tokenizer.json, for exact token counts (default: byte-level, one token per byte)")
	fs.IntVar(&o.maxModelLen, "max-model-len", defaultMaxModelLen, "model context length in tokens; an episode whose prompt outgrows it ends")

	fs.StringVar(&o.out, "out", "", "write the trajectories to this file as JSON lines")
	fs.IntVar(&o.width, "width", defaultWidth, "wrap the transcript at this many columns")
	fs.IntVar(&o.maxChars, "max-chars", defaultMaxChars, "show at most this many bytes of one message (0: all)")
	fs.BoolVar(&o.showSystem, "show-system", false, "print the whole system prompt (default: its first line)")
	fs.BoolVar(&o.verbose, "v", false, "log debug details to stderr")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, &usageError{msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return o, usagef("unexpected argument %q (all settings are flags)", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["sample-seed"] {
		o.sampleSeed = &sampleSeed
	}
	for _, id := range strings.Split(taskIDs, ",") {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(o.taskIDs, id) {
			o.taskIDs = append(o.taskIDs, id)
		}
	}
	return o, o.validate(set)
}

// validate checks the options; set names the flags given on the command
// line.
func (o *options) validate(set map[string]bool) error {
	if o.baseURL == "" {
		return usagef("--base-url is required, e.g. --base-url http://127.0.0.1:8000/v1")
	}
	if err := checkURL("--base-url", o.baseURL); err != nil {
		return err
	}
	if o.model == "" {
		return usagef("--model is required: the name the server serves the model under, e.g. --model qwen2.5-7b-instruct")
	}
	if o.envURL != "" {
		if err := checkURL("--env-url", o.envURL); err != nil {
			return err
		}
		for _, name := range []string{"seed", "compact"} {
			if set[name] {
				return usagef("--%s configures the built-in toolworld; it cannot be used with --env-url", name)
			}
		}
	}
	if o.envURL == "" && o.envType != toolworld.Name {
		return usagef("--env-type %q needs --env-url: the built-in environment is %s", o.envType, toolworld.Name)
	}
	switch {
	case o.envType == "":
		return usagef("--env-type must not be empty")
	case o.split == "":
		return usagef("--split must not be empty")
	case o.tasks < 1:
		return usagef("--tasks must be at least 1, got %d", o.tasks)
	case o.n < 1:
		return usagef("--n must be at least 1, got %d", o.n)
	case o.maxSteps < 1:
		return usagef("--max-steps must be at least 1, got %d", o.maxSteps)
	case o.concurrency < 1:
		return usagef("--concurrency must be at least 1, got %d", o.concurrency)
	case o.attempts < 1:
		return usagef("--attempts must be at least 1, got %d", o.attempts)
	case o.retries < 0:
		return usagef("--retries must not be negative, got %d", o.retries)
	case o.requestTimeout <= 0:
		return usagef("--request-timeout must be positive, got %s", o.requestTimeout)
	case o.temperature < 0 || o.temperature > 2:
		return usagef("--temperature must be within [0, 2], got %g", o.temperature)
	case o.topP < 0 || o.topP > 1:
		return usagef("--top-p must be within [0, 1], got %g", o.topP)
	case o.maxTokens < 1:
		return usagef("--max-tokens must be at least 1, got %d", o.maxTokens)
	case o.maxModelLen <= o.maxTokens:
		return usagef("--max-model-len (%d) must exceed --max-tokens (%d)", o.maxModelLen, o.maxTokens)
	case !slices.Contains(strategies, o.strategy):
		return usagef("--context must be one of %s, got %q", strings.Join(strategies, ", "), o.strategy)
	case o.width < minWidth:
		return usagef("--width must be at least %d, got %d", minWidth, o.width)
	case o.maxChars < 0:
		return usagef("--max-chars must not be negative, got %d", o.maxChars)
	}
	return nil
}

// checkURL accepts absolute http and https URLs.
func checkURL(flagName, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("%s must be an http:// or https:// URL with a host, got %q", flagName, raw)
	}
	return nil
}
