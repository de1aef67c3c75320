package experience

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/retry"
	"github.com/org/agentevolver/llm"
)

// Defaults of ReMeConfig's zero fields: the reference's (§5.5).
const (
	DefaultReMeBaseURL     = "http://127.0.0.1:8001"
	DefaultReMeWorkspaceID = "default"
	// DefaultReMeTimeout bounds one request, as the reference's 1200 s:
	// a summary request makes ReMe call an LLM for every trajectory.
	DefaultReMeTimeout = 1200 * time.Second
	// DefaultReMeMaxResponseBytes bounds a response body. A retrieval
	// answer is a few KiB; ReMe adds the retrieved memories as metadata.
	DefaultReMeMaxResponseBytes = 16 << 20
)

// ReMe endpoints, relative to ReMeConfig.BaseURL.
const (
	ReMeRetrievePath = "retrieve_task_memory"
	ReMeSummaryPath  = "summary_task_memory"
)

// ReMeSource is the Source of the experiences a ReMe client returns.
const ReMeSource = "reme"

// Errors of the ReMe client, found inside a *ReMeError with errors.Is.
var (
	// ErrReMeTimeout reports a request that ran past ReMeConfig.Timeout.
	ErrReMeTimeout = errors.New("experience: ReMe request timed out")
	// ErrReMeTooLarge reports a response body over
	// ReMeConfig.MaxResponseBytes.
	ErrReMeTooLarge = errors.New("experience: ReMe response too large")
	// ErrReMeMalformed reports a response that is not the JSON object
	// ReMe sends, or whose "answer" is not a string.
	ErrReMeMalformed = errors.New("experience: malformed ReMe response")
	// ErrReMeFailed reports a response of status 200 whose "success" is
	// false: ReMe ran the request and its flow failed; the answer, then an
	// error text, is in ReMeError.Message and never becomes an experience.
	ErrReMeFailed = errors.New("experience: ReMe reported a failure")
)

// ReMeError is every failure of a ReMe request other than the caller's
// own cancellation (reported as the context's error). errors.Is matches
// llm.ErrUnavailable when the service could not be reached or failed
// transiently: a refused or dropped connection, a network timeout,
// ErrReMeTimeout, or HTTP 408, 409, 429 or 5xx. The trainer can treat
// those like a model outage (wait, or stop with a checkpoint); a 4xx,
// ErrReMeMalformed, ErrReMeTooLarge or ErrReMeFailed will not go away by
// waiting. Unwrap gives Err.
type ReMeError struct {
	// Endpoint is ReMeRetrievePath or ReMeSummaryPath.
	Endpoint string
	// StatusCode is the HTTP status, 0 when no response came.
	StatusCode int
	// Message is the server's explanation (an error body, the answer of
	// a failed flow), cut to a few KiB.
	Message string
	// Err is the cause: a transport error, ErrReMeTimeout,
	// ErrReMeTooLarge, ErrReMeMalformed, ErrReMeFailed; nil for a bare
	// error status.
	Err error
}

