// Package openai is an llm.ChatModel for any OpenAI-compatible
// chat-completions endpoint (vLLM, DashScope, ollama, OpenAI, Azure), built
// on github.com/openai/openai-go/v3.
//
// A Client adds to the SDK what training rollouts need from a shared,
// sometimes overloaded server:
//
//   - Token ids and log-probabilities. ChatOptions.LogProbs asks for
//     logprobs=true, top_logprobs=0; Completion.LogProbs is then filled. With
//     vLLM and ExtraBody {"return_tokens_as_token_ids": true} each token comes
//     back as "token_id:<id>" and Completion.TokenIDs holds the exact ids the
//     policy sampled, so the trainer need not re-tokenise.
//   - Retries of transient failures (408, 409, 429, 5xx, attempt timeouts,
//     dropped connections, streams cut short) with exponential backoff, equal
//     jitter and the server's Retry-After / retry-after-ms hints, honouring
//     the caller's context while waiting. The SDK's own retries are off: they
//     cannot be made fast for tests and do not know refusals from failures.
//   - Typed errors. Server errors are *APIError values, parsed from the error
//     shapes of OpenAI, vLLM, DashScope and ollama alike. They match the
//     sentinels ErrRateLimited, ErrContentFiltered, ErrContextLength and
//     ErrTimeout under errors.Is. A completion stopped by moderation
//     (finish_reason "content_filter") or declined by the model
//     (message.refusal) is a *RefusalError. Refusals and context-length
//     errors are never retried: the same request would fail the same way.
//   - A bound on requests in flight (Config.MaxConcurrency), a per-attempt
//     timeout (Config.RequestTimeout) and a bound on response sizes
//     (Config.MaxResponseBytes).
//   - Streaming (Config.Stream): content, tool calls, refusals, log-probs and
//     usage are assembled from server-sent chunks, and the caller still gets
//     one Completion.
//
// Sampling options map to the request as follows: Temperature nil is left to
// the server and 0 is sent (greedy); TopP, MaxTokens, Stop and Seed are sent
// when set; MaxTokens goes out as max_tokens, or max_completion_tokens with
// Config.UseMaxCompletionTokens; TopK, not an OpenAI field, goes out as the
// vendor field top_k that vLLM and DashScope read.
//
// Only the first choice of a response is used. Vendor extras in a response,
// such as DashScope's and vLLM's reasoning_content, are not part of the
// Completion: like the reference implementation, only the answer text is
// kept.
package openai
