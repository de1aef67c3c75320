package taskgen

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/taskgen/grader"
)

// ErrNotEnvScored reports an objective that EnvPostFilter cannot check:
// its evaluator is not the environment's, so the environment cannot
// score it by its task id (a query synthesised by an LLM over a seed
// task's id, say: the environment would score the seed task).
var ErrNotEnvScored = errors.New("taskgen: the environment cannot score this objective by its task id")

// SolvePromptHead opens the LLM post filter's solving prompt (reference
// §4.6 step 1); the query and the tips follow it as
// "Your Query:\n{query}\n\nTips:\n{ground truth}".
const SolvePromptHead = `You are an AI assistant who solves a user's query by interacting with the environment, one action per turn, in the format the environment requires.
The tips below are a step-by-step solution of the query that may be incorrect or incomplete: follow them where they work, check every observation, and correct your course where they fail. When the query is solved, end the task as the environment requires.

`

// SolvePrompt returns the LLM post filter's solving prompt for a query
// and its ground truth (reference §4.6 step 1): SolvePromptHead, then
// "Your Query:\n{query}\n\nTips:\n{groundTruth}".
func SolvePrompt(query, groundTruth string) string {
	return SolvePromptHead + "Your Query:\n" + query + "\n\nTips:\n" + groundTruth
}

// AbstractSolutionSystemPrompt is the system message of the request that
// rewrites a validated objective's ground truth from its solving episode
// (reference §4.6 step 3, the "abstract solution" prompt): one <task>
// block, in the format ParseTaskBlocks reads, whose action_sequence is
// the solution the episode demonstrated.
const AbstractSolutionSystemPrompt = `# ROLE
You are a **Solution Abstraction Expert**. You read the record of an agent that solved a user's query by calling an environment's APIs, and write down the solution it demonstrated as a clean, reusable sequence of actions.

# RULES
- Keep only the steps that contributed to solving the query; drop exploration, failed calls, retries and debugging.
- Keep the concrete values (names, numbers, dates, ids) the query needs, in the environment's own action format.
- Keep the order in which the steps must run; say where a step uses a value read by an earlier one.

# OUTPUT FORMAT
Write exactly one block:

<task>
{
  "query": "[the user's query, as given]",
  "confidence": [0.0 - 1.0: how sure you are that the solution is correct and complete],
  "action_sequence": "[the steps that solve the query, one per line]"
}
</task>
`

// AbstractSolutionMessages returns the request that abstracts the
// solution of query from its solving episode: AbstractSolutionSystemPrompt
// and a user message with the query and the episode's record
// (FormatRecord, its reward included). The record is not masked: the
// first action is part of the solution.
func AbstractSolutionMessages(query string, steps []agentevolver.Message, reward agentevolver.Reward) []agentevolver.Message {
	var b strings.Builder
	b.WriteString("# Query\n")
	b.WriteString(query)
	b.WriteString("\n\n# Interaction Record\n")
	b.WriteString(FormatRecord(steps, &reward))
	b.WriteString("\n# Now Start\nWrite the solution this record demonstrates for the query, in the specified format.\n")
	return []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: AbstractSolutionSystemPrompt},
		{Role: agentevolver.RoleUser, Content: b.String()},
	}
}

var _ PostFilter = (*LLMPostFilter)(nil)

