package envclient

import (
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"
)

// Defaults applied by New to zero Config fields.
const (
	// DefaultEnvType is the env_type sent when neither the call nor the
	// Config names one. It is the Python trainer client's default.
	DefaultEnvType = "default"
	// DefaultTimeout is the least per-attempt timeout. With
	// DefaultTimeoutJitter each attempt's limit is drawn uniformly from
	// [200 s, 350 s), the distribution of the Python standalone client's
	// 150 + U(50, 200) s.
	DefaultTimeout = 200 * time.Second
	// DefaultTimeoutJitter is the width of the per-attempt timeout draw.
	DefaultTimeoutJitter = 150 * time.Second
	// DefaultMaxRetries gives three attempts in all, as the Python
	// standalone client makes.
	DefaultMaxRetries = 2
	// DefaultBackoffMin is the backoff ceiling before the first retry.
	DefaultBackoffMin = time.Second
	// DefaultBackoffMax caps the backoff and any Retry-After.
	DefaultBackoffMax = 30 * time.Second
	// DefaultMaxResponseBytes bounds a response body.
	DefaultMaxResponseBytes = 64 << 20
)

// Config configures a Client. The zero value of every field except BaseURL
// means a useful default.
type Config struct {
	// BaseURL is the env service's address, for example
	// "http://127.0.0.1:8080" or "http://host/prefix/". Trailing slashes are
	// ignored, so routes never get a double slash.
	BaseURL string

	// EnvType is the env_type sent when a call does not name one (TaskIDs
	// and Create with an empty envType, and every per-instance call, whose
	// env_type the server ignores). Empty means DefaultEnvType.
	EnvType string

	// HTTPClient sends the requests. Nil means a client of its own with a
	// connection pool sized for many parallel episodes. Its Timeout, if
	// any, applies on top of the per-attempt timeout below.
	HTTPClient *http.Client

	// Timeout is the least time one attempt (request and whole response)
	// may take; each attempt draws its limit uniformly from
	// [Timeout, Timeout+TimeoutJitter), so that many clients that stall
	// together do not all give up together. Zero means DefaultTimeout;
	// negative means no per-attempt limit (only ctx bounds the call).
	Timeout time.Duration
	// TimeoutJitter is the width of the timeout draw. Zero means
	// DefaultTimeoutJitter; negative means no jitter.
	TimeoutJitter time.Duration

	// MaxRetries is how many times a transient failure is retried after the
	// first attempt. Zero means DefaultMaxRetries; negative means never
	// retry.
	MaxRetries int
	// BackoffMin and BackoffMax shape the wait before retry n (n = 1, 2,
	// ...): with c = min(BackoffMax, BackoffMin·2^(n-1)), the wait is drawn
	// uniformly from [c/2, c] ("equal jitter"). A server's Retry-After (in
	// seconds) replaces the draw, capped at BackoffMax. Zero or negative
	// means DefaultBackoffMin.
	BackoffMin time.Duration
	// BackoffMax caps the backoff ceiling and any Retry-After. Zero or
	// negative means DefaultBackoffMax; less than BackoffMin means
	// BackoffMin.
	BackoffMax time.Duration

	// RetryNonIdempotent also retries Create and Step when a failed attempt
	// may have reached the server (a timeout, a reset connection, a 502,
	// 503 or 504). Off by default because a repeated step acts twice and a
	// repeated create leaks an instance; see the package documentation.
	RetryNonIdempotent bool

	// Fallback makes every method return the Python standalone client's
	// placeholder result instead of an error once retries are exhausted
	// (see the package documentation for the payloads). Each substitution
	// is logged at warning level. Cancellation of ctx is still returned as
	// an error. Off by default: a placeholder looks like real data.
	Fallback bool

	// MaxResponseBytes bounds the body of a response; a larger one fails
	// with ErrBadResponse. Zero or negative means DefaultMaxResponseBytes.
	MaxResponseBytes int64

	// Logger receives retries (debug) and fallbacks (warning). Nil discards.
	Logger *slog.Logger

	// Rand draws timeouts and backoff jitter; nil means the runtime's
	// random source. The Client serialises its use, so one *rand.Rand may
	// be shared by concurrent calls. Tests inject a seeded one.
	Rand *rand.Rand
}

// withDefaults returns cfg with zero fields replaced by their defaults.
func (cfg Config) withDefaults() Config {
	if cfg.EnvType == "" {
		cfg.EnvType = DefaultEnvType
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = newHTTPClient()
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.TimeoutJitter == 0 {
		cfg.TimeoutJitter = DefaultTimeoutJitter
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.BackoffMin <= 0 {
		cfg.BackoffMin = DefaultBackoffMin
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	if cfg.BackoffMax < cfg.BackoffMin {
		cfg.BackoffMax = cfg.BackoffMin
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg
}

// newHTTPClient returns a client whose transport keeps enough idle
// connections for the many parallel episodes a trainer runs against one env
// service (net/http keeps only two per host by default).
func newHTTPClient() *http.Client {
	t := &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	if std, ok := http.DefaultTransport.(*http.Transport); ok {
		t = std.Clone()
	}
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 128
	return &http.Client{Transport: t}
}
