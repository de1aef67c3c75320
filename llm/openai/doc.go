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
//   - Retries of transient failures (408, 409, 429 and 5xx, whether sent as
//     the HTTP status or as an error object in a 200 body or stream; attempt
//     and network timeouts; refused and dropped connections; streams cut
//     short) with exponential backoff, equal jitter and the server's
//     Retry-After / retry-after-ms hints, honouring the caller's context
//     while waiting. The SDK's own retries are off: they cannot be made fast
//     for tests and do not know refusals from failures.
//   - Time bounds: Config.RequestTimeout per attempt (default 3 minutes) and
//     Config.CallTimeout for the whole call, retries and waits included
//     (default 5 minutes). Chat gives up as soon as the next wait would pass
//     the call timeout.
//   - Typed errors, one kind per failure:
//     an *UnavailableError (llm.ErrUnavailable) when the endpoint kept
//     failing transiently until the retries were spent or the call timeout
//     passed (then also context.DeadlineExceeded and ErrTimeout), with the
//     number of attempts and the last error inside;
//     a *TransportError (ErrTransport; ErrConnectionRefused for a refused
//     connection) for failures below HTTP;
//     an *APIError for server errors, parsed from the error shapes of
//     OpenAI, vLLM, DashScope and ollama alike, typed by the status they
//     carry also when sent in a 200 body or stream (InBody), matching
//     ErrRateLimited, ErrContentFiltered, ErrContextLength and ErrTimeout
//     under errors.Is;
//     ErrResponseTooLarge for a body over Config.MaxResponseBytes or a
//     stream line over 32 MiB, and ErrMalformedResponse, both final.
//     A completion stopped by moderation (finish_reason "content_filter") or
//     declined by the model (message.refusal) is a *RefusalError. Refusals
//     and context-length errors are never retried: the same request would
//     fail the same way. The caller's own cancellation or deadline is
//     reported as the context's error, never as ErrUnavailable.
//   - A bound on requests in flight (Config.MaxConcurrency) and a bound on
//     response sizes (Config.MaxResponseBytes).
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
// Client.Embed sends an /embeddings request through the same stack:
// concurrency bound, timeouts, retries, size bound and typed errors are
// Chat's, and the untrusted vectors are checked (count, indexes,
// dimension, finite values). experience.OpenAIEmbedder is built on it.
//
// Only the first choice of a response is used. Vendor extras in a response,
// such as DashScope's and vLLM's reasoning_content, are not part of the
// Completion: like the reference implementation, only the answer text is
// kept.
package openai
