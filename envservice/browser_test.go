package envservice

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// post sends one POST to the running server at addr with the given
// headers and returns its status.
func post(t *testing.T, addr, path, body string, headers map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestBrowserRequestsRefused: what a web page can send without a CORS
// preflight (fetch with mode "no-cors", an HTML form) creates nothing,
// while protocol clients, which send no Origin, are served.
func TestBrowserRequestsRefused(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	addr := startServe(t, NewServer(m, ServerConfig{AllowedOrigins: []string{"https://dash.example:8443/"}}))
	_, port, _ := net.SplitHostPort(addr)
	create := `{"env_type":"test","task_id":"t1"}`
	for _, tc := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		// fetch(url, {method: "POST", mode: "no-cors", body: "..."})
		{"no-cors fetch", map[string]string{"Content-Type": "text/plain;charset=UTF-8", "Origin": "https://evil.example"}, 403},
		{"form post", map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://evil.example"}, 403},
		// DNS rebinding: the page's origin is the attacker's name.
		{"rebinding", map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example:" + port}, 403},
		{"null origin", map[string]string{"Content-Type": "application/json", "Origin": "null"}, 403},
		{"text/plain without origin", map[string]string{"Content-Type": "text/plain"}, 415},
		{"no content type", nil, 415},
		{"json without origin", map[string]string{"Content-Type": "application/json"}, 200},
		{"json with charset", map[string]string{"Content-Type": "application/json; charset=utf-8"}, 200},
		{"localhost origin", map[string]string{"Content-Type": "application/json", "Origin": "http://localhost:3000"}, 200},
		{"listen-address origin", map[string]string{"Content-Type": "application/json", "Origin": "http://" + addr}, 200},
		{"configured origin", map[string]string{"Content-Type": "application/json", "Origin": "https://DASH.example:8443"}, 200},
		{"configured host, other port", map[string]string{"Content-Type": "application/json", "Origin": "https://dash.example"}, 403},
		{"localhost but text/plain", map[string]string{"Content-Type": "text/plain", "Origin": "http://localhost"}, 415},
	} {
		before := m.Stats().Created
		got := post(t, addr, "/create", create, tc.headers)
		if got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
		if made := m.Stats().Created - before; (made == 1) != (tc.want == 200) {
			t.Errorf("%s: %d instances created", tc.name, made)
		}
	}
	// Every protocol route is guarded, not only create.
	for _, path := range []string{"/get_env_profile", "/step", "/evaluate", "/get_info", "/release"} {
		if got := post(t, addr, path, `{"env_type":"test","instance_id":"x"}`,
			map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example"}); got != 403 {
			t.Errorf("%s from a foreign origin: %d, want 403", path, got)
		}
	}
	// The repository's client still works end to end.
	c, err := envclient.New(envclient.Config{BaseURL: "http://" + addr, EnvType: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	init, err := c.Create(ctx, "test", "t1", "", nil)
	if err != nil {
		t.Fatalf("envclient create: %v", err)
	}
	if _, err := c.Step(ctx, init.InstanceID(), agentevolver.Message{Content: "hi"}, nil); err != nil {
		t.Fatalf("envclient step: %v", err)
	}
	if ok, err := c.Release(ctx, init.InstanceID()); !ok || err != nil {
		t.Fatalf("envclient release: %v %v", ok, err)
	}
}

// processEnv is a testEnv that says it is process-backed.
type processEnv struct {
	*testEnv
	proc bool
}

func (e processEnv) ProcessBacked() bool { return e.proc }

// TestProcessInstanceLimit: process-backed environments have their own,
// lower limit, shared between them; others only the general one.
func TestProcessInstanceLimit(t *testing.T) {
	ctx := context.Background()
	m := NewManager(ManagerConfig{MaxProcessInstances: 2, MaxInstances: 5})
	t.Cleanup(func() { _ = m.Close() })
	for name, env := range map[string]Environment{
		"proc1": processEnv{newTestEnv(), true},
		"proc2": processEnv{newTestEnv(), true},
		"plain": newTestEnv(),
		"says":  processEnv{newTestEnv(), false},
	} {
		if err := m.Register(name, env); err != nil {
			t.Fatal(err)
		}
	}
	// Failed creates give their slot back.
	for range 3 {
		if _, err := m.Create(ctx, "proc1", "fail-new", "", nil); err == nil {
			t.Fatal("fail-new created")
		}
	}
	a, err := m.Create(ctx, "proc1", "t1", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, "proc2", "t1", "", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, "proc1", "t1", "", nil); !errors.Is(err, envclient.ErrTooManyInstances) {
		t.Fatalf("third process instance: %v, want ErrTooManyInstances", err)
	}
	// Environments that are not process-backed are not held back.
	for _, name := range []string{"plain", "says", "plain"} {
		if _, err := m.Create(ctx, name, "t1", "", nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// Releasing one frees a process slot; the general limit still holds.
	if _, err := m.Release(ctx, a.InstanceID()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, "proc1", "t1", "", nil); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if _, err := m.Create(ctx, "plain", "t1", "", nil); !errors.Is(err, envclient.ErrTooManyInstances) {
		t.Fatalf("beyond MaxInstances: %v", err)
	}
	if s := m.Stats(); s.Live != 5 {
		t.Fatalf("live %d", s.Live)
	}
	// The default is DefaultMaxProcessInstances.
	m2 := NewManager(ManagerConfig{})
	t.Cleanup(func() { _ = m2.Close() })
	if err := m2.Register("p", processEnv{newTestEnv(), true}); err != nil {
		t.Fatal(err)
	}
	for i := range DefaultMaxProcessInstances {
		if _, err := m2.Create(ctx, "p", "t1", "", nil); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	_, err = m2.Create(ctx, "p", "t1", "", nil)
	if !errors.Is(err, envclient.ErrTooManyInstances) {
		t.Fatalf("create beyond the default: %v", err)
	}
	if !strings.Contains(err.Error(), "process") {
		t.Fatalf("error does not say why: %v", err)
	}
}
