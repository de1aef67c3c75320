package trainer

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"

	"github.com/gomlx/gomlx/backends"

	"github.com/org/agentevolver/attribution"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

// adcaEstimator is ADCA-GRPO as the run's AdvantageEstimator: the judge
// labels each sample's steps, attribution.ComputeADCA fuses the labels
// with the outcomes into step-level advantages. As in the reference, RL
// steps count from 1 (global step = AdvantageInput.Step + 1), the judge is
// called at every step and its prm/* metrics logged, and the advantages
// are replaced only with enable on and below prm_steps; otherwise it
// returns nil advantages (GRPO's stay). With enable off it runs only for
// enable_adca_metric.
type adcaEstimator struct {
	cfg     attribution.ADCAConfig
	judge   attribution.Judge
	backend backends.Backend
	// overwrite is attribution_driven_credit_assignment.enable.
	overwrite bool
	// recordDir receives the judge records; empty writes none.
	recordDir string
	record    attribution.JudgeRecordOptions
	log       *slog.Logger
}

// newADCA builds the estimator of cfg.Attribution for the run's
// environment (whose StepOracle the oracle judge uses).
func newADCA(cfg Config, opts Options, impl any, backend backends.Backend, log *slog.Logger) (*adcaEstimator, error) {
	a := cfg.Attribution
	est := &adcaEstimator{cfg: a.ADCAConfig(), backend: backend, overwrite: a.Enable, log: log}
	if d := a.LLMEvaluationLogDir; d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cfg.Trainer.OutputDir, d)
		}
		est.recordDir = d
	}
	switch a.Judge {
	case attribution.JudgeOracle:
		est.record = attribution.JudgeRecordOptions{EvaluationType: "oracle"}
		oracle, ok := impl.(envservice.StepOracle)
		if !ok {
			return nil, fmt.Errorf("%w: attribution_driven_credit_assignment.judge %q needs an environment with a step oracle (envservice.StepOracle)", ErrConfig, a.Judge)
		}
		est.judge = &attribution.OracleJudge{Oracle: oracle}
	case attribution.JudgeLLM:
		model, err := judgeModel("attribution_driven_credit_assignment.llm", a.LLM, opts.JudgeModel)
		if err != nil {
			return nil, err
		}
		j, err := attribution.NewLLMJudge(model, attribution.LLMJudgeConfig{
			Skip:           a.ADCA.Skip,
			MaxConcurrency: a.LLM.Concurrency,
			MaxAttempts:    a.LLM.MaxAttempts,
			CallTimeout:    a.LLM.Timeout,
			Logger:         log,
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		est.judge = j
		est.record = attribution.JudgeRecordOptions{ModelName: a.LLM.ModelName}
	default:
		return nil, fmt.Errorf("%w: unknown judge %q", ErrConfig, a.Judge)
	}
	return est, nil
}

// judgeModel is Options.JudgeModel, else a client of the endpoint the
// config section (named by section, for errors) gives.
func judgeModel(section string, c llm.EndpointConfig, given llm.ChatModel) (llm.ChatModel, error) {
	if given != nil {
		return given, nil
	}
	if c.ModelName == "" {
		return nil, fmt.Errorf("%w: the LLM judge needs Options.JudgeModel or %s.model_name (and base_url)", ErrConfig, section)
	}
	key := ""
	if c.APIKeyEnv != "" {
		if key = os.Getenv(c.APIKeyEnv); key == "" {
			return nil, fmt.Errorf("%w: %s.api_key_env names %s, which is empty", ErrConfig, section, c.APIKeyEnv)
		}
	}
	m, err := openai.New(openai.Config{BaseURL: c.BaseURL, APIKey: key, Model: c.ModelName})
	if err != nil {
		return nil, fmt.Errorf("%w: LLM judge: %w", ErrConfig, err)
	}
	return m, nil
}

// Advantages judges the step's samples and returns their ADCA advantages
// (nil past prm_steps, or with enable off) and the prm/* metrics of
// judging and fusion.
func (e *adcaEstimator) Advantages(ctx context.Context, in AdvantageInput) (AdvantageOutput, error) {
	global := in.Step + 1 // the reference's global_steps counts from 1
	episodes := make([]attribution.Episode, len(in.Samples))
	for i, s := range in.Samples {
		var orm float64
		for _, r := range in.Rewards[i] {
			orm += float64(r)
		}
		first := 0.0
		for j, m := range in.LossMask[i] {
			if m != 0 {
				first = float64(in.GRPO[i][j])
				break
			}
		}
		episodes[i] = attribution.Episode{TaskID: s.TaskID, Query: s.Query, Steps: s.Steps, Outcome: orm, FirstAdvantage: first}
	}
	judgments, err := e.judge.Judge(ctx, episodes)
	if err != nil {
		return AdvantageOutput{}, fmt.Errorf("step judge: %w", err)
	}
	if len(judgments) != len(episodes) {
		return AdvantageOutput{}, fmt.Errorf("step judge: %d judgments for %d samples", len(judgments), len(episodes))
	}
	if e.recordDir != "" {
		// As in the reference, a record that cannot be written is
		// reported and does not stop training.
		if _, err := attribution.WriteJudgeRecords(e.recordDir, global, episodes, judgments, e.record); err != nil && e.log != nil {
			e.log.Warn("trainer: writing judge records", "dir", e.recordDir, "err", err)
		}
	}
	metrics := attribution.JudgeMetrics(episodes, judgments)
	if !e.overwrite || !e.cfg.Active(global) {
		return AdvantageOutput{Metrics: metrics}, nil
	}
	flags := make([][]bool, len(judgments))
	for i, j := range judgments {
		flags[i] = j.Good
	}
	groups := make([]int, len(in.Groups))
	for i, g := range in.Groups {
		groups[i] = int(g)
	}
	res, err := attribution.ComputeADCA(ctx, e.backend, e.cfg, global, attribution.ADCABatch{
		StepIDs: in.StepIDs, Groups: groups, TokenLevelRewards: in.Rewards, Flags: flags,
	})
	if err != nil {
		return AdvantageOutput{}, err
	}
	maps.Copy(metrics, res.Metrics)
	metrics["prm/alpha"] = res.Alpha
	return AdvantageOutput{Advantages: res.Advantages, Metrics: metrics}, nil
}
