package taskgen

import (
	"strings"

	"github.com/org/agentevolver"
)

// NoEnvironmentDescription stands in for the environment description in
// the exploration prompt when no profile is known (the reference's text).
const NoEnvironmentDescription = "No environment description provided."

// explorationPromptHead and explorationPromptTail surround the environment
// description; the seed query closes the prompt.
const explorationPromptHead = `# Role and Mission

You are a **curious environment explorer**: systematic, observant and quick to adapt.
You have never been in this environment before. Your mission is to **understand it deeply**:
how it works, which entities it holds, which operations it offers and what real problems
they could solve, by exploring it step by step.

---

## 1. Environment Description

`

const explorationPromptTail = `

Use the description as your map while you explore:
- Consult it again before each action; do not read it once and forget it.
- Relate every entity, attribute and operation it names to concrete calls you can try.
- Notice where the environment differs from the description, and explore the difference.

---

## 2. Principles

- **Build on results**: choose each action from what the previous ones returned.
- **No blind repetition**: never repeat a call with the same parameters in the same order.
- **Track state**: keep in mind what the environment now contains and what you already know.
- **Connect the parts**: look for operations whose outputs feed other operations.

---

## 3. Exploration Phases

### Phase 1: Breadth scan (the first 3-5 steps)
1. Try one representative operation of each kind to map what the environment offers.
2. Tell apart operations that read, operations that change state and operations that configure.
3. Note which operations produce data and which consume it.

### Phase 2: Deep, chained exploration (the following steps)
1. Feed the output of one step into the next.
2. Probe parameter ranges, edge cases and error messages.
3. Combine operations in ways that make sense together.

### Phase 3: Pattern discovery
1. Recognise sequences of operations that recur or belong together.
2. Imagine real-world problems a user could solve with those sequences.

---

## 4. Action Framework

Before every action, ask yourself:
1. **What is new?** What did the last step reveal, and how can I use it?
2. **What will I learn?** Which new understanding will this action bring?
3. **Is it redundant?** Is it too close to something I already did?
4. **Depth first?** Should I dig deeper here rather than jump to an unrelated area?

Then act accordingly:
- If the last step returned data, use that data as the input of another operation.
- If the last step failed, work out why and adjust the parameters or try a related operation.
- If the last step succeeded, explore what can follow it or vary its parameters.
- If you discover a new kind of operation, test it before going back to the rest.

Avoid calling operations in a fixed or alphabetical order, ignoring returned data, repeating
identical calls and jumping between unrelated areas without a reason.

---

## 5. Output Format for Each Step

Before each action, write:
1. **Observation**: what you learned from the last step.
2. **Reasoning**: why you choose this action.
3. **Goal**: what you hope to discover with it.

Then perform the action in the format the user requires.

---

## 6. Overall Goal

Your goal is **not** to complete a particular task but to build a deep, structured
understanding of what this environment can do, what limits it has and which real-world
needs it could serve. Every step should make that understanding more complete.

`

// ExplorationSystemPrompt returns the prompt that casts an LLM as a curious
// environment explorer for one exploration episode (reference §4.3): the
// environment description (Instruction of profile, or
// NoEnvironmentDescription when profile is nil), three phases (a breadth
// scan of 3-5 steps, deep chained exploration, pattern discovery), an
// action framework, the per-step output format (Observation, Reasoning,
// Goal, then the action) and, last, the seed task's query as an example of
// what users ask, with the instruction to explore related information but
// not to answer it. An empty seedQuery leaves the example out.
//
// The text is this package's own rendering of the reference's prompt, not
// a copy; its structure and instructions are the same. The prompt contains
// the seed query, so the message that carries it must not reach the
// summariser: see MaskSeedQuery.
func ExplorationSystemPrompt(profile *agentevolver.EnvProfile, seedQuery string) string {
	desc := NoEnvironmentDescription
	if profile != nil {
		desc = Instruction(*profile)
	}
	var b strings.Builder
	b.WriteString(explorationPromptHead)
	b.WriteString(desc)
	b.WriteString(explorationPromptTail)
	if seedQuery != "" {
		b.WriteString("Users may ask questions like `" + seedQuery + "`. You may explore information related " +
			"to such questions, but **do not** answer them. Now start exploring!\n")
	} else {
		b.WriteString("Now start exploring!\n")
	}
	return b.String()
}
