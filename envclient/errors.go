package envclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// ErrServer reports that the env service failed while handling a request
// (HTTP 500, with the Python traceback as detail, or another unexpected
// status). Retrying rarely helps, so the Client does not.
var ErrServer = errors.New("envclient: environment server error")

// StatusError is a non-success HTTP answer of the env service. It unwraps to
// the sentinel that classifies it:
//
//	400 "Instance <id> not found!"  ErrInstanceNotFound
//	401, 403                        ErrUnauthorized
//	400, 404, 422, other 4xx        ErrBadRequest
//	408, 502, 503, 504              ErrUnavailable
//	429                             ErrTooManyInstances
//	500 and anything else           ErrServer
type StatusError struct {
	// Route is the request path, for example "/step".
	Route string
	// StatusCode is the HTTP status.
	StatusCode int
	// Detail is the server's explanation: FastAPI's "detail" text, a 422
	// validation list rendered as "loc: msg; ...", or the raw body text.
	Detail string
	// Attempts is how many requests were made for the call.
	Attempts int
}

// maxDetailInMessage bounds how much of Detail (a traceback, say) Error
// repeats; the full text stays in the field.
const maxDetailInMessage = 1024

// Error describes the failure.
func (e *StatusError) Error() string {
	detail := e.Detail
	if len(detail) > maxDetailInMessage {
		detail = strings.ToValidUTF8(detail[:maxDetailInMessage], "") + "…"
	}
	msg := fmt.Sprintf("envclient: %s: HTTP %d", e.Route, e.StatusCode)
	if detail != "" {
		msg += ": " + detail
	}
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	if e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden {
		msg += unauthorizedHint
	}
	return msg
}

// unauthorizedHint tells the user what to do about a 401 or 403.
const unauthorizedHint = " (the env service requires its token: pass the value it was started with " +
	"(serve-env --token or $AGENTEVOLVER_ENV_TOKEN) as env.token in the trainer configuration, or envclient.Config.Token)"

// Unwrap returns the sentinel that classifies the status.
func (e *StatusError) Unwrap() error {
	return statusSentinel(e.StatusCode, e.Detail)
}

func statusSentinel(code int, detail string) error {
	switch {
	case code == http.StatusBadRequest && isInstanceNotFound(detail):
		return ErrInstanceNotFound
	case code == http.StatusUnauthorized, code == http.StatusForbidden:
		return ErrUnauthorized
	case code == http.StatusTooManyRequests:
		return ErrTooManyInstances
	case code == http.StatusRequestTimeout, code == http.StatusBadGateway,
		code == http.StatusServiceUnavailable, code == http.StatusGatewayTimeout:
		return ErrUnavailable
	case code >= 400 && code < 500:
		return ErrBadRequest
	default:
		return ErrServer
	}
}

// isInstanceNotFound recognises the reference server's
// "Instance <id> not found!" detail.
func isInstanceNotFound(detail string) bool {
	return strings.HasPrefix(detail, "Instance ") && strings.HasSuffix(detail, " not found!")
}

// TransportError is a call that got no usable HTTP answer: the connection
// failed, an attempt timed out, or the response broke off. It unwraps to
// ErrUnavailable and to the last underlying error.
type TransportError struct {
	// Route is the request path, for example "/step".
	Route string
	// Attempts is how many requests were made for the call.
	Attempts int
	// MayHaveReachedServer reports that the last request may have been
	// processed although no answer came back. For Create and Step this is
	// why the Client did not retry (see Config.RetryNonIdempotent).
	MayHaveReachedServer bool
	// Err is the last attempt's error.
	Err error
}

// Error describes the failure.
func (e *TransportError) Error() string {
	msg := fmt.Sprintf("envclient: %s: environment unavailable after %d attempt(s): %v", e.Route, e.Attempts, e.Err)
	if e.MayHaveReachedServer {
		msg += " (the request may have reached the server)"
	}
	return msg
}

// Unwrap returns ErrUnavailable and the underlying error.
func (e *TransportError) Unwrap() []error { return []error{ErrUnavailable, e.Err} }

// errAttemptTimeout replaces context.DeadlineExceeded when an attempt's own
// limit expired, so that errors.Is(err, context.DeadlineExceeded) keeps
// meaning that the caller's context ran out.
var errAttemptTimeout = errors.New("attempt timed out")

// maxDetailBytes bounds how much of an error body is read and kept.
const maxDetailBytes = 1 << 20

// decodeDetail extracts the explanation from an error body: FastAPI's
// {"detail": "text"} or {"detail": [{"loc": [...], "msg": "..."}, ...]}
// (422), else the body text itself. The result is valid UTF-8 without
// surrounding space.
func decodeDetail(body []byte) string {
	body = bytes.TrimSpace(body)
	var obj struct {
		Detail json.RawMessage `json:"detail"`
	}
	if len(body) > 0 && body[0] == '{' && json.Unmarshal(body, &obj) == nil && present(obj.Detail) {
		var text string
		if json.Unmarshal(obj.Detail, &text) == nil {
			return cleanText(text)
		}
		var items []validationItem
		if json.Unmarshal(obj.Detail, &items) == nil {
			return cleanText(renderValidation(items))
		}
		return cleanText(string(obj.Detail))
	}
	return cleanText(string(body))
}

// validationItem is one entry of FastAPI's 422 detail list.
type validationItem struct {
	Loc []any  `json:"loc"`
	Msg string `json:"msg"`
}

func renderValidation(items []validationItem) string {
	parts := make([]string, 0, len(items))
	for _, it := range items {
		loc := make([]string, 0, len(it.Loc))
		for _, l := range it.Loc {
			loc = append(loc, fmt.Sprint(l))
		}
		switch {
		case len(loc) == 0:
			parts = append(parts, it.Msg)
		default:
			parts = append(parts, strings.Join(loc, ".")+": "+it.Msg)
		}
	}
	return strings.Join(parts, "; ")
}

func cleanText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.TrimSpace(s)
}
