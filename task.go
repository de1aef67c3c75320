package agentevolver

// Evaluator names used in Task.Evaluator.
const (
	// EvaluatorEnv scores an episode with the environment's own evaluate call.
	EvaluatorEnv = "env"
	// EvaluatorSynthetic marks a task synthesised by self-questioning before a
	// grader has been assigned.
	EvaluatorSynthetic = "synthetic"
)

// Task is one training or evaluation task: an environment task id and,
// for synthesised tasks, the query that replaces the environment's own.
type Task struct {
	// TaskID identifies the task inside its environment (required).
	TaskID string `json:"task_id"`
	// EnvType names the environment that serves the task.
	EnvType string `json:"env_type"`
	// OpenQuery marks a task whose query is open-ended (synthesised tasks).
	OpenQuery bool `json:"open_query"`
	// Metadata carries free-form, JSON-serialisable extras.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Query, when non-empty, replaces the environment's own instruction.
	// Empty means "use the environment's query" (null in the reference).
	Query string `json:"query,omitempty"`
	// GroundTruth is a reference solution (an action sequence for synthesised
	// tasks), used by graders that judge against a reference.
	GroundTruth string `json:"ground_truth,omitempty"`
	// Evaluator names the grader; empty means EvaluatorEnv.
	Evaluator string `json:"evaluator,omitempty"`
}

// EvaluatorOrDefault returns Evaluator, or EvaluatorEnv when it is empty.
func (t Task) EvaluatorOrDefault() string {
	if t.Evaluator == "" {
		return EvaluatorEnv
	}
	return t.Evaluator
}

// TaskObjective is a task together with what the task synthesiser believed
// about it: its confidence and, once measured, its reward.
type TaskObjective struct {
	Task Task `json:"task"`
	// Confidence is the synthesiser's confidence in [0, 1]; nil when unknown.
	Confidence *float64 `json:"confidence"`
	// Reward is the measured reward of the task; nil when not yet measured.
	Reward *float64 `json:"reward"`
}

// Objective returns the task's query, the objective the agent must reach.
func (o TaskObjective) Objective() string { return o.Task.Query }

// GroundTruth returns the task's reference solution.
func (o TaskObjective) GroundTruth() string { return o.Task.GroundTruth }
