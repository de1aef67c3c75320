package toolworld

import "github.com/org/agentevolver/envservice"

// Env is a step oracle: Env.JudgeSteps (toolworld.go) replays an episode's
// actions on a fresh instance and labels each one. A step is GOOD when its
// action parses, binds to an API and runs on the world as replayed so far,
// and makes progress: it performs a call of the expert solution not yet
// done (same API, equivalent arguments, compared by the solution's match
// keys), or it is the task.finish that completes the task with a perfect
// score. Every other step is BAD: malformed actions, failed calls, repeats
// of a call already done, calls outside the solution (detours such as
// contacts.list), a wrong or premature task.finish, and anything after
// task.finish. The labels depend only on the task and the actions, so they
// are exact and reproducible ground truth for credit assignment.
var _ envservice.StepOracle = (*Env)(nil)
