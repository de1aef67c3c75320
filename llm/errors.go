package llm

import "errors"

// ErrUnavailable reports that a model endpoint could not be reached or
// answered with a transient failure (connection refused or dropped, a
// timeout, HTTP 408/429/5xx, a server error in the body). Clients unwrap to
// it after their own retries are spent, so callers such as the trainer can
// tell an outage, worth waiting out, from a request that will never work.
var ErrUnavailable = errors.New("llm: model endpoint unavailable")
