package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/retry"
	"github.com/org/agentevolver/llm"
)

// Balance chooses the server of each request.
type Balance string

// Balancing policies.
const (
	// LeastOutstanding sends a request to the server with the fewest
	// requests in flight, the first of the rotation on ties.
	LeastOutstanding Balance = "least_outstanding"
	// RoundRobin sends requests to the servers of the rotation in turn.
	RoundRobin Balance = "round_robin"
)

// Defaults of zero Config fields.
const (
	// DefaultRequestTimeout bounds one chat request to one server.
	DefaultRequestTimeout = 3 * time.Minute
	// DefaultAdminTimeout bounds a health check, an adapter load or an
	// unload.
	DefaultAdminTimeout = time.Minute
	// DefaultMaxResponseBytes bounds a reply body.
	DefaultMaxResponseBytes = 32 << 20
	// DefaultRetryMin is the wait before a failed server's first health
	// check; each failed check doubles it up to DefaultRetryMax.
	DefaultRetryMin = time.Second
	// DefaultRetryMax caps the wait between health checks.
	DefaultRetryMax = time.Minute
)

// maxErrorText bounds the part of an error reply an error message quotes.
const maxErrorText = 512

// Errors, for errors.Is.
var (
	// ErrConfig reports an unusable Config.
	ErrConfig = errors.New("fleet: bad configuration")
	// ErrStaleAdapter reports a reply from another model than the adapter
	// the request named (a *StaleAdapterError).
	ErrStaleAdapter = errors.New("fleet: the server answered with another adapter")
	// ErrMalformedResponse reports a reply that is not a chat completion
	// with token ids and log-probabilities, or is larger than
	// Config.MaxResponseBytes.
	ErrMalformedResponse = errors.New("fleet: malformed response")
)

// StaleAdapterError is a reply whose model field is not the adapter the
// request named. It matches ErrStaleAdapter and llm.ErrStaleModel.
type StaleAdapterError struct {
	// Server is the base URL of the server that answered.
	Server string
	// Want is the model the request named; Got the one the reply names.
	Want, Got string
}

// Error implements error.
func (e *StaleAdapterError) Error() string {
	return fmt.Sprintf("fleet: %s answered with model %q, the request asked for %q", e.Server, e.Got, e.Want)
}

// Unwrap returns ErrStaleAdapter and llm.ErrStaleModel.
func (e *StaleAdapterError) Unwrap() []error { return []error{ErrStaleAdapter, llm.ErrStaleModel} }

// StatusError is an HTTP error status from a server.
type StatusError struct {
	// Server is the server's base URL and Op the endpoint.
	Server, Op string
	// Status is the HTTP status code.
	Status int
	// Body is the start of the reply body.
	Body string
}

// Error implements error.
func (e *StatusError) Error() string {
	return fmt.Sprintf("fleet: %s %s: HTTP %d: %s", e.Server, e.Op, e.Status, e.Body)
}

// serverFault reports whether the status means the server, not the
// request, is at fault: it leaves the rotation and the request is tried
// elsewhere. 404 is a missing model: the server lacks the adapter.
func (e *StatusError) serverFault() bool {
	return e.Status >= 500 || e.Status == http.StatusTooManyRequests || e.Status == http.StatusRequestTimeout ||
		e.Status == http.StatusNotFound
}

// Config configures a Fleet. The zero value of every field but BaseURLs
// means a default.
type Config struct {
	// BaseURLs are the servers' API roots ("http://host:8000/v1"); at
	// least one is required.
	BaseURLs []string
	// Model is the base model's served name, named by requests until the
	// first Publish.
	Model string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Balance chooses each request's server; "" means LeastOutstanding.
	Balance Balance
	// VocabSize, when positive, bounds the token ids a reply may hold: a
	// larger one means another model answered.
	VocabSize int
	// RequestTimeout bounds one chat request to one server; 0 means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// AdminTimeout bounds a health check, load or unload; 0 means
	// DefaultAdminTimeout.
	AdminTimeout time.Duration
	// MaxResponseBytes bounds a reply body; 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// RetryMin and RetryMax bound the backoff between health checks of a
	// server out of the rotation; 0 means DefaultRetryMin and
	// DefaultRetryMax.
	RetryMin, RetryMax time.Duration
	// OwnedPrefix names the adapters that belong to this fleet's user,
	// including those of an earlier process that ended before it could
	// unload them (a crashed or killed run, resumed): the first time
	// Publish reaches a server, and whenever a server rejoins, every
	// adapter it holds whose name starts with OwnedPrefix, other than the
	// current and the new one, is unloaded. Empty: only the adapters this
	// Fleet published are. Two processes sharing servers must not share a
	// prefix.
	OwnedPrefix string
	// ExtraBody holds vendor fields added to every chat request body; a
	// key equal to a field this package sets replaces it.
	ExtraBody map[string]any
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Logger receives rotation changes and publishes; nil discards them.
	Logger *slog.Logger
}

