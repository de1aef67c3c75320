package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/internal/config"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
	"github.com/org/agentevolver/taskgen/cues"
	"github.com/org/agentevolver/trainer"
)

func init() {
	register(command{
		name:    "cues",
		summary: "synthesise training tasks with CuES (curious exploration, task abstraction, quality control)",
		run:     runCues,
	})
}

// cuesFile is the configuration file of the cues command: the pipeline's
// section, the model, the environment and logging. Every key is read;
// unknown keys are errors.
type cuesFile struct {
	// OutputDir is the output directory (the reference's data_dir).
	OutputDir string `yaml:"output_dir"`
	// CuES is the pipeline's configuration (package taskgen/cues).
	CuES cues.Config `yaml:"cues"`
	// LLM is an OpenAI-compatible endpoint.
	LLM llm.EndpointConfig `yaml:"llm"`
	// Policy is a saved policy (a directory, or builtin:toolworld-base)
	// sampled in process instead of an endpoint.
	Policy string `yaml:"policy"`
	// EnvURL is a remote env service; empty serves the built-in
	// environment cues.env_type in process, configured by Env.
	EnvURL string `yaml:"env_url"`
	// EnvTokenEnv names the environment variable holding the env
	// service's token (default AGENTEVOLVER_ENV_TOKEN).
	EnvTokenEnv string `yaml:"env_token_env"`
	// Env configures the built-in environments, as a run configuration's
	// env section does and with the same defaults (trainer.DefaultConfig):
	// a task id names the same task only in an identically configured
	// environment, so give the env section of the training run that will
	// use the tasks.
	Env builtin.Config `yaml:"env"`
	// Logging is where diagnostics go.
	Logging struct {
		Level string `yaml:"level"`
		File  string `yaml:"file"`
	} `yaml:"logging"`
}

// Stages of --stage.
var cuesStages = []string{"all", "confirm", "stage1", "stage2", "stage3", "rewrite", "export"}

