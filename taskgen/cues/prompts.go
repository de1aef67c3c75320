package cues

import (
	"fmt"
	"strings"

	"github.com/org/agentevolver"
)

// DefaultActionFormat is the action-format block of the explorer's and
// the actor's prompts when Config.ActionFormat is empty. The reference
// has one per environment it knows (AppWorld's python cells, BFCL's
// <tool_call> JSON, WebShop's \boxed{…}); any environment of the
// env-service protocol describes its own action format in its initial
// messages, which the prompts show, so the generic block points there.
const DefaultActionFormat = "Write the action exactly as the environment description above says actions are written " +
	"(its tool-call or code-block syntax), and wrap it in <action> and </action>:\n" +
	"<action>\n[one action in the environment's own format]\n</action>"

// ExplorerSystemPrompt is Stage 1's system message (reference §2.7.3): a
// curious first-time explorer with the action-format block.
func ExplorerSystemPrompt(actionFormat string) string {
	return `You are a curious explorer who meets this environment for the first time. Your goal is to discover what can be done in it.
At every turn:
1. Observe the current state and the environment description.
2. Identify the actions that are available.
3. Choose ONE action that explores the environment effectively: prefer actions you have not tried, that reveal new information or reach new states.
4. Output it in the required tags.

Rules:
- One action per turn.
- Use only actions the environment defines.
- Always include an action.
- Give your reasoning first, then the action.

## Action format
` + actionFormat
}

// ExplorerUserPrompt is Stage 1's user message (reference §2.7.3): the
// optional requirement, exploration memory, recent history (at most the
// last 5 entries) and environment description, then the closing
// instruction.
func ExplorerUserPrompt(requirement, memory string, history []string, envDescription string) string {
	var b strings.Builder
	if requirement != "" {
		b.WriteString("## Exploration Requirement\n" + requirement +
			"\nPrioritise this requirement while staying curious.\n\n")
	}
	if memory != "" {
		b.WriteString("## Environment Exploration Memory\n" + memory +
			"\nExplore new areas; avoid repeating actions already tested or that worked poorly.\n\n")
	}
	if len(history) > 0 {
		b.WriteString("## Recent History\n")
		for _, h := range history[max(0, len(history)-5):] {
			b.WriteString("- " + h + "\n")
		}
		b.WriteString("\n")
	}
	if envDescription != "" {
		b.WriteString("## Environment Description\n" + envDescription + "\n\n")
	}
	b.WriteString("Choose an appropriate next action, preferably one not tested yet. Explain your reasoning, then give the action in the required tags.")
	return b.String()
}

// RequirementSystemPrompt turns a user's natural-language requirement into
// an exploration directive (reference §2.7.1).
const RequirementSystemPrompt = `You turn a user's natural-language requirement into a concise exploration directive for an agent exploring an environment: say what to explore, what to avoid, and the strategies to use. Answer with the directive only.`

// ConceptSystemPrompt asks for the nouns and concepts of task queries
// (reference §2.6).
const ConceptSystemPrompt = `You are a noun-extraction assistant. List all nouns and concepts that appear in the user's queries, as a JSON list of strings, for example ["calendar", "meeting", "Ann"]. Answer with the list only.`

// ConceptUserPrompt lists a batch of queries for ConceptSystemPrompt.
func ConceptUserPrompt(queries []string) string {
	var b strings.Builder
	b.WriteString("Queries:\n")
	for i, q := range queries {
		fmt.Fprintf(&b, "%d. %s\n", i+1, q)
	}
	return b.String()
}

// MemorySystemPrompt is the exploration-memory summariser (reference
// §2.7.4).
const MemorySystemPrompt = `You are an exploration memory summarizer. From the record of an agent's past actions in an environment, write one factual paragraph in the past tense: what was explored, the key actions, their outcomes and the patterns seen, and what was avoided or failed.`

// MemoryUserPrompt lists triplets for MemorySystemPrompt: each as
// "n. Action: …" and "   Result: <first 200 characters>".
func MemoryUserPrompt(ts []Triplet) string {
	var b strings.Builder
	b.WriteString("Exploration record:\n\n")
	for i, t := range ts {
		fmt.Fprintf(&b, "%d. Action: %s\n   Result: %s\n\n", i+1, t.Action, clip(t.Observation, 200))
	}
	b.WriteString("Summarise this exploration in at most 500 words.")
	return b.String()
}

// AbstractionSystemPrompt is Stage 2's system message (reference
// §2.8.2): a task-abstraction expert, its rules and the output block.
const AbstractionSystemPrompt = `You are a Task Abstraction Expert. You inspect (history, action, observation) records of an agent exploring an environment, identify the goals its behaviour achieved, and write each as a task a user could ask for, with the minimal action sequence that accomplishes it from the initial state.

Rules:
- Ignore random exploration that achieved nothing.
- Group similar behaviour into one task.
- Each task must have an action sequence that was executed successfully in the records.
- Each task must have an explicit completion criterion.
- Use only valid actions the environment offers, in its own action format.
- Do not skip steps; include as many steps as the task needs, and at least 4 steps where possible.

Output one block per task:
<task>
Description: [what the task is about]
Query: [the user's request, self-contained and specific]
Confidence: [0.0 - 1.0]
ActionSequence:
# step1
[the first action, in the environment's format]
# step2
[the next action]
</task>`