// Stats are a Fleet's counters since it was made.
type Stats struct {
	// Servers is the fleet's size and InRotation the servers taking
	// requests now.
	Servers, InRotation int
	// Requests counts chat requests sent to servers (a request retried on
	// another server counts twice); Failed those that failed at the
	// server (it left the rotation) and Stale the replies from another
	// adapter.
	Requests, Failed, Stale int64
	// Evictions counts servers leaving the rotation and Rejoins servers
	// coming back after a health check.
	Evictions, Rejoins int64
	// Loads and LoadFailures count adapter loads; UnloadFailures the
	// unloads of replaced adapters that failed (they are not retried).
	Loads, LoadFailures, UnloadFailures int64
}

// server is one member of the fleet. Its fields are guarded by Fleet.mu.
type server struct {
	base     string // API root without a trailing slash
	inflight int
	up       bool
	loaded   string // the adapter it holds, as far as the fleet knows
	swept    bool   // its owned adapters from before this fleet were unloaded
	probing  bool
	retryAt  time.Time
	failures int // failed checks since it was last up: its backoff step
	lastErr  error
}

// Fleet is an llm.ChatModel over a fleet of OpenAI-compatible servers
// (see the package documentation). It is safe for concurrent use, except
// that Publish must not overlap requests that should see the previous
// adapter.
type Fleet struct {
	cfg  Config
	http *http.Client
	log  *slog.Logger

	mu        sync.Mutex
	servers   []*server
	next      int      // round robin position
	adapter   string   // named by requests; "" before the first Publish
	path      string   // the adapter's lora_path
	published []string // recent adapters, oldest first, pruned from rejoining servers
	stats     Stats
}

var _ llm.ChatModel = (*Fleet)(nil)

// New returns a Fleet over cfg.BaseURLs, all in the rotation. It contacts
// no server.
func New(cfg Config) (*Fleet, error) {
	if len(cfg.BaseURLs) == 0 {
		return nil, fmt.Errorf("%w: no base URLs", ErrConfig)
	}
	switch cfg.Balance {
	case "":
		cfg.Balance = LeastOutstanding
	case LeastOutstanding, RoundRobin:
	default:
		return nil, fmt.Errorf("%w: balance %q: want %s or %s", ErrConfig, cfg.Balance, LeastOutstanding, RoundRobin)
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.AdminTimeout <= 0 {
		cfg.AdminTimeout = DefaultAdminTimeout
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = DefaultRetryMin
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = DefaultRetryMax
	}
	cfg.RetryMax = max(cfg.RetryMax, cfg.RetryMin)
	cfg.ExtraBody = maps.Clone(cfg.ExtraBody)
	f := &Fleet{cfg: cfg, http: cfg.HTTPClient, log: cfg.Logger}
	if f.http == nil {
		f.http = http.DefaultClient
	}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	seen := map[string]bool{}
	for _, raw := range cfg.BaseURLs {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: base URL %q is not an http(s) URL", ErrConfig, raw)
		}
		base := strings.TrimRight(raw, "/")
		if seen[base] {
			return nil, fmt.Errorf("%w: base URL %q listed twice", ErrConfig, raw)
		}
		seen[base] = true
		f.servers = append(f.servers, &server{base: base, up: true})
	}
	f.stats.Servers = len(f.servers)
	return f, nil
}

// Model returns the model that requests name now: the last published
// adapter, else Config.Model.
func (f *Fleet) Model() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.model()
}

func (f *Fleet) model() string {
	if f.adapter != "" {
		return f.adapter
	}
	return f.cfg.Model
}

// Stats returns the fleet's counters.
func (f *Fleet) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.stats
	for _, sv := range f.servers {
		if f.usable(sv) {
			s.InRotation++
		}
	}
	return s
}

// usable reports whether s takes requests: it is up and holds the current
// adapter. The caller holds f.mu.
func (f *Fleet) usable(s *server) bool { return s.up && s.loaded == f.adapter }

