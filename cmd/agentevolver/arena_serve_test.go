package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
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
		done <- run(ctx, []string{"arena", "serve", "--addr", "127.0.0.1:0", "--model", "mine=random:7"}, nil, pw, io.Discard)
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
	if err != nil || strings.Join(opts.Models, ",") != "informed,random,saboteur,cautious,mine" {
		t.Fatalf("options %+v %v", opts, err)
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
		{"arena", "serve", "--allow-origin", "[", "--addr", "127.0.0.1:0"},
		{"arena", "serve", "extra"},
	} {
		if code := run(context.Background(), bad, nil, io.Discard, io.Discard); code == 0 {
			t.Errorf("%v succeeded", bad)
		}
	}
}
