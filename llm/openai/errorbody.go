package openai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxErrorBody bounds how much of an error response is read and parsed.
const maxErrorBody = 64 << 10

// parseErrorBody builds an APIError from an error response body of any of the
// shapes OpenAI-compatible servers send:
//
//	{"error": {"message", "type", "param", "code"}}          OpenAI, DashScope, ollama, new vLLM
//	{"object": "error", "message", "type", "param", "code"}  vLLM
//	{"code", "message", "request_id"}                        DashScope native
//	{"error": "text"}                                        ollama native
//	{"detail": ...}                                          FastAPI validation
//
// Anything else (HTML from a proxy, plain text) becomes the message, cut to a
// few KiB. It never fails.
func parseErrorBody(status int, body []byte) *APIError {
	e := &APIError{StatusCode: status}
	if len(body) > maxErrorBody {
		body = body[:maxErrorBody]
	}
	trimmed := bytes.TrimSpace(body)
	var top map[string]json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &top) != nil {
		e.Message = cleanText(string(trimmed))
		return e
	}
	e.RequestID = jsonText(top["request_id"])
	fields := top
	if raw, ok := top["error"]; ok {
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) == nil && inner != nil {
			fields = inner
		} else {
			e.Message = cleanText(jsonText(raw))
			return e
		}
	}
	e.Message = cleanText(jsonText(fields["message"]))
	e.Type = cleanText(jsonText(fields["type"]))
	e.Code = cleanText(jsonText(fields["code"]))
	e.Param = cleanText(jsonText(fields["param"]))
	if e.Message == "" {
		if detail, ok := top["detail"]; ok {
			e.Message = cleanText(jsonText(detail))
		}
	}
	return e
}

// jsonText renders a JSON value as text: a string as itself, a number as its
// literal, null as "", anything else as its compact JSON.
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

// cleanText makes server text safe to show: valid UTF-8, trimmed, bounded.
func cleanText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return truncate(strings.TrimSpace(s), maxErrorMessage)
}

// inBodyError builds the APIError of an error object delivered with HTTP
// status 200, as the body of a plain response or as a stream event. Such an
// error is typed like the HTTP status it names (see inBodyStatus), so that a
// server error sent this way is retried like a 5xx status would be.
func inBodyError(body []byte) *APIError {
	e := parseErrorBody(0, body)
	e.InBody = true
	e.StatusCode = inBodyStatus(e.Code, e.Type)
	return e
}

// inBodyStatuses maps the error types and string codes that servers put in
// error objects to the HTTP status they stand for, lower case: OpenAI's
// types, vLLM's exception names, common string codes.
var inBodyStatuses = map[string]int{
	"server_error":            http.StatusInternalServerError,
	"internal_server_error":   http.StatusInternalServerError,
	"internalservererror":     http.StatusInternalServerError,
	"internal_error":          http.StatusInternalServerError,
	"api_error":               http.StatusInternalServerError,
	"service_unavailable":     http.StatusServiceUnavailable,
	"serviceunavailableerror": http.StatusServiceUnavailable,
	"overloaded_error":        http.StatusServiceUnavailable,
	"rate_limit_exceeded":     http.StatusTooManyRequests,
	"rate_limit_error":        http.StatusTooManyRequests,
	"ratelimiterror":          http.StatusTooManyRequests,
	"request_timeout":         http.StatusRequestTimeout,
	"timeout":                 http.StatusRequestTimeout,
	"badrequesterror":         http.StatusBadRequest,
	"invalid_request_error":   http.StatusBadRequest,
	"notfounderror":           http.StatusNotFound,
}

// inBodyStatus returns the HTTP status an in-body error names: its code when
// that is a number between 400 and 599 (vLLM sends "code": 500; some servers
// "503" as text), else the status its code or type stands for in
// inBodyStatuses, else 0. Numeric codes outside 400-599 are vendor codes
// (Zhipu's 1301, say), not statuses.
func inBodyStatus(code, typ string) int {
	if n, err := strconv.Atoi(code); err == nil {
		if n >= 400 && n <= 599 {
			return n
		}
		return 0
	}
	for _, s := range []string{code, typ} {
		if status, ok := inBodyStatuses[strings.ToLower(s)]; ok {
			return status
		}
	}
	return 0
}