// Chat sends the conversation to one server of the rotation, another when
// that one fails, and returns the reply with its token ids and
// log-probabilities. Errors: a *StaleAdapterError when the reply names
// another model than requested; llm.ErrUnavailable when no server is left
// to try; a *StatusError for a request the server refused (400, 401,
// ...); the context's error when ctx ends.
func (f *Fleet) Chat(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	if len(messages) == 0 {
		return llm.Completion{}, errors.New("fleet: no messages")
	}
	tried := map[*server]bool{}
	var last error
	for range f.servers {
		s, model, err := f.pick(ctx, tried)
		if err != nil {
			return llm.Completion{}, err
		}
		if s == nil {
			break
		}
		tried[s] = true
		body, err := f.requestBody(messages, opts, model)
		if err != nil {
			f.release(s)
			return llm.Completion{}, err
		}
		comp, got, err := f.send(ctx, s, body)
		f.release(s)
		if ctx.Err() != nil {
			return llm.Completion{}, fmt.Errorf("fleet: %w", ctx.Err())
		}
		switch {
		case err == nil && got == model:
			return comp, nil
		case err == nil:
			stale := &StaleAdapterError{Server: s.base, Want: model, Got: got}
			f.mu.Lock()
			f.stats.Stale++
			f.mu.Unlock()
			f.evict(s, stale)
			return llm.Completion{}, stale
		case isServerFault(err):
			f.mu.Lock()
			f.stats.Failed++
			f.mu.Unlock()
			f.evict(s, err)
			last = err
		default:
			return llm.Completion{}, err
		}
	}
	return llm.Completion{}, f.unavailable(last)
}

// unavailable is the error of a request no server could answer.
func (f *Fleet) unavailable(last error) error {
	f.mu.Lock()
	down := 0
	for _, s := range f.servers {
		if !f.usable(s) {
			down++
		}
	}
	n := len(f.servers)
	f.mu.Unlock()
	if last == nil {
		return fmt.Errorf("%w: fleet: all %d servers are out of the rotation (next health checks pending)", llm.ErrUnavailable, n)
	}
	return fmt.Errorf("%w: fleet: no server could answer (%d of %d out of the rotation): %w", llm.ErrUnavailable, down, n, last)
}

// isServerFault reports whether err means the server, not the request, is
// at fault.
func isServerFault(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.serverFault()
	}
	return true // transport errors, timeouts, malformed or oversized replies
}

// pick returns a server of the rotation not in tried, counted in flight,
// and the model to name; nil when there is none. Servers whose health
// check is due are checked first (and rejoin when they pass).
func (f *Fleet) pick(ctx context.Context, tried map[*server]bool) (*server, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		due := f.dueServer(time.Now())
		if due == nil {
			break
		}
		if err := f.probeLocked(ctx, due); err != nil {
			return nil, "", err
		}
	}
	var best *server
	n := len(f.servers)
	for i := range n {
		j := i
		if f.cfg.Balance == RoundRobin {
			j = (f.next + i) % n
		}
		s := f.servers[j]
		if !f.usable(s) || tried[s] {
			continue
		}
		if f.cfg.Balance == RoundRobin {
			best = s
			f.next = (j + 1) % n
			break
		}
		if best == nil || s.inflight < best.inflight {
			best = s
		}
	}
	if best == nil {
		return nil, "", nil
	}
	best.inflight++
	f.stats.Requests++
	return best, f.model(), nil
}

// dueServer returns a server out of the rotation whose health check is
// due and not running. The caller holds f.mu.
func (f *Fleet) dueServer(now time.Time) *server {
	for _, s := range f.servers {
		if !f.usable(s) && !s.probing && !now.Before(s.retryAt) {
			return s
		}
	}
	return nil
}

// probeLocked health-checks s, releasing f.mu while it waits: it rejoins
// when it answers and holds the current adapter. Only the end of ctx is
// returned.
func (f *Fleet) probeLocked(ctx context.Context, s *server) error {
	s.probing = true
	adapter, path := f.adapter, f.path
	drop := f.dropper(f.staleNames(adapter), adapter)
	f.mu.Unlock()
	err := f.probe(ctx, s, adapter, path, drop)
	f.mu.Lock()
	s.probing = false
	if ctx.Err() != nil {
		return fmt.Errorf("fleet: %w", ctx.Err())
	}
	if err == nil && adapter == f.adapter {
		s.up, s.loaded, s.failures, s.lastErr, s.swept = true, adapter, 0, nil, true
		f.stats.Rejoins++
		f.log.Info("fleet: server back in the rotation", "server", s.base, "adapter", adapter)
		return nil
	}
	if err == nil { // a Publish replaced the adapter meanwhile: check again at once
		s.retryAt = time.Now()
		return nil
	}
	f.downLocked(s, err)
	return nil
}

