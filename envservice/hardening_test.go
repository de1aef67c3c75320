package envservice

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// Bounds for waits that end early when the code works: generous, so that
// a loaded machine cannot fail the tests, and only ever reached on failure.
const (
	eventually = 60 * time.Second
	// quiet is how long a test watches for something that must not happen;
	// a slow machine can only make such a check pass, never fail.
	quiet = 300 * time.Millisecond
)

// startServe runs s.Serve on a loopback listener and returns its address;
// the server is stopped, and Serve's result checked, at cleanup.
func startServe(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
	return ln.Addr().String()
}

// dialRaw opens a TCP connection that the test drives byte by byte.
func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, eventually)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rawHealth sends GET /healthz on c and reads the answer.
func rawHealth(t *testing.T, c net.Conn, br *bufio.Reader) {
	t.Helper()
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(eventually))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("healthz answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "OK" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, b)
	}
}

// waitClosed reads c until the server closes it, failing if it is still
// open after eventually.
func waitClosed(t *testing.T, c net.Conn, r io.Reader) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(eventually))
	_, err := io.Copy(io.Discard, r)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %v", eventually)
	}
}

// TestSlowBodyIsCut sends the headers of a request and then only part of
// its body: the server answers 408 and closes the connection once
// ReadTimeout has passed (the header timeout, 10 s, does not apply).
func TestSlowBodyIsCut(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	addr := startServe(t, NewServer(m, ServerConfig{ReadTimeout: 200 * time.Millisecond}))
	c := dialRaw(t, addr)
	if _, err := io.WriteString(c, "POST /step HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"+
		"Content-Length: 100\r\n\r\n{\"instance_id\":"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(eventually))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "timed out reading the request body") {
		t.Fatalf("stalled body: %d %s", resp.StatusCode, body)
	}
	waitClosed(t, c, br)
}

// TestIdleConnectionClosed keeps a keep-alive connection idle after one
// request: the server closes it after ConnIdleTimeout.
func TestIdleConnectionClosed(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	addr := startServe(t, NewServer(m, ServerConfig{ConnIdleTimeout: 200 * time.Millisecond}))
	c := dialRaw(t, addr)
	br := bufio.NewReader(c)
	rawHealth(t, c, br)
	waitClosed(t, c, br)
}

