package envservice

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// Defaults of ServerConfig.
const (
	// DefaultMaxBodyBytes bounds a request body.
	DefaultMaxBodyBytes = 1 << 20
	// DefaultEnvType is the env_type of a request that omits it, as in the
	// reference's ServiceRequest.
	DefaultEnvType = "appworld"
	// DefaultShutdownTimeout bounds how long a shutdown waits for requests
	// in flight and then for instances to be released.
	DefaultShutdownTimeout = 30 * time.Second
	// DefaultReadHeaderTimeout bounds how long a client may take to send
	// its request headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading a whole request, headers and body.
	// A body is at most DefaultMaxBodyBytes (1 MiB), which takes 30 s only
	// below about 35 KB/s; a client slower than that is stalled or hostile,
	// and each one it holds is a descriptor and a goroutine.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds writing one answer. The clock starts when
	// the environment has answered, so a step that takes minutes is never
	// cut; what is bounded is a client that stops reading. Answers are
	// JSON, usually a few kilobytes.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultConnIdleTimeout bounds how long a keep-alive connection may
	// wait for its next request. It is longer than the 90 s after which Go's
	// standard transport (and so envclient) drops an idle connection, so
	// the client closes first and never sends a request on a connection the
	// server is closing; a connection a client abandons goes within two
	// minutes.
	DefaultConnIdleTimeout = 120 * time.Second
	// DefaultMaxConnections bounds the connections open at once. A trainer
	// holds one per episode in flight (envclient keeps up to 128 idle per
	// host), so 1024 leaves room for several trainers while staying below
	// the usual descriptor limits.
	DefaultMaxConnections = 1024
)

// ServerConfig configures a Server. The zero value is ready to use: plain
// HTTP, no authentication, server-chosen instance ids and the timeouts
// below.
type ServerConfig struct {
	// MaxBodyBytes caps a request body; larger ones get 413. Zero means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// DefaultEnvType is used when a request has no env_type key. Empty
	// means DefaultEnvType ("appworld", the reference's default); a server
	// for one environment usually sets that environment's name.
	DefaultEnvType string
	// ShutdownTimeout bounds each phase of a graceful shutdown. Zero means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration

	// ReadHeaderTimeout bounds how long a client may take to send a
	// request's headers (and a TLS handshake). Zero means
	// DefaultReadHeaderTimeout.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, headers and body, from
	// its first byte; a client that stalls mid-body gets 408 and its
	// connection is closed. The limit ends once the body is in: the
	// environment's own time is not counted. Zero means DefaultReadTimeout;
	// negative means no limit beyond ReadHeaderTimeout. Raise it with
	// MaxBodyBytes.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing one answer, from the moment the
	// environment has answered: a slow step or create is never cut by it,
	// only a client that does not read its answer. Zero means
	// DefaultWriteTimeout; negative means no limit.
	WriteTimeout time.Duration
	// ConnIdleTimeout is how long a keep-alive connection may wait for its
	// next request before the server closes it. Zero means
	// DefaultConnIdleTimeout; negative means no limit. (It is unrelated to
	// ManagerConfig.IdleTimeout, which reaps instances.)
	ConnIdleTimeout time.Duration
	// MaxConnections bounds the connections open at once, idle keep-alive
	// ones included. Further connections wait in the listen backlog until
	// one closes; they are not refused. Zero means DefaultMaxConnections;
	// negative means no bound.
	MaxConnections int

	// Token, when set, is a shared secret every request but GET /healthz
	// must carry as "Authorization: Bearer <Token>" (envclient.Config.Token
	// sends it); others get 401 with a {"detail": ...} body. It must be
	// printable ASCII without spaces (Serve refuses it otherwise); use a
	// long random one, such as 32 random bytes in hex. It is compared in
	// constant time and never logged. Over plain HTTP it crosses the
	// network in clear text: on anything but loopback, use TLS too.
	Token string
	// TrustClientIDs honours the instance_id a create request names, as the
	// reference does. By default a create from a caller without the token
	// gets an unguessable id minted by the server whatever it asked for, so
	// that one local process cannot step or release another's instances by
	// guessing their ids; the id is in the answer's info.instance_id, which
	// envclient.Client and the agent flow use. A request that carried the
	// valid Token is always trusted. Set this for clients that choose their
	// own ids and cannot send a token, such as the Python AgentEvolver
	// trainer (which names each instance with a uuid and never reads the id
	// back), and only where every process that can reach the server is
	// trusted.
	TrustClientIDs bool
	// AllowedOrigins are the web origins ("https://dashboard.example:8443",
	// scheme, host and port) besides this server's own address and
	// localhost whose pages may call the protocol routes from a browser.
	// A request with any other Origin header gets 403; requests without
	// one (envclient, the Python trainer, curl) are unaffected. Every
	// protocol route also requires "Content-Type: application/json" (415
	// otherwise), which a page cannot send cross-origin without a CORS
	// preflight, and this server answers none.
	AllowedOrigins []string

	// TLSCertFile and TLSKeyFile are PEM files of a certificate (chain
	// first) and its private key; when set, Serve speaks HTTPS (HTTP/1.1
	// and HTTP/2) only. They must be set together. They are read when Serve
	// starts.
	TLSCertFile string
	// TLSKeyFile is the private key of TLSCertFile.
	TLSKeyFile string
	// TLSConfig, when not nil, also makes Serve speak HTTPS, with this
	// configuration (cloned; the certificate of TLSCertFile, if any, is
	// added to its Certificates). Nil with no TLSCertFile means plain HTTP.
	TLSConfig *tls.Config

	// Logger receives request logs (debug) and lifecycle logs (info). Nil
	// discards them.
	Logger *slog.Logger
}

