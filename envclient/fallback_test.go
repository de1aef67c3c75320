package envclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

// TestFallback checks that, with Config.Fallback, every method returns the
// reference standalone client's placeholder (env_service/env_client.py; see
// reference §1.3(b)) and logs the substitution.
func TestFallback(t *testing.T) {
	tests := []struct {
		name  string
		route string
		call  func(context.Context, *Client) (any, error)
		want  string // the reference payload
	}{
		{
			name:  "task ids",
			route: RouteEnvProfile,
			call:  func(ctx context.Context, c *Client) (any, error) { return c.TaskIDs(ctx, "e", "train") },
			want:  `[]`,
		},
		{
			name:  "info",
			route: RouteInfo,
			call:  func(ctx context.Context, c *Client) (any, error) { return c.Info(ctx, "i1", nil) },
			want:  `null`,
		},
		{
			name:  "create",
			route: RouteCreate,
			call:  func(ctx context.Context, c *Client) (any, error) { return c.Create(ctx, "e", "t1", "i1", nil) },
			want: `{"state":[{"role":"system","content":"create query failed, this is a empty task."},{"role":"user","content":"create failed, this is a empty task,please close this task."}],` +
				`"reward":0,"is_terminated":false,"info":{"instance_id":"i1","task_id":"t1"}}`,
		},
		{
			name:  "create without ids",
			route: RouteCreate,
			call:  func(ctx context.Context, c *Client) (any, error) { return c.Create(ctx, "e", "", "", nil) },
			want: `{"state":[{"role":"system","content":"create query failed, this is a empty task."},{"role":"user","content":"create failed, this is a empty task,please close this task."}],` +
				`"reward":0,"is_terminated":false,"info":{"instance_id":"","task_id":""}}`,
		},
		{
			name:  "step",
			route: RouteStep,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Step(ctx, "i1", agentevolver.Message{Content: "x"}, nil)
			},
			want: `{"state":[{"role":"assistant","content":"Step failed (timeout or exception),please retry"}],"reward":0,"is_terminated":false,"info":{"instance_id":"i1","task_id":""}}`,
		},
		{
			name:  "evaluate",
			route: RouteEvaluate,
			call:  func(ctx context.Context, c *Client) (any, error) { return c.Evaluate(ctx, "i1", nil) },
			want:  `0.0`,
		},
		{
			name:  "release",
			route: RouteRelease,
			call:  func(ctx context.Context, c *Client) (any, error) { return c.Release(ctx, "i1") },
			want:  `false`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, func(w http.ResponseWriter, r recordedRequest) {
				writeBody(w, http.StatusInternalServerError, `{"detail": "Traceback ..."}`)
			})
			var logs bytes.Buffer
			cfg := testConfig(srv.URL)
			cfg.Fallback = true
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			got, err := tt.call(t.Context(), newTestClient(t, cfg))
			if err != nil {
				t.Fatalf("err = %v, want the fallback", err)
			}
			want := []byte(tt.want)
			if s, ok := got.(InitState); ok {
				// InitState has no reward or is_terminated; the reference
				// create placeholder's are 0 and false.
				var full struct {
					InitState
					Reward       float64 `json:"reward"`
					IsTerminated bool    `json:"is_terminated"`
				}
				full.InitState = s
				got = full
			}
			if !jsonEqual(t, mustJSON(t, got), want) {
				t.Errorf("fallback = %s, want %s", mustJSON(t, got), want)
			}
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), tt.route) {
				t.Errorf("fallback not logged as a warning naming %s: %q", tt.route, logs.String())
			}
		})
	}
}

// TestFallbackOnBadResponse checks that undecodable answers also fall back,
// as the reference client never raises.
func TestFallbackOnBadResponse(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r recordedRequest) { writeBody(w, 200, `{"success": true}`) })
	cfg := testConfig(srv.URL)
	cfg.Fallback = true
	c := newTestClient(t, cfg)
	if score, err := c.Evaluate(t.Context(), "i", nil); err != nil || score != 0 {
		t.Errorf("Evaluate = %v, %v; want 0, nil", score, err)
	}
	if ids, err := c.TaskIDs(t.Context(), "e", ""); err != nil || ids == nil || len(ids) != 0 {
		t.Errorf("TaskIDs = %#v, %v; want [], nil", ids, err)
	}
}

// TestNoFallbackByDefault checks that the placeholder is never silent.
func TestNoFallbackByDefault(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r recordedRequest) { writeBody(w, 500, `{"detail": "boom"}`) })
	_, err := newTestClient(t, testConfig(srv.URL)).Step(t.Context(), "i", agentevolver.Message{Content: "x"}, nil)
	if !errors.Is(err, ErrServer) {
		t.Fatalf("err = %v, want ErrServer", err)
	}
}

// TestFallbackPayloadsAreFresh checks that callers cannot alter later
// placeholders through a returned one.
func TestFallbackPayloadsAreFresh(t *testing.T) {
	a := fallbackStepResult("i")
	a.Info["task_id"] = "mutated"
	a.State[0].Content = "mutated"
	b := fallbackStepResult("i")
	if b.Info["task_id"] != "" || strings.Contains(b.State[0].Content, "mutated") {
		t.Error("fallback step result shares state between calls")
	}
	var raw json.RawMessage = fallbackInfo()
	raw[0] = 'x'
	if string(fallbackInfo()) != "null" {
		t.Error("fallback info shares its bytes")
	}
}
