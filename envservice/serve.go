package envservice

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// noTimeout stands for "no limit" where net/http has no way to say it (a
// zero IdleTimeout falls back to ReadTimeout).
const noTimeout = 100 * 365 * 24 * time.Hour

// Serve answers requests on ln until ctx ends, reaping idle instances
// meanwhile (Manager.Run). It applies ServerConfig's timeouts and
// connection bound and, when a certificate or TLSConfig is configured,
// speaks only HTTPS on ln. On cancellation it stops accepting, lets requests
// in flight finish (up to ShutdownTimeout), then shuts the Manager down,
// releasing every instance. Serve closes ln and takes charge of the
// Manager's lifecycle, even when it fails to start (an unreadable
// certificate, an invalid Token); it returns nil after a graceful shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	tlsConfig, err := s.serverTLS()
	if err == nil && !s.tokenOK {
		err = errBadToken
	}
	if err != nil {
		_ = ln.Close()
		return errors.Join(err, s.shutdownManager())
	}
	addr := ln.Addr()
	if s.maxConnections > 0 {
		ln = netutil.LimitListener(ln, s.maxConnections)
	}
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.readHeaderTimeout,
		ReadTimeout:       max(s.readTimeout, 0),
		IdleTimeout:       s.connIdleTimeout,
		TLSConfig:         tlsConfig,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	if hs.IdleTimeout < 0 {
		hs.IdleTimeout = noTimeout
	}
	runCtx, stopRun := context.WithCancel(context.Background())
	reaperDone := make(chan struct{})
	go func() {
		defer close(reaperDone)
		_ = s.m.Run(runCtx)
	}()
	serveErr := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			serveErr <- hs.ServeTLS(ln, "", "")
		} else {
			serveErr <- hs.Serve(ln)
		}
	}()
	s.logListening(addr, tlsConfig != nil)

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
	if merr := s.shutdownManager(); merr != nil {
		err = errors.Join(err, merr)
	}
	s.log.Info("env service stopped")
	return err
}

// shutdownManager releases every instance within ShutdownTimeout.
func (s *Server) shutdownManager() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.shutdownTimeout)
	defer cancel()
	err := s.m.Shutdown(ctx)
	if err != nil {
		s.log.Warn("releasing instances at shutdown", "err", err)
	}
	return err
}

// logListening reports how the server is exposed and warns about the
// combinations that are open to more than the local machine.
func (s *Server) logListening(addr net.Addr, tls bool) {
	s.log.Info("env service listening", "addr", addr.String(), "environments", s.m.Environments(),
		"tls", tls, "token_required", s.hasToken, "trust_client_ids", s.trustClientIDs,
		"max_connections", s.maxConnections)
	if loopback(addr) {
		return
	}
	switch {
	case s.hasToken && !tls:
		s.log.Warn("the bearer token travels in clear text: the server is reachable beyond loopback without TLS")
	case !s.hasToken && s.trustClientIDs:
		s.log.Warn("client-chosen instance ids are trusted without a token on an address reachable beyond loopback: " +
			"anyone who can reach it can step or release instances whose ids they guess")
	}
}

// loopback reports whether addr is a TCP address on a loopback interface.
func loopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// serverTLS returns the TLS configuration Serve uses, nil for plain HTTP.
func (s *Server) serverTLS() (*tls.Config, error) {
	if s.tlsConfig == nil && s.tlsCertFile == "" && s.tlsKeyFile == "" {
		return nil, nil
	}
	if (s.tlsCertFile == "") != (s.tlsKeyFile == "") {
		return nil, errors.New("envservice: TLSCertFile and TLSKeyFile must be set together")
	}
	cfg := &tls.Config{}
	if s.tlsConfig != nil {
		cfg = s.tlsConfig.Clone()
	}
	if s.tlsCertFile != "" {
		cert, err := tls.LoadX509KeyPair(s.tlsCertFile, s.tlsKeyFile)
		if err != nil {
			return nil, fmt.Errorf("envservice: loading the TLS certificate: %w", err)
		}
		cfg.Certificates = append(cfg.Certificates, cert)
	}
	return cfg, nil
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