// Server exposes a Manager over the env-service protocol of the reference
// (FastAPI) server: POST /get_env_profile, /create, /step, /evaluate,
// /get_info and /release with a JSON body {env_type, task_id, instance_id,
// messages, params} sent as "Content-Type: application/json", answering {"success": true, "data": ...}, and GET
// /healthz answering plain "OK". Errors are {"detail": "..."} with status
// 400 (a bad request, a missing field, an unknown instance or env_type), 401
// (a missing or wrong token, when ServerConfig.Token is set), 403 (a
// browser request from a foreign Origin, see ServerConfig.AllowedOrigins),
// 408 (a body that did not arrive within ReadTimeout), 413 (body too
// large), 415 (a body not declared application/json), 422
// (schema violation, in FastAPI's shape), 429 (at the instance limit), 404,
// 405, 500 (environment failure) or 503 (shutting down). Repeated slashes in
// paths are tolerated without a redirect, since the Python trainer client
// posts to //get_env_profile.
//
// Deviations from the reference: /get_env_profile reports a missing or
// unknown env_type as 400 with a clear detail (the reference answers 500
// with a Python traceback for any error there) and forwards params to the
// environment's TaskIDs; a 500 detail is a short message, never a stack
// trace; an instance limit exists (429); requests can be required to carry
// a token; and a create from an untrusted caller gets a server-minted id
// instead of the one it named (see ServerConfig.TrustClientIDs). The
// Python-compatible behaviour, client-chosen ids without authentication, is
// ServerConfig{TrustClientIDs: true}.
//
// A create whose answer cannot be delivered (the client went away while
// the environment built the instance, or writing the answer failed) has its
// instance released at once: with a minted id the client could never
// release it. An answer that reaches the client's socket but not the
// client is beyond the server's sight; such an instance is reaped once
// idle (ManagerConfig.IdleTimeout).
//
// A Server is an http.Handler; Serve and ListenAndServe run it with a
// graceful shutdown, the timeouts and connection bound of ServerConfig and
// optional TLS. Used as a plain handler (httptest, another mux), the token,
// id, body and WriteTimeout rules still apply; ReadTimeout, ConnIdleTimeout,
// MaxConnections and TLS are then the embedding http.Server's business.
type Server struct {
	m                 *Manager
	maxBodyBytes      int64
	defaultEnvType    string
	shutdownTimeout   time.Duration
	readHeaderTimeout time.Duration
	readTimeout       time.Duration // negative: none
	writeTimeout      time.Duration // negative: none
	connIdleTimeout   time.Duration // negative: none
	maxConnections    int           // negative: no bound
	hasToken          bool
	tokenOK           bool // Token is sendable; Serve refuses to start otherwise
	tokenHash         [sha256.Size]byte
	trustClientIDs    bool
	allowedOrigins    map[string]bool
	tlsCertFile       string
	tlsKeyFile        string
	tlsConfig         *tls.Config
	log               *slog.Logger

	ignoredIDOnce sync.Once // one warning about ignored client ids
}