// Error says which request failed and how.
func (e *ReMeError) Error() string {
	var b strings.Builder
	b.WriteString("experience: ReMe ")
	b.WriteString(e.Endpoint)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, ": HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "experience: ReMe "))
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap returns Err.
func (e *ReMeError) Unwrap() error { return e.Err }

// Is reports whether target is llm.ErrUnavailable and the failure is an
// outage (see ReMeError).
func (e *ReMeError) Is(target error) bool {
	return target == llm.ErrUnavailable && e.Unavailable()
}

// Unavailable reports whether the service could not be reached or failed
// transiently.
func (e *ReMeError) Unavailable() bool {
	if e.StatusCode != 0 && e.StatusCode != http.StatusOK {
		return retry.TransientStatus(e.StatusCode)
	}
	return errors.Is(e.Err, ErrReMeTimeout) || (e.Err != nil && retry.TransportFailure(e.Err))
}

// ReMeConfig configures a ReMe client. Zero values mean the reference's
// defaults.
type ReMeConfig struct {
	// BaseURL is the service root; empty means DefaultReMeBaseURL. A
	// trailing slash is ignored.
	BaseURL string
	// WorkspaceID names the pool at the service; empty means
	// DefaultReMeWorkspaceID.
	WorkspaceID string
	// Timeout bounds each request, reading the response included. Zero
	// means DefaultReMeTimeout; negative means no bound (the caller's
	// context still applies).
	Timeout time.Duration
	// MaxResponseBytes bounds each response body. Zero or negative means
	// DefaultReMeMaxResponseBytes.
	MaxResponseBytes int64
	// HTTPClient sends the requests. Nil means http.DefaultClient; its own
	// Timeout, if any, also applies.
	HTTPClient *http.Client
}

// ReMe is a Pool served by a ReMe service (github.com/modelscope/ReMe,
// started with backend=http), speaking the reference's protocol (§5.5):
//
//	POST {base}/retrieve_task_memory {"query": Q, "top_k": k, "workspace_id": ws}
//	  → {"answer": "...", ...}
//	POST {base}/summary_task_memory  {"trajectories": [{"messages": steps, "score": outcome}, …], "workspace_id": ws}
//
// where Q is the JSON text of the whole list of initial messages, written
// as Python's json.dumps(messages, ensure_ascii=False) writes it (", " and
// ": " separators, non-ASCII characters as themselves, no HTML escaping),
// so that the service sees the very query the reference sends. Bodies are
// UTF-8 JSON with no HTML escaping.
//
// Unlike the reference, which waits up to 1200 s, makes one attempt and
// turns every failure into "no experience", this client reports each
// failure as a *ReMeError (see there for which ones match
// llm.ErrUnavailable), and the caller decides what it means: skip the
// experience for this rollout, retry, or pause training. There are no
// retries. Each request is bounded by ReMeConfig.Timeout (1200 s by
// default, as the reference) and each response by
// ReMeConfig.MaxResponseBytes.
//
// A ReMe is safe for concurrent use.
type ReMe struct {
	base string
	cfg  ReMeConfig
	hc   *http.Client
}

var _ Pool = (*ReMe)(nil)

// NewReMe returns a client for cfg. It does not contact the service.
func NewReMe(cfg ReMeConfig) (*ReMe, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultReMeBaseURL
	}
	if cfg.WorkspaceID == "" {
		cfg.WorkspaceID = DefaultReMeWorkspaceID
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultReMeTimeout
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultReMeMaxResponseBytes
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("experience: ReMe base URL %q: want http(s)://host[:port][/path]", cfg.BaseURL)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return &ReMe{base: strings.TrimRight(cfg.BaseURL, "/"), cfg: cfg, hc: hc}, nil
}

// WorkspaceID returns the workspace the client reads and writes.
func (r *ReMe) WorkspaceID() string { return r.cfg.WorkspaceID }

// Retrieve asks the service for experience for the task whose initial
// messages are init, with top_k = k. The service answers with one text
// that merges what it found: it becomes one Experience (Text the answer,
// Source ReMeSource); an empty or blank answer gives none. k of 0 or less
// gives none without a request.
func (r *ReMe) Retrieve(ctx context.Context, init []agentevolver.Message, k int) ([]Experience, error) {
	if k <= 0 {
		return nil, nil
	}
	body, err := reMeRetrieveBody(init, k, r.cfg.WorkspaceID)
	if err != nil {
		return nil, err
	}
	resp, err := r.post(ctx, ReMeRetrievePath, body)
	if err != nil {
		return nil, err
	}
	answer, err := parseReMeResponse(ReMeRetrievePath, resp, true)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(answer) == "" {
		return nil, nil
	}
	return []Experience{{Text: answer, Source: ReMeSource}}, nil
}

// Update sends trajectories to the service to be summarised into the
// workspace, all in one request, as the reference does (the grouping by
// task and batch of §5.6 is the caller's). Each trajectory goes as its
// Steps (with any experience injected into them, as in the reference) and
// Reward.Outcome. No trajectories send nothing. A non-finite score fails
// before anything is sent.
func (r *ReMe) Update(ctx context.Context, trajectories []agentevolver.Trajectory) error {
	if len(trajectories) == 0 {
		return nil
	}
	body, err := reMeSummaryBody(trajectories, r.cfg.WorkspaceID)
	if err != nil {
		return err
	}
	resp, err := r.post(ctx, ReMeSummaryPath, body)
	if err != nil {
		return err
	}
	_, err = parseReMeResponse(ReMeSummaryPath, resp, false)
	return err
}

// reMeRetrieveBody builds the retrieval request body.
func reMeRetrieveBody(init []agentevolver.Message, k int, workspace string) ([]byte, error) {
	if init == nil {
		init = []agentevolver.Message{}
	}
	q, err := marshalJSON(init, true)
	if err != nil {
		return nil, fmt.Errorf("experience: ReMe query: %w", err)
	}
	return marshalJSON(struct {
		Query       string `json:"query"`
		TopK        int    `json:"top_k"`
		WorkspaceID string `json:"workspace_id"`
	}{string(q), k, workspace}, false)
}

// reMeTrajectory is one trajectory of a summary request.
type reMeTrajectory struct {
	Messages []agentevolver.Message `json:"messages"`
	Score    float64                `json:"score"`
}

// reMeSummaryBody builds the summary request body.
func reMeSummaryBody(trajectories []agentevolver.Trajectory, workspace string) ([]byte, error) {
	ts := make([]reMeTrajectory, len(trajectories))
	for i, t := range trajectories {
		if math.IsNaN(t.Reward.Outcome) || math.IsInf(t.Reward.Outcome, 0) {
			return nil, fmt.Errorf("experience: ReMe summary: trajectory %d (task %q) has score %v", i, t.TaskID, t.Reward.Outcome)
		}
		ts[i] = reMeTrajectory{Messages: t.Steps, Score: t.Reward.Outcome}
		if ts[i].Messages == nil {
			ts[i].Messages = []agentevolver.Message{}
		}
	}
	return marshalJSON(struct {
		Trajectories []reMeTrajectory `json:"trajectories"`
		WorkspaceID  string           `json:"workspace_id"`
	}{ts, workspace}, false)
}

// marshalJSON encodes v as UTF-8 JSON without HTML escaping and with
// U+2028 and U+2029 as themselves (Go escapes them; Python does not), in
// Python's json.dumps layout (", " and ": ") when pySpacing is set, else
// compact.
func marshalJSON(v any, pySpacing bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	in := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	out := make([]byte, 0, len(in)+len(in)/8)
	inString := false
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case inString && c == '\\':
			if i+5 < len(in) && in[i+1] == 'u' && string(in[i+2:i+5]) == "202" && (in[i+5] == '8' || in[i+5] == '9') {
				out = utf8.AppendRune(out, rune(0x2028+int(in[i+5]-'8')))
			} else if in[i+1] == 'u' {
				out = append(out, in[i:i+6]...)
			} else {
				out = append(out, in[i:i+2]...)
			}
			if in[i+1] == 'u' {
				i += 5
			} else {
				i++
			}
		case c == '"':
			inString = !inString
			out = append(out, c)
		case !inString && pySpacing && (c == ',' || c == ':'):
			out = append(out, c, ' ')
		default:
			out = append(out, c)
		}
	}
	return out, nil
}

