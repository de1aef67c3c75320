package taskgen

import (
	"strconv"
	"strings"

	"github.com/org/agentevolver"
)

// Masked replaces the content of the messages MaskSeedQuery hides.
const Masked = "[MASKED]"

// NoPreferenceRequirement is the task requirement of the summarisation
// prompt when no profile is known (the reference's text).
const NoPreferenceRequirement = "Please follow the instructions to generate tasks."

// SummarySystemPrompt is the system message of the summarisation request
// (reference §4.4): the "Real-World Task Discovery Expert" who turns an
// agent's interaction record into realistic, specific, verifiable user
// tasks, in the output format ParseTaskBlocks reads, with two examples and
// a checklist. It is this package's own text, with the reference's
// structure and output format.
const SummarySystemPrompt = `# ROLE
You are a **Real-World Task Discovery Expert**.
You read the record of an agent's interactions with an environment's APIs and turn it into
**realistic tasks a real user would ask for**, tasks that the same interaction **patterns** solve.

---

# OBJECTIVES
1. **Understand the capabilities**
   - Work out which functional capabilities the recorded calls actually demonstrate.

2. **Think like an experienced real user**
   - Picture practical, everyday problems for which a person would naturally use this call
     sequence (leaving out the exploration of documentation).
   - Prefer problems that need **several different API calls**, not a single one.
   - Phrase every request so that it is **clear, specific and verifiable**.

3. **Reduce each task to three elements**
   - **query**: the natural-language request a real user might make.
   - **confidence**: a number from ` + "`0.0`" + ` to ` + "`1.0`" + `: how sure you are that this is a real, common need.
   - **action_sequence**: the technical steps that directly accomplish the task.

---

# RULES
## 1. Start from the user's intent
- Begin with a **human goal**, not with an API restated in technical terms: capture **why**.

## 2. Leave out what the task does not need
- Do **not** include steps that only explore capabilities or debug calls.

## 3. Be specific and verifiable
- The query must be **precise enough** that anyone can tell success from failure.
- Give **concrete details**: numbers, dates, names, places, thresholds, lists of items.
- Avoid vague verbs such as "check", "review" or "ensure" unless a measurable criterion goes with them.

## 4. Be practical
- Use **relatable, everyday** situations.
- Do not propose tasks that only explore or test an API.

---

# OUTPUT FORMAT
Write exactly one block per task, in this format:

<task>
{
  "query": "[a natural, specific, verifiable user request]",
  "confidence": [0.0 - 1.0],
  "action_sequence": "[the technical steps that directly solve the task]"
}
</task>

---

# EXAMPLES
<task>
{
  "query": "Do I have at least $150 in my Venmo account for this weekend's grocery shopping?",
  "confidence": 1.0,
  "action_sequence": "# step0\nbalance = apis.venmo.get_balance()\nif balance >= 150:\n    print('Yes')\nelse:\n    print('No')"
}
</task>

<task>
{
  "query": "Find red women's heels under $100 that can be delivered by next Friday",
  "confidence": 1.0,
  "action_sequence": "# step0\n[click('https://www.taobao.com')]\n# step1\n[search('red women heels price<100 delivery:2025-08-22')]"
}
</task>

---

# CHECKLIST BEFORE YOU ANSWER
- **Clear goal**: what exactly does the user want to achieve?
- **Concrete details**: who, what, when, where, how much, how many?
- **Verifiable**: can success or failure be decided objectively?
- **Human phrasing**: does it sound like something a real person would say?
`

// SummaryInput is what one summarisation request is built from: one
// exploration episode of one seed task.
type SummaryInput struct {
	// Steps are the messages of the exploration episode as recorded
	// (agentevolver.Trajectory.Steps), the exploration prompt included.
	// SummaryMessages masks the seed query out of a copy; Steps is not
	// modified.
	Steps []agentevolver.Message
	// Reward is the episode's score, or nil when it was not scored.
	Reward *agentevolver.Reward
	// OldObjectives are the queries already accepted for the same seed
	// task (ObjectiveMemory.Queries), listed so that the summariser does
	// not repeat them; empty queries are left out.
	OldObjectives []string
	// Profile describes the environment; nil means the requirement is
	// NoPreferenceRequirement.
	Profile *agentevolver.EnvProfile
	// Rubrics are added to the profile's preferences (see
	// PreferenceInstruction); they are not used when Profile is nil, as in
	// the reference, where rubrics belong to the profile.
	Rubrics []string
}