// LLMPostFilter is the reference's LlmFilter (§4.6): for each objective
//
//  1. solve it: an agent-flow episode of the objective's task with Model
//     as the policy, the task message replaced by SolvePrompt (the query
//     and, as tips, the ground truth), scored by the environment's sparse
//     evaluation;
//  2. validate it: grader.ValidationMessages over the episode and its
//     final observation, answered by Model and read by
//     grader.ParseVerdict; an objective that fails is dropped;
//  3. rewrite its ground truth: AbstractSolutionMessages answered by Model,
//     taking the action sequence of the first valid <task> block; without
//     one (or with a blank one) the old ground truth stays;
//  4. any error drops the objective (Filter returns it).
//
// Env and Model are required. An LLMPostFilter is safe for concurrent use
// as long as its fields are not changed meanwhile.
type LLMPostFilter struct {
	// Env serves the environment instances (required).
	Env envclient.Env
	// Model solves, validates and abstracts (required). Retries are the
	// client's.
	Model llm.ChatModel
	// EnvType is the environment type of tasks whose EnvType is empty.
	EnvType string
	// Chat are the sampling settings of all three steps (zero: the
	// model's defaults).
	Chat llm.ChatOptions
	// MaxSteps bounds the solving episode (zero: agentflow.DefaultMaxSteps).
	MaxSteps int
	// Context configures the solving episode's context manager; see
	// EpisodeContext.
	Context contextmgr.Config
	// Seed seeds the solving episodes.
	Seed int64
	// Logger receives diagnostics (zero: discard).
	Logger *slog.Logger
}

// Filter implements PostFilter.
func (f *LLMPostFilter) Filter(ctx context.Context, obj agentevolver.TaskObjective) (agentevolver.TaskObjective, bool, error) {
	if f.Env == nil || f.Model == nil {
		return obj, false, fmt.Errorf("%w: LLMPostFilter needs an Env and a Model", ErrConfig)
	}
	query := obj.Task.Query
	if strings.TrimSpace(query) == "" {
		return obj, false, errors.New("taskgen: post filter: objective without a query")
	}
	// The flow puts the query where the placeholder is; a ground truth
	// that happened to hold the placeholder must stay as it is.
	tips := strings.ReplaceAll(obj.Task.GroundTruth, agentflow.UserQuestionPlaceholder, "[USER QUESTION]")
	ep := episodeFlow{
		Env:          f.Env,
		Policy:       f.Model,
		Chat:         f.Chat,
		Context:      f.Context,
		EnvType:      f.EnvType,
		MaxSteps:     orDefault(f.MaxSteps, agentflow.DefaultMaxSteps),
		SystemPrompt: SolvePrompt(agentflow.UserQuestionPlaceholder, tips),
		Logger:       f.Logger,
	}
	res, err := ep.run(ctx, obj.Task, f.Seed)
	if err != nil {
		return obj, false, fmt.Errorf("taskgen: post filter: solve: %w", err)
	}
	steps := res.Trajectory.Steps
	reply, err := f.Model.Chat(ctx, grader.ValidationMessages(query, steps, grader.FinalObservation(steps)), f.Chat)
	if err != nil {
		return obj, false, fmt.Errorf("taskgen: post filter: validate: %w", err)
	}
	if !grader.ParseVerdict(reply.Message.Content) {
		return obj, false, nil
	}
	abs, err := f.Model.Chat(ctx, AbstractSolutionMessages(query, steps, res.Trajectory.Reward), f.Chat)
	if err != nil {
		return obj, false, fmt.Errorf("taskgen: post filter: abstract the solution: %w", err)
	}
	for _, o := range ParseTaskBlocks(abs.Message.Content, obj.Task) {
		if o.Confidence != nil && strings.TrimSpace(o.Task.GroundTruth) != "" {
			obj.Task.GroundTruth = o.Task.GroundTruth
			break
		}
	}
	return obj, true, nil
}

// DefaultMinScore is the score an EnvPostFilter episode must reach when
// MinScore is zero: a perfect one.
const DefaultMinScore = 1.0

var _ PostFilter = (*EnvPostFilter)(nil)

