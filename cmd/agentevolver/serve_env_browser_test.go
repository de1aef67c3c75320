package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/textgame"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

// TestServeEnvRefusesBrowsers: a web page's no-cors fetch creates
// nothing; --allowed-origin admits a named site; the Go client works.
func TestServeEnvRefusesBrowsers(t *testing.T) {
	base, stop := startServeEnv(t, []string{"--addr", "127.0.0.1:0", "--env", "toolworld", "--log-level", "warn",
		"--allowed-origin", "https://dash.example"}, nil)
	ctx := t.Context()
	c, err := envclient.New(envclient.Config{BaseURL: base, EnvType: toolworld.Name, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := c.TaskIDs(ctx, toolworld.Name, toolworld.SplitVal)
	if err != nil || len(ids) == 0 {
		t.Fatalf("TaskIDs = %v, %v", ids, err)
	}
	body := `{"env_type":"toolworld","task_id":"` + ids[0] + `"}`
	send := func(contentType, origin string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/create", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		contentType, origin string
		want                int
	}{
		{"text/plain;charset=UTF-8", "https://evil.example", http.StatusForbidden},
		{"application/json", "https://evil.example", http.StatusForbidden},
		{"text/plain;charset=UTF-8", "", http.StatusUnsupportedMediaType},
		{"application/json", "https://dash.example", http.StatusOK},
		{"application/json", "", http.StatusOK},
	} {
		if got := send(tc.contentType, tc.origin); got != tc.want {
			t.Errorf("Content-Type %q, Origin %q: %d, want %d", tc.contentType, tc.origin, got, tc.want)
		}
	}
	if _, err := c.Create(ctx, toolworld.Name, ids[0], "", nil); err != nil {
		t.Fatalf("envclient create: %v", err)
	}
	if err, logs := stop(); err != nil {
		t.Fatalf("serve-env returned %v (stderr %s)", err, logs)
	}
}

// TestServeEnvProcessLimit: textgame instances are processes, held to
// --max-process-instances (default DefaultMaxProcessInstances, far below
// --max-instances).
func TestServeEnvProcessLimit(t *testing.T) {
	var out, usage bytes.Buffer
	_ = serveEnv(context.Background(), []string{"-h"}, func(string) string { return "" }, &out, &usage)
	if !strings.Contains(usage.String(), "-max-process-instances int") ||
		!strings.Contains(usage.String(), "(default "+strconv.Itoa(envservice.DefaultMaxProcessInstances)+")") {
		t.Errorf("usage does not show the process limit's default:\n%s", usage.String())
	}
	if envservice.DefaultMaxProcessInstances >= envservice.DefaultMaxInstances/10 {
		t.Errorf("DefaultMaxProcessInstances %d is not well below DefaultMaxInstances", envservice.DefaultMaxProcessInstances)
	}
	if _, err := textgame.FindBinary(textgame.DefaultBinary); err != nil {
		t.Skipf("textgame needs open-adventure: %v", err)
	}
	base, stop := startServeEnv(t, []string{"--addr", "127.0.0.1:0", "--env", "textgame,toolworld", "--log-level", "warn",
		"--max-process-instances", "2"}, nil)
	ctx := t.Context()
	c, err := envclient.New(envclient.Config{BaseURL: base, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := c.TaskIDs(ctx, textgame.Name, "train")
	if err != nil || len(ids) == 0 {
		t.Fatalf("TaskIDs = %v, %v", ids, err)
	}
	for i := range 2 {
		if _, err := c.Create(ctx, textgame.Name, ids[0], "", nil); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	if _, err := c.Create(ctx, textgame.Name, ids[0], "", nil); !errors.Is(err, envclient.ErrTooManyInstances) {
		t.Fatalf("third textgame instance: %v, want 429", err)
	}
	// toolworld starts no process and is not held back.
	tw, err := c.TaskIDs(ctx, toolworld.Name, toolworld.SplitVal)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, toolworld.Name, tw[0], "", nil); err != nil {
		t.Fatalf("toolworld create: %v", err)
	}
	if err, logs := stop(); err != nil {
		t.Fatalf("serve-env returned %v (stderr %s)", err, logs)
	}
}
