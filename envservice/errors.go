package envservice

import (
	"errors"
	"fmt"

	"github.com/org/agentevolver/envclient"
)

// Errors a Manager returns, testable with errors.Is. Besides these, the
// Manager reports the envclient sentinels envclient.ErrInstanceNotFound,
// envclient.ErrBadRequest and envclient.ErrTooManyInstances, so in-process
// callers handle a Manager and a remote envclient.Client alike. Errors that
// are requests the environment rejects also match envclient.ErrBadRequest.
var (
	// ErrUnknownEnvironment reports an env_type that was never registered.
	// It also matches envclient.ErrBadRequest.
	ErrUnknownEnvironment = errors.New("envservice: unknown environment type")
	// ErrDuplicateEnvironment reports a second Register under the same name.
	ErrDuplicateEnvironment = errors.New("envservice: environment already registered")
	// ErrInstanceExists reports a create with an instance id that is in use.
	// It also matches envclient.ErrBadRequest.
	ErrInstanceExists = errors.New("envservice: instance id already in use")
	// ErrReleasedEarly reports a create for an instance id that its client
	// had already released (it gave up waiting for the create).
	ErrReleasedEarly = errors.New("envservice: instance id released before it was created")
	// ErrClosed reports a call on a Manager that has been shut down.
	ErrClosed = errors.New("envservice: manager closed")
	// ErrNoProfile reports an environment that does not implement
	// ProfileProvider.
	ErrNoProfile = errors.New("envservice: environment has no profile")
)

// PanicError is the error a Manager returns when environment code panics.
// The panic is recovered so that one faulty instance cannot bring down a
// server; the stack is logged, never sent to clients.
type PanicError struct {
	// Op is the operation that panicked ("create", "step", "evaluate", ...).
	Op string
	// InstanceID is the instance involved, if any.
	InstanceID string
	// Value is the value passed to panic.
	Value any
	// Stack is the goroutine stack at the panic.
	Stack []byte
}

// Error describes the panic without its stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("envservice: environment panicked during %s: %s", e.Op, truncate(fmt.Sprint(e.Value), maxPanicValueLen))
}

// maxPanicValueLen bounds how much of a panic value an error message carries.
const maxPanicValueLen = 200

// requestError is an error whose detail is meant for the caller (the HTTP
// detail text) and that matches one or more sentinels.
type requestError struct {
	detail string
	kinds  []error
}

func (e *requestError) Error() string   { return "envservice: " + e.detail }
func (e *requestError) Unwrap() []error { return e.kinds }

func newRequestError(detail string, kinds ...error) error {
	return &requestError{detail: detail, kinds: kinds}
}

func errMissing(field string) error {
	return newRequestError(field+" is required", envclient.ErrBadRequest)
}

func errNotFound(instanceID string) error {
	// The detail is the reference's text, which clients may match on.
	return newRequestError("Instance "+truncate(instanceID, maxInstanceIDLen)+" not found!", envclient.ErrInstanceNotFound)
}

// truncate shortens s to at most n bytes, marking the cut. It may split a
// multi-byte rune; json.Marshal then replaces the broken bytes.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
