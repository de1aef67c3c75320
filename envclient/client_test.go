package envclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

// TestWireFormat checks, for every method, the exact request the server sees
// and the result decoded from the reference's answer.
func TestWireFormat(t *testing.T) {
	tests := []struct {
		name     string
		call     func(ctx context.Context, c *Client) (any, error)
		answer   string
		wantURI  string
		wantMeth string
		wantBody string // JSON; empty for none
		want     string // JSON of the result
	}{
		{
			name:     "task ids",
			call:     func(ctx context.Context, c *Client) (any, error) { return c.TaskIDs(ctx, "appworld", "val") },
			answer:   `{"success": true, "data": ["t1", "t2"]}`,
			wantURI:  "/get_env_profile",
			wantMeth: http.MethodPost,
			wantBody: `{"env_type":"appworld","task_id":null,"instance_id":null,"messages":{},"params":{"split":"val"}}`,
			want:     `["t1","t2"]`,
		},
		{
			name:     "task ids default env type and split",
			call:     func(ctx context.Context, c *Client) (any, error) { return c.TaskIDs(ctx, "", "") },
			answer:   `{"success": true, "data": []}`,
			wantURI:  "/get_env_profile",
			wantMeth: http.MethodPost,
			wantBody: `{"env_type":"default","task_id":null,"instance_id":null,"messages":{},"params":{"split":"train"}}`,
			want:     `[]`,
		},
		{
			name: "create server chooses id",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Create(ctx, "appworld", "t1", "", nil)
			},
			answer: `{"success": true, "data": {"state": [{"role": "system", "content": "sys"}, {"role": "user", "content": "do it"}],
				"info": {"instance_id": "exp_1700000000_abcd1234", "task_id": "t1"}}}`,
			wantURI:  "/create",
			wantMeth: http.MethodPost,
			wantBody: `{"env_type":"appworld","task_id":"t1","instance_id":null,"messages":{},"params":{}}`,
			want: `{"state":[{"role":"system","content":"sys"},{"role":"user","content":"do it"}],
				"info":{"instance_id":"exp_1700000000_abcd1234","task_id":"t1"}}`,
		},
		{
			name: "create with id fills info",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Create(ctx, "", "t1", "i1", map[string]any{"is_open_query": true})
			},
			answer:   `{"success": true, "data": {"state": [{"role": "user", "content": "q"}]}}`,
			wantURI:  "/create",
			wantMeth: http.MethodPost,
			wantBody: `{"env_type":"default","task_id":"t1","instance_id":"i1","messages":{},"params":{"is_open_query":true}}`,
			want:     `{"state":[{"role":"user","content":"q"}],"info":{"instance_id":"i1"}}`,
		},
		{
			name: "step",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Step(ctx, "i1", agentevolver.Message{Content: "```python\nprint(1)\n```"}, nil)
			},
			answer: `{"success": true, "data": {"state": [{"role": "user", "content": "Output:\n` + "```" + `\n1\n` + "```" + `\n\n"}],
				"reward": 0, "is_terminated": false, "info": {}}}`,
			wantURI:  "/step",
			wantMeth: http.MethodPost,
			wantBody: `{"env_type":"default","task_id":null,"instance_id":"i1","messages":{"role":"assistant","content":"` + "```python\\nprint(1)\\n```" + `"},"params":{}}`,
			want:     `{"state":[{"role":"user","content":"Output:\n` + "```" + `\n1\n` + "```" + `\n\n"}],"reward":0,"is_terminated":false,"info":{}}`,
		},
		{
			name: "evaluate",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Evaluate(ctx, "i1", map[string]any{"sparse": true})
			},
			answer:   `{"success": true, "data": 0.75}`,
			wantURI:  "/evaluate",
			wantMeth: http.MethodPost,
			wantBody: `{"env_type":"default","task_id":null,"instance_id":"i1","messages":{},"params":{"sparse":true}}`,
			want:     `0.75`,
		},
		{
			name:     "info",
			call:     func(ctx context.Context, c *Client) (any, error) { return c.Info(ctx, "i1", nil) },
			answer:   `{"success": true, "data": {"tools": ["a", "b"]}}`,
			wantURI:  "/get_info",
			wantMeth: http.MethodPost,
			wantBody: `{"env_type":"default","task_id":null,"instance_id":"i1","messages":{},"params":{}}`,
			want:     `{"tools":["a","b"]}`,
		},
		{
			name:     "info without data",
			call:     func(ctx context.Context, c *Client) (any, error) { return c.Info(ctx, "i1", nil) },
			answer:   `{"success": true, "data": null}`,
			wantURI:  "/get_info",
			wantMeth: http.MethodPost,
			wantBody: `{"env_type":"default","task_id":null,"instance_id":"i1","messages":{},"params":{}}`,
			want:     `null`,
		},
		{
			name:     "release",
			call:     func(ctx context.Context, c *Client) (any, error) { return c.Release(ctx, "i1") },
			answer:   `{"success": true, "data": null}`,
			wantURI:  "/release",
			wantMeth: http.MethodPost,
			wantBody: `{"env_type":"default","task_id":null,"instance_id":"i1","messages":{},"params":{}}`,
			want:     `true`,
		},
		{
			name:     "release unknown instance",
			call:     func(ctx context.Context, c *Client) (any, error) { return c.Release(ctx, "nope") },
			answer:   `{"success": false, "data": null}`,
			wantURI:  "/release",
			wantMeth: http.MethodPost,
			wantBody: `{"env_type":"default","task_id":null,"instance_id":"nope","messages":{},"params":{}}`,
			want:     `false`,
		},
		{
			name:     "health",
			call:     func(ctx context.Context, c *Client) (any, error) { return nil, c.Health(ctx) },
			answer:   `OK`,
			wantURI:  "/healthz",
			wantMeth: http.MethodGet,
			want:     `null`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := serve(t, func(w http.ResponseWriter, r recordedRequest) {
				writeBody(w, http.StatusOK, tt.answer)
			})
			c := newTestClient(t, testConfig(srv.URL))
			got, err := tt.call(t.Context(), c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if !jsonEqual(t, mustJSON(t, got), []byte(tt.want)) {
				t.Errorf("result = %s, want %s", mustJSON(t, got), tt.want)
			}
			reqs := rec.all()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != tt.wantMeth || r.RequestURI != tt.wantURI {
				t.Errorf("request = %s %s, want %s %s", r.Method, r.RequestURI, tt.wantMeth, tt.wantURI)
			}
			if tt.wantBody == "" {
				if r.Body != nil {
					t.Errorf("request body = %v, want none", r.Body)
				}
				return
			}
			if !jsonEqual(t, mustJSON(t, r.Body), []byte(tt.wantBody)) {
				t.Errorf("request body = %s, want %s", mustJSON(t, r.Body), tt.wantBody)
			}
		})
	}
}

