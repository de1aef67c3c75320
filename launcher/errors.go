package launcher

import (
	"errors"
	"fmt"
)

// Sentinel errors, found with errors.Is in what the launcher returns.
var (
	// ErrUnsupported: the launcher needs Unix process groups and
	// sessions.
	ErrUnsupported = errors.New("launcher: companion services need a Unix system (process groups and sessions)")
	// ErrNotReady: a service did not become ready within its timeout.
	ErrNotReady = errors.New("not ready in time")
	// ErrExited: a service exited, during start-up or later.
	ErrExited = errors.New("exited")
	// ErrConflict: another instance of a service of that name (with
	// another command or configuration) is running.
	ErrConflict = errors.New("another instance is running")
	// ErrUnknown: Stop was asked for a name no record has.
	ErrUnknown = errors.New("no such companion")
)

// ServiceError is an error of one service: which one, and where its log
// is.
type ServiceError struct {
	Name string
	Log  string
	// Tail is the end of the log (at most a few lines), when it helps.
	Tail string
	Err  error
}

// Error implements error.
func (e *ServiceError) Error() string {
	msg := fmt.Sprintf("companion %s: %v; log: %s", e.Name, e.Err, e.Log)
	if e.Tail != "" {
		msg += "\n  its last lines:\n" + indent(e.Tail, "    ")
	}
	return msg
}

// Unwrap returns the cause.
func (e *ServiceError) Unwrap() error { return e.Err }

func indent(s, prefix string) string {
	out := []byte{}
	start := true
	for i := 0; i < len(s); i++ {
		if start {
			out = append(out, prefix...)
			start = false
		}
		out = append(out, s[i])
		if s[i] == '\n' {
			start = true
		}
	}
	return string(out)
}
