// Package contextmgr records what an agent and its environment say to each
// other during an episode and turns it into training samples.
//
// A ContextManager sits between the policy and the environment (reference
// §3). The agent flow gives it the environment's initial messages, asks it
// for the next prompt, hands it the policy's completion and the
// environment's observation, and at the end asks it for token-level
// agentevolver.Samples: token ids, attention and loss masks, position ids
// and, where the policy reported them, sampling log-probabilities. Only the
// policy's own tokens carry loss; environment observations, initial messages
// and chat-template headers do not.
//
// Five strategies are provided:
//
//   - Linear: the whole conversation is the prompt of the next turn and one
//     Sample covers the episode (the reference's default "linear" template).
//   - LinearThink: earlier <think> blocks are stripped from the history, a
//     think hint is added to the latest observation, and every policy turn
//     becomes its own Sample ("linear_think").
//   - SelfContextClip: LinearThink with numbered messages; once the context
//     grows past a threshold an auxiliary model decides which messages to
//     keep, remove or compress ("context_selfclip").
//   - Memory: the policy keeps a running memory of its steps in four
//     markdown sections; prompts carry the memory instead of the full history.
//   - PerCall: the environment builds every prompt (its step state, taken
//     whole through StateRecorder) and every model call becomes its own
//     Sample ("per_call", the reference's AgentscopeCMT for the arena's
//     games).
//
// When the policy reports the ids of the tokens it sampled
// (llm.Completion.TokenIDs), the manager splices exactly those ids into the
// rendered chat template, so the trainer never re-tokenises the policy's own
// output; it falls back to tokenising the rendered text when ids are absent.
// A token the policy did not sample carries no loss: the end-of-turn token
// the template appends to a reply cut at the length limit (finish reason
// "length") is kept, since later prompts render it, but masked
// (ExtendedMessage.Unclosed). Each turn holds what the policy's later
// prompts show of it, so the trainer's recomputed log-probs of the sampled
// tokens equal the sampling ones.
//
// The package also holds the pieces of the reference that work on a single
// message or token sequence: loss masks (ExtendedMessage.LossMask),
// environment-output clipping (ClipEnvContent), the token splice
// (ReplaceTokenIDs), step segmentation of a response into step ids
// (ParseResponseSteps), the repetition ("madness") check
// (RepetitionPenalty), and experience stripping (ExperienceStripper,
// TemplateStripper).
//
// Where the reference marks a quirk, the intended behaviour is built and the
// doc comment of the affected name says so.
package contextmgr