// NewServer returns a Server for m.
func NewServer(m *Manager, cfg ServerConfig) *Server {
	s := &Server{
		m:                 m,
		maxBodyBytes:      cfg.MaxBodyBytes,
		defaultEnvType:    cfg.DefaultEnvType,
		shutdownTimeout:   cfg.ShutdownTimeout,
		readHeaderTimeout: cfg.ReadHeaderTimeout,
		readTimeout:       orDefault(cfg.ReadTimeout, DefaultReadTimeout),
		writeTimeout:      orDefault(cfg.WriteTimeout, DefaultWriteTimeout),
		connIdleTimeout:   orDefault(cfg.ConnIdleTimeout, DefaultConnIdleTimeout),
		maxConnections:    cfg.MaxConnections,
		hasToken:          cfg.Token != "",
		tokenOK:           cfg.Token == "" || validToken(cfg.Token),
		tokenHash:         tokenHash(cfg.Token),
		trustClientIDs:    cfg.TrustClientIDs,
		allowedOrigins:    normalizeOrigins(cfg.AllowedOrigins),
		tlsCertFile:       cfg.TLSCertFile,
		tlsKeyFile:        cfg.TLSKeyFile,
		tlsConfig:         cfg.TLSConfig,
		log:               cfg.Logger,
	}
	if s.maxBodyBytes <= 0 {
		s.maxBodyBytes = DefaultMaxBodyBytes
	}
	if s.defaultEnvType == "" {
		s.defaultEnvType = DefaultEnvType
	}
	if s.shutdownTimeout <= 0 {
		s.shutdownTimeout = DefaultShutdownTimeout
	}
	if s.readHeaderTimeout <= 0 {
		s.readHeaderTimeout = DefaultReadHeaderTimeout
	}
	if s.maxConnections == 0 {
		s.maxConnections = DefaultMaxConnections
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// orDefault returns d, or def when d is zero.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// route returns the handler of a POST route, or nil.
func (s *Server) route(path string) func(context.Context, request) reply {
	switch path {
	case "/get_env_profile":
		return s.getEnvProfile
	case "/create":
		return s.create
	case "/step":
		return s.step
	case "/evaluate":
		return s.evaluate
	case "/get_info":
		return s.getInfo
	case "/release":
		return s.release
	}
	return nil
}

const healthPath = "/healthz"

// ServeHTTP answers one protocol request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	path := cleanPath(r.URL.Path)
	var rep reply
	var req request
	var denied *reply
	if s.hasToken && path != healthPath {
		// Checked before the route, so that strangers learn nothing of it,
		// and before the body, so that they cannot make the server read one.
		denied = s.authenticate(w, r)
	}
	switch rt := s.route(path); {
	case path == healthPath:
		// Open to all, so that probes need no secret.
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			rep = fail(http.StatusMethodNotAllowed, "Method Not Allowed")
			break
		}
		s.startWrite(w)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "OK")
		s.logRequest(r, path, http.StatusOK, start, req)
		return
	case denied != nil:
		rep = *denied
	case rt == nil:
		rep = fail(http.StatusNotFound, "Not Found")
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		rep = fail(http.StatusMethodNotAllowed, "Method Not Allowed")
	default:
		if errRep := s.checkBrowser(r); errRep != nil {
			rep = *errRep
			break
		}
		var errRep *reply
		req, errRep = s.readRequest(w, r)
		if errRep != nil {
			rep = *errRep
			break
		}
		// A caller with the token is always trusted (authenticate let it
		// through).
		req.trusted = s.hasToken || s.trustClientIDs
		rep = rt(r.Context(), req)
	}
	if rep.undo != nil && r.Context().Err() != nil {
		rep.undo("the client went away before the answer was written")
		rep = fail(http.StatusServiceUnavailable, "request cancelled")
	}
	if err := s.write(w, rep); err != nil && rep.undo != nil {
		rep.undo("writing the answer failed: " + err.Error())
	}
	s.logRequest(r, path, rep.status, start, req)
}