// TestMaxConnections holds MaxConnections idle connections open: one more
// is not served until one of them closes.
func TestMaxConnections(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	addr := startServe(t, NewServer(m, ServerConfig{MaxConnections: 2, ConnIdleTimeout: -1}))
	var held []net.Conn
	for range 2 {
		c := dialRaw(t, addr)
		rawHealth(t, c, bufio.NewReader(c))
		held = append(held, c)
	}
	third := dialRaw(t, addr) // the kernel accepts it; the server does not
	if _, err := io.WriteString(third, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = third.SetReadDeadline(time.Now().Add(quiet))
	var one [1]byte
	if n, err := third.Read(one[:]); n > 0 || err == nil {
		t.Fatal("a connection beyond MaxConnections was served")
	}
	held[0].Close()
	_ = third.SetReadDeadline(time.Now().Add(eventually))
	resp, err := http.ReadResponse(bufio.NewReader(third), nil)
	if err != nil {
		t.Fatalf("the waiting connection was not served once one closed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
}

// TestLongStepOutlastsTimeouts runs a step far longer than ReadTimeout,
// WriteTimeout and ConnIdleTimeout: it completes and its answer arrives.
func TestLongStepOutlastsTimeouts(t *testing.T) {
	m, env := newTestManager(t, ManagerConfig{})
	mustCreate(t, m, "t1", "a")
	const short = 50 * time.Millisecond
	addr := startServe(t, NewServer(m, ServerConfig{ReadTimeout: short, WriteTimeout: short, ConnIdleTimeout: short}))
	type result struct {
		code int
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Post("http://"+addr+"/step", "application/json",
			strings.NewReader(`{"instance_id":"a","messages":{"content":"block"}}`))
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- result{code: resp.StatusCode, body: string(b)}
	}()
	<-env.entered
	time.Sleep(10 * short) // every timeout has passed; the step goes on
	env.unblock()
	r := <-got
	if r.err != nil || r.code != 200 || !strings.Contains(r.body, "BLOCK") {
		t.Fatalf("long step: %d %q %v", r.code, r.body, r.err)
	}
}

// doAuth sends one request with the given Authorization header values.
func doAuth(h http.Handler, method, path, body string, auth ...string) *http.Response {
	r, _ := http.NewRequest(method, "http://test"+path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for _, a := range auth {
		r.Header.Add("Authorization", a)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func TestTokenAuth(t *testing.T) {
	const token = "s3cret-token-0123456789"
	tests := []struct {
		name       string
		method     string
		path       string
		auth       []string
		wantStatus int
		wantDetail string
		challenge  string // substring of WWW-Authenticate on a 401
	}{
		{"healthz open", "GET", "/healthz", nil, 200, "", ""},
		{"healthz wrong token still open", "GET", "/healthz", []string{"Bearer nope"}, 200, "", ""},
		{"missing", "POST", "/create", nil, 401, detailNoToken, `Bearer realm="` + authRealm + `"`},
		{"wrong", "POST", "/create", []string{"Bearer nope"}, 401, detailBadToken, `error="invalid_token"`},
		{"prefix of the token", "POST", "/create", []string{"Bearer " + token[:5]}, 401, detailBadToken, "invalid_token"},
		{"token with a suffix", "POST", "/create", []string{"Bearer " + token + "x"}, 401, detailBadToken, "invalid_token"},
		{"basic scheme", "POST", "/step", []string{"Basic " + token}, 401, detailBadToken, "invalid_token"},
		{"bare token", "POST", "/step", []string{token}, 401, detailBadToken, "invalid_token"},
		{"empty bearer", "POST", "/step", []string{"Bearer "}, 401, detailBadToken, "invalid_token"},
		{"two headers", "POST", "/step", []string{"Bearer " + token, "Bearer " + token}, 401, detailBadToken, "invalid_token"},
		{"unknown route hidden", "POST", "/nope", nil, 401, detailNoToken, "Bearer"},
		{"get on post route hidden", "GET", "/release", nil, 401, detailNoToken, "Bearer"},
		{"right", "POST", "/create", []string{"Bearer " + token}, 200, "", ""},
		{"scheme case and spaces", "POST", "/create", []string{"bearer   " + token + " "}, 200, "", ""},
		{"unknown route with token", "POST", "/nope", []string{"Bearer " + token}, 404, "Not Found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestManager(t, ManagerConfig{})
			h := NewServer(m, ServerConfig{Token: token})
			resp := doAuth(h, tt.method, tt.path, `{"env_type":"test","task_id":"t1","instance_id":"mine"}`, tt.auth...)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			if bytes.Contains(body, []byte(token[:8])) || strings.Contains(resp.Header.Get("WWW-Authenticate"), token[:8]) {
				t.Fatalf("the answer repeats the token: %s", body)
			}
			if tt.wantDetail != "" {
				var d detailBody
				if err := json.Unmarshal(body, &d); err != nil || d.Detail != tt.wantDetail {
					t.Fatalf("body %s, want detail %q", body, tt.wantDetail)
				}
			}
			if tt.challenge != "" && !strings.Contains(resp.Header.Get("WWW-Authenticate"), tt.challenge) {
				t.Fatalf("WWW-Authenticate %q lacks %q", resp.Header.Get("WWW-Authenticate"), tt.challenge)
			}
			if tt.wantStatus == 401 && m.Stats().Created != 0 {
				t.Fatal("an unauthenticated create made an instance")
			}
			if tt.wantStatus == 200 && tt.path == "/create" && !strings.Contains(string(body), `"instance_id":"mine"`) {
				t.Fatalf("a caller with the token is trusted, but its id was not kept: %s", body)
			}
		})
	}
}

// lockedBuffer is a log sink safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTokenWithClient drives a token-protected Serve with envclient: the
// right token works and keeps the caller's id, a missing or wrong one is
// ErrUnauthorized after one attempt, even with Fallback, and no log line of
// either side holds the token.
func TestTokenWithClient(t *testing.T) {
	const token = "0123456789abcdef-very-secret"
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m, _ := newTestManager(t, ManagerConfig{Logger: logger})
	addr := startServe(t, NewServer(m, ServerConfig{Token: token, Logger: logger}))
	base := "http://" + addr
	ctx := t.Context()

	client := func(tok string, fallback bool) *envclient.Client {
		c, err := envclient.New(envclient.Config{BaseURL: base, EnvType: "test", Token: tok, Fallback: fallback,
			BackoffMin: time.Millisecond, Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	good := client(token, false)
	init, err := good.Create(ctx, "test", "t1", "mine", nil)
	if err != nil || init.InstanceID() != "mine" {
		t.Fatalf("create with the token: id %q, %v", init.InstanceID(), err)
	}
	if _, err := good.Step(ctx, "mine", agentevolver.Message{Content: "hi"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		tok      string
		fallback bool
	}{{"no token", "", false}, {"wrong token", "wrong-token-wrong-token", false}, {"no token with fallback", "", true}} {
		c := client(tc.tok, tc.fallback)
		if err := c.Health(ctx); err != nil {
			t.Errorf("%s: /healthz: %v", tc.name, err)
		}
		_, err := c.Step(ctx, "mine", agentevolver.Message{Content: "hi"}, nil)
		var se *envclient.StatusError
		if !errors.Is(err, envclient.ErrUnauthorized) || !errors.As(err, &se) || se.Attempts != 1 || se.StatusCode != 401 {
			t.Errorf("%s: step = %v, want ErrUnauthorized after one attempt", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), "token") {
			t.Errorf("%s: message %q does not say to pass the token", tc.name, err)
		}
	}
	if released, err := good.Release(ctx, "mine"); err != nil || !released {
		t.Fatalf("release: %v %v", released, err)
	}
	if strings.Contains(logs.String(), token) {
		t.Fatalf("the token was logged:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "token_required=true") {
		t.Fatalf("the listening log does not say a token is required:\n%s", logs.String())
	}
}

// TestServeRejectsConfig checks the configurations Serve refuses before
// serving; it still closes the listener and releases the instances.
func TestServeRejectsConfig(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"token with a space", ServerConfig{Token: "two words"}, "Token must be printable ASCII"},
		{"token with a newline", ServerConfig{Token: "tok\n"}, "Token must be printable ASCII"},
		{"cert without key", ServerConfig{TLSCertFile: bad}, "must be set together"},
		{"unreadable pair", ServerConfig{TLSCertFile: bad, TLSKeyFile: bad}, "loading the TLS certificate"},
	}
	for _, tt := range tests {
		m, env := newTestManager(t, ManagerConfig{})
		mustCreate(t, m, "t1", "a")
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		err = NewServer(m, tt.cfg).Serve(context.Background(), ln)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Serve = %v, want %q", tt.name, err, tt.want)
		}
		if strings.Contains(tt.name, "token") && strings.Contains(err.Error(), tt.cfg.Token) {
			t.Errorf("%s: the error repeats the token", tt.name)
		}
		if _, err := ln.Accept(); err == nil {
			t.Errorf("%s: listener left open", tt.name)
		}
		if env.closed.Load() != 1 {
			t.Errorf("%s: instances not released", tt.name)
		}
	}
}

// selfSigned makes a self-signed certificate for 127.0.0.1 and localhost,
// returning its PEM files and the parsed certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "envservice test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, cert
}

// TestTLSRoundTrip serves HTTPS with a certificate made in the test, once
// from files and once from a tls.Config, and plays an episode with
// envclient trusting it through CAFile and through TLSConfig. A client that
// does not trust it fails at once, without retrying.
func TestTLSRoundTrip(t *testing.T) {
	certFile, keyFile, cert := selfSigned(t)
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	tests := []struct {
		name   string
		server ServerConfig
		client envclient.Config
	}{
		{"files", ServerConfig{TLSCertFile: certFile, TLSKeyFile: keyFile}, envclient.Config{CAFile: certFile}},
		{"tls.Config", ServerConfig{TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}}},
			envclient.Config{TLSConfig: &tls.Config{RootCAs: pool}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestManager(t, ManagerConfig{})
			addr := startServe(t, NewServer(m, tt.server))
			cfg := tt.client
			cfg.BaseURL, cfg.EnvType = "https://"+addr, "test"
			c, err := envclient.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if err := c.Health(ctx); err != nil {
				t.Fatal(err)
			}
			init, err := c.Create(ctx, "test", "t1", "", nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Step(ctx, init.InstanceID(), agentevolver.Message{Content: "done"}, nil)
			if err != nil || !res.IsTerminated {
				t.Fatalf("step over TLS: %+v %v", res, err)
			}
			if released, err := c.Release(ctx, init.InstanceID()); err != nil || !released {
				t.Fatalf("release over TLS: %v %v", released, err)
			}

			untrusting, err := envclient.New(envclient.Config{BaseURL: "https://" + addr, BackoffMin: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			err = untrusting.Health(ctx)
			var te *envclient.TransportError
			var verify *tls.CertificateVerificationError
			if !errors.As(err, &te) || te.Attempts != 1 || !errors.As(err, &verify) {
				t.Fatalf("client without the CA: %v, want one failed attempt with a certificate error", err)
			}
		})
	}
}

var mintedID = regexp.MustCompile(`^exp_\d+_[0-9a-f]{32}$`)

// TestMintedIDs checks which creates keep the id they name: by default
// none (the server mints one and returns it); with TrustClientIDs all.
func TestMintedIDs(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	h := NewServer(m, ServerConfig{})
	seen := map[string]bool{}
	for _, body := range []string{
		`{"env_type":"test","task_id":"t1","instance_id":"mine"}`,
		`{"env_type":"test","task_id":"t1","instance_id":"mine"}`, // no clash: the id is not used
		`{"env_type":"test","task_id":"t1"}`,
	} {
		w := do(h, "POST", "/create", body)
		if w.Code != 200 {
			t.Fatalf("create: %d %s", w.Code, w.Body)
		}
		var rep struct {
			Data envclient.InitState `json:"data"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		id := rep.Data.InstanceID()
		if !mintedID.MatchString(id) || seen[id] {
			t.Fatalf("untrusted create got id %q, want a fresh minted one", id)
		}
		seen[id] = true
		if w := do(h, "POST", "/step", `{"instance_id":"`+id+`","messages":{"content":"x"}}`); w.Code != 200 {
			t.Fatalf("step on the minted id: %d %s", w.Code, w.Body)
		}
	}
	if w := do(h, "POST", "/step", `{"instance_id":"mine","messages":{"content":"x"}}`); w.Code != 400 ||
		!strings.Contains(w.Body.String(), "not found") {
		t.Fatalf("the id the client named reached an instance: %d %s", w.Code, w.Body)
	}

	trusted := NewServer(m, ServerConfig{TrustClientIDs: true})
	if w := do(trusted, "POST", "/create", `{"env_type":"test","task_id":"t1","instance_id":"mine"}`); w.Code != 200 ||
		!strings.Contains(w.Body.String(), `"instance_id":"mine"`) {
		t.Fatalf("trusted create: %d %s", w.Code, w.Body)
	}
}

// TestClientUsesMintedID plays an episode with envclient against an
// untrusting server: Create names an id, gets another, and the episode runs
// on the one it got.
func TestClientUsesMintedID(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	addr := startServe(t, NewServer(m, ServerConfig{}))
	c, err := envclient.New(envclient.Config{BaseURL: "http://" + addr, EnvType: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	init, err := c.Create(ctx, "test", "t1", "chosen-by-client", nil)
	if err != nil {
		t.Fatal(err)
	}
	id := init.InstanceID()
	if !mintedID.MatchString(id) {
		t.Fatalf("Create returned id %q, want the server's", id)
	}
	if _, err := c.Step(ctx, id, agentevolver.Message{Content: "done"}, nil); err != nil {
		t.Fatal(err)
	}
	if released, err := c.Release(ctx, id); err != nil || !released {
		t.Fatalf("release: %v %v", released, err)
	}
}

// TestCancelledCreateLeaksNothing gives up on a create while the
// environment builds the instance (and ignores the cancellation): the server
// releases the instance, whose id the client never learnt.
func TestCancelledCreateLeaksNothing(t *testing.T) {
	for _, cfg := range []ServerConfig{{}, {TrustClientIDs: true}} {
		m, env := newTestManager(t, ManagerConfig{})
		addr := startServe(t, NewServer(m, cfg))
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/create",
				strings.NewReader(`{"env_type":"test","task_id":"hold-new","instance_id":"gone"}`))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			errc <- err
		}()
		<-env.entered // the environment is building the instance
		cancel()
		if err := <-errc; err == nil {
			t.Fatal("the cancelled create got an answer")
		}
		deadline := time.Now().Add(eventually)
		for m.Stats() != (Stats{Created: 1, Released: 1}) {
			if time.Now().After(deadline) {
				t.Fatalf("trusted %v: stats %+v, want the instance created and released", cfg.TrustClientIDs, m.Stats())
			}
			time.Sleep(5 * time.Millisecond)
		}
		if env.closed.Load() != 1 {
			t.Fatalf("trusted %v: %d instances closed, want 1", cfg.TrustClientIDs, env.closed.Load())
		}
	}
}

// TestDeliveredCreateIsKept checks the other side of the rule: a create
// whose answer went out keeps its instance.
func TestDeliveredCreateIsKept(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	addr := startServe(t, NewServer(m, ServerConfig{}))
	resp, err := http.Post("http://"+addr+"/create", "application/json", strings.NewReader(`{"env_type":"test","task_id":"t1"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength <= 0 {
		t.Fatalf("create: %d, Content-Length %d", resp.StatusCode, resp.ContentLength)
	}
	time.Sleep(quiet) // a wrongful release would have happened by now
	if st := m.Stats(); st.Live != 1 || st.Released != 0 {
		t.Fatalf("stats %+v, want the instance kept", st)
	}
}

// TestBearerToken checks the Authorization parser on its own.
func TestBearerToken(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER  abc  ", "abc", true},
		{" Bearer abc", "abc", true},
		{"Bearer a+b/c=", "a+b/c=", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Bearer a b", "", false},
		{"Basic abc", "", false},
		{"Bearerabc", "", false},
		{"abc", "", false},
		{"", "", false},
		{"Bearer ab\x00c", "", false},
		{"Bearer é", "", false},
	}
	for _, tt := range tests {
		got, ok := bearerToken(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("bearerToken(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
