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
//  2. Explore. An [Explorer] walks the environment for a seed task through
//     the usual agent flow: [LLMExplorer] drives any llm.ChatModel with
//     [ExplorationSystemPrompt] as a curious explorer (a breadth scan,
//     chained deep exploration, pattern discovery), [RandomWalkExplorer]
//     takes the environment's own random valid actions and needs no LLM.
//  3. Summarise. [SummaryMessages] asks a "task discovery" LLM to turn the
//     exploration record ([FormatRecord]) into realistic, verifiable user
//     tasks, listing the objectives already accepted for the same seed task
//     ([ObjectiveMemory]) so that it does not repeat them. The seed task's
//     own query is masked out of the record first ([MaskSeedQuery]).
//     [ParseTaskBlocks] reads the answer's <task>{...}</task> blocks into
//     independent [agentevolver.TaskObjective]s whose ground truth is the
//     summariser's action sequence.
//     Without an LLM, [HindsightSummarizer] asks the environment
//     (envservice.TaskSynthesizer) for a task whose goal is what the
//     exploration achieved, verified by the environment itself.
//  4. Filter and mix. [FilterRealtime] keeps the most confident objective
//     of every group of near-duplicate queries ([NearDuplicate]) and drops
//     those without a ground truth; a [Checkpoint] lets a long generation
//     resume where it stopped; a [MixtureStrategy] ([UnifiedMixtureStrategy],
//     [OriginalOnlyStrategy]) finally mixes synthetic and original tasks
//     into what the trainer consumes.
//
// [Generator] runs stages 2-4 over seed tasks × N with bounded
// concurrency, the realtime filter after every batch, a checkpoint that
// resumes an interrupted run, and a [PostFilter] ([LLMPostFilter] solves
// and validates each task with an LLM, [EnvPostFilter] replays its ground
// truth in the environment); `agentevolver gen-tasks` is its command line.
// [ReadTaskFile] and [WriteTaskFile] keep tasks as JSON lines or Parquet.
//
// Graders for synthetic tasks live in the sub-package taskgen/grader.
//
// Where the reference has a bug (the query masking that does nothing, the
// objectives of one answer that all alias one task), this package does what
// the reference meant and says so in the doc comment of the function
// concerned. Everything here is safe for concurrent use unless its doc says
// otherwise; only [ObjectiveMemory] holds state.
package taskgen