func (s *Server) logRequest(r *http.Request, path string, status int, start time.Time, req request) {
	level := slog.LevelDebug
	if status >= 500 {
		level = slog.LevelWarn
	}
	s.log.Log(r.Context(), level, "env-service request", "method", r.Method, "path", path,
		"status", status, "duration", time.Since(start), "instance_id", req.instanceID)
}

// readRequest reads and decodes a bounded body.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request) (request, *reply) {
	tooLarge := fail(http.StatusRequestEntityTooLarge,
		"request body larger than "+strconv.FormatInt(s.maxBodyBytes, 10)+" bytes")
	if r.ContentLength > s.maxBodyBytes {
		return request{}, &tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBodyBytes))
	if err != nil {
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			return request{}, &tooLarge
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// ReadTimeout ran out mid-body; net/http closes the connection
			// after this answer.
			w.Header().Set("Connection", "close")
			rep := fail(http.StatusRequestTimeout, "timed out reading the request body")
			return request{}, &rep
		}
		rep := fail(http.StatusBadRequest, "reading request body: "+truncate(err.Error(), 200))
		return request{}, &rep
	}
	return decodeRequest(body, s.defaultEnvType)
}

// write encodes and sends rep. A body that cannot be encoded (an
// environment's result holding a channel, say) becomes a 500. When rep has
// an undo, the answer is flushed and an error returned if it could not be
// written.
func (s *Server) write(w http.ResponseWriter, rep reply) error {
	data, err := json.Marshal(rep.body)
	if err != nil {
		s.log.Warn("encoding env-service reply", "err", err)
		rep = fail(http.StatusInternalServerError, "environment returned a result that cannot be encoded as JSON")
		data, _ = json.Marshal(rep.body)
	}
	s.startWrite(w)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(rep.status)
	if _, err := w.Write(data); err != nil {
		return err
	}
	if rep.undo == nil {
		return nil
	}
	return http.NewResponseController(w).Flush()
}

// startWrite starts the WriteTimeout clock for the answer about to be
// written. (http.Server's own WriteTimeout would start when the request
// has been read and so cut long steps.)
func (s *Server) startWrite(w http.ResponseWriter) {
	if s.writeTimeout > 0 {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
}

// cleanPath collapses repeated slashes and drops a trailing one, so that
// //get_env_profile and /create/ reach their routes without a redirect.
func cleanPath(p string) string {
	if !strings.Contains(p, "//") && (len(p) <= 1 || !strings.HasSuffix(p, "/")) {
		return p
	}
	b := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && len(b) > 0 && b[len(b)-1] == '/' {
			continue
		}
		b = append(b, p[i])
	}
	out := string(b)
	if len(out) > 1 {
		out = strings.TrimSuffix(out, "/")
	}
	return out
}

func (s *Server) getEnvProfile(ctx context.Context, req request) reply {
	if req.envType == "" {
		return fail(http.StatusBadRequest, "env_type is required")
	}
	split, err := splitParam(req.params)
	if err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	ids, err := s.m.taskIDs(ctx, req.envType, split, req.params)
	if err != nil {
		return s.errorReply(ctx, err)
	}
	return ok(ids)
}

func (s *Server) create(ctx context.Context, req request) reply {
	switch {
	case req.envType == "":
		return fail(http.StatusBadRequest, "env_type is required")
	case req.taskID == "":
		return fail(http.StatusBadRequest, "task_id is required")
	}
	id := req.instanceID
	if !req.trusted && id != "" {
		s.ignoredIDOnce.Do(func() {
			s.log.Warn("ignoring the instance ids clients choose: creates get server-minted ids, returned in info.instance_id; " +
				"clients that keep using their own ids (the Python trainer) need the token or TrustClientIDs (serve-env --token or --trust-client-ids)")
		})
		id = ""
	}
	init, err := s.m.Create(ctx, req.envType, req.taskID, id, req.params)
	if err != nil {
		return s.errorReply(ctx, err)
	}
	rep := ok(init)
	made := init.InstanceID()
	rep.undo = func(why string) { s.releaseUndelivered(ctx, made, why) }
	return rep
}

