package grader

import (
	"fmt"
	"strings"
)

// NoReferenceSolution fills the reference-solution slot of a judge that has
// none: the banded judges without reference (llm-binary and
// llm-binary-no_constraint) always, and llm-gt when the task has no ground
// truth, as in the reference.
const NoReferenceSolution = "[No solution provided, please judge the task by yourself]"

// dialogueHeader opens the trajectory message of the two-message judges.
const dialogueHeader = "The following is the dialogue trace of the task execution:\n\n"

// bandedPrompt is the banded judge's instruction (reference §4.8,
// binary_judge_gt.py), written after the reference's structure: role and
// inputs, ground rules, a four-step procedure (relevance gate, repetition
// gate, goal achievement against the reference, deductions), the bands and
// the output format. The task, the reference solution and the trajectory
// follow it.
const bandedPrompt = `### Role
You are an expert evaluator of AI agents. Judge how well an agent performed, using three inputs:

1) **User Task**: what the agent was supposed to accomplish.
2) **Reference Solution**: a correct approach and outcome to compare against (other valid solutions may exist).
3) **Agent Trajectory**: the steps the agent took, in order: its actions, decisions and the observations it received.

### Ground Rules
- Judge only what the trajectory shows. Do **not** invent missing steps or assume results that are not in it.
- Use the Reference Solution as an oracle for checking correctness and efficiency, while accepting alternative methods that are also correct.
- When you point out an issue, cite the concrete step or observation.
- Be deterministic: follow the procedure and the scoring constraints below exactly.
- "Runaway repetition" means that the agent repeats essentially the same step or loop 3 or more times without new information or progress.

---

## Evaluation Procedure

**Step 1: Relevance Gate (0 or continue)**
- Decide whether the trajectory's steps are **materially related** to the User Task.
- If the approach is wholly unrelated to the task, the **score is 0**: stop here.
- Otherwise, continue.

**Step 2: Repetition Gate**
- Look for runaway repetition of identical or nearly identical steps.
  - If there is such repetition and the steps are otherwise relevant, the **final score must be at most 20**.
  - If there is such repetition and the steps are irrelevant, the **score is 0**.
- If there is no runaway repetition, continue.

**Step 3: Goal Achievement (the critical binary check)**
- Examine **all** steps and the final result, and decide whether the task was actually completed **correctly**.
- **Compare** both the final answer **and** the solution path with the Reference Solution to check correctness. The Reference Solution is not the only correct one: an equivalent solution must also be judged correct.
- Do not be swayed by confident language; verify the substance.
- Check critical details, for example: some APIs are paginated, as their documentation says, and the agent must call them repeatedly to read all of the data.

**Step 4: Further Deductions (within the range chosen above)**
- **Execution errors:** deduct for crashes, runtime errors, failed tool calls or obvious bugs.
- **Efficiency and conciseness compared with the reference:** deduct when the trajectory is substantially more roundabout, redundant or cluttered than the Reference Solution, even when it is correct; unnecessary or irrelevant steps count here. Steps taken only to read API documentation are acceptable.

---

## Scoring Bands (choose a band, then adjust within it)
**If the goal was achieved (the score must be 60-100):**
- **90-100:** exceptional: clean, efficient, as good as or better than the reference; no significant issues.
- **80-89:** strong: correct, with minor inefficiencies or small issues compared with the reference.
- **70-79:** good: correct, but notably less efficient or with several unnecessary steps.
- **60-69:** adequate: correct, but with significant problems of efficiency, clarity or execution.

**If the goal was not achieved (the score must be 0-40):**
- **30-40:** poor: incorrect, but generally relevant, with partial progress along the reference path.
- **10-29:** very poor: incorrect, with major execution issues and only weak alignment with a correct path.
- **1-9:** minimal relevant attempt: incorrect, with severe problems, but faintly relevant.
- **0:** complete failure: an irrelevant approach, or runaway repetition of irrelevant steps.

Scores from 41 to 59 are forbidden. If runaway repetition of otherwise relevant steps was found in Step 2, the **highest** possible score is **20** (within the 0-40 band).

---

## Output Format
First give a **detailed reasoning analysis** that cites specific steps and observations and compares them with the Reference Solution (efficiency and any errors included).
Then give a single integer score (either **0-40** or **60-100**, never 41-59) wrapped in reward tags, for example:

<reward>75</reward>

---

** User Task **
`

// meanConstraintFormat is appended to the banded prompt by the
// mean-constraint variants: the fast and the slow running mean of the
// judge's scores, in [0, 1] as in the reference (whose judge scores from 0
// to 100).
const meanConstraintFormat = `
Recently, the average of the scores you gave to samples was %.4f.
Keep the average score around %.4f (+-0.2), or you will be penalized.
`

// bandedMessage builds the banded judge's single user message.
func bandedMessage(task, reference, trajectory string, constraint bool, fast, slow float64) string {
	var b strings.Builder
	b.WriteString(bandedPrompt)
	b.WriteString(task)
	b.WriteString("\n\n** Reference Solution **\n")
	b.WriteString(reference)
	b.WriteString("\n\n** Agent Trajectory (STEP-ACTION-OBSERVATION) **\n")
	b.WriteString(trajectory)
	b.WriteString("\n\n---\n")
	if constraint {
		fmt.Fprintf(&b, meanConstraintFormat, fast, slow)
	}
	return b.String()
}

