package grader

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/internal/parallel"
	"github.com/org/agentevolver/llm"
)

// promptStyle says how a judge shows an episode to its model.
type promptStyle int

const (
	// styleSteps: the llm judge's two user messages, the query and the
	// STEP blocks of RenderSteps, then the rubric.
	styleSteps promptStyle = iota
	// styleDialogue: the llm-gt judge's two user messages, every message
	// as "ROLE: content", then the rubric with the reference solution.
	styleDialogue
	// styleBanded: the banded judges' single user message.
	styleBanded
)

// kind describes one registered LLM grader.
type kind struct {
	name  string
	style promptStyle
	// reference: the banded judge compares with Task.GroundTruth.
	reference bool
	// constraint: the banded judge is shown its running means.
	constraint bool
	// averaged: the score is the mean of Config.Samples judge calls.
	averaged bool
	// maxTokens is the reference's max_tokens for this judge.
	maxTokens int
}

// Judge is an LLM grader: it shows an episode to a judge model, reads the
// score from the reply with FindScore (after dropping any inline
// <think>…</think> block) and returns it with the reply as the reason. An
// averaged judge (avg-llm, avg-llm-binary-gt) asks Config.Samples times
// concurrently and returns the mean. New builds Judges; see the Name
// constants for what each one shows its model.
//
// CalculateReward fails with an error matching ErrJudgeFailed, and the
// model's error, when the model cannot answer or its <reward> tag is
// malformed, with ErrBadTrajectory when the episode does not have the
// shape judges read (SplitTrajectory, RenderSteps), and with
// ErrNoGroundTruth when a judge that compares with the reference solution
// has none. Such an episode has no score. An averaged judge fails when any
// of its calls fails, and cancels the others. A reply without a <reward>
// tag, an empty one included, is the score 0, as in the reference. The
// caller's cancellation is returned as the context's error.
//
// A Judge makes one request per call (per sample): retrying transient
// failures is the model client's job (llm/openai retries them with backoff
// and the server's Retry-After, then reports llm.ErrUnavailable), which
// keeps a grader from stalling a training step for hours the way the
// reference's 64 retries with waits of 10·2^attempt seconds could.
//
// A Judge is safe for concurrent use.
type Judge struct {
	kind    kind
	model   llm.ChatModel
	opts    llm.ChatOptions
	lim     Limits
	samples int
	// sem bounds the requests in flight; nil means no bound.
	sem  *parallel.Limiter
	mean *runningMean
	log  *slog.Logger
}

var _ agentflow.RewardCalculator = (*Judge)(nil)

// Name returns the judge's registered name, such as NameLLMBinaryGT.
func (j *Judge) Name() string { return j.kind.name }

// RunningMean returns the fast and the slow exponential moving average of
// the scores the judge has given (see FastAlpha and SlowAlpha), both
// InitialRunningMean before the first. Every judge keeps them; only the
// mean-constraint variants (llm-binary, llm-binary-gt, avg-llm-binary-gt)
// show them to their model.
func (j *Judge) RunningMean() (fast, slow float64) { return j.mean.get() }

// prompt is an episode rendered for one judge.
type prompt struct {
	taskID string
	// fixed is the request of a judge whose prompt does not change
	// between calls.
	fixed []agentevolver.Message
	// task, reference and trajectory fill the banded prompt, built per
	// call because it may show the running means.
	task, reference, trajectory string
	banded, constraint          bool
}

// messages returns the request of one call.
func (p *prompt) messages(mean *runningMean) []agentevolver.Message {
	if !p.banded {
		return p.fixed
	}
	fast, slow := mean.get()
	return []agentevolver.Message{{Role: agentevolver.RoleUser, Content: bandedMessage(p.task, p.reference, p.trajectory, p.constraint, fast, slow)}}
}

// render builds the judge's prompt for an episode.
func (j *Judge) render(in agentflow.RewardInput) (*prompt, error) {
	p := &prompt{taskID: in.Task.TaskID}
	steps := in.Trajectory.Steps
	if j.kind.style == styleDialogue {
		ref := NoReferenceSolution
		if in.Task.GroundTruth != "" {
			ref = clipMiddle(in.Task.GroundTruth, j.lim.MaxStepChars)
		}
		p.fixed = []agentevolver.Message{
			{Role: agentevolver.RoleUser, Content: dialogueHeader + renderDialogue(steps, j.lim)},
			{Role: agentevolver.RoleUser, Content: rubricGT(ref)},
		}
		return p, nil
	}
	query, agent, err := SplitTrajectory(steps)
	if err != nil {
		return nil, err
	}
	text, err := RenderSteps(agent, j.lim)
	if err != nil {
		return nil, err
	}
	query = clipMiddle(query, j.lim.MaxStepChars)
	if j.kind.style == styleSteps {
		p.fixed = []agentevolver.Message{
			{Role: agentevolver.RoleUser, Content: "Query: " + query + "\n" + dialogueHeader + text},
			{Role: agentevolver.RoleUser, Content: rubricLLM},
		}
		return p, nil
	}
	p.banded, p.constraint = true, j.kind.constraint
	p.task, p.trajectory, p.reference = query, text, NoReferenceSolution
	if j.kind.reference {
		if in.Task.GroundTruth == "" {
			return nil, fmt.Errorf("%w: %s compares with the reference solution", ErrNoGroundTruth, j.kind.name)
		}
		p.reference = clipMiddle(in.Task.GroundTruth, j.lim.MaxStepChars)
	}
	return p, nil
}

