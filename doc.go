// Package agentevolver is the shared vocabulary of the AgentEvolver Go SDK: the
// messages an agent and an environment exchange, the tasks it trains on, the
// trajectories it produces, the rewards they earn and the token-level samples
// the trainer learns from.
//
// The JSON field names match the Python AgentEvolver (task manager, env
// service and agent flow), so task files, trajectories and env-service
// payloads can be exchanged with it unchanged.
//
// The packages of the SDK build on this one, from the ground up:
//
//   - tokenizer: byte-level and Hugging Face BPE tokenizers, chat templates
//   - llm: the ChatModel interface and an OpenAI-compatible client
//   - envclient: the Env contract and the HTTP client of the env-service protocol
//   - envservice: an HTTP server that exposes Go environments over that protocol
//   - envs/toolworld: a deterministic multi-app tool-use environment
//   - contextmgr, agentflow, experience, taskgen, attribution: the agent side
//   - model, trainer: the GoMLX policy and the reinforcement-learning loop
package agentevolver
