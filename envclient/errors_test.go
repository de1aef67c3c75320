package envclient

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/org/agentevolver"
)

const traceback = `Traceback (most recent call last):
  File "/app/env_service/env_service.py", line 120, in step
    result = ray.get(actor.step.remote(action, params))
KeyError: 'content'`

// TestStatusErrors checks the reference's error answers: their sentinel,
// their StatusError fields and how often they are tried.
func TestStatusErrors(t *testing.T) {
	tests := []struct {
		name         string
		status       int
		body         string
		call         string // "evaluate" or "step"
		wantSentinel error
		wantDetail   string
		wantAttempts int
	}{
		{"instance not found", 400, `{"detail": "Instance exp_1_abc not found!"}`, "evaluate", ErrInstanceNotFound, "Instance exp_1_abc not found!", 1},
		{"instance not found on step", 400, `{"detail": "Instance i9 not found!"}`, "step", ErrInstanceNotFound, "Instance i9 not found!", 1},
		{"missing field", 400, `{"detail": "instance_id is required"}`, "evaluate", ErrBadRequest, "instance_id is required", 1},
		{"validation", 422, `{"detail": [{"loc": ["body", "messages"], "msg": "none is not an allowed value", "type": "type_error.none.not_allowed"},
			{"loc": ["body", "params", 0], "msg": "value is not a valid dict", "type": "type_error.dict"}]}`,
			"step", ErrBadRequest, "body.messages: none is not an allowed value; body.params.0: value is not a valid dict", 1},
		{"not found route", 404, `{"detail": "Not Found"}`, "evaluate", ErrBadRequest, "Not Found", 1},
		{"unauthorized", 401, `{"detail": "invalid bearer token"}`, "evaluate", ErrUnauthorized, "invalid bearer token", 1},
		{"forbidden on step", 403, `{"detail": "Forbidden"}`, "step", ErrUnauthorized, "Forbidden", 1},
		{"too many instances", 429, `{"detail": "too many instances (limit 64)"}`, "evaluate", ErrTooManyInstances, "too many instances (limit 64)", 3},
		{"too many instances on step", 429, `{"detail": "full"}`, "step", ErrTooManyInstances, "full", 3},
		{"traceback", 500, `{"detail": ` + jsonQuote(traceback) + `}`, "evaluate", ErrServer, traceback, 1},
		{"plain text 500", 500, "Internal Server Error\n", "evaluate", ErrServer, "Internal Server Error", 1},
		{"unavailable evaluate", 503, `{"detail": "restarting"}`, "evaluate", ErrUnavailable, "restarting", 3},
		{"bad gateway step", 502, `<html>Bad Gateway</html>`, "step", ErrUnavailable, "<html>Bad Gateway</html>", 1},
		{"gateway timeout step", 504, ``, "step", ErrUnavailable, "", 1},
		{"request timeout step", 408, ``, "step", ErrUnavailable, "", 3},
		{"teapot", 418, `{"detail": {"why": "tea"}}`, "evaluate", ErrBadRequest, `{"why": "tea"}`, 1},
		{"not implemented", 501, `{}`, "evaluate", ErrServer, "{}", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := serve(t, func(w http.ResponseWriter, r recordedRequest) { writeBody(w, tt.status, tt.body) })
			c := newTestClient(t, testConfig(srv.URL))
			var err error
			route := RouteEvaluate
			switch tt.call {
			case "evaluate":
				_, err = c.Evaluate(t.Context(), "i", nil)
			case "step":
				route = RouteStep
				_, err = c.Step(t.Context(), "i", agentevolver.Message{Content: "x"}, nil)
			}
			if !errors.Is(err, tt.wantSentinel) {
				t.Fatalf("err = %v, want %v", err, tt.wantSentinel)
			}
			for _, other := range []error{ErrInstanceNotFound, ErrUnauthorized, ErrBadRequest, ErrTooManyInstances, ErrUnavailable, ErrServer, ErrBadResponse} {
				if other != tt.wantSentinel && errors.Is(err, other) {
					t.Errorf("err also matches %v", other)
				}
			}
			var se *StatusError
			if !errors.As(err, &se) {
				t.Fatalf("err %T is not a *StatusError", err)
			}
			want := StatusError{Route: route, StatusCode: tt.status, Detail: tt.wantDetail, Attempts: tt.wantAttempts}
			if *se != want {
				t.Errorf("StatusError = %+v, want %+v", *se, want)
			}
			if n := rec.count(); n != tt.wantAttempts {
				t.Errorf("server saw %d requests, want %d", n, tt.wantAttempts)
			}
		})
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestStatusErrorMessage(t *testing.T) {
	long := strings.Repeat("é", 2000)
	tests := []struct {
		err  StatusError
		want string
	}{
		{StatusError{Route: "/step", StatusCode: 400, Detail: "Instance x not found!", Attempts: 1}, "envclient: /step: HTTP 400: Instance x not found!"},
		{StatusError{Route: "/create", StatusCode: 429, Detail: "full", Attempts: 3}, "envclient: /create: HTTP 429: full (after 3 attempts)"},
		{StatusError{Route: "/healthz", StatusCode: 503}, "envclient: /healthz: HTTP 503"},
		{StatusError{Route: "/step", StatusCode: 401, Detail: "invalid bearer token", Attempts: 1}, "envclient: /step: HTTP 401: invalid bearer token" + unauthorizedHint},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	msg := (&StatusError{Route: "/x", StatusCode: 500, Detail: long}).Error()
	if !utf8.ValidString(msg) || len(msg) > maxDetailInMessage+64 || !strings.HasSuffix(msg, "…") {
		t.Errorf("long detail not truncated cleanly: %d bytes, valid %v", len(msg), utf8.ValidString(msg))
	}
}

func TestDecodeDetail(t *testing.T) {
	tests := []struct {
		body string
		want string
	}{
		{`{"detail": "Instance a not found!"}`, "Instance a not found!"},
		{` {"detail":"  padded  "} `, "padded"},
		{`{"detail": [{"loc": ["body", "params"], "msg": "field required", "type": "value_error.missing"}]}`, "body.params: field required"},
		{`{"detail": [{"msg": "no loc"}]}`, "no loc"},
		{`{"detail": []}`, ""},
		{`{"detail": 42}`, "42"},
		{`{"detail": null}`, `{"detail": null}`},
		{`{"other": "x"}`, `{"other": "x"}`},
		{`{"detail": "unterminated`, `{"detail": "unterminated`},
		{"plain text\n", "plain text"},
		{"", ""},
		{"bad \xff utf8", "bad \uFFFD utf8"},
	}
	for _, tt := range tests {
		if got := decodeDetail([]byte(tt.body)); got != tt.want {
			t.Errorf("decodeDetail(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestTransportErrorUnwrap(t *testing.T) {
	inner := errors.New("connection reset")
	err := error(&TransportError{Route: "/step", Attempts: 1, MayHaveReachedServer: true, Err: inner})
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, inner) {
		t.Errorf("TransportError does not unwrap to ErrUnavailable and its cause")
	}
	want := "envclient: /step: environment unavailable after 1 attempt(s): connection reset (the request may have reached the server)"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
