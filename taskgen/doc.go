// Package taskgen is self-questioning: the agent writes its own training
// tasks by exploring an environment, in the manner of AgentEvolver's task
// manager (reference §4).
//
// Self-questioning runs in four stages, and this package holds the
// deterministic pieces of each:
//
//  1. Describe the environment. An [agentevolver.EnvProfile] says who the
//     user is, which entities exist, what can be done with them and what
//     kind of task to prefer. [ParseProfile] decodes and checks the
//     reference's profile JSON; [Instruction] renders the profile as the
//     markdown the prompts embed, [PreferenceInstruction] only its task
//     preferences and rubrics.
//  2. Explore. An external LLM, given [ExplorationSystemPrompt], walks the
//     environment for a seed task as a curious explorer: a breadth scan,
//     chained deep exploration, pattern discovery. The episode itself runs
//     through the usual agent flow; this package only writes the prompt.
//  3. Summarise. [SummaryMessages] asks a "task discovery" LLM to turn the
//     exploration record ([FormatRecord]) into realistic, verifiable user
//     tasks, listing the objectives already accepted for the same seed task
//     ([ObjectiveMemory]) so that it does not repeat them. The seed task's
//     own query is masked out of the record first ([MaskSeedQuery]).
//     [ParseTaskBlocks] reads the answer's <task>{...}</task> blocks into
//     independent [agentevolver.TaskObjective]s whose ground truth is the
//     summariser's action sequence.
//  4. Filter and mix. [FilterRealtime] keeps the most confident objective
//     of every group of near-duplicate queries ([NearDuplicate]) and drops
//     those without a ground truth; a [Checkpoint] lets a long generation
//     resume where it stopped; a [MixtureStrategy] ([UnifiedMixtureStrategy],
//     [OriginalOnlyStrategy]) finally mixes synthetic and original tasks
//     into what the trainer consumes.
//
// Graders for synthetic tasks live in the sub-package taskgen/grader.
//
// Where the reference has a bug (the query masking that does nothing, the
// objectives of one answer that all alias one task), this package does what
// the reference meant and says so in the doc comment of the function
// concerned. Everything here is safe for concurrent use unless its doc says
// otherwise; only [ObjectiveMemory] holds state.
package taskgen
