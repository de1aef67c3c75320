// Package pretrain makes the base policy that reinforcement learning
// starts from: a small Qwen2-family transformer trained from scratch, by
// imitation, on a broad generated corpus of toolworld episodes, so that it
// already does what an instruct model does for an agent: it follows the
// tool-call format, reads the tools its prompt lists and uses worked
// examples in its context.
//
// The corpus is drawn from many varied toolworld worlds
// (toolworld.Config.Worlds): each world names its apps, APIs and
// arguments in its own way, describes them in its own words and lists them
// in its own order, and has its own people, files and texts, so a policy
// solves a task only by reading its prompt. Episodes are the expert's
// solutions of generated tasks at every level and of hindsight tasks (the
// goal a random walk reached), replayed through the trainer's own episode
// loop, context manager and experience injector, so that a sample holds
// exactly the tokens a policy reads and writes in training. A share of the
// prompts carries worked examples in the experience template, some of the
// same task family and some unrelated, so that the policy learns to use
// what helps and to ignore what does not.
//
// Run trains (resumably), exports the policy as a Hugging Face directory
// and measures it on worlds drawn with another seed, greedy, per level,
// with no example, with a relevant one and with an unrelated one; the
// figures and the recipe go into the directory's card (card.json and
// README.md). Check replays a small recorded measurement exactly, so that
// a shipped policy and the code that runs it cannot drift apart.
package pretrain
