package envclient

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
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
	// any, applies on top of the per-attempt timeout below. A client given
	// here brings its own TLS settings: TLSConfig and CAFile must then be
	// unset.
	HTTPClient *http.Client

	// Token is the env service's bearer token (envservice.ServerConfig.Token,
	// "agentevolver serve-env --token"). When set, every request carries
	// "Authorization: Bearer <Token>"; empty sends no such header. It must
	// be printable ASCII without spaces. The Client never logs it. Over
	// plain http it crosses the network in clear text, so New logs a warning
	// when BaseURL is http and not a loopback address. A service that
	// rejects the token (401 or 403) yields ErrUnauthorized at once, never
	// retried and never replaced by a Fallback placeholder.
	Token string

	// TLSConfig configures TLS for an https BaseURL when HTTPClient is nil,
	// for example RootCAs holding the certificate of a self-signed env
	// service. Nil means Go's defaults (the system's roots). It is cloned.
	TLSConfig *tls.Config
	// CAFile is a PEM file of CA certificates to trust for an https BaseURL
	// instead of the system's roots (or in addition to TLSConfig.RootCAs),
	// for a self-signed serve-env certificate; the certificate itself will
	// do. Empty means none. New reads it and fails if it holds none.
	CAFile string

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
	// seconds or as an HTTP date) replaces the draw, capped at BackoffMax. Zero or negative
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
	// is logged at warning level. Cancellation of ctx and ErrUnauthorized
	// (a configuration mistake, not a passing failure) are still returned
	// as errors. Off by default: a placeholder looks like real data.
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

// withDefaults returns cfg with zero fields replaced by their defaults,
// reading CAFile. It fails on TLS settings it cannot apply and on a Token
// that cannot be sent.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Token != "" && !validToken(cfg.Token) {
		// The token is not repeated: it is a secret.
		return Config{}, errors.New("envclient: Config.Token must be printable ASCII without spaces")
	}
	if cfg.EnvType == "" {
		cfg.EnvType = DefaultEnvType
	}
	if cfg.HTTPClient == nil {
		tlsConfig, err := clientTLS(cfg.TLSConfig, cfg.CAFile)
		if err != nil {
			return Config{}, err
		}
		cfg.HTTPClient = newHTTPClient(tlsConfig)
	} else if cfg.TLSConfig != nil || cfg.CAFile != "" {
		return Config{}, errors.New("envclient: Config.TLSConfig and CAFile apply to the Client's own transport; " +
			"with Config.HTTPClient, set its transport's TLSClientConfig instead")
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
	return cfg, nil
}

// validToken reports whether tok can be sent as a bearer credential:
// printable ASCII without spaces.
func validToken(tok string) bool {
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return tok != ""
}

// clientTLS merges TLSConfig and the certificates of caFile; nil when both
// are unset.
func clientTLS(base *tls.Config, caFile string) (*tls.Config, error) {
	if base == nil && caFile == "" {
		return nil, nil
	}
	cfg := &tls.Config{}
	if base != nil {
		cfg = base.Clone()
	}
	if caFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("envclient: reading CAFile: %w", err)
	}
	pool := x509.NewCertPool()
	if cfg.RootCAs != nil {
		pool = cfg.RootCAs.Clone()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("envclient: CAFile %s holds no PEM certificate", caFile)
	}
	cfg.RootCAs = pool
	return cfg, nil
}

// cleartextToNetwork reports whether base is a plain-http URL whose host
// is not a loopback address, where a token would cross the network in
// clear text.
func cleartextToNetwork(base string) bool {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// newHTTPClient returns a client whose transport keeps enough idle
// connections for the many parallel episodes a trainer runs against one env
// service (net/http keeps only two per host by default). It keeps the
// standard transport's 90 s idle-connection timeout, below the env
// service's, so that the client, not the server, ends an idle connection.
func newHTTPClient(tlsConfig *tls.Config) *http.Client {
	t := &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true, IdleConnTimeout: 90 * time.Second}
	if std, ok := http.DefaultTransport.(*http.Transport); ok {
		t = std.Clone()
	}
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 128
	if tlsConfig != nil {
		t.TLSClientConfig = tlsConfig
	}
	return &http.Client{Transport: t}
}
