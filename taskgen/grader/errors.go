package grader

import "errors"

// Errors callers can test with errors.Is.
var (
	// ErrJudgeFailed reports an episode an LLM judge could not score: the
	// judge model failed (an endpoint still unavailable after the client's
	// retries, a refusal, a rejected request, a panic) or its reply held a
	// <reward> tag whose number does not parse (ErrMalformedScore). The
	// model's own error stays in the chain, so errors.Is(err,
	// llm.ErrUnavailable) tells an outage from a judge that answers badly.
	// Such an episode has no score: it must not become training data. A
	// reply without any <reward> tag is not a failure but the score 0, as
	// in the reference.
	ErrJudgeFailed = errors.New("grader: judge failed")
	// ErrMalformedScore reports a <reward> tag whose content matches the
	// reference's pattern but is no number, such as "1.2.3" or ".", where
	// the reference's float() raises ValueError.
	ErrMalformedScore = errors.New("grader: malformed score in <reward> tag")
	// ErrBadTrajectory reports a trajectory a judge cannot read: fewer than
	// two messages, a second message that is not the user's query, no agent
	// turn after it, an agent part that does not start with an assistant
	// message, or a role other than assistant and user in the agent part
	// (the reference's assertions and ValueError).
	ErrBadTrajectory = errors.New("grader: trajectory cannot be judged")
	// ErrNoGroundTruth reports a task without a reference solution given to
	// a banded judge that compares against one (llm-binary-gt and its
	// variants), where the reference asserts that one exists.
	ErrNoGroundTruth = errors.New("grader: task has no ground truth")
	// ErrUnknownGrader reports a grader name that is not registered; the
	// error's text lists the known names.
	ErrUnknownGrader = errors.New("grader: unknown grader")
	// ErrNoModel reports an LLM grader asked for without a judge model in
	// Config.
	ErrNoModel = errors.New("grader: no judge model")
)