// CalculateReward implements agentflow.RewardCalculator; see Judge.
func (j *Judge) CalculateReward(ctx context.Context, in agentflow.RewardInput) (float64, string, error) {
	p, err := j.render(in)
	if err != nil {
		return 0, "", fmt.Errorf("grader: %s: task %s: %w", j.kind.name, in.Task.TaskID, err)
	}
	if j.samples <= 1 {
		return j.ask(ctx, p)
	}
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	scores := make([]float64, j.samples)
	var wg sync.WaitGroup
	for k := range scores {
		wg.Go(func() {
			score, _, err := j.ask(actx, p)
			if err != nil {
				cancel(err)
				return
			}
			scores[k] = score
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, "", err
	}
	if err := context.Cause(actx); err != nil {
		return 0, "", err // the first call's failure
	}
	sum := 0.0
	parts := make([]string, len(scores))
	for k, s := range scores {
		sum += s
		parts[k] = strconv.FormatFloat(s, 'f', 4, 64)
	}
	mean := sum / float64(len(scores))
	return mean, fmt.Sprintf("%s: mean of %d judge scores (%s)", j.kind.name, len(scores), strings.Join(parts, ", ")), nil
}

// ask makes one judge call and reads its score.
func (j *Judge) ask(ctx context.Context, p *prompt) (float64, string, error) {
	if err := j.acquire(ctx); err != nil {
		return 0, "", err
	}
	// Built once the slot is held, so that the running means shown are
	// as fresh as they can be.
	comp, err := j.chat(ctx, p.messages(j.mean))
	j.release()
	if err != nil {
		if ctx.Err() != nil {
			return 0, "", ctx.Err()
		}
		j.log.WarnContext(ctx, "grader: judge call failed", "grader", j.kind.name, "task_id", p.taskID, "err", err)
		return 0, "", fmt.Errorf("%w: %s: task %s: %w", ErrJudgeFailed, j.kind.name, p.taskID, err)
	}
	reply := comp.Message.Content
	score, found, err := FindScore(stripThinking(reply))
	if err != nil {
		j.log.WarnContext(ctx, "grader: judge reply has a malformed score", "grader", j.kind.name, "task_id", p.taskID, "reply", clipMiddle(reply, 400))
		return 0, "", fmt.Errorf("%w: %s: task %s: %w", ErrJudgeFailed, j.kind.name, p.taskID, err)
	}
	if !found {
		j.log.WarnContext(ctx, "grader: judge reply has no <reward> tag; scoring 0", "grader", j.kind.name, "task_id", p.taskID, "reply", clipMiddle(reply, 400))
	}
	j.mean.update(score)
	j.log.DebugContext(ctx, "grader: judged", "grader", j.kind.name, "task_id", p.taskID, "score", score,
		"prompt_tokens", comp.PromptTokens, "completion_tokens", comp.CompletionTokens)
	return score, reply, nil
}

// chat calls the model, turning a panic into an error.
func (j *Judge) chat(ctx context.Context, msgs []agentevolver.Message) (comp llm.Completion, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("judge model panicked: %v", r)
		}
	}()
	return j.model.Chat(ctx, msgs, j.opts)
}

// acquire takes a slot of the concurrency bound, or fails when ctx ends.
func (j *Judge) acquire(ctx context.Context) error { return j.sem.Acquire(ctx) }

func (j *Judge) release() { j.sem.Release() }

// stripThinking drops a reasoning model's inline thinking, so that a
// <reward> tag it mentions while thinking is not taken for its verdict:
// everything up to the last "</think>", or, when the reply opens a
// <think> block it never closes (cut by the token limit), everything from
// "<think>" on. The reference's DashScope models return their thinking
// apart from the answer, which this reproduces for servers that inline it.
func stripThinking(s string) string {
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		return s[i+len("</think>"):]
	}
	if i := strings.Index(s, "<think>"); i >= 0 {
		return s[:i]
	}
	return s
}
