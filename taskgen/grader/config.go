package grader

import (
	"log/slog"

	"github.com/org/agentevolver/internal/parallel"
	"github.com/org/agentevolver/llm"
)

// Defaults of Config.
const (
	// DefaultMaxConcurrency bounds the judge requests in flight at once.
	DefaultMaxConcurrency = 16
	// DefaultTemperature is the judges' sampling temperature, the
	// reference client's default.
	DefaultTemperature = 0.7
	// DefaultJudgeMaxTokens bounds the answer of the llm, llm-gt and
	// avg-llm judges, the reference client's default.
	DefaultJudgeMaxTokens = 2048
	// DefaultBandedMaxTokens bounds the answer of the banded judges
	// (llm-binary…, llm-binary-gt…, avg-llm-binary-gt), as in the
	// reference.
	DefaultBandedMaxTokens = 32768
	// DefaultSamples is the number of judge calls an averaged judge makes.
	DefaultSamples = 3
	// DefaultSyntheticGrader grades tasks whose Evaluator is
	// agentevolver.EvaluatorSynthetic when Config.SyntheticGrader is empty:
	// the reference's shipped task_manager.grader.synthetic_grader.
	DefaultSyntheticGrader = NameLLMBinaryGTNoConstraint
)

// Config configures the graders New and NewByEvaluator build. The zero
// value builds the env grader; LLM graders need a Model.
type Config struct {
	// Model is the judge model of every LLM grader that has no entry in
	// Models. The reference used qwen3-235b-a22b-instruct-2507 for llm and
	// the banded judges and qwq-plus for llm-gt and the averaged judges;
	// the endpoint, the model name and vendor switches are the client's
	// configuration (llm/openai.Config), and so are the retries and time
	// bounds of each request.
	Model llm.ChatModel
	// Models gives the judge model per grader name (NameLLMGT, …),
	// overriding Model.
	Models map[string]llm.ChatModel
	// MaxConcurrency bounds the judge requests in flight at once through
	// one grader built by New, or through all the graders of one
	// ByEvaluator; each call of an averaged judge counts. 0 means
	// DefaultMaxConcurrency; negative means no bound.
	MaxConcurrency int
	// Temperature of the judge requests; nil means DefaultTemperature.
	Temperature *float64
	// MaxTokens bounds each judge answer; 0 means the grader's reference
	// value (DefaultJudgeMaxTokens or DefaultBandedMaxTokens), negative
	// leaves it to the model.
	MaxTokens int
	// Samples is the number of concurrent judge calls an averaged judge
	// (avg-llm, avg-llm-binary-gt) averages; 0 means DefaultSamples.
	Samples int
	// Limits bound the episode text shown to a judge.
	Limits Limits
	// SyntheticGrader names the grader of tasks whose Evaluator is
	// agentevolver.EvaluatorSynthetic (synthesised, no grader assigned
	// yet): "" means DefaultSyntheticGrader.
	SyntheticGrader string
	// Logger receives a warning per failed call or reply without a score
	// and a debug record per judged call. Nil discards them.
	Logger *slog.Logger
}

// modelFor returns the judge model of grader name.
func (c Config) modelFor(name string) llm.ChatModel {
	if m, ok := c.Models[name]; ok && m != nil {
		return m
	}
	return c.Model
}

func (c Config) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

// newSemaphore returns the concurrency bound of c, nil for none.
func (c Config) newSemaphore() *parallel.Limiter {
	n := c.MaxConcurrency
	if n == 0 {
		n = DefaultMaxConcurrency
	}
	return parallel.NewLimiter(n) // nil for n < 0
}