// staleNames are the adapters published before current, which a
// rejoining server should not keep. The caller holds f.mu.
func (f *Fleet) staleNames(current string) []string {
	var out []string
	for _, name := range f.published {
		if name != current {
			out = append(out, name)
		}
	}
	return out
}

// maxRemembered bounds the published adapters a fleet remembers to prune.
const maxRemembered = 16

// dropper returns which of a server's adapters to unload: the stale names
// and, with Config.OwnedPrefix, every owned adapter but those kept.
func (f *Fleet) dropper(stale []string, keep ...string) func(id string) bool {
	prefix := f.cfg.OwnedPrefix
	return func(id string) bool {
		if id == f.cfg.Model || slices.Contains(keep, id) {
			return false
		}
		return slices.Contains(stale, id) || (prefix != "" && strings.HasPrefix(id, prefix))
	}
}

// probe checks that s answers GET /models and holds adapter (loading it
// from path when it does not); it unloads the adapters it holds that drop
// names, best effort.
func (f *Fleet) probe(ctx context.Context, s *server, adapter, path string, drop func(id string) bool) error {
	ids, err := f.models(ctx, s)
	if err != nil {
		return err
	}
	if adapter != "" && !slices.Contains(ids, adapter) {
		if err := f.load(ctx, s, adapter, path); err != nil {
			return err
		}
	}
	for _, id := range ids {
		if id != adapter && drop(id) {
			f.unload(ctx, s, id)
		}
	}
	return nil
}

// evict takes s out of the rotation after err.
func (f *Fleet) evict(s *server, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.downLocked(s, err)
}

// downLocked marks s down and schedules its next health check. The caller
// holds f.mu.
func (f *Fleet) downLocked(s *server, err error) {
	if s.up {
		f.stats.Evictions++
		f.log.Warn("fleet: server left the rotation", "server", s.base, "err", err)
	}
	s.up, s.lastErr = false, err
	wait := retry.Backoff{Base: f.cfg.RetryMin, Max: f.cfg.RetryMax}.Ceiling(s.failures)
	s.failures++
	s.retryAt = time.Now().Add(wait)
}

// release ends a request of s.
func (f *Fleet) release(s *server) {
	f.mu.Lock()
	s.inflight--
	f.mu.Unlock()
}

// Publish loads the adapter at path (a PEFT directory the servers can
// read) under name into every server of the rotation and of those whose
// health check is due, makes it the model of the following requests and
// unloads the previously published adapter. Servers that fail to load it
// leave the rotation (they load it when they rejoin); when none loads it,
// the current adapter stays and the error matches llm.ErrUnavailable.
func (f *Fleet) Publish(ctx context.Context, name, path string) error {
	if name == "" || path == "" {
		return fmt.Errorf("%w: Publish needs an adapter name and path", ErrConfig)
	}
	f.mu.Lock()
	if name == f.adapter {
		f.mu.Unlock()
		return fmt.Errorf("%w: adapter %q is already published: publish each under a new name", ErrConfig, name)
	}
	prev := f.adapter
	// A server that rejoins here may have missed several publishes: it
	// drops whatever earlier adapter it still holds, prev included. One
	// in the rotation reached for the first time drops the owned
	// adapters of earlier processes, but not prev, which it serves until
	// the new adapter is published.
	rejoinDrop := f.dropper(f.staleNames(name), name)
	firstDrop := f.dropper(nil, name, prev)
	now := time.Now()
	var targets []*server
	rejoining, sweeping := map[*server]bool{}, map[*server]bool{}
	for _, s := range f.servers {
		if s.probing || (!s.up && now.Before(s.retryAt)) {
			continue // down and not due: it loads the adapter when it rejoins
		}
		s.probing = true // no request or health check uses it meanwhile
		targets = append(targets, s)
		rejoining[s] = !s.up
		sweeping[s] = s.up && !s.swept && f.cfg.OwnedPrefix != ""
	}
	f.mu.Unlock()

	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, s := range targets {
		wg.Go(func() {
			switch {
			case rejoining[s]:
				errs[i] = f.probe(ctx, s, name, path, rejoinDrop) // health check, load, prune
			case sweeping[s]:
				errs[i] = f.probe(ctx, s, name, path, firstDrop) // list, load, sweep
			default:
				errs[i] = f.load(ctx, s, name, path)
			}
		})
	}
	wg.Wait()

	f.mu.Lock()
	var loaded []*server
	var failures []error
	for i, s := range targets {
		s.probing = false
		if errs[i] != nil {
			failures = append(failures, errs[i])
			f.downLocked(s, errs[i])
			continue
		}
		if !s.up {
			f.stats.Rejoins++
		}
		s.up, s.loaded, s.failures, s.lastErr, s.swept = true, name, 0, nil, s.swept || rejoining[s] || sweeping[s]
		loaded = append(loaded, s)
	}
	if ctx.Err() != nil || len(loaded) == 0 {
		for _, s := range loaded {
			if rejoining[s] {
				// It pruned prev: out again, its next health check loads prev.
				f.downLocked(s, fmt.Errorf("fleet: publish %s taken back", name))
				continue
			}
			s.loaded = prev // it holds prev still
		}
		f.mu.Unlock()
		// Take back the partial publish, so that a retry under the same
		// name loads afresh.
		for _, s := range loaded {
			wg.Go(func() { f.unload(context.WithoutCancel(ctx), s, name) })
		}
		wg.Wait()
		if ctx.Err() != nil {
			return fmt.Errorf("fleet: publish %s: %w", name, ctx.Err())
		}
		return fmt.Errorf("%w: fleet: no server loaded adapter %s: %w", llm.ErrUnavailable, name, errors.Join(failures...))
	}
	f.adapter, f.path = name, path
	f.published = append(slices.DeleteFunc(f.published, func(n string) bool { return n == name }), name)
	if len(f.published) > maxRemembered {
		f.published = slices.Delete(f.published, 0, len(f.published)-maxRemembered)
	}
	f.mu.Unlock()
	f.log.Info("fleet: adapter published", "adapter", name, "path", path, "servers", len(loaded), "failed", len(failures))

	if prev != "" {
		for _, s := range loaded {
			if !rejoining[s] { // a rejoining one has pruned prev already
				wg.Go(func() { f.unload(ctx, s, prev) })
			}
		}
		wg.Wait()
	}
	return nil
}