// errReMeTimeoutCause is the cancellation cause of a request that ran past
// ReMeConfig.Timeout.
var errReMeTimeoutCause = errors.New("ReMe timeout")

// post sends body to endpoint and returns the response body of a 200.
func (r *ReMe) post(ctx context.Context, endpoint string, body []byte) ([]byte, error) {
	reqCtx := ctx
	if r.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithTimeoutCause(ctx, r.cfg.Timeout, errReMeTimeoutCause)
		defer cancel()
	}
	fail := func(status int, err error) error {
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("experience: ReMe %s: %w", endpoint, ctx.Err())
		case errors.Is(context.Cause(reqCtx), errReMeTimeoutCause):
			return &ReMeError{Endpoint: endpoint, StatusCode: status,
				Err: fmt.Errorf("%w after %s (%v)", ErrReMeTimeout, r.cfg.Timeout, err)}
		}
		return &ReMeError{Endpoint: endpoint, StatusCode: status, Err: err}
	}
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, r.base+"/"+endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("experience: ReMe %s: %w", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := r.hc.Do(req)
	if err != nil {
		return nil, fail(0, err)
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBodyBytes))
		if ctx.Err() != nil || context.Cause(reqCtx) == errReMeTimeoutCause {
			return nil, fail(res.StatusCode, errors.New("reading the error body"))
		}
		return nil, &ReMeError{Endpoint: endpoint, StatusCode: res.StatusCode, Message: errorMessage(raw)}
	}
	raw, err := io.ReadAll(&boundedBody{ReadCloser: res.Body, remaining: r.cfg.MaxResponseBytes, tooLarge: ErrReMeTooLarge})
	if err != nil {
		if errors.Is(err, ErrReMeTooLarge) {
			return nil, &ReMeError{Endpoint: endpoint, StatusCode: res.StatusCode,
				Err: fmt.Errorf("%w: over %d bytes", ErrReMeTooLarge, r.cfg.MaxResponseBytes)}
		}
		return nil, fail(res.StatusCode, err)
	}
	return raw, nil
}

