package trainer

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"

	"github.com/gomlx/gomlx/backends"

	"github.com/org/agentevolver/attribution"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

// adcaConfig maps the adca_grpo section (reference names, explicit
// defaults) onto attribution.ADCAConfig (zero means default).
func (c AttributionConfig) adcaConfig() attribution.ADCAConfig {
	a := c.ADCA
	return attribution.ADCAConfig{
		Scheme:               attribution.ADCAScheme(a.PRMScheme),
		FixBase:              a.FixBase,
		Alpha:                new(a.Alpha),
		AlphaCosineDecay:     a.AlphaCosineDecayEnable,
		AlphaMin:             a.AlphaMin,
		TotalSteps:           a.TotalSteps,
		ORMDistribution:      attribution.ORMDistribution(a.ORMDistribution),
		LengthNormalization:  a.EnableLengthNormalization,
		NoBatchNorm:          !a.DoBatchNorm,
		FlatStepWeighting:    !a.EqualTrajectoryWeight,
		ConsistentScale:      c.ConsistentScale,
		PosUnconsistentScale: new(c.PosUnconsistentScale),
		NegUnconsistentScale: new(c.NegUnconsistentScale),
		PRMSteps:             a.PRMSteps,
	}
}

// adcaEstimator is ADCA-GRPO as the run's AdvantageEstimator: the judge
// labels each sample's steps, attribution.ComputeADCA fuses the labels
// with the outcomes into step-level advantages. After prm_steps RL steps
// it returns nil advantages (GRPO's stay) without calling the judge.
type adcaEstimator struct {
	cfg     attribution.ADCAConfig
	judge   attribution.Judge
	backend backends.Backend
}

// newADCA builds the estimator of cfg.Attribution for the run's
// environment (whose StepOracle the oracle judge uses).
func newADCA(cfg Config, opts Options, impl any, backend backends.Backend, log *slog.Logger) (*adcaEstimator, error) {
	a := cfg.Attribution
	est := &adcaEstimator{cfg: a.adcaConfig(), backend: backend}
	switch a.Judge {
	case JudgeOracle:
		oracle, ok := impl.(envservice.StepOracle)
		if !ok {
			return nil, fmt.Errorf("%w: attribution_driven_credit_assignment.judge %q needs an environment with a step oracle (envservice.StepOracle)", ErrConfig, a.Judge)
		}
		est.judge = &attribution.OracleJudge{Oracle: oracle}
	case JudgeLLM:
		model, err := judgeModel("attribution_driven_credit_assignment.llm", a.LLM, opts.JudgeModel)
		if err != nil {
			return nil, err
		}
		j, err := attribution.NewLLMJudge(model, attribution.LLMJudgeConfig{
			Skip:           attribution.SkipRule(a.ADCA.SkipType),
			MaxConcurrency: a.LLM.Concurrency,
			MaxAttempts:    a.LLM.MaxAttempts,
			CallTimeout:    a.LLM.Timeout,
			Logger:         log,
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		est.judge = j
	default:
		return nil, fmt.Errorf("%w: unknown judge %q", ErrConfig, a.Judge)
	}
	return est, nil
}

// judgeModel is Options.JudgeModel, else a client of the endpoint the
// config section (named by section, for errors) gives.
func judgeModel(section string, c JudgeLLMConfig, given llm.ChatModel) (llm.ChatModel, error) {
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
// and the prm/* metrics of judging and fusion.
func (e *adcaEstimator) Advantages(ctx context.Context, in AdvantageInput) (AdvantageOutput, error) {
	if !e.cfg.Active(in.Step) {
		return AdvantageOutput{}, nil
	}
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
	flags := make([][]bool, len(judgments))
	for i, j := range judgments {
		flags[i] = j.Good
	}
	groups := make([]int, len(in.Groups))
	for i, g := range in.Groups {
		groups[i] = int(g)
	}
	res, err := attribution.ComputeADCA(ctx, e.backend, e.cfg, in.Step, attribution.ADCABatch{
		StepIDs: in.StepIDs, Groups: groups, TokenLevelRewards: in.Rewards, Flags: flags,
	})
	if err != nil {
		return AdvantageOutput{}, err
	}
	metrics := attribution.JudgeMetrics(episodes, judgments)
	maps.Copy(metrics, res.Metrics)
	metrics["prm/alpha"] = res.Alpha
	return AdvantageOutput{Advantages: res.Advantages, Metrics: metrics}, nil
}