// load asks s to load the adapter at path under name.
func (f *Fleet) load(ctx context.Context, s *server, name, path string) error {
	_, err := f.admin(ctx, s, http.MethodPost, "/load_lora_adapter", map[string]string{"lora_name": name, "lora_path": path})
	f.mu.Lock()
	if err != nil {
		f.stats.LoadFailures++
	} else {
		f.stats.Loads++
	}
	f.mu.Unlock()
	if err != nil {
		return fmt.Errorf("fleet: load adapter %s: %w", name, err)
	}
	return nil
}

// unload asks s to unload the adapter name; a failure is logged and
// counted.
func (f *Fleet) unload(ctx context.Context, s *server, name string) {
	if _, err := f.admin(ctx, s, http.MethodPost, "/unload_lora_adapter", map[string]string{"lora_name": name}); err != nil {
		f.mu.Lock()
		f.stats.UnloadFailures++
		f.mu.Unlock()
		f.log.Warn("fleet: unloading a replaced adapter failed", "server", s.base, "adapter", name, "err", err)
	}
}

// models returns the model ids s serves (GET /models): the base model and
// its loaded adapters.
func (f *Fleet) models(ctx context.Context, s *server) ([]string, error) {
	body, err := f.admin(ctx, s, http.MethodGet, "/models", nil)
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || list.Data == nil {
		return nil, fmt.Errorf("%w: %s /models: not a model list (%v)", ErrMalformedResponse, s.base, err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// admin sends one administrative request (health check, load, unload)
// with a JSON body (none when in is nil) and returns the reply body.
func (f *Fleet) admin(ctx context.Context, s *server, method, op string, in any) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.AdminTimeout)
	defer cancel()
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(raw)
	}
	return f.do(ctx, s, method, op, body)
}

// do sends a request to s's endpoint op and returns the body of a 2xx
// reply, at most Config.MaxResponseBytes of it.
func (f *Fleet) do(ctx context.Context, s *server, method, op string, body io.Reader) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.base+op, body)
	if err != nil {
		return nil, fmt.Errorf("fleet: %s %s: %w", s.base, op, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if f.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+f.cfg.APIKey)
	}
	resp, err := f.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fleet: %s %s: %w", s.base, op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fleet: %s %s: reading the reply: %w", s.base, op, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &StatusError{Server: s.base, Op: op, Status: resp.StatusCode, Body: truncate(string(data), maxErrorText)}
	}
	if int64(len(data)) > f.cfg.MaxResponseBytes {
		return nil, fmt.Errorf("%w: %s %s: reply larger than %d bytes", ErrMalformedResponse, s.base, op, f.cfg.MaxResponseBytes)
	}
	return data, nil
}

// truncate cuts s to at most n bytes, on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}
