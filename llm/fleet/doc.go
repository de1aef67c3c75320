// Package fleet samples from a fleet of OpenAI-compatible servers (vLLM)
// that serve one base model and load LoRA adapters at run time, as the
// trainer's remote rollout engine needs.
//
// A [Fleet] is an llm.ChatModel. Each Chat request goes to one server of
// the rotation, chosen by the fewest requests in flight
// ([LeastOutstanding], the default) or in turn ([RoundRobin]), and names
// the adapter last published as its model. It always asks for the sampled
// tokens' ids and log-probabilities (vLLM's return_tokens_as_token_ids),
// and a reply without them, with an id outside the vocabulary or with a
// malformed or oversized body is an error, never a completion with
// guessed tokens.
//
// A server that fails (a refused or dropped connection, a timeout, a 5xx
// or 429 status, a 404 for the adapter, a malformed reply) leaves the
// rotation and the request is tried on another; with none left, Chat
// returns an error that matches llm.ErrUnavailable. A server out of the
// rotation is health-checked (GET /models) with exponential backoff, from
// within the next request or Publish that finds its wait over; it rejoins
// once it answers and holds the current adapter (loaded then if it does
// not).
//
// A reply whose model field is not the adapter the request named (a server
// that lost or never loaded it and answers with another) is a
// [*StaleAdapterError] (ErrStaleAdapter): nothing sampled by another
// adapter may pass for the current policy. The server leaves the rotation
// too.
//
// [Fleet.Publish] loads a new adapter into every server in the rotation
// (vLLM's runtime LoRA API: POST /load_lora_adapter with lora_name and
// lora_path, which needs VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and
// --enable-lora), makes it the model of the following requests and
// unloads the previous one (POST /unload_lora_adapter). The path must be
// readable by the servers (a shared file system). Publish must not run
// while requests that should see the previous adapter are in flight. With
// Config.OwnedPrefix, the adapters of that prefix that an earlier process
// left on a server (it crashed before unloading them) are unloaded when
// the fleet first reaches the server; the trainer uses the run's name.
//
// A [Publisher] keeps a fleet on the version of the weights being trained:
// before the first request of each version it exports the adapter,
// publishes it under a name unique to the process and attempt, and prunes
// older exports. It is the trainer's remote rollout engine.
//
// Base URLs are API roots as vLLM prints them ("http://host:8000/v1");
// every endpoint above is relative to them.
package fleet
