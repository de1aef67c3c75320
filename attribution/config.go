package attribution

import (
	"fmt"

	"github.com/org/agentevolver/llm"
)

// The step judges a run can configure (Config.Judge).
const (
	// JudgeOracle labels steps with the environment's step oracle
	// (envservice.StepOracle): exact labels, no LLM.
	JudgeOracle = "oracle"
	// JudgeLLM labels steps with the reference's LLM judge (LLMJudge).
	JudgeLLM = "llm"
)

// Config is a run configuration's attribution_driven_credit_assignment
// section, with the reference's keys: a judge labels every step of every
// sample GOOD or BAD and ADCA-GRPO turns the labels and the outcome into
// step-level advantages, which replace the GRPO ones while the RL step,
// counted from 1 as the reference's global_steps, is below
// adca_grpo.prm_steps. As in the reference the judge is still called after
// that, and its prm/* metrics logged, although its labels no longer affect
// training. DefaultConfig holds the defaults; the trainer builds the judge
// and the estimator from it.
type Config struct {
	// Enable turns ADCA on.
	Enable bool `yaml:"enable"`
	// LLMEvaluationLogDir, when set, receives one judge record per judged
	// sample (WriteJudgeRecords: step_NNNNNN/stepNNNNNN_sampleIII_<time>.json,
	// the reference's llm_evaluation_log_dir); a relative path lies under
	// the run's output directory.
	LLMEvaluationLogDir string `yaml:"llm_evaluation_log_dir"`
	// Judge is JudgeOracle (the environment's step oracle; toolworld has
	// one) or JudgeLLM (the reference's LLM judge: the trainer's
	// Options.JudgeModel, else the endpoint of LLM).
	Judge string `yaml:"judge"`
	// LLM is the LLM judge's endpoint and limits (0 concurrency, attempts
	// and timeout mean DefaultJudgeConcurrency, DefaultJudgeAttempts and
	// DefaultJudgeCallTimeout).
	LLM llm.EndpointConfig `yaml:"llm"`
	// The allocation scheme's weights, read from this level as the
	// reference does and passed to ADCAConfig (whose fields document
	// them); nil means their defaults, zeros are used as given.
	ConsistentScale      *float64 `yaml:"consistent_scale"`
	PosUnconsistentScale *float64 `yaml:"pos_unconsistent_scale"`
	NegUnconsistentScale *float64 `yaml:"neg_unconsistent_scale"`
	// ADCA are the advantage settings (adca_grpo).
	ADCA ADCAConfig `yaml:"adca_grpo"`
}

// DefaultConfig returns the section's defaults, every one spelt out (so
// that a printed configuration shows them): ADCA off, the oracle judge and
// the reference's adca_grpo values.
func DefaultConfig() Config {
	return Config{
		Judge:                JudgeOracle,
		ConsistentScale:      new(float64(DefaultADCAConsistentScale)),
		PosUnconsistentScale: new(float64(DefaultADCAPosUnconsistentScale)),
		NegUnconsistentScale: new(float64(DefaultADCANegUnconsistentScale)),
		ADCA:                 DefaultADCAConfig(),
	}
}

// DefaultADCAConfig returns ADCAConfig's defaults spelt out; it behaves
// exactly as the zero ADCAConfig.
func DefaultADCAConfig() ADCAConfig {
	return ADCAConfig{
		Scheme:                ADCADecouple,
		FixBase:               new(float64(DefaultADCAFixBase)),
		Alpha:                 new(float64(DefaultADCAAlpha)),
		TotalSteps:            new(int(DefaultADCATotalSteps)),
		ORMDistribution:       ORMLastStep,
		BatchNorm:             new(true),
		EqualTrajectoryWeight: new(true),
		PRMSteps:              DefaultADCAPRMSteps,
		Skip:                  SkipNone,
	}
}

// ADCAConfig returns the adca_grpo settings with this level's allocation
// weights, as ComputeADCA reads them.
func (c Config) ADCAConfig() ADCAConfig {
	a := c.ADCA
	a.ConsistentScale = c.ConsistentScale
	a.PosUnconsistentScale = c.PosUnconsistentScale
	a.NegUnconsistentScale = c.NegUnconsistentScale
	return a
}

// Validate reports a judge other than JudgeOracle and JudgeLLM and an
// invalid ADCAConfig, by their keys.
func (c Config) Validate() error {
	if c.Judge != JudgeOracle && c.Judge != JudgeLLM {
		return fmt.Errorf("%w: judge %q: want %q or %q", ErrADCAConfig, c.Judge, JudgeOracle, JudgeLLM)
	}
	return c.ADCAConfig().Validate()
}