// AbstractionUserPrompt is Stage 2's user message: the environment
// description, each triplet's action and observation (the first 1000
// characters), and the tasks abstracted before.
func AbstractionUserPrompt(envDescription string, ts []Triplet, taskMemory string) string {
	var b strings.Builder
	b.WriteString("## Environment Description\n" + envDescription + "\n\n## Records\n")
	for i, t := range ts {
		fmt.Fprintf(&b, "Triplet %d:\nAction: %s\nObservation: %s\n\n", i+1, t.Action, clip(t.Observation, 1000))
	}
	b.WriteString("## Tasks generated before (try not to repeat them)\n" + taskMemory + "\n\n")
	b.WriteString("Abstract the tasks these records demonstrate, in the specified format.")
	return b.String()
}

// TaskMemory describes the tasks already abstracted for an environment
// (reference §2.8.2 step 2).
func TaskMemory(previous []Task) string {
	if len(previous) == 0 {
		return "No previous tasks have been abstracted for this environment."
	}
	var d []string
	for _, t := range previous[max(0, len(previous)-10):] {
		d = append(d, t.Description)
	}
	return fmt.Sprintf("Previously abstracted %d tasks. Task types: %s", len(previous), strings.Join(d, ", "))
}

// ActorPrompt is Stage 3's single user message (reference §2.9.2).
func ActorPrompt(t Task, envInfo string, previous []string, actionFormat string) string {
	prev := "None"
	if len(previous) > 0 {
		prev = strings.Join(previous[max(0, len(previous)-3):], "\n")
	}
	return "You are a helpful assistant who completes a user's task by acting in an environment.\n\n" +
		"## Task Description\n" + t.Description + "\n\n## Query\n" + t.Query +
		"\n\n## Tips\n" + t.GT + "\n\n## Environment information\n" + envInfo +
		"\n\n## Previous Actions\n" + prev + "\n\n" +
		`## Instructions
- Take one action at a time.
- The tips may be wrong or skip steps: check every observation and correct your course.
- Use the correct action format and only the actions the environment offers.
- Do not just copy the tips.
- Explain your reasoning, then give the action.
- When the task is complete, output <action><finish></action>.

## Action format
` + actionFormat
}

// FinishAction is the actor's (and explorer's) signal that it is done.
const FinishAction = "<finish>"

// JudgePrompt is Stage 3's judge message (reference §2.9.3): the task,
// the ground truth as a possibly wrong expected outcome, a summary of the
// steps (each observation's first 200 characters) and the final
// observation.
func JudgePrompt(t Task, steps []ExecStep) string {
	var sum strings.Builder
	for i, s := range steps {
		fmt.Fprintf(&sum, "Step %d: %s\n  Result: %s...\n", i+1, s.Action, clip(s.Observation, 200))
	}
	final := ""
	if len(steps) > 0 {
		final = steps[len(steps)-1].Observation
	}
	return "You are a strict evaluator of an agent's trajectory.\n\n" +
		"## Task Description\n" + t.Description + "\n\n## Query\n" + t.Query +
		"\n\n## Expected outcome (a reference solution; it may be wrong)\n" + t.GT +
		"\n\n## Trajectory\n" + sum.String() + "\n## Final observation\n" + clip(final, 2000) + "\n\n" +
		`## Criteria
- The actions call the operations the task needs, with the right parameters.
- The steps follow a logical order, and none that the task needs failed or was skipped.
- The final result satisfies the query.
- Ignore observations that only report a malformed action, if the agent recovered.
- Do not pass a trajectory that never performed the operation the task requires.

Answer in this format:
Success: [true/false]
Reason: [one paragraph]`
}

// RewriteSystemPrompt is the query rewriter (reference §2.10).
const RewriteSystemPrompt = `You are a rigorous query rewriting assistant.`

// RewriteUserPrompt asks for at most k rewrites of query, with the
// trajectory's context.
func RewriteUserPrompt(query, context string, k int) string {
	return fmt.Sprintf(`Rewrite the query below into at most %d semantically equivalent, executable variants.
Control the difficulty by how much of the context each variant encodes: fewer hints make it harder.
Keep the same intent, constraints and entities; vary the wording; keep the same language and a similar length; never repeat the query verbatim.
Order them from hardest to easiest, one per line, without numbering.

Query: %s

Context: %s`, k, query, context)
}

// clip returns s cut to n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// chatMessages returns a system and a user message (no system message
// when system is empty).
func chatMessages(system, user string) []agentevolver.Message {
	var m []agentevolver.Message
	if system != "" {
		m = append(m, agentevolver.Message{Role: agentevolver.RoleSystem, Content: system})
	}
	return append(m, agentevolver.Message{Role: agentevolver.RoleUser, Content: user})
}