func TestCreateUnreportedServerChosenID(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r recordedRequest) {
		writeBody(w, http.StatusOK, `{"success": true, "data": {"state": [], "info": {"task_id": "t1"}}}`)
	})
	c := newTestClient(t, testConfig(srv.URL))
	_, err := c.Create(t.Context(), "x", "t1", "", nil)
	if !errors.Is(err, ErrBadResponse) {
		t.Fatalf("err = %v, want ErrBadResponse", err)
	}
}

func TestTaskIDsDecoding(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		want    []string
		wantErr error
	}{
		{"data", `{"success": true, "data": ["a", "b"]}`, []string{"a", "b"}, nil},
		{"task_ids", `{"success": true, "task_ids": ["a"]}`, []string{"a"}, nil},
		{"data null then task_ids", `{"success": true, "data": null, "task_ids": ["z"]}`, []string{"z"}, nil},
		{"data wins", `{"success": true, "data": ["d"], "task_ids": ["t"]}`, []string{"d"}, nil},
		{"numbers", `{"success": true, "data": [12, "x", 3.5]}`, []string{"12", "x", "3.5"}, nil},
		{"empty", `{"data": []}`, []string{}, nil},
		{"neither", `{"success": true}`, nil, ErrBadResponse},
		{"not a list", `{"success": true, "data": "a"}`, nil, ErrBadResponse},
		{"object id", `{"success": true, "data": [{"id": 1}]}`, nil, ErrBadResponse},
		{"null id", `{"success": true, "data": [null]}`, nil, ErrBadResponse},
		{"success false", `{"success": false, "data": ["a"]}`, nil, ErrBadResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, func(w http.ResponseWriter, r recordedRequest) { writeBody(w, 200, tt.answer) })
			got, err := newTestClient(t, testConfig(srv.URL)).TaskIDs(t.Context(), "e", "train")
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("ids = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestEvaluateScore(t *testing.T) {
	tests := []struct {
		data    string
		want    float64
		wantErr bool
	}{
		{`0.5`, 0.5, false},
		{`1`, 1, false},
		{`0`, 0, false},
		{`-2e-1`, -0.2, false},
		{`true`, 1, false},
		{`false`, 0, false},
		{`"0.25"`, 0.25, false},
		{`" 1 "`, 1, false},
		{`"NaN"`, 0, true},
		{`"Inf"`, 0, true},
		{`"good"`, 0, true},
		{`{"score": 1}`, 0, true},
		{`[1]`, 0, true},
		{`null`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.data, func(t *testing.T) {
			srv, _ := serve(t, func(w http.ResponseWriter, r recordedRequest) {
				writeBody(w, 200, `{"success": true, "data": `+tt.data+`}`)
			})
			got, err := newTestClient(t, testConfig(srv.URL)).Evaluate(t.Context(), "i", nil)
			if tt.wantErr {
				if !errors.Is(err, ErrBadResponse) {
					t.Fatalf("err = %v, want ErrBadResponse", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Evaluate = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestMalformedAnswers checks that undecodable 200 answers are
// ErrBadResponse and are not retried.
func TestMalformedAnswers(t *testing.T) {
	tests := []struct {
		name   string
		call   func(context.Context, *Client) error
		answer string
	}{
		{"not json", func(ctx context.Context, c *Client) error { _, err := c.Evaluate(ctx, "i", nil); return err }, `{"success": tr`},
		{"html", func(ctx context.Context, c *Client) error { _, err := c.Evaluate(ctx, "i", nil); return err }, `<html>bad gateway</html>`},
		{"empty", func(ctx context.Context, c *Client) error { _, err := c.Info(ctx, "i", nil); return err }, ``},
		{"array", func(ctx context.Context, c *Client) error { _, err := c.Info(ctx, "i", nil); return err }, `[1, 2]`},
		{"trailing garbage", func(ctx context.Context, c *Client) error { _, err := c.Info(ctx, "i", nil); return err }, `{"data": 1} x`},
		{"success not bool", func(ctx context.Context, c *Client) error { _, err := c.Release(ctx, "i"); return err }, `{"success": "yes"}`},
		{"release without success", func(ctx context.Context, c *Client) error { _, err := c.Release(ctx, "i"); return err }, `{"data": null}`},
		{"step success false", func(ctx context.Context, c *Client) error {
			_, err := c.Step(ctx, "i", agentevolver.Message{Content: "x"}, nil)
			return err
		}, `{"success": false, "data": null}`},
		{"step no data", func(ctx context.Context, c *Client) error {
			_, err := c.Step(ctx, "i", agentevolver.Message{Content: "x"}, nil)
			return err
		}, `{"success": true}`},
		{"step state not a list", func(ctx context.Context, c *Client) error {
			_, err := c.Step(ctx, "i", agentevolver.Message{Content: "x"}, nil)
			return err
		}, `{"success": true, "data": {"state": "text"}}`},
		{"step reward not a number", func(ctx context.Context, c *Client) error {
			_, err := c.Step(ctx, "i", agentevolver.Message{Content: "x"}, nil)
			return err
		}, `{"success": true, "data": {"state": [], "reward": "high"}}`},
		{"create info not an object", func(ctx context.Context, c *Client) error {
			_, err := c.Create(ctx, "e", "t", "i", nil)
			return err
		}, `{"success": true, "data": {"state": [], "info": 3}}`},
		{"create message content not text", func(ctx context.Context, c *Client) error {
			_, err := c.Create(ctx, "e", "t", "i", nil)
			return err
		}, `{"success": true, "data": {"state": [{"role": "user", "content": 5}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := serve(t, func(w http.ResponseWriter, r recordedRequest) { writeBody(w, 200, tt.answer) })
			err := tt.call(t.Context(), newTestClient(t, testConfig(srv.URL)))
			if !errors.Is(err, ErrBadResponse) {
				t.Fatalf("err = %v, want ErrBadResponse", err)
			}
			if n := rec.count(); n != 1 {
				t.Errorf("server saw %d requests, want 1 (no retry)", n)
			}
		})
	}
}

func TestOversizedBody(t *testing.T) {
	big := `{"success": true, "data": "` + strings.Repeat("x", 200) + `"}`
	srv, rec := serve(t, func(w http.ResponseWriter, r recordedRequest) { writeBody(w, 200, big) })

	cfg := testConfig(srv.URL)
	cfg.MaxResponseBytes = 100
	_, err := newTestClient(t, cfg).Info(t.Context(), "i", nil)
	if !errors.Is(err, ErrBadResponse) {
		t.Fatalf("err = %v, want ErrBadResponse", err)
	}
	if n := rec.count(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}

	cfg.MaxResponseBytes = int64(len(big))
	got, err := newTestClient(t, cfg).Info(t.Context(), "i", nil)
	if err != nil || len(got) != 202 {
		t.Fatalf("body of exactly the limit: %d bytes, %v", len(got), err)
	}
}

func TestBaseURL(t *testing.T) {
	tests := []struct {
		suffix  string
		wantURI string
	}{
		{"", "/create"},
		{"/", "/create"},
		{"///", "/create"},
		{"/prefix", "/prefix/create"},
		{"/prefix/", "/prefix/create"},
		{"/a/b//", "/a/b/create"},
	}
	for _, tt := range tests {
		t.Run(tt.suffix, func(t *testing.T) {
			srv, rec := serve(t, func(w http.ResponseWriter, r recordedRequest) {
				writeBody(w, 200, `{"success": true, "data": {"state": []}}`)
			})
			c := newTestClient(t, testConfig(srv.URL+tt.suffix))
			if _, err := c.Create(t.Context(), "e", "t", "i", nil); err != nil {
				t.Fatal(err)
			}
			if got := rec.all()[0].RequestURI; got != tt.wantURI {
				t.Errorf("request URI = %q, want %q", got, tt.wantURI)
			}
		})
	}
}

func TestNewRejectsBadBaseURL(t *testing.T) {
	for _, raw := range []string{"", "127.0.0.1:8080", "ftp://h/", "http://", "http://h/?x=1", "http://h/#f", "http://h/?", "http://[::1"} {
		if _, err := New(Config{BaseURL: raw}); err == nil {
			t.Errorf("New(%q) succeeded, want an error", raw)
		}
	}
	if _, err := New(Config{BaseURL: " http://h:1/ "}); err != nil {
		t.Errorf("surrounding spaces: %v", err)
	}
}

// TestEncodeError checks that unencodable params fail locally.
func TestEncodeError(t *testing.T) {
	srv, rec := serve(t, func(w http.ResponseWriter, r recordedRequest) { writeBody(w, 200, `{}`) })
	_, err := newTestClient(t, testConfig(srv.URL)).Evaluate(t.Context(), "i", map[string]any{"f": func() {}})
	var unsupported *json.UnsupportedTypeError
	if !errors.As(err, &unsupported) {
		t.Fatalf("err = %v, want a json.UnsupportedTypeError", err)
	}
	if rec.count() != 0 {
		t.Error("request was sent")
	}
}
