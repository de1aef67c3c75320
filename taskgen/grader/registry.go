package grader

import (
	"fmt"
	"slices"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/internal/parallel"
	"github.com/org/agentevolver/llm"
)

// Grader names, the values of Task.Evaluator (reference §4.8).
const (
	// NameEnv scores an episode with the environment's own sparse
	// evaluation: agentflow.EnvEvaluator{Sparse: true}. Its reason is
	// empty (agentevolver.DefaultRewardDescription), where the reference
	// says "Env grader gives no reason.".
	NameEnv = agentevolver.EvaluatorEnv
	// NameLLM is the judge without reference: two user messages, the
	// query and the agent's steps (RenderSteps), then the rubric. The
	// reference builds the line "Query: {query}" and then overwrites it,
	// so its judge never sees the task it grades; here the query is shown
	// (the intended behaviour).
	NameLLM = "llm"
	// NameLLMGT is the judge with the reference solution
	// (Task.GroundTruth, or NoReferenceSolution when the task has none):
	// two user messages, every message of the episode as "ROLE: content"
	// (the system prompt included, as in the reference), then the rubric
	// with the reference solution.
	NameLLMGT = "llm-gt"
	// NameLLMBinary is the banded judge with NoReferenceSolution in the
	// reference slot, shown its running means. The reference also
	// requires the task to have a ground truth it never shows; here it
	// need not.
	NameLLMBinary = "llm-binary"
	// NameLLMBinaryNoConstraint is NameLLMBinary without the running means.
	NameLLMBinaryNoConstraint = "llm-binary-no_constraint"
	// NameLLMBinaryGT is the banded judge with the reference solution,
	// shown its running means. A task without ground truth fails with
	// ErrNoGroundTruth, where the reference asserts that one exists (Go's
	// empty GroundTruth stands for the reference's None as well as "").
	NameLLMBinaryGT = "llm-binary-gt"
	// NameLLMBinaryGTNoConstraint is NameLLMBinaryGT without the running
	// means: the reference's default synthetic grader.
	NameLLMBinaryGTNoConstraint = "llm-binary-gt-no_constraint"
	// NameAvgLLMBinaryGT averages Config.Samples concurrent calls of the
	// NameLLMBinaryGT judge, which share one pair of running means. The
	// reference scores a failed call 0 and averages on; here it fails
	// the episode.
	NameAvgLLMBinaryGT = "avg-llm-binary-gt"
	// NameAvgLLM averages Config.Samples concurrent calls of the NameLLM
	// judge.
	NameAvgLLM = "avg-llm"
)

// kinds are the LLM graders by name.
var kinds = map[string]kind{
	NameLLM:                     {name: NameLLM, style: styleSteps, maxTokens: DefaultJudgeMaxTokens},
	NameLLMGT:                   {name: NameLLMGT, style: styleDialogue, maxTokens: DefaultJudgeMaxTokens},
	NameLLMBinary:               {name: NameLLMBinary, style: styleBanded, constraint: true, maxTokens: DefaultBandedMaxTokens},
	NameLLMBinaryNoConstraint:   {name: NameLLMBinaryNoConstraint, style: styleBanded, maxTokens: DefaultBandedMaxTokens},
	NameLLMBinaryGT:             {name: NameLLMBinaryGT, style: styleBanded, reference: true, constraint: true, maxTokens: DefaultBandedMaxTokens},
	NameLLMBinaryGTNoConstraint: {name: NameLLMBinaryGTNoConstraint, style: styleBanded, reference: true, maxTokens: DefaultBandedMaxTokens},
	NameAvgLLMBinaryGT:          {name: NameAvgLLMBinaryGT, style: styleBanded, reference: true, constraint: true, averaged: true, maxTokens: DefaultBandedMaxTokens},
	NameAvgLLM:                  {name: NameAvgLLM, style: styleSteps, averaged: true, maxTokens: DefaultJudgeMaxTokens},
}

// Names returns the registered grader names, sorted.
func Names() []string {
	names := []string{NameEnv}
	for n := range kinds {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// New builds the grader registered under name (see the Name constants):
// agentflow.EnvEvaluator{Sparse: true} for NameEnv, else a *Judge over the
// model Config gives for name, with its own running means and its own
// concurrency bound. agentevolver.EvaluatorSynthetic stands for
// cfg.SyntheticGrader. An unknown name fails with an error matching
// ErrUnknownGrader that lists the known ones; an LLM grader without a
// model fails with ErrNoModel.
func New(name string, cfg Config) (agentflow.RewardCalculator, error) {
	return build(name, cfg, cfg.newSemaphore())
}

// build is New with the concurrency bound given.
func build(name string, cfg Config, sem *parallel.Limiter) (agentflow.RewardCalculator, error) {
	resolved := resolve(name, cfg)
	if resolved == NameEnv {
		return agentflow.EnvEvaluator{Sparse: true}, nil
	}
	k, ok := kinds[resolved]
	if !ok {
		if resolved != name {
			return nil, fmt.Errorf("%w %q (for %q; known: %s)", ErrUnknownGrader, resolved, name, strings.Join(Names(), ", "))
		}
		return nil, fmt.Errorf("%w %q (known: %s; %q stands for Config.SyntheticGrader)", ErrUnknownGrader, name, strings.Join(Names(), ", "), agentevolver.EvaluatorSynthetic)
	}
	model := cfg.modelFor(resolved)
	if model == nil {
		return nil, fmt.Errorf("%w for grader %q: set Config.Model or Config.Models[%q]", ErrNoModel, resolved, resolved)
	}
	opts := llm.ChatOptions{Temperature: cfg.Temperature, MaxTokens: cfg.MaxTokens}
	if opts.Temperature == nil {
		opts.Temperature = llm.Float(DefaultTemperature)
	}
	switch {
	case opts.MaxTokens == 0:
		opts.MaxTokens = k.maxTokens
	case opts.MaxTokens < 0:
		opts.MaxTokens = 0
	}
	samples := 1
	if k.averaged {
		samples = cfg.Samples
		if samples <= 0 {
			samples = DefaultSamples
		}
	}
	return &Judge{
		kind:    k,
		model:   model,
		opts:    opts,
		lim:     cfg.Limits.withDefaults(),
		samples: samples,
		sem:     sem,
		mean:    newRunningMean(),
		log:     cfg.logger(),
	}, nil
}

// resolve maps agentevolver.EvaluatorSynthetic to the configured synthetic
// grader.
func resolve(name string, cfg Config) string {
	if name != agentevolver.EvaluatorSynthetic {
		return name
	}
	if cfg.SyntheticGrader != "" {
		return cfg.SyntheticGrader
	}
	return DefaultSyntheticGrader
}
