package envservice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
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
)

// ServerConfig configures a Server. The zero value is ready to use.
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
	// ReadHeaderTimeout is passed to http.Server. Zero means
	// DefaultReadHeaderTimeout.
	ReadHeaderTimeout time.Duration
	// Logger receives request logs (debug) and lifecycle logs (info). Nil
	// discards them.
	Logger *slog.Logger
}

// Server exposes a Manager over the env-service protocol of the reference
// (FastAPI) server: POST /get_env_profile, /create, /step, /evaluate,
// /get_info and /release with a JSON body {env_type, task_id, instance_id,
// messages, params}, answering {"success": true, "data": ...}, and GET
// /healthz answering plain "OK". Errors are {"detail": "..."} with status
// 400 (a bad request, a missing field, an unknown instance or env_type), 413
// (body too large), 422 (schema violation, in FastAPI's shape), 429 (at the
// instance limit), 404, 405, 500 (environment failure) or 503 (shutting
// down). Repeated slashes in paths are tolerated without a redirect, since
// the Python trainer client posts to //get_env_profile.
//
// Deviations from the reference: /get_env_profile reports a missing or
// unknown env_type as 400 with a clear detail (the reference answers 500
// with a Python traceback for any error there) and forwards params to the
// environment's TaskIDs; a 500 detail is a short message, never a stack
// trace; an instance limit exists (429).
//
// A Server is an http.Handler; Serve and ListenAndServe run it with a
// graceful shutdown.
type Server struct {
	m                 *Manager
	maxBodyBytes      int64
	defaultEnvType    string
	shutdownTimeout   time.Duration
	readHeaderTimeout time.Duration
	log               *slog.Logger
}

// NewServer returns a Server for m.
func NewServer(m *Manager, cfg ServerConfig) *Server {
	s := &Server{
		m:                 m,
		maxBodyBytes:      cfg.MaxBodyBytes,
		defaultEnvType:    cfg.DefaultEnvType,
		shutdownTimeout:   cfg.ShutdownTimeout,
		readHeaderTimeout: cfg.ReadHeaderTimeout,
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
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
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
	switch rt := s.route(path); {
	case path == healthPath:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			rep = fail(http.StatusMethodNotAllowed, "Method Not Allowed")
			break
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "OK")
		s.logRequest(r, path, http.StatusOK, start, req)
		return
	case rt == nil:
		rep = fail(http.StatusNotFound, "Not Found")
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		rep = fail(http.StatusMethodNotAllowed, "Method Not Allowed")
	default:
		var errRep *reply
		req, errRep = s.readRequest(w, r)
		if errRep != nil {
			rep = *errRep
			break
		}
		rep = rt(r.Context(), req)
	}
	s.write(w, rep)
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
		rep := fail(http.StatusBadRequest, "reading request body: "+truncate(err.Error(), 200))
		return request{}, &rep
	}
	return decodeRequest(body, s.defaultEnvType)
}

// write encodes rep. A body that cannot be encoded (an environment's result
// holding a channel, say) becomes a 500.
func (s *Server) write(w http.ResponseWriter, rep reply) {
	data, err := json.Marshal(rep.body)
	if err != nil {
		s.log.Warn("encoding env-service reply", "err", err)
		rep = fail(http.StatusInternalServerError, "environment returned a result that cannot be encoded as JSON")
		data, _ = json.Marshal(rep.body)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	_, _ = w.Write(data)
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
	init, err := s.m.Create(ctx, req.envType, req.taskID, req.instanceID, req.params)
	if err != nil {
		return s.errorReply(ctx, err)
	}
	return ok(init)
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
	return reply{http.StatusOK, envelope{Success: released}}
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

// Serve answers requests on ln until ctx ends, reaping idle instances
// meanwhile (Manager.Run). On cancellation it stops accepting, lets requests
// in flight finish (up to ShutdownTimeout), then shuts the Manager down,
// releasing every instance. Serve closes ln and takes charge of the
// Manager's lifecycle; it returns nil after a graceful shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.readHeaderTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	runCtx, stopRun := context.WithCancel(context.Background())
	reaperDone := make(chan struct{})
	go func() {
		defer close(reaperDone)
		_ = s.m.Run(runCtx)
	}()
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	s.log.Info("env service listening", "addr", ln.Addr().String(), "environments", s.m.Environments())

	var err error
	select {
	case <-ctx.Done():
		s.log.Info("env service shutting down", "reason", context.Cause(ctx))
		sctx, cancel := context.WithTimeout(context.Background(), s.shutdownTimeout)
		if serr := hs.Shutdown(sctx); serr != nil {
			s.log.Warn("requests still in flight at shutdown timeout; closing connections", "err", serr)
			_ = hs.Close()
		}
		cancel()
		<-serveErr // http.ErrServerClosed
	case err = <-serveErr:
		err = fmt.Errorf("envservice: serve: %w", err)
		_ = hs.Close()
	}
	stopRun()
	<-reaperDone

	sctx, cancel := context.WithTimeout(context.Background(), s.shutdownTimeout)
	defer cancel()
	if merr := s.m.Shutdown(sctx); merr != nil {
		s.log.Warn("releasing instances at shutdown", "err", merr)
		err = errors.Join(err, merr)
	}
	s.log.Info("env service stopped")
	return err
}

// ListenAndServe listens on the TCP address addr and calls Serve.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("envservice: %w", err)
	}
	return s.Serve(ctx, ln)
}