// rubricLLM is the second message of the llm judge (reference reward.py):
// relevance check, repetition penalty, goal achievement, the mandatory
// bands, deductions, and the output format.
const rubricLLM = `Based on the conversation trajectory above, evaluate how well the task was completed, using the framework below.

Address the following dimensions in order:

**Step 1: Relevance Check (0 or continue)**
- Are the solution steps relevant to the problem? If the approach is completely unrelated to what the task requires, assign 0 points at once.
- If they are relevant, continue with the other dimensions.

**Step 2: Repetition Penalty Check**
- Does the agent get stuck in an endless loop or repeat identical steps over and over?
- If it repeats the same steps endlessly, consider whether those steps are relevant:
  - relevant steps: at most 20 points;
  - irrelevant steps: 0 points.

**Step 3: Goal Achievement (the critical binary check)**
- Examine ALL steps to decide whether the task's goal was really achieved.
- Do not be misled by confident wording: verify that the work was actually done.
- Check whether there is a correct final answer, or whether the stated objective was genuinely accomplished.

**MANDATORY SCORING CONSTRAINTS:**
- Relevant steps AND the goal achieved (the answer correct): the score MUST be 60-100.
- Relevant steps BUT the goal not achieved (the answer incorrect): the score MUST be 0-40.
- FORBIDDEN: scores from 41 to 59.

**Step 4: Further Deductions (within the constraints above)**
- **Code execution errors**: deduct for runtime errors, bugs or failed executions.
- **Unnecessary or irrelevant steps**: deduct for redundant or off-topic actions.

**Scoring Guidelines:**
- 90-100: exceptional: goal achieved with efficient, clean execution.
- 80-89: strong: goal achieved with minor inefficiencies or small errors.
- 70-79: good: goal achieved with some unnecessary steps or code issues.
- 60-69: adequate: goal achieved but with notable problems.
- 30-40: poor: goal not achieved, but a relevant approach with some progress.
- 10-29: very poor: goal not achieved, with major execution issues.
- 1-9: minimal relevant attempt: goal not achieved, with severe problems.
- 0: complete failure: an irrelevant approach, or endless repetition of irrelevant steps.

**REMEMBER**:
- No score from 41 to 59 is allowed.
- Achieving the goal decides between 60 or more and 0-40.
- Endless repetition caps the score at 20 (relevant steps) or 0 (irrelevant steps).

First give your detailed reasoning for each dimension, then an integer score from 0-40 or 60-100 inside <reward></reward> tags, e.g. <reward>75</reward>
`

// rubricGTHead and rubricGTTail surround the reference solution in the
// second message of the llm-gt judge (reference judge_with_gt.py): the
// llm rubric with the reference solution to compare against.
const rubricGTHead = `Based on the conversation trajectory above and the **Reference Solution** below, evaluate how well the task was completed, using the framework below.

---
To help you judge, here is a reference solution. It shows a correct approach and outcome, but it may not be the *only* correct way to solve the task: a different but equally valid solution by the agent is also a success.

`

const rubricGTTail = `
---

Address the following dimensions in order:

**Step 1: Relevance Check (0 or continue)**
- Are the solution steps relevant to the problem? If the approach is completely unrelated to what the task requires, assign 0 points at once.
- If they are relevant, continue with the other dimensions.

**Step 2: Repetition Penalty Check**
- Does the agent get stuck in an endless loop or repeat identical steps over and over?
- If it repeats the same steps endlessly, consider whether those steps are relevant:
  - relevant steps: at most 20 points;
  - irrelevant steps: 0 points.

**Step 3: Goal Achievement (the critical binary check)**
- Examine ALL steps to decide whether the task's goal was really achieved.
- **Compare the agent's final result and solution path with the Reference Solution to judge correctness.**
- Do not be misled by confident wording: verify that the work was actually done.
- If the agent's solution differs from the reference but is also correct and reaches the same goal, the goal MUST be counted as achieved.

**MANDATORY SCORING CONSTRAINTS:**
- Relevant steps AND the goal achieved (the answer correct): the score MUST be 60-100.
- Relevant steps BUT the goal not achieved (the answer incorrect): the score MUST be 0-40.
- FORBIDDEN: scores from 41 to 59.

**Step 4: Further Deductions (within the constraints above)**
- **Code execution errors**: deduct for runtime errors, bugs or failed executions.
- **Efficiency and conciseness**: compare the agent's steps with the Reference Solution. If the agent's approach is much more cumbersome, redundant or roundabout than the reference, deduct accordingly, even when the final answer is correct. Unnecessary or irrelevant steps count here.

**Scoring Guidelines:**
- 90-100: exceptional: goal achieved with efficient, clean execution, as good as or better than the reference solution.
- 80-89: strong: goal achieved with minor inefficiencies or small errors compared with the reference.
- 70-79: good: goal achieved, but notably less efficiently or with more unnecessary steps than the reference.
- 60-69: adequate: goal achieved but with significant problems of efficiency, clarity or execution.
- 30-40: poor: goal not achieved, but a relevant approach with some progress along the path of the reference.
- 10-29: very poor: goal not achieved, with major execution issues or a path that barely resembles a correct solution.
- 1-9: minimal relevant attempt: goal not achieved, with severe problems.
- 0: complete failure: an irrelevant approach, or endless repetition of irrelevant steps.

**REMEMBER**:
- No score from 41 to 59 is allowed.
- Achieving the goal decides between 60 or more and 0-40.
- The Reference Solution guides correctness and efficiency; it is not a rigid script.

First give your detailed reasoning for each dimension, then an integer score from 0-40 or 60-100 inside ` + "`<reward></reward>`" + ` tags, e.g. ` + "`<reward>75</reward>`" + `
`

// rubricGT returns the llm-gt judge's rubric with reference in its slot.
func rubricGT(reference string) string {
	return rubricGTHead + reference + "\n" + rubricGTTail
}
