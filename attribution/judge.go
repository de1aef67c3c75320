package attribution

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/org/agentevolver"
)

// Episode is what a step judge sees of one training sample (reference
// §7.2): the task, the semantic steps of the sample and how it ended.
type Episode struct {
	// TaskID names the task in its environment; an OracleJudge replays the
	// steps on it, an LLMJudge only logs it.
	TaskID string
	// Query is the task as the policy saw it: the whole prompt text, system
	// and user messages, decoded with special tokens skipped, as the
	// reference decodes the prompt ids.
	Query string
	// Steps are the sample's semantic steps, in order (reference §7.5).
	Steps []agentevolver.SampleStep
	// Outcome is the outcome reward (ORM): the sum of the sample's
	// token-level rewards, 0 or 1 for toolworld.
	Outcome float64
	// FirstAdvantage is the sample's GRPO advantage at its first trainable
	// token (the first token with loss mask 1), read by SkipSmallAdvantage.
	FirstAdvantage float64
}

// Source says where the labels of a Judgment come from.
type Source uint8

const (
	// SourceJudged: the judge labelled the steps. It is the zero Source, so
	// a Judgment{Good: labels} built by a custom Judge is a judged one.
	SourceJudged Source = iota
	// SourceFallback: the judge failed (a call error, a refusal, an
	// unparsable answer; see Judgment.Err) and every step carries the
	// outcome's sign, as OutcomeFlags gives it.
	SourceFallback
	// SourceSkipped: the episode was not judged, by the skip rule or
	// because it has no steps; every step carries the outcome's sign.
	SourceSkipped
)

// String returns "judged", "fallback" or "skipped".
func (s Source) String() string {
	switch s {
	case SourceJudged:
		return "judged"
	case SourceFallback:
		return "fallback"
	case SourceSkipped:
		return "skipped"
	}
	return "Source(" + strconv.Itoa(int(s)) + ")"
}

// Judgment is a judge's verdict on one Episode.
type Judgment struct {
	// Good holds one label per step of the episode, true for GOOD. A Judge
	// returns len(Episode.Steps) labels; ADCA truncates or pads other
	// lengths (reference §7.4) and JudgeMetrics counts them as mismatches.
	Good []bool
	// Source says whether the labels were judged, fell back to the
	// outcome's sign, or were skipped.
	Source Source
	// Calls is the number of model requests made for the episode, retries
	// included; 0 for a skipped episode or a judge without a model.
	Calls int
	// PromptTokens and CompletionTokens add up the usage the model
	// reported over those calls (0 where it reported none).
	PromptTokens, CompletionTokens int
	// Response is the judge model's answer that was parsed, with its
	// thinking stripped; empty when no answer came.
	Response string
	// Prompt is what was sent to the judge model (StepEvalMessages); nil
	// when no request was made. Judge records keep it.
	Prompt []agentevolver.Message
	// Elapsed is the wall time spent judging the episode, its requests,
	// retries and waits included; 0 for a skipped episode.
	Elapsed time.Duration
	// Err says why a fallback happened: the call's error (matching
	// llm.ErrUnavailable for an endpoint outage), ErrRefused, or a parse
	// error matching ErrParse. Nil for judged and skipped episodes.
	Err error
}

// Judge labels every step of each episode GOOD or BAD given the task, the
// steps and the outcome: the step judge of ADCA (reference §7.2-7.3).
//
// Judge returns one Judgment per episode, in the order of episodes; a
// failure to judge one episode is that Judgment's fallback (Source and
// Err), not an error of the call. The error is for the batch as a whole:
// the context ending (then no judgments are returned) or a misconfigured
// judge. Implementations are safe for concurrent use and do not retain or
// modify episodes.
type Judge interface {
	Judge(ctx context.Context, episodes []Episode) ([]Judgment, error)
}

// JudgeFunc adapts a function to the Judge interface, in the style of
// http.HandlerFunc. It is safe for concurrent use when the function is.
type JudgeFunc func(ctx context.Context, episodes []Episode) ([]Judgment, error)

// Judge calls f.
func (f JudgeFunc) Judge(ctx context.Context, episodes []Episode) ([]Judgment, error) {
	return f(ctx, episodes)
}

// Errors callers can test with errors.Is.
var (
	// ErrParse reports a judge answer from which no label per step could
	// be read (ParseJudgments). ErrTooFewJudgments and ErrStepNumbering
	// match it.
	ErrParse = errors.New("attribution: cannot parse step judgments")
	// ErrRefused reports that the judge model or its provider's content
	// moderation declined the prompt twice, the reference's limit
	// (§7.3), after which the episode falls back to the outcome's sign.
	ErrRefused = errors.New("attribution: judge refused twice")
	// ErrJudgmentLength reports a judge (a StepOracle, say) that returned
	// a number of labels other than the number of steps.
	ErrJudgmentLength = errors.New("attribution: wrong number of step labels")
)

// RescaleScore maps an outcome reward in [0, 1] to the overall score the
// step-evaluation prompt shows, (orm - 0.5)·2: 1 becomes +1, 0 becomes -1
// (the reference's rescale_score with its THRESHOLD of 0).
func RescaleScore(orm float64) float64 {
	v, _ := rescale(orm, 0)
	return v
}

// rescale is the reference's rescale_score(score, threshold): the identity
// for threshold 0.5, (score − 0.5)·2 for threshold 0 (the module's
// THRESHOLD, the only one the pipeline uses), an error otherwise.
func rescale(score, threshold float64) (float64, error) {
	switch threshold {
	case 0:
		return (score - 0.5) * 2, nil
	case 0.5:
		return score, nil
	}
	return 0, fmt.Errorf("attribution: rescale threshold must be 0 or 0.5, got %v", threshold)
}

// OutcomeFlags returns the labels of a fallback or skipped episode: every
// step GOOD when the rescaled outcome is positive, i.e. Outcome > 0.5, and
// BAD otherwise (reference §7.3). For 0/1 outcomes this is the outcome's
// sign; note that the consistency metrics call a trajectory positive when
// Outcome > 0, the reference's other threshold.
func OutcomeFlags(e Episode) []bool {
	flags := make([]bool, len(e.Steps))
	if RescaleScore(e.Outcome) > 0 {
		for i := range flags {
			flags[i] = true
		}
	}
	return flags
}

// fallback is the Judgment of an episode whose judging failed with err.
func fallback(e Episode, j Judgment, err error) Judgment {
	j.Good = OutcomeFlags(e)
	j.Source = SourceFallback
	j.Err = err
	return j
}

// skipped is the Judgment of an episode left unjudged.
func skipped(e Episode) Judgment {
	return Judgment{Good: OutcomeFlags(e), Source: SourceSkipped}
}