// SummaryMessages returns the summarisation request of reference §4.4: a
// system message (SummarySystemPrompt) and a user message made of
// "Please analyze …", the record of the episode (FormatRecord of
// MaskSeedQuery(in.Steps)), "# Old Objectives" with the Python list
// representation of in.OldObjectives, "Please avoid repeating these
// objectives.", "# Task Requirements" with the profile's preference text
// and a closing instruction to write the tasks in the specified format.
//
// [BUG/QUIRK fixed] The reference means to mask the seed query before
// summarising but its assignments are lost (they write to a copy of the
// steps), so its summariser sees the seed query. Here the record is built
// from the masked copy, so it never contains the exploration prompt or the
// first assistant turn.
func SummaryMessages(in SummaryInput) []agentevolver.Message {
	queries := make([]string, 0, len(in.OldObjectives))
	for _, q := range in.OldObjectives {
		if q != "" {
			queries = append(queries, q)
		}
	}
	requirement := NoPreferenceRequirement
	if in.Profile != nil {
		requirement = PreferenceInstruction(*in.Profile, in.Rubrics)
	}
	var b strings.Builder
	b.WriteString("Please analyze the following agent interaction sequence and abstract specific tasks from it:\n\n")
	b.WriteString(FormatRecord(MaskSeedQuery(in.Steps), in.Reward))
	b.WriteString("\n\n# Old Objectives\nYou have already explored the following objectives:\n\n")
	b.WriteString(pyStrListRepr(queries))
	b.WriteString("\n\nPlease avoid repeating these objectives.\n\n# Task Requirements\n\n")
	b.WriteString(requirement)
	b.WriteString("\n\n# Now Start\n\nPlease identify the specific tasks the agent is attempting to complete in these " +
		"interactions, and abstract them into clear task descriptions and queries following the specified format.\n")
	return []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: SummarySystemPrompt},
		{Role: agentevolver.RoleUser, Content: b.String()},
	}
}

// MaskSeedQuery returns a copy of steps (steps itself is not modified) in
// which the content of every message up to and including the first
// assistant message is Masked; the other messages are shared values
// (their ToolCalls slices too).
//
// An exploration episode starts with the environment's initial messages,
// the exploration prompt (which quotes the seed task's query, see
// ExplorationSystemPrompt) and then the explorer's first turn, which often
// restates that query. The reference masks steps[1] (the prompt) and
// steps[2] (the first assistant turn) of its layout [system, prompt,
// assistant, ...]; this function masks those two entries in that layout
// and, whatever the layout (the prompt as the system message, several
// initial messages), every other message before the first assistant turn
// as well. Only (assistant, observation) pairs reach the record
// (FormatRecord), so the extra masking changes no record of the
// reference's layout; it only guarantees that the seed query cannot leak
// from a message placed differently. The first assistant turn's
// observation is the environment's answer and stays. Without an assistant
// message every message is masked.
func MaskSeedQuery(steps []agentevolver.Message) []agentevolver.Message {
	if steps == nil {
		return nil
	}
	out := append([]agentevolver.Message(nil), steps...)
	for i := range out {
		out[i].Content = Masked
		if out[i].Role == agentevolver.RoleAssistant {
			break
		}
	}
	return out
}

// FormatRecord renders one exploration episode in the reference's record
// format (reference §4.4):
//
//	## Record 0
//	### History
//	>>> STEP 0 <<<
//	<|ACTION|>
//	{assistant content}
//	<|END|>
//
//	<|OBSERVATION|>
//	{content of the next user or tool message}
//	<|END|>
//	... one such block per pair, numbered from 0 ...
//	### Reward: {outcome}
//	{description}
//
// A pair is an assistant message followed directly by a user or tool
// message; an assistant message followed by anything else, or by nothing,
// is left out, as are messages outside pairs. Only contents are shown (an
// assistant's structured ToolCalls are not, as in the reference). The
// reward part appears when reward is not nil; its outcome is written as
// Python writes a float ("1.0"). FormatRecord formats steps as given: mask
// the seed query first (MaskSeedQuery), as SummaryMessages does.
func FormatRecord(steps []agentevolver.Message, reward *agentevolver.Reward) string {
	var b strings.Builder
	b.WriteString("## Record 0\n### History\n")
	n := 0
	for i, m := range steps {
		if m.Role != agentevolver.RoleAssistant || i+1 >= len(steps) {
			continue
		}
		next := steps[i+1]
		if next.Role != agentevolver.RoleUser && next.Role != agentevolver.RoleTool {
			continue
		}
		b.WriteString(">>> STEP " + strconv.Itoa(n) + " <<<\n<|ACTION|>\n")
		b.WriteString(m.Content)
		b.WriteString("\n<|END|>\n\n<|OBSERVATION|>\n")
		b.WriteString(next.Content)
		b.WriteString("\n<|END|>\n")
		n++
	}
	if reward != nil {
		b.WriteString("### Reward: " + pyFloatRepr(reward.Outcome) + "\n" + reward.Description + "\n")
	}
	return b.String()
}
