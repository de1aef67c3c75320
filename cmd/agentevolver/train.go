package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/org/agentevolver/attribution"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/runlog/episodelog"
	"github.com/org/agentevolver/trainer"
)

func init() {
	register(command{
		name:    "train",
		summary: "train a policy (with no flags: the built-in toolworld job on the pure-Go backend)",
		run:     runTrain,
	})
}

// trainUsage is the head of train -h.
const trainUsage = `Usage: agentevolver train [--config FILE]... [--set key=value]... [flags]

Train a policy by reinforcement learning. With no flags: the built-in
toolworld job (the shipped base policy, the three self-evolving mechanisms
on) on the pure-Go backend. The configuration is the defaults, then each
--config file in order, then each --set override; a file written for the
original AgentEvolver loads too (docs/config-aliases.md). Outputs,
checkpoints and metrics go to trainer.output_dir (docs/runs.md);
--print-config shows the configuration that would run.

Flags:
`

// printWarnings writes the warnings of loading a configuration, one a
// line.
func printWarnings(w io.Writer, command string, warnings []string) {
	for _, msg := range warnings {
		fmt.Fprintf(w, "agentevolver %s: warning: %s\n", command, msg)
	}
}

// defaultNote is a configuration key whose zero value the trainer reads
// as something else: --print-config shows what.
type defaultNote struct {
	path string // YAML path, as "trainer.silent_steps"
	// zero reports that the configuration leaves the key 0 or empty.
	zero func(c *trainer.Config) bool
	// resolve, when set, puts the value used in its place; note then
	// names where it comes from. Without resolve, note says what 0 or
	// empty means.
	resolve func(c *trainer.Config)
	note    string
}

