package attribution

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/org/agentevolver"
)

// DefaultMaxStepChars is the default bound on each action and observation
// shown to the judge, in Unicode code points (the reference's
// max_step_chars).
const DefaultMaxStepChars = 2000

// StepEvalSystemPrompt is the system message of the step-evaluation prompt
// (reference §7.2, candidate_prompt.py sys_msg_1003), verbatim.
const StepEvalSystemPrompt = "" +
	"You are an expert *process reward evaluator*, specializing in **attributional analysis** of multi-step solution trajectories.\n" +
	"\n" +
	"**INPUT STRUCTURE:** The single message you receive always contains three labelled sections:\n" +
	"  1.  **TASK DESCRIPTION**   – The user's original request.\n" +
	"  2.  **SOLUTION TRAJECTORY** – A strictly numbered list of assistant steps. Each step describes an `ACTION` taken (and optionally an `OBSERVATION`).\n" +
	"  3.  **OVERALL REWARD SCORE** – A scalar value representing the environment's final judgment on task completion. **>0** indicates the task was **successfully completed**. **≤0** indicates the task **failed or was incomplete**.\n" +
	"\n" +
	"**YOUR TASK (STEP-LEVEL ATTRIBUTION):** Analyze how each step contributed to the final task outcome (success/failure).  \n" +
	"Judge **each step independently** based only on the provided ACTION/OBSERVATION and how later steps use (or fail to use) its results. The OVERALL score provides **context**, but must **not** determine labels by itself.\n" +
	"\n" +
	"**EVALUATION RULES:**\n" +
	"\n" +
	"*   **If OVERALL REWARD SCORE is POSITIVE (> +0.0) – SUCCESSFUL COMPLETION:**\n" +
	"    *   Mark a step as **GOOD** if it **directly advanced** the successful outcome or **enabled** later successful steps (e.g., establishing a needed state, retrieving information that is subsequently used, narrowing the solution path, or correctly finalizing).\n" +
	"    *   Mark a step as **BAD** if it was **irrelevant, redundant without new effect, later undone without net benefit, or counterproductive**.\n" +
	"\n" +
	"*   **If OVERALL REWARD SCORE is NON-POSITIVE (≤ +0.0) – TASK FAILURE:**\n" +
	"    *   Mark a step as **GOOD** **only if** it **genuinely reduced the distance to a correct solution** — for example, by establishing a necessary precondition later relied upon, correcting an earlier direction with observable improvement, validating or narrowing in a way later steps actually use, or preventing deterioration that would otherwise occur.\n" +
	"    *   Mark a step as **BAD** if it **failed to advance** the solution (no new effect, outputs unused downstream, or repetition with no added value), **obscured or impeded** progress, or **finalized** an incorrect result.\n" +
	"\n" +
	"**GUARDRAILS:**\n" +
	"* Do **not** label all steps the same unless every step independently meets the same criterion.\n" +
	"* **Unused or later-discarded outputs** generally indicate **BAD** unless the step’s value is still demonstrable elsewhere.\n" +
	"* **Finalization** that submits an incorrect or incomplete outcome must be **BAD**.\n" +
	"* Keep analyses **concise** and **text-bound** (no external assumptions).\n" +
	"\n" +
	"**FOCUS:** Judge based on **objective contribution to task completion**, not effort or intent.\n" +
	"\n" +
	"**OUTPUT FORMAT:** Reply IN THE REQUIRED OUTPUT FORMAT and output nothing else."

// StepEvalMessages builds the step-evaluation prompt of one episode
// (reference §7.2, build_batch_reward_evaluation_prompt): the system message
// StepEvalSystemPrompt and a user message with the task, the numbered steps
// and the overall score. score is the rescaled outcome (RescaleScore), shown
// with four decimals and called positive when above 0. Each action and
// non-empty observation longer than maxStepChars code points is cut to
// maxStepChars and marked with "\n…"; an empty observation is left out.
// maxStepChars <= 0 means DefaultMaxStepChars.
func StepEvalMessages(query string, steps []agentevolver.SampleStep, score float64, maxStepChars int) []agentevolver.Message {
	if maxStepChars <= 0 {
		maxStepChars = DefaultMaxStepChars
	}
	polarity := "negative"
	if score > 0 {
		polarity = "positive"
	}
	var b strings.Builder
	b.WriteString("### TASK DESCRIPTION\n")
	b.WriteString(query)
	b.WriteString("\n\n### SOLUTION TRAJECTORY  (total ")
	b.WriteString(strconv.Itoa(len(steps)))
	b.WriteString(" steps)")
	for i, st := range steps {
		b.WriteString("\n>>> EVAL-STEP ")
		b.WriteString(strconv.Itoa(i))
		b.WriteString(" <<<\n<|ACTION|>\n")
		b.WriteString(trimStep(st.Action, maxStepChars))
		b.WriteString("\n<|END|>")
		if st.Observation != "" {
			b.WriteString("\n<|OBSERVATION|>\n")
			b.WriteString(trimStep(st.Observation, maxStepChars))
			b.WriteString("\n<|END|>")
		}
	}
	b.WriteString("\n\n---\n**OVERALL PERFORMANCE SCORE ")
	b.WriteString(formatScore(score))
	b.WriteString(" (")
	b.WriteString(polarity)
	b.WriteString(")**\n")
	b.WriteString(stepEvalReminder)
	return []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: StepEvalSystemPrompt},
		{Role: agentevolver.RoleUser, Content: b.String()},
	}
}

// stepEvalReminder ends the user message of the step-evaluation prompt.
const stepEvalReminder = "Evaluation reminder:\n" +
	"• Positive SCORE → Did this step IMPROVE the answer?\n" +
	"• Negative SCORE → DIAGNOSIS + FIX + EVIDENCE (quoted). If evidence missing → BAD.\n" +
	"  (Continuing wrong plan / repeating same failure / finalising wrong result → BAD)\n" +
	"\n" +
	"REQUIRED OUTPUT FORMAT:\n" +
	"Step 0 Analysis: <your reasoning>\n" +
	"Step 0 Judgment: GOOD/BAD\n" +
	"\n" +
	"Step 1 Analysis: <your reasoning>\n" +
	"Step 1 Judgment: GOOD/BAD\n" +
	"\n" +
	"[…continue for all steps…]"

// trimStep cuts s to max code points plus "\n…" when it is longer, as the
// reference's _trim does (Python counts code points; an invalid UTF-8 byte
// counts as one).
func trimStep(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "\n…"
		}
		n++
	}
	return s
}

// formatScore formats like Python's f"{score:+.4f}": "+1.0000", "-0.0000"
// for a tiny negative, "+nan", "+inf", "-inf".
func formatScore(score float64) string {
	switch {
	case math.IsNaN(score):
		return "+nan"
	case math.IsInf(score, 1):
		return "+inf"
	case math.IsInf(score, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(score, 'f', 4, 64)
	if s[0] != '-' {
		s = "+" + s
	}
	return s
}
