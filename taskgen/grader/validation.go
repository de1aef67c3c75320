package grader

import (
	"strconv"
	"strings"

	"github.com/org/agentevolver"
)

// ValidationStepChars is how much of each message the validation request
// shows, in code points, as in the reference.
const ValidationStepChars = 200

// noObservation stands in for a missing final observation.
const noObservation = "[no observation]"

// FinalObservation returns the content of the last message of steps that
// is not the assistant's: what the environment said last, or the query
// when the agent got no observation. It returns "" when there is none.
func FinalObservation(steps []agentevolver.Message) string {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Role != agentevolver.RoleAssistant {
			return steps[i].Content
		}
	}
	return ""
}

// ValidationMessages builds the LLM post-filter's validation request
// (reference §4.6 step 2): one user message asking a strict evaluator
// whether the trajectory that tried to solve query succeeded. It shows
// query, a summary of steps with every message as
// "(Step k) {role}:\n{its first 200 code points}...\n" (k from 1, the
// blocks separated by a newline, "..." written even after a short one),
// final as the final observation ("[no observation]" when empty; see
// FinalObservation), five criteria (API matching, parameter usage, logical
// flow, final result, failed or skipped steps), and asks for the reply
// "Success: [true/false]" then "Reason: ...", which ParseVerdict reads.
func ValidationMessages(query string, steps []agentevolver.Message, final string) []agentevolver.Message {
	if final == "" {
		final = noObservation
	}
	var summary strings.Builder
	for i, m := range steps {
		if i > 0 {
			summary.WriteString("\n")
		}
		summary.WriteString("(Step ")
		summary.WriteString(strconv.Itoa(i + 1))
		summary.WriteString(") ")
		summary.WriteString(m.Role)
		summary.WriteString(":\n")
		summary.WriteString(prefixRunes(m.Content, ValidationStepChars))
		summary.WriteString("...\n")
	}
	var b strings.Builder
	b.WriteString("You are a strict task evaluation expert. Decide whether the following multi-step agent trajectory really completed the task it was given.\n\n")
	b.WriteString("# Task Details\n- Query: ")
	b.WriteString(query)
	b.WriteString("\n\n# Execution Summary\n- Trajectory Summary:\n")
	b.WriteString(summary.String())
	b.WriteString("\n- Final Observation: ")
	b.WriteString(final)
	b.WriteString(`

# Evaluation Instructions

Analyse the trajectory carefully to decide whether the task was truly completed. Consider in particular:

1. **API Matching**: did the agent call the APIs the task requires?
2. **Parameter Usage**: were the parameters of those calls correct and sufficient?
3. **Logical Flow**: was the sequence of steps logical, without unreasonable jumps?
4. **Final Result**: did the final state reach the expected outcome, reasonably solve the task, obtain all the information needed and fulfil the task's objectives?
5. **Failed or Skipped Steps**: were there critical errors, skipped steps or invalid code that kept the task from actually being carried out?

# Reply Strictly In This Format:

Success: [true/false]
Reason: [A concise, specific explanation that refers to the criteria above.]

Note: do NOT mark the task successful if the right API was never called, the parameters were wrong or the result was not reached, even when the intent looked right.
`)
	return []agentevolver.Message{{Role: agentevolver.RoleUser, Content: b.String()}}
}