// defaultNotes lists the keys whose zero value stands for a default.
func defaultNotes() []defaultNote {
	return []defaultNote{
		{"trainer.max_failed_ratio", func(c *trainer.Config) bool { return c.Trainer.MaxFailedRatio == 0 },
			func(c *trainer.Config) { c.Trainer.MaxFailedRatio = trainer.DefaultMaxFailedRatio }, "trainer.DefaultMaxFailedRatio"},
		{"trainer.outage_timeout", func(c *trainer.Config) bool { return c.Trainer.OutageTimeout == 0 },
			func(c *trainer.Config) { c.Trainer.OutageTimeout = trainer.DefaultOutageTimeout }, "trainer.DefaultOutageTimeout"},
		{"trainer.silent_steps", func(c *trainer.Config) bool { return c.Trainer.SilentSteps == 0 },
			func(c *trainer.Config) { c.Trainer.SilentSteps = trainer.DefaultSilentSteps }, "trainer.DefaultSilentSteps"},
		{"trainer.devices", func(c *trainer.Config) bool { return c.Trainer.Devices == 0 }, nil, "0: one device"},
		{"trainer.backend", func(c *trainer.Config) bool { return c.Trainer.Backend == "" }, nil, "empty: $GOMLX_BACKEND, else the pure-Go backend"},
		{"trainer.max_checkpoints_to_keep", func(c *trainer.Config) bool { return c.Trainer.MaxCheckpointsToKeep == 0 }, nil, "0: every checkpoint is kept"},
		{"trainer.episode_log.sample_rate", func(c *trainer.Config) bool { return c.Trainer.EpisodeLog.SampleRate == 0 }, nil, "0: every finished episode (failed ones always)"},
		{"trainer.episode_log.max_per_step", func(c *trainer.Config) bool { return c.Trainer.EpisodeLog.MaxPerStep == 0 },
			func(c *trainer.Config) { c.Trainer.EpisodeLog.MaxPerStep = episodelog.DefaultMaxPerStep }, "episodelog.DefaultMaxPerStep"},
		{"trainer.episode_log.max_bytes", func(c *trainer.Config) bool { return c.Trainer.EpisodeLog.MaxBytes == 0 },
			func(c *trainer.Config) { c.Trainer.EpisodeLog.MaxBytes = episodelog.DefaultMaxBytes }, "episodelog.DefaultMaxBytes"},
		{"data.val_tasks", func(c *trainer.Config) bool { return c.Data.ValTasks == 0 }, nil, "0: every task of data.val_split"},
		{"data.max_difficulty", func(c *trainer.Config) bool { return c.Data.MaxDifficulty == 0 }, nil, "0: tasks of every difficulty"},
		{"env.type", func(c *trainer.Config) bool { return c.Env.Type == "" && c.Env.URL == "" },
			func(c *trainer.Config) { c.Env.Type = trainer.DefaultEnvType }, "trainer.DefaultEnvType"},
		{"rollout.engine", func(c *trainer.Config) bool { return c.Rollout.Engine == "" },
			func(c *trainer.Config) { c.Rollout.Engine = trainer.EngineLocal }, "the in-process policy"},
		{"rollout.top_k", func(c *trainer.Config) bool { return c.Rollout.TopK == 0 }, nil, "0: no top-k cut"},
		{"rollout.val_temperature", func(c *trainer.Config) bool { return c.Rollout.ValTemperature == 0 }, nil, "0: greedy"},
		{"actor.dtype", func(c *trainer.Config) bool { return c.Actor.DType == "" },
			func(c *trainer.Config) { c.Actor.DType = "float32" }, "full precision"},
		{"actor.ppo_mini_batch_size", func(c *trainer.Config) bool { return c.Actor.PPOMiniBatchSize == 0 }, nil, "0: the whole batch in one update"},
		{"actor.micro_batch_size", func(c *trainer.Config) bool { return c.Actor.MicroBatchSize == 0 }, nil, "0: the whole mini-batch at once"},
		{"actor.lora.r", func(c *trainer.Config) bool { return c.Actor.LoRA.R == 0 }, nil, "0: LoRA off, every weight trains"},
		{"warm_start.demos", func(c *trainer.Config) bool { return c.WarmStart.Demos == 0 }, nil, "0: every training task"},
		{"exp_manager.experience_template", func(c *trainer.Config) bool { return c.Experience.ExperienceTemplate == "" },
			func(c *trainer.Config) { c.Experience.ExperienceTemplate = contextmgr.DefaultExperienceTemplate }, "the reference's template"},
		{"exp_manager.init_tasks", func(c *trainer.Config) bool { return c.Experience.InitTasks == 0 }, nil, "0: every task of exp_manager.init_split"},
		{"exp_manager.pool.path", func(c *trainer.Config) bool {
			return c.Experience.Pool.Type == experience.PoolLocal && c.Experience.Pool.Path == ""
		},
			func(c *trainer.Config) { c.Experience.Pool.Path = trainer.ExperienceFile }, "in trainer.output_dir"},
		{"task_manager.max_explore_seeds", func(c *trainer.Config) bool { return c.Tasks.MaxExploreSeeds == 0 }, nil, "0: every seed task"},
		{"task_manager.max_explore_steps", func(c *trainer.Config) bool { return c.Tasks.MaxExploreSteps == 0 }, nil, "0: the explorer's default"},
		{"task_manager.concurrency", func(c *trainer.Config) bool { return c.Tasks.Concurrency == 0 }, nil, "0: the generator's default"},
		{"task_manager.regenerate_every", func(c *trainer.Config) bool { return c.Tasks.RegenerateEvery == 0 }, nil, "0: one round for the whole run"},
		{"attribution_driven_credit_assignment.llm.concurrency", func(c *trainer.Config) bool { return c.Attribution.LLM.Concurrency == 0 },
			func(c *trainer.Config) { c.Attribution.LLM.Concurrency = attribution.DefaultJudgeConcurrency }, "attribution.DefaultJudgeConcurrency"},
		{"attribution_driven_credit_assignment.llm.max_attempts", func(c *trainer.Config) bool { return c.Attribution.LLM.MaxAttempts == 0 },
			func(c *trainer.Config) { c.Attribution.LLM.MaxAttempts = attribution.DefaultJudgeAttempts }, "attribution.DefaultJudgeAttempts"},
		{"attribution_driven_credit_assignment.llm.timeout", func(c *trainer.Config) bool { return c.Attribution.LLM.Timeout == 0 },
			func(c *trainer.Config) { c.Attribution.LLM.Timeout = attribution.DefaultJudgeCallTimeout }, "attribution.DefaultJudgeCallTimeout"},
	}
}

