// Package cues is CuES, curiosity-driven and environment-grounded task
// synthesis (Mai et al., arXiv 2512.01311; the reference's
// research/CuES, which calls itself "AgentFlow"): a pipeline beside the
// trainer that explores an environment with a curious model, abstracts
// the tasks its exploration demonstrates, keeps those a model can
// re-execute, and exports them as the task files train reads.
//
// It runs over any environment of the env-service protocol (an
// envclient.Client for a remote service, an envservice.Manager for the
// built-in environments in process) and any llm.ChatModel (an
// OpenAI-compatible endpoint through llm/openai, or the in-process
// policy). A [Pipeline] runs the stages in order, each on what the one
// before stored in its [Store]:
//
//  1. Requirement confirmation ([Pipeline.Confirm]): the user's
//     requirement becomes an exploration directive, and the optional
//     concept pool lists the nouns of the environment's own tasks.
//  2. Stage 1, curious exploration ([Pipeline.Explore]): rollouts with
//     the explorer prompt ([ExplorerSystemPrompt], [ExplorerUserPrompt]),
//     each seeing the environment task's exploration memory (a summary of
//     its latest triplets, [FallbackMemory] when the model answers
//     nothing); every (history, action, observation) [Triplet] is stored
//     as it happens.
//  3. Stage 2, task abstraction ([Pipeline.Abstract]): batches of
//     triplets per environment task become tasks ([ParseTasks] reads the
//     <task> blocks, keeping the indentation of action sequences); tasks
//     below the confidence threshold, near-duplicate queries and tasks
//     without an action sequence are dropped. An environment that relabels
//     episodes in hindsight (envservice.TaskSynthesizer) can stand in for
//     the model ([AbstractHindsight]).
//  4. Stage 3, quality control ([Pipeline.Verify]): an actor re-executes
//     each task with its ground truth as tips; an LLM judge
//     ([JudgePrompt], [ParseJudge]) and, where the environment can check
//     the task itself, an environment check (hindsight or replay, see
//     [CheckHindsight] and [CheckReplay]) decide; their disagreements
//     are counted.
//  5. The query rewrite ([Pipeline.RewriteQueries], [ParseRewrites]) and
//     the export ([Pipeline.Export], [Objective]) to tasks.jsonl and
//     tasks.parquet with each task's provenance.
//
// Everything is resumable: a stage skips the work its files show as done
// (finished rollouts, batches and tasks), files are written atomically or
// appended line by line, and statistics are computed from the files
// ([Pipeline.Statistics]). `agentevolver cues` is the command line;
// docs/cues.md lists the differences from the reference, each marked
// [BUG/QUIRK] where the reference's own behaviour is defective.
package cues