func runCues(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cues", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: agentevolver cues --out DIR --env NAME (--llm-url URL --llm-model NAME | --policy DIR) [flags]

CuES: explores an environment with a curious model (stage 1), abstracts the
tasks its exploration demonstrates (stage 2), re-executes each with the model
and keeps those an LLM judge and, where it can, the environment itself accept
(stage 3), optionally rewrites their queries, and exports the accepted tasks
to DIR/%s and DIR/%s, the task files train reads
(task_manager.train_data_path). Everything goes under DIR in the reference's
layout (triplets/, tasks/, trajectories/, rewrites/); an interrupted run
resumes where it stopped when run again with the same DIR. See docs/cues.md.

The environment is a built-in one served in process (%s), or a remote env
service with --env-url. The model is an OpenAI-compatible endpoint
(--llm-url, --llm-model; key in $OPENAI_API_KEY or llm.api_key_env), or a
saved policy sampled in process (--policy builtin:toolworld-base), which
talks in the environment's own prompt (cues.prompts env), lets the
environment name the tasks its rollouts achieved (cues.stage2.method
hindsight) and has no LLM judge (cues.stage3.judge none).

Configuration: --config FILE (YAML: output_dir, cues: {...}, llm: {...},
policy, env_url, env: {...}, logging: {level, file}), then --set key=value
overrides (for example --set cues.stage1.rollout_num=8), then the flags below.

Flags:
`, cues.ExportJSONL, cues.ExportParquet, strings.Join(builtin.Names(), ", "))
		fs.PrintDefaults()
	}
	var configs, sets stringList
	var out, env, envURL, llmURL, llmModel, policy, stage, logLevel, requirement string
	var rollouts, workers int
	var seed int64
	var rewrite bool
	fs.Var(&configs, "config", "YAML configuration file (repeatable; later files override earlier ones)")
	fs.Var(&sets, "set", "override one configuration key, e.g. --set cues.stage2.min_confidence=0.5 (repeatable)")
	fs.StringVar(&out, "out", "", "output directory (output_dir)")
	fs.StringVar(&env, "env", "", "environment type (cues.env_type)")
	fs.StringVar(&envURL, "env-url", "", "remote env service, e.g. http://127.0.0.1:8080 (env_url; token in $AGENTEVOLVER_ENV_TOKEN)")
	fs.StringVar(&llmURL, "llm-url", "", "OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1 (llm.base_url)")
	fs.StringVar(&llmModel, "llm-model", "", "model name at --llm-url (llm.model_name)")
	fs.StringVar(&policy, "policy", "", "saved policy sampled in process, e.g. builtin:toolworld-base (policy)")
	fs.StringVar(&requirement, "requirement", "", "exploration requirement (cues.requirement)")
	fs.IntVar(&rollouts, "rollouts", 0, "stage-1 rollouts (cues.stage1.rollout_num; 0: the configuration's)")
	fs.IntVar(&workers, "workers", 0, "rollouts, batches and tasks in flight (cues.workers; 0: the configuration's)")
	fs.Int64Var(&seed, "seed", 0, "seed (cues.seed)")
	fs.BoolVar(&rewrite, "rewrite", false, "rewrite the accepted queries and export the variants too (cues.rewrite.enabled and export)")
	fs.StringVar(&stage, "stage", "all", "what to run: "+strings.Join(cuesStages, ", ")+" (finished work is always skipped)")
	fs.StringVar(&logLevel, "log-level", "", "log level: debug, info, warn or error (logging.level; default warn)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// The environments as train builds them by default (the main job's
	// toolworld: the base policy's prompt and worlds), so that the
	// exported task ids name the same tasks in a training run; the env
	// section changes it as train's does.
	f := cuesFile{EnvTokenEnv: envTokenVar, Env: trainer.DefaultConfig().Env.Config}
	f.Logging.Level = "warn"
	if err := config.LoadFiles(&f, configs, sets); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	f.OutputDir = cmp.Or(out, f.OutputDir)
	f.CuES.EnvType = cmp.Or(env, f.CuES.EnvType)
	f.EnvURL = cmp.Or(envURL, f.EnvURL)
	f.LLM.BaseURL = cmp.Or(llmURL, f.LLM.BaseURL)
	f.LLM.ModelName = cmp.Or(llmModel, f.LLM.ModelName)
	f.Policy = cmp.Or(policy, f.Policy)
	f.CuES.Requirement = cmp.Or(requirement, f.CuES.Requirement)
	f.Logging.Level = cmp.Or(logLevel, f.Logging.Level)
	if rollouts > 0 {
		f.CuES.Stage1.RolloutNum = rollouts
	}
	if workers > 0 {
		f.CuES.Workers = workers
	}
	if set["seed"] {
		f.CuES.Seed = seed
	}
	if rewrite {
		f.CuES.Rewrite.Enabled, f.CuES.Rewrite.Export = true, true
	}
	switch {
	case f.OutputDir == "":
		return errors.New("--out (output_dir) is required")
	case f.CuES.EnvType == "":
		return errors.New("--env (cues.env_type) is required")
	case f.Policy != "" && f.LLM.BaseURL != "":
		return errors.New("--policy and --llm-url both choose the model; give one")
	case f.Policy == "" && (f.LLM.BaseURL == "" || f.LLM.ModelName == ""):
		return errors.New("give a model: --llm-url and --llm-model, or --policy")
	}
	if !slices.Contains(cuesStages, stage) {
		return fmt.Errorf("--stage %q: want one of %s", stage, strings.Join(cuesStages, ", "))
	}

	logOut := stderr
	if f.Logging.File != "" {
		lf, err := os.OpenFile(f.Logging.File, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("logging.file: %w", err)
		}
		defer lf.Close()
		logOut = lf
	}
	if _, ok := logOut.(*os.File); !ok {
		logOut = &lockedWriter{w: logOut}
	}
	log, err := newLogger(logOut, f.Logging.Level)
	if err != nil {
		return err
	}

	var e envclient.Env
	if f.EnvURL != "" {
		c, err := envclient.New(envclient.Config{BaseURL: f.EnvURL, EnvType: f.CuES.EnvType, Token: os.Getenv(f.EnvTokenEnv), Logger: log})
		if err != nil {
			return fmt.Errorf("--env-url: %w", err)
		}
		e = c
	} else {
		f.Env.LoadPolicy = trainer.LoadChatModel
		be, err := builtin.Open(ctx, f.CuES.EnvType, f.Env, log.With("env_type", f.CuES.EnvType))
		if err != nil {
			return fmt.Errorf("--env: %w (or give --env-url for a remote env service)", err)
		}
		m := envservice.NewManager(envservice.ManagerConfig{Logger: log})
		defer m.Close()
		if err := m.Register(f.CuES.EnvType, be); err != nil {
			return err
		}
		e = m
	}

	var model llm.ChatModel
	if f.Policy != "" {
		lp, err := trainer.LoadPolicy(ctx, trainer.DefaultConfig(), f.Policy)
		if err != nil {
			return fmt.Errorf("--policy: %w", err)
		}
		model = lp.Model
		// A small policy talks in the environment's prompt, cannot write
		// task blocks nor judge, and answers within its response length;
		// the configuration may still say otherwise.
		f.CuES = policyDefaults(f.CuES, lp.Context.ResponseLength)
	} else {
		key := ""
		if f.LLM.APIKeyEnv != "" {
			key = os.Getenv(f.LLM.APIKeyEnv)
		}
		retries := 0 // the client's default
		switch {
		case f.LLM.MaxAttempts == 1:
			retries = -1
		case f.LLM.MaxAttempts > 1:
			retries = f.LLM.MaxAttempts - 1
		}
		c, err := openai.New(openai.Config{BaseURL: f.LLM.BaseURL, Model: f.LLM.ModelName, APIKey: key,
			MaxConcurrency: f.LLM.Concurrency, MaxRetries: retries, RequestTimeout: f.LLM.Timeout, Logger: log})
		if err != nil {
			return fmt.Errorf("--llm-url: %w", err)
		}
		model = c
	}

	store, err := cues.OpenStore(f.OutputDir)
	if err != nil {
		return err
	}
	p := &cues.Pipeline{Config: f.CuES, Env: e, Model: model, Store: store, Progress: stderr, Logger: log}
	if err := p.Init(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cues: session %s, %s, output %s\n", p.SessionID(), f.CuES.EnvType, f.OutputDir)
	runErr := runCuesStages(ctx, p, stage)
	stats, err := p.Statistics()
	if err == nil {
		stats.Print(stdout)
	}
	if runErr != nil {
		if ctx.Err() != nil || errors.Is(runErr, context.Canceled) {
			return fmt.Errorf("%w\nrun the same command again to resume: agentevolver cues %s", runErr, quoteArgs(args))
		}
		return fmt.Errorf("%w\nfinished work is kept; run the same command again to resume", runErr)
	}
	if err != nil {
		return err
	}
	if stage == "all" || stage == "export" {
		fmt.Fprintf(stdout, "wrote %d tasks to %s and %s\n", stats.Exported, store.Path(cues.ExportJSONL), store.Path(cues.ExportParquet))
	}
	return nil
}

// runCuesStages runs the stages --stage names.
func runCuesStages(ctx context.Context, p *cues.Pipeline, stage string) error {
	all := []struct {
		name string
		run  func(context.Context) error
	}{
		{"confirm", p.Confirm}, {"stage1", p.Explore}, {"stage2", p.Abstract},
		{"stage3", p.Verify}, {"rewrite", p.RewriteQueries}, {"export", p.Export},
	}
	for _, s := range all {
		if stage != "all" && stage != s.name {
			continue
		}
		if err := s.run(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// policyDefaults sets what an in-process policy needs where the
// configuration leaves it open: the environment's prompt, hindsight
// abstraction, no LLM judge, and replies within its response length.
func policyDefaults(c cues.Config, responseLength int) cues.Config {
	if c.Prompts == "" {
		c.Prompts = cues.PromptsEnv
	}
	if c.Stage2.Method == "" {
		c.Stage2.Method = cues.AbstractHindsight
	}
	if c.Stage3.Judge == "" {
		c.Stage3.Judge = cues.JudgeNone
	}
	if c.MaxTokens == 0 && responseLength > 0 {
		c.MaxTokens = responseLength
	}
	return c
}
