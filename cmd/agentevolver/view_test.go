package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/runview"
)

// TestViewServesRuns: `agentevolver view DIR --addr 127.0.0.1:0` prints its
// URL, lists the run, refuses a foreign Host and stops on cancel.
func TestViewServesRuns(t *testing.T) {
	dir := t.TempDir()
	w, err := runlog.NewMetricsWriter(filepath.Join(dir, "run", "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(1, map[string]float64{"reward/mean": 0.5})
	w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runView(ctx, []string{dir, "--addr", "127.0.0.1:0"}, outW, &stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no address line: %v (stderr %s)", err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	rest, ok := strings.CutPrefix(line, "view: serving ")
	base, _, _ := strings.Cut(rest, " ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	resp, err := http.Get(base + "api/runs")
	if err != nil {
		t.Fatal(err)
	}
	var runs []runview.Run
	err = json.NewDecoder(resp.Body).Decode(&runs)
	resp.Body.Close()
	if err != nil || len(runs) != 1 || runs[0].ID != "0/run" {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"api/runs", nil)
	req.Host = "rebound.example"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("view did not stop")
	}
}

func TestViewErrors(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := runView(context.Background(), nil, &out, &errOut); err == nil || !strings.Contains(err.Error(), "RUN_DIR") {
		t.Errorf("no dir: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	if err := runView(context.Background(), []string{missing}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing dir: %v", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o644)
	if err := runView(context.Background(), []string{f}, &out, &errOut); err == nil {
		t.Error("a file was accepted as a run directory")
	}
}
