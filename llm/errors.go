package llm

import "errors"

// ErrUnavailable reports that a model endpoint could not be reached or
// answered with a transient failure (connection refused or dropped, a
// timeout, HTTP 408/429/5xx, a server error in the body). Clients unwrap to
// it after their own retries are spent, so callers such as the trainer can
// tell an outage, worth waiting out, from a request that will never work.
var ErrUnavailable = errors.New("llm: model endpoint unavailable")

// ErrStaleModel reports a reply sampled by another model than the request
// named: a server that lost, or never loaded, the LoRA adapter of the
// current policy and answered with another. Nothing it sampled may pass
// for the policy. The fleet's StaleAdapterError matches it, so callers
// that do not import the fleet (the episode runner) can tell it from a
// policy that could not answer.
var ErrStaleModel = errors.New("llm: the reply came from another model than the one asked for")
