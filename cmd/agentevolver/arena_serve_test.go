package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/org/agentevolver/arena/web"
)

// TestArenaServe starts the server on a free port, reads the options the
// page offers (the built-ins and a --model) and stops it by cancelling.
func TestArenaServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"arena", "serve", "--addr", "127.0.0.1:0", "--model", "mine=random:7", "--model", "ep=openai:m@http://127.0.0.1:9/v1"}, nil, pw, io.Discard)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatal("no output")
	}
	first := lines.Text()
	go func() {
		for lines.Scan() {
		}
	}()
	_, rest, ok := strings.Cut(first, "http://")
	if !ok {
		t.Fatalf("first line %q", first)
	}
	base := "http://" + strings.Fields(rest)[0]
	resp, err := http.Get(base + "api/options")
	if err != nil {
		t.Fatal(err)
	}
	var opts web.PageOptions
	err = json.NewDecoder(resp.Body).Decode(&opts)
	resp.Body.Close()
	if err != nil || strings.Join(opts.Models, ",") != "informed,random,saboteur,cautious,mine,ep" {
		t.Fatalf("options %+v %v", opts, err)
	}
	// Diplomacy offers its bots and the endpoint; the Avalon baseline
	// "mine" only plays Avalon.
	resp, err = http.Get(base + "api/diplomacy/options")
	if err != nil {
		t.Fatal(err)
	}
	var dopts web.DipPageOptions
	err = json.NewDecoder(resp.Body).Decode(&dopts)
	resp.Body.Close()
	if err != nil || strings.Join(dopts.Models, ",") != "random,greedy,ep" || len(dopts.Powers) != 7 {
		t.Fatalf("diplomacy options %+v %v", dopts, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on cancel")
	}
	for _, bad := range [][]string{
		{"arena", "serve", "--model", "x=alien"},
		{"arena", "serve", "--max-games", "0"},
		{"arena", "serve", "--person-timeout", "0s"},
		{"arena", "serve", "--answer-timeout", "0s", "--addr", "127.0.0.1:0"},
		{"arena", "serve", "--max-person-games", "0", "--addr", "127.0.0.1:0"},
		{"arena", "serve", "--read-timeout", "0s", "--addr", "127.0.0.1:0"},
		{"arena", "serve", "--max-connections", "0", "--addr", "127.0.0.1:0"},
		{"arena", "serve", "--allow-host", "[", "--addr", "127.0.0.1:0"},
		{"arena", "serve", "--allow-origin", "[", "--addr", "127.0.0.1:0"},
		{"arena", "serve", "extra"},
	} {
		// A command that wrongly starts serving stops after a while and
		// reports success.
		bctx, bcancel := context.WithTimeout(context.Background(), 3*time.Second)
		code := run(bctx, bad, nil, io.Discard, io.Discard)
		bcancel()
		if code == 0 {
			t.Errorf("%v succeeded", bad)
		}
	}
}

// startArenaServe runs "arena serve" with args on a free loopback port and
// returns its address (host:port); the server stops at the end of the
// test.
func startArenaServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"arena", "serve", "--addr", "127.0.0.1:0"}, args...), nil, pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("arena serve exit %d", code)
			}
		case <-time.After(10 * time.Second):
			t.Error("arena serve did not stop on cancel")
		}
	})
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatal("no output")
	}
	first := lines.Text()
	go func() {
		for lines.Scan() {
		}
	}()
	_, rest, ok := strings.Cut(first, "http://")
	if !ok {
		t.Fatalf("first line %q", first)
	}
	return strings.TrimSuffix(strings.Fields(rest)[0], "/")
}

// rawGet sends a GET of path on conn (keep-alive) and reads the answer's
// status line and headers.
func rawGet(t *testing.T, conn net.Conn, r *bufio.Reader, addr, path string) *http.Response {
	t.Helper()
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestArenaServeTimeouts: a client that stalls mid-body is cut off after
// --read-timeout, an idle keep-alive connection is closed after
// --conn-idle-timeout (before, only the header read was bounded).
func TestArenaServeTimeouts(t *testing.T) {
	addr := startArenaServe(t, "--read-timeout", "300ms", "--conn-idle-timeout", "300ms")
	// A body that never arrives.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/games HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", addr)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("stalled body: the server kept the connection (%v; read %q)", err, b)
	}
	if got := string(b); got != "" && !strings.HasPrefix(got, "HTTP/1.1 4") {
		t.Fatalf("stalled body answered %q", got)
	}
	t.Logf("stalled body: closed after %v", time.Since(start).Round(time.Millisecond))
	// An idle keep-alive connection.
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	r := bufio.NewReader(idle)
	if resp := rawGet(t, idle, r, addr, "/api/options"); resp.StatusCode != http.StatusOK {
		t.Fatalf("options: %s", resp.Status)
	}
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatalf("idle connection: %v, want the server to close it", err)
	}
}

// TestArenaServeMaxConnections: with --max-connections 1 a second
// connection is not served while the first is open, and is served once it
// closes.
func TestArenaServeMaxConnections(t *testing.T) {
	addr := startArenaServe(t, "--max-connections", "1")
	first, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	r1 := bufio.NewReader(first)
	if resp := rawGet(t, first, r1, addr, "/api/options"); resp.StatusCode != http.StatusOK {
		t.Fatalf("first: %s", resp.Status)
	}
	second, err := net.Dial("tcp", addr) // accepted by the kernel, waits in the backlog
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	fmt.Fprintf(second, "GET /api/options HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	second.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	r2 := bufio.NewReader(second)
	if _, err := r2.ReadByte(); err == nil {
		t.Fatal("a second connection was served beyond --max-connections 1")
	}
	first.Close()
	second.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(r2, nil)
	if err != nil {
		t.Fatalf("second connection after the first closed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("second: %s", resp.Status)
	}
}

// TestArenaServeAllowHost: a foreign Host is refused (DNS rebinding) unless
// --allow-host names it; the listen address and localhost with its port
// pass.
func TestArenaServeAllowHost(t *testing.T) {
	addr := startArenaServe(t, "--allow-host", "arena.example")
	_, port, _ := net.SplitHostPort(addr)
	for _, tc := range []struct {
		host string
		want int
	}{
		{addr, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"arena.example:" + port, http.StatusOK},
		{"evil.example:" + port, http.StatusForbidden},
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		resp := rawGet(t, conn, bufio.NewReader(conn), tc.host, "/api/games")
		conn.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %s: %s, want %d", tc.host, resp.Status, tc.want)
		}
	}
}