// resolvedConfigYAML writes cfg as --print-config shows it: where the
// configuration leaves a key 0 or empty and the trainer uses a default
// there, the default is written with a comment saying so; where 0 or empty
// has a meaning of its own, a comment says which. Read back, the output
// configures the same run.
func resolvedConfigYAML(cfg trainer.Config) ([]byte, error) {
	comments := yaml.CommentMap{}
	for _, n := range defaultNotes() {
		if !n.zero(&cfg) {
			continue
		}
		note := n.note
		if n.resolve != nil {
			n.resolve(&cfg)
			note = "default: " + n.note
		}
		comments["$."+n.path] = []*yaml.Comment{yaml.LineComment(" " + note)}
	}
	comments["$"] = []*yaml.Comment{yaml.HeadComment(
		" The configuration train would run: the defaults, the --config files and the --set",
		" overrides, with the trainer's defaults written where the configuration leaves 0 or empty.",
	)}
	data, err := yaml.MarshalWithOptions(cfg, yaml.WithComment(comments))
	if err != nil {
		return nil, fmt.Errorf("print configuration: %w", err)
	}
	return data, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func runTrain(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var configs, sets stringList
	fs.Var(&configs, "config", "YAML configuration file, layered over the defaults (repeatable)")
	fs.Var(&sets, "set", "override one key, for example --set trainer.rl_steps=10 (repeatable)")
	fs.Usage = func() {
		fmt.Fprint(stderr, trainUsage)
		fs.PrintDefaults()
	}
	resume := fs.Bool("resume", false, "continue from the last checkpoint in the output directory")
	overwrite := fs.Bool("overwrite", false, "start afresh in an output directory that holds a run, removing that run's files")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn or error")
	printConfig := fs.Bool("print-config", false, "print the resolved configuration as YAML, with the values the trainer uses where it leaves 0 or empty, and exit")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, warnings, err := trainer.LoadConfigWarnings(trainer.DefaultConfig(), configs, sets)
	if err != nil {
		return err
	}
	printWarnings(stderr, "train", warnings)
	if *printConfig {
		cfg.Env.Token = redactToken(cfg.Env.Token)
		data, err := resolvedConfigYAML(cfg)
		if err != nil {
			return err
		}
		_, err = stdout.Write(data)
		return err
	}
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	cfg.Env.Token = envToken(cfg.Env.Token)
	opts := trainerOptions(log, stdout)
	opts.Resume, opts.Overwrite = *resume, *overwrite
	t, err := trainer.New(cfg, opts)
	if err != nil {
		return err
	}
	s, err := t.Fit(ctx)
	if err != nil {
		return err
	}
	before := "after the warm start"
	if cfg.WarmStart.Steps == 0 {
		before = "before RL"
	}
	fmt.Fprintf(stdout, "outputs in %s (seed %d, validation success %s %.1f%%, after RL %.1f%%)\n",
		cfg.Trainer.OutputDir, s.Seed, before, 100*s.ValSuccessWarmStart, 100*s.ValSuccessFinal)
	return nil
}

// trainerOptions are the trainer options every command that trains or
// evaluates uses: the logger, the output and the built-in environments.
func trainerOptions(log *slog.Logger, out io.Writer) trainer.Options {
	return trainer.Options{Logger: log, Output: out, Environments: builtin.Environments()}
}

// EnvTokenVar is the environment variable holding the env service's
// bearer token when env.token (train, eval) or --token (serve-env) is
// empty; a token there stays out of shell history and process listings.
const EnvTokenVar = "AGENTEVOLVER_ENV_TOKEN"

// envToken returns token, or $AGENTEVOLVER_ENV_TOKEN when token is empty.
func envToken(token string) string {
	if token != "" {
		return token
	}
	return os.Getenv(EnvTokenVar)
}

// redactToken hides a token in printed configurations.
func redactToken(token string) string {
	if token == "" {
		return ""
	}
	return "(redacted)"
}

// newLogger returns a text logger at level.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("bad --log-level %q: %w", level, err)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}