// EnvPostFilter checks objectives with the environment alone, no LLM: it
// runs an episode of each objective's task and keeps the objective when
// the environment's sparse evaluation scores it at least MinScore. The
// episode replays the environment's expert demonstration of the task id
// (Expert: the ground truth of a hindsight task), so that a task the
// environment cannot rebuild, or whose solution does not score, is
// dropped; or, when Expert is nil, Policy tries to solve the task, which
// keeps only tasks that policy can already solve.
//
// Only objectives the environment scores by their task id can be checked:
// one whose evaluator is not agentevolver.EvaluatorEnv is an error
// matching ErrNotEnvScored (and so is dropped).
//
// Env and one of Expert and Policy are required. An EnvPostFilter is
// safe for concurrent use as long as its fields are not changed
// meanwhile.
type EnvPostFilter struct {
	// Env serves the environment instances (required).
	Env envclient.Env
	// Expert demonstrates each task's solution, replayed as the episode's
	// actions.
	Expert envservice.Expert
	// Policy solves each task when Expert is nil.
	Policy llm.ChatModel
	// EnvType is the environment type of tasks whose EnvType is empty.
	EnvType string
	// Chat are Policy's sampling settings (zero: its defaults).
	Chat llm.ChatOptions
	// MaxSteps bounds a Policy episode (zero: agentflow.DefaultMaxSteps);
	// a replay lasts as long as its demonstration.
	MaxSteps int
	// MinScore is the score to reach (zero: DefaultMinScore).
	MinScore float64
	// Context configures the episode's context manager; see
	// EpisodeContext.
	Context contextmgr.Config
	// Seed seeds the Policy episodes.
	Seed int64
	// Logger receives diagnostics (zero: discard).
	Logger *slog.Logger
}

// Filter implements PostFilter. The objective is returned unchanged.
func (f *EnvPostFilter) Filter(ctx context.Context, obj agentevolver.TaskObjective) (agentevolver.TaskObjective, bool, error) {
	if f.Env == nil || (f.Expert == nil && f.Policy == nil) {
		return obj, false, fmt.Errorf("%w: EnvPostFilter needs an Env and an Expert or a Policy", ErrConfig)
	}
	if ev := obj.Task.EvaluatorOrDefault(); ev != agentevolver.EvaluatorEnv {
		return obj, false, fmt.Errorf("%w (task %s, evaluator %q)", ErrNotEnvScored, obj.Task.TaskID, ev)
	}
	ep := episodeFlow{
		Env:      f.Env,
		Policy:   f.Policy,
		Chat:     f.Chat,
		Context:  f.Context,
		EnvType:  f.EnvType,
		MaxSteps: orDefault(f.MaxSteps, agentflow.DefaultMaxSteps),
		Logger:   f.Logger,
	}
	if f.Expert != nil {
		demo, err := f.Expert.Demonstrate(ctx, obj.Task.TaskID)
		if err != nil {
			return obj, false, fmt.Errorf("taskgen: environment check: demonstrate %s: %w", obj.Task.TaskID, err)
		}
		if len(demo) == 0 {
			return obj, false, fmt.Errorf("taskgen: environment check: empty demonstration of %s", obj.Task.TaskID)
		}
		ep.Policy, ep.MaxSteps = ReplayPolicy(demo), len(demo)
	}
	res, err := ep.run(ctx, obj.Task, f.Seed)
	if err != nil {
		return obj, false, fmt.Errorf("taskgen: environment check of %s: %w", obj.Task.TaskID, err)
	}
	minScore := f.MinScore
	if minScore == 0 {
		minScore = DefaultMinScore
	}
	return obj, res.Trajectory.Reward.Outcome >= minScore, nil
}

// ReplayPolicy returns a chat model that answers the turns of one episode
// with actions, in order, whatever it is sent: an llm.ChatModel adapter
// that replays a demonstration through an agent flow. A turn after the
// last action is an error. It serves one episode at a time.
func ReplayPolicy(actions []agentevolver.Message) llm.ChatModel {
	next := make(chan agentevolver.Message, len(actions))
	for _, a := range actions {
		a.Role = agentevolver.RoleAssistant
		next <- a
	}
	return llm.ChatModelFunc(func(ctx context.Context, _ []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
		select {
		case a := <-next:
			return llm.Completion{Message: a, FinishReason: "stop"}, nil
		default:
			return llm.Completion{}, fmt.Errorf("taskgen: replay: no action left after %d", len(actions))
		}
	})
}
