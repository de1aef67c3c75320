// Package retry is the waiting half of retrying, shared by the clients
// that retry (envclient, llm/openai, agentflow, llm/fleet, attribution):
//
//   - Sleep waits for a duration or until a context ends.
//   - Backoff computes exponential waits, capped, with "equal jitter".
//   - ParseRetryAfter and ParseRetryAfterMs read a server's hint of how
//     long to wait, bounded by MaxRetryAfter.
//
// It holds no policy: which failures are retried, how often, and how a
// server's hint combines with the backoff (a floor, a replacement, a cap)
// stay with each caller, which documents them. Everything here is a pure
// function of its arguments except Sleep, and Delay when it is given no
// random source, so that tests can pin every wait.
package retry