// parseReMeResponse checks a 200 response body of endpoint and returns its
// "answer". The body is untrusted: it must be a JSON object; "success":
// false is ErrReMeFailed; "answer" must be a string or null (""), and is
// required when needAnswer is set.
func parseReMeResponse(endpoint string, body []byte, needAnswer bool) (string, error) {
	var resp struct {
		Answer  json.RawMessage `json:"answer"`
		Success *bool           `json:"success"`
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return "", &ReMeError{Endpoint: endpoint, StatusCode: http.StatusOK,
			Err: fmt.Errorf("%w: not a JSON object", ErrReMeMalformed), Message: clip(string(trimmed), 256)}
	}
	if err := json.Unmarshal(trimmed, &resp); err != nil {
		return "", &ReMeError{Endpoint: endpoint, StatusCode: http.StatusOK, Err: fmt.Errorf("%w: %v", ErrReMeMalformed, err)}
	}
	var answer string
	switch a := bytes.TrimSpace(resp.Answer); {
	case len(a) == 0:
		if needAnswer {
			return "", &ReMeError{Endpoint: endpoint, StatusCode: http.StatusOK, Err: fmt.Errorf("%w: no \"answer\"", ErrReMeMalformed)}
		}
	case string(a) == "null":
	case a[0] == '"':
		if err := json.Unmarshal(a, &answer); err != nil {
			return "", &ReMeError{Endpoint: endpoint, StatusCode: http.StatusOK, Err: fmt.Errorf("%w: answer: %v", ErrReMeMalformed, err)}
		}
	default:
		if needAnswer {
			return "", &ReMeError{Endpoint: endpoint, StatusCode: http.StatusOK,
				Err: fmt.Errorf("%w: \"answer\" is not a string", ErrReMeMalformed)}
		}
	}
	if resp.Success != nil && !*resp.Success {
		return "", &ReMeError{Endpoint: endpoint, StatusCode: http.StatusOK, Err: ErrReMeFailed, Message: clip(answer, maxMessageBytes)}
	}
	return answer, nil
}
