package envclient

import (
	"bytes"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver"
)

// TestTokenHeader checks that Config.Token goes, as a bearer credential, on
// every route, and that no header goes without it.
func TestTokenHeader(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		switch r.URL.Path {
		case RouteHealth:
			_, _ = w.Write([]byte("OK"))
		case RouteCreate:
			writeBody(w, 200, `{"success":true,"data":{"state":[],"info":{"instance_id":"i"}}}`)
		default:
			writeBody(w, 200, `{"success":true,"data":0}`)
		}
	}))
	defer srv.Close()
	for _, tok := range []string{"tok-123", ""} {
		seen = nil
		cfg := testConfig(srv.URL)
		cfg.Token = tok
		c := newTestClient(t, cfg)
		ctx := t.Context()
		if err := c.Health(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Create(ctx, "", "t", "", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Evaluate(ctx, "i", nil); err != nil {
			t.Fatal(err)
		}
		want := ""
		if tok != "" {
			want = "Bearer " + tok
		}
		for i, got := range seen {
			if got != want {
				t.Errorf("token %q: request %d sent Authorization %q, want %q", tok, i, got, want)
			}
		}
	}
}

// TestUnauthorized checks that 401 and 403 are ErrUnauthorized, tried once
// on every route, never replaced by a fallback, with a message that says
// to pass the token.
func TestUnauthorized(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		srv, rec := serve(t, func(w http.ResponseWriter, _ recordedRequest) {
			writeBody(w, status, `{"detail":"invalid bearer token"}`)
		})
		for _, fallback := range []bool{false, true} {
			cfg := testConfig(srv.URL)
			cfg.Fallback = fallback
			c := newTestClient(t, cfg)
			ctx := t.Context()
			before := rec.count()
			_, errCreate := c.Create(ctx, "", "t", "", nil)
			_, errStep := c.Step(ctx, "i", agentevolver.Message{Content: "x"}, nil)
			_, errEval := c.Evaluate(ctx, "i", nil)
			_, errRelease := c.Release(ctx, "i")
			for _, err := range []error{errCreate, errStep, errEval, errRelease} {
				if !errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrBadRequest) {
					t.Fatalf("%d (fallback %v): err = %v, want ErrUnauthorized alone", status, fallback, err)
				}
				if !strings.Contains(err.Error(), "token") || !strings.Contains(err.Error(), "invalid bearer token") {
					t.Errorf("message %q does not tell the user to pass the token", err)
				}
			}
			if n := rec.count() - before; n != 4 {
				t.Errorf("%d: %d requests for 4 calls: retried", status, n)
			}
		}
	}
}

// TestNewChecksSecurityConfig checks what New refuses, and that its errors
// never repeat the token.
func TestNewChecksSecurityConfig(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(empty, []byte("no certificates here"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"token with space", Config{Token: "my secret"}, "Token must be printable ASCII"},
		{"token with newline", Config{Token: "secret\r\nX-Injected: 1"}, "Token must be printable ASCII"},
		{"TLS config and HTTP client", Config{TLSConfig: &tls.Config{}, HTTPClient: http.DefaultClient}, "HTTPClient"},
		{"CA file and HTTP client", Config{CAFile: empty, HTTPClient: http.DefaultClient}, "HTTPClient"},
		{"missing CA file", Config{CAFile: filepath.Join(dir, "none.pem")}, "reading CAFile"},
		{"CA file without certificates", Config{CAFile: empty}, "holds no PEM certificate"},
	}
	for _, tt := range tests {
		tt.cfg.BaseURL = "https://127.0.0.1:1"
		_, err := New(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New = %v, want %q", tt.name, err, tt.want)
			continue
		}
		if tt.cfg.Token != "" && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error repeats the token: %v", tt.name, err)
		}
	}
}

// TestCleartextTokenWarning checks that New warns when the token would
// cross the network in clear text, without logging it.
func TestCleartextTokenWarning(t *testing.T) {
	const tok = "do-not-log-me"
	tests := []struct {
		base string
		warn bool
	}{
		{"http://10.1.2.3:8080", true},
		{"http://envs.example.com", true},
		{"http://127.0.0.1:8080", false},
		{"http://[::1]:8080", false},
		{"http://localhost:8080", false},
		{"https://envs.example.com", false},
	}
	for _, tt := range tests {
		var logs bytes.Buffer
		_, err := New(Config{BaseURL: tt.base, Token: tok, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(logs.String(), "clear text"); got != tt.warn {
			t.Errorf("%s: warned %v, want %v (%s)", tt.base, got, tt.warn, logs.String())
		}
		if strings.Contains(logs.String(), tok) {
			t.Errorf("%s: the token was logged: %s", tt.base, logs.String())
		}
	}
}

// TestTLS talks to an https test server through CAFile and through
// TLSConfig; without either, the certificate error is not retried.
func TestTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("OK"))
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	trusting := srv.Client().Transport.(*http.Transport).TLSClientConfig
	for name, cfg := range map[string]Config{
		"CAFile":    {CAFile: caFile},
		"TLSConfig": {TLSConfig: trusting},
	} {
		cfg.BaseURL = srv.URL
		if err := newTestClient(t, cfg).Health(t.Context()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	err := newTestClient(t, testConfig(srv.URL)).Health(t.Context())
	var te *TransportError
	var verify *tls.CertificateVerificationError
	if !errors.As(err, &te) || te.Attempts != 1 || te.MayHaveReachedServer || !errors.As(err, &verify) {
		t.Fatalf("untrusted certificate: %v, want one attempt failing verification", err)
	}
	// A plain-http server behind an https URL: no retry either.
	plain := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer plain.Close()
	err = newTestClient(t, testConfig(strings.Replace(plain.URL, "http://", "https://", 1))).Health(t.Context())
	if !errors.As(err, &te) || te.Attempts != 1 {
		t.Fatalf("https to a plain server: %v, want one attempt", err)
	}
}