// releaseUndelivered releases an instance whose create answer did not
// reach its client, who therefore may not know its id.
func (s *Server) releaseUndelivered(ctx context.Context, id, why string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.shutdownTimeout)
	defer cancel()
	released, err := s.m.Release(ctx, id)
	s.log.Info("create answer not delivered; instance released", "instance_id", id, "reason", why,
		"released", released, "err", err)
}

func (s *Server) step(ctx context.Context, req request) reply {
	if req.instanceID == "" {
		return fail(http.StatusBadRequest, "instance_id is required")
	}
	var action agentevolver.Message
	if err := json.Unmarshal(req.messages, &action); err != nil {
		return fail(http.StatusBadRequest, "messages is not a chat message: "+truncate(err.Error(), 200))
	}
	res, err := s.m.Step(ctx, req.instanceID, action, req.params)
	if err != nil {
		return s.errorReply(ctx, err)
	}
	return ok(res)
}

func (s *Server) evaluate(ctx context.Context, req request) reply {
	if req.instanceID == "" {
		return fail(http.StatusBadRequest, "instance_id is required")
	}
	score, err := s.m.Evaluate(ctx, req.instanceID, req.params)
	if err != nil {
		return s.errorReply(ctx, err)
	}
	return ok(score)
}

func (s *Server) getInfo(ctx context.Context, req request) reply {
	if req.instanceID == "" {
		return fail(http.StatusBadRequest, "instance_id is required")
	}
	info, err := s.m.Info(ctx, req.instanceID, req.params)
	if err != nil {
		return s.errorReply(ctx, err)
	}
	return ok(info)
}

func (s *Server) release(ctx context.Context, req request) reply {
	if req.instanceID == "" {
		return fail(http.StatusBadRequest, "instance_id is required")
	}
	released, err := s.m.Release(ctx, req.instanceID)
	if err != nil && !released {
		return s.errorReply(ctx, err)
	}
	if err != nil {
		// The instance is gone; its Close failed. Tell the client it was
		// released and keep the error for the operator.
		s.log.Warn("releasing instance", "instance_id", req.instanceID, "err", err)
	}
	return reply{status: http.StatusOK, body: envelope{Success: released}}
}

// errorReply maps a Manager error to a status and a short detail. Requests
// the environment rejects (errors matching envclient.ErrBadRequest, the Go
// counterpart of the reference's ValueError) are 400s; other environment
// errors are 500s with the error text, truncated.
func (s *Server) errorReply(ctx context.Context, err error) reply {
	var reqErr *requestError
	var panicErr *PanicError
	detail := func() string {
		if errors.As(err, &reqErr) {
			return reqErr.detail
		}
		return truncate(err.Error(), maxDetailLen)
	}
	switch {
	case errors.Is(err, envclient.ErrTooManyInstances):
		return fail(http.StatusTooManyRequests, detail())
	case errors.Is(err, envclient.ErrInstanceNotFound), errors.Is(err, envclient.ErrBadRequest):
		return fail(http.StatusBadRequest, detail())
	case errors.Is(err, ErrClosed):
		return fail(http.StatusServiceUnavailable, "env service is shutting down")
	case ctx.Err() != nil:
		return fail(http.StatusServiceUnavailable, "request cancelled")
	case errors.As(err, &panicErr):
		return fail(http.StatusInternalServerError, fmt.Sprintf("environment error: %s panicked: %s",
			panicErr.Op, truncate(fmt.Sprint(panicErr.Value), maxPanicValueLen)))
	default:
		return fail(http.StatusInternalServerError, "environment error: "+truncate(err.Error(), maxDetailLen))
	}
}
