// Package llm defines how the SDK talks to a chat language model.
//
// A ChatModel takes a conversation (agentevolver.Message values) and sampling
// settings (ChatOptions) and returns a Completion: the assistant message and,
// when the model can report them, the generated token ids and their
// log-probabilities. Rollouts, judges and task synthesis depend only on this
// interface, so the in-process policy (package model) and a remote
// OpenAI-compatible server (package llm/openai) are interchangeable.
//
// ChatModelFunc adapts an ordinary function to the interface, which is handy
// for scripted models in tests and examples.
package llm
