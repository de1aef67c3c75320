//go:build unix

package mcp_test

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/org/agentevolver/envs/mcp"
)

// TestStreamableHTTP plays the everything server's tasks over streamable
// HTTP: one shared server (started by the test), one MCP session per
// instance.
func TestStreamableHTTP(t *testing.T) {
	bin := npmServer(t, "everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(cmd.Environ(), fmt.Sprint("PORT=", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the HTTP server did not come up: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	before := len(children(t))
	rec := &recordingRoundTripper{}
	env := newNPMEnv(t, "everything", func(c *mcp.Config) {
		c.Server = mcp.Server{URL: url, Headers: map[string]string{"X-Test-Header": "yes"}, HTTPClient: &http.Client{Transport: rec}}
	})
	for _, id := range []string{"ev-echo", "ev-sum"} {
		if r, s, d := playExpert(t, env, id); r != 1 || s != 1 || d != 1 {
			t.Errorf("%s over HTTP: %v %v %v", id, r, s, d)
		}
	}
	inst, err := env.New(t.Context(), "ev-echo", "http", nil)
	if err != nil {
		t.Fatal(err)
	}
	if inst.(*mcp.Instance).Pid() != 0 {
		t.Error("an HTTP instance reports a process")
	}
	res, err := inst.Step(t.Context(), call("shout", nil), nil)
	if err != nil || res.IsTerminated {
		t.Fatalf("unknown tool over HTTP: %+v, %v", res, err)
	}
	inst.Close()
	if got := len(children(t)); got != before {
		t.Errorf("%d children, want %d: HTTP instances start no process", got, before)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.requests == 0 || rec.withoutHeader != 0 {
		t.Errorf("%d requests, %d without Server.Headers", rec.requests, rec.withoutHeader)
	}
	if rec.deletes < 3 {
		t.Errorf("%d DELETEs, want one per closed session (3 or more)", rec.deletes)
	}
}

// recordingRoundTripper counts the requests, those lacking X-Test-Header
// and the DELETEs that end sessions.
type recordingRoundTripper struct {
	mu                               sync.Mutex
	requests, withoutHeader, deletes int
}

func (r *recordingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.requests++
	if req.Header.Get("X-Test-Header") != "yes" {
		r.withoutHeader++
	}
	if req.Method == http.MethodDelete {
		r.deletes++
	}
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}
